import type { NormalisedStackEntry, VulnerabilityOut } from "../../freshness";
import { packageKey } from "../../ecosystems/topics";
import { type Ecosystem, versionKey } from "../../ecosystems/versions";

/** A stack entry as this sync sees it: normalised, with when the agent first reported it. */
export interface SyncEntry extends NormalisedStackEntry {
  firstSeenAt: number;
}

/** An entry as the agent spelled it (`^4.19.1`, `==2.10`): one stored row each. */
export const entryKey = (e: { ecosystem: string; key: string; version: string }) => `${e.ecosystem}\u0000${e.key}\u0000${e.version}`;

/**
 * The package at the version an entry pins, canonical (`^4.19.1`, `~4.19.1`, `=4.19.1`, `v4.19.1` and
 * `4.19.1` are one; PyPI `==2.10` and `2.10.0` too). This is what advisories are about and what the agent
 * has been told of, so vulnerabilities join entries, and "reported before" is judged, by it; never by the
 * spelling. An unreadable version keeps its text (no advisory names it).
 */
const pinKey = (ecosystem: string, key: string, pinned: string | null, version: string) =>
  `${ecosystem}\u0000${key}\u0000${pinned === null ? `\u0001${version}` : versionKey(ecosystem as Ecosystem, pinned)}`;
type Pinnable = { ecosystem: string; key: string; pinned: string | null; version: string };
/**
 * A sync asks an entry's key many times (first seen, reported now, its vulnerabilities), so the key is
 * kept on the entry under a symbol (JSON and `Object.keys` do not see it), with the fields it was made
 * of: a spread copy carries it, and one with another ecosystem, key, pin or version makes its own. A
 * WeakMap from entry to key cost more than making the keys: an ephemeron per entry, every request,
 * for the collector to trace.
 */
const PIN_KEY: unique symbol = Symbol("pinKey");
interface HeldKey {
  k: string;
  ecosystem: string;
  key: string;
  pinned: string | null;
  version: string;
}
type Keyed = Pinnable & { [PIN_KEY]?: HeldKey };
export function entryPinKey(e: Pinnable): string {
  const h = (e as Keyed)[PIN_KEY];
  if (h !== undefined && h.version === e.version && h.pinned === e.pinned && h.key === e.key && h.ecosystem === e.ecosystem) return h.k;
  const k = pinKey(e.ecosystem, e.key, e.pinned, e.version);
  (e as Keyed)[PIN_KEY] = { k, ecosystem: e.ecosystem, key: e.key, pinned: e.pinned, version: e.version };
  return k;
}
/** `copy` is `e` with other fields only (its ecosystem, key, pinned and version the same): the same key, not made again. */
export function copyPinKey<T extends Pinnable>(e: Pinnable, copy: T): T {
  entryPinKey(e);
  // A spread copy of a keyed entry already carries it.
  if ((copy as Keyed)[PIN_KEY] === undefined) (copy as Keyed)[PIN_KEY] = (e as Keyed)[PIN_KEY];
  return copy;
}
// The matcher reports `version` as pinnedVersion() of the entry's text, the same function that set `pinned`.
export const vulnPinKey = (v: VulnerabilityOut) => pinKey(v.ecosystem, packageKey(v.ecosystem as Ecosystem, v.name), v.version, v.version);
