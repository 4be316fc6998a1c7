/**
 * Version order and OSV range matching, each ecosystem by its own rules:
 *   npm, cargo  semver (`semver`), where a 0.x minor bump is breaking (`^0.2.3` = `<0.3.0`);
 *   pypi        PEP 440 (`@renovatebot/pep440`): `2.0` = `2.0.0`, `2.0rc1` < `2.0` < `2.0.post1`, epochs;
 *   go          Go semver: a `v` prefix, `+incompatible` builds, pseudo-versions are prereleases,
 *               and a major version >= 2 lives at its own module path (`…/v2`).
 */
import { semver } from "./semver-lazy.cjs";
// Each from its own file: the package's index also requires its `inc`/`major`/`minor` helpers, and
// the bundler cannot leave out what a CommonJS module requires.
import * as pep440Version from "@renovatebot/pep440/lib/version";
import * as pep440Operator from "@renovatebot/pep440/lib/operator";
import * as pep440Specifier from "@renovatebot/pep440/lib/specifier";
import { LruCache } from "../core/cache";

const pep440 = {
  explain: pep440Version.explain,
  valid: pep440Version.valid,
  compare: pep440Operator.compare,
  validRange: pep440Specifier.validRange,
  maxSatisfying: pep440Specifier.maxSatisfying,
};

export const ECOSYSTEMS = ["npm", "pypi", "go", "cargo"] as const;
export type Ecosystem = (typeof ECOSYSTEMS)[number];

const ECOSYSTEM_ALIASES: Record<string, Ecosystem> = {
  npm: "npm",
  pypi: "pypi",
  python: "pypi",
  pip: "pypi",
  go: "go",
  golang: "go",
  cargo: "cargo",
  "crates.io": "cargo",
  crates: "cargo",
  rust: "cargo",
};

/** `PyPI`, `crates.io`, `Go` (OSV spellings) and the contract's `npm|pypi|go|cargo` → ours. */
export function parseEcosystem(s: string | undefined | null): Ecosystem | null {
  if (!s) return "npm";
  return ECOSYSTEM_ALIASES[s.trim().toLowerCase()] ?? null;
}

/** OSV's ecosystem strings (case-sensitive there). */
export const OSV_ECOSYSTEM: Record<Ecosystem, string> = { npm: "npm", pypi: "PyPI", go: "Go", cargo: "crates.io" };

const goToSemver = (v: string): string | null => {
  const m = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(\+incompatible)?$/.exec(v.trim());
  return m ? m[1]! : null;
};

/**
 * Reading a version is a parse (semver, PEP 440) and a sync reads each of its 500 entries' versions
 * several times, and the same ones on every call: the answers of the three readers below are held
 * per isolate, bounded by count and size (versions are the callers' text).
 */
export const VERSION_MEMO_BYTES = 2 * 1024 * 1024;
const memo = new LruCache<string, string | null>({ maxEntries: 20_000, maxBytes: VERSION_MEMO_BYTES });
/** Longer texts are read every time (no version is this long; a range rarely). */
const MEMO_MAX_TEXT = 256;
function memoised<T extends string | null>(kind: string, eco: Ecosystem, v: string, f: (eco: Ecosystem, v: string) => T): T {
  if (v.length > MEMO_MAX_TEXT) return f(eco, v);
  const k = `${kind}${eco}\u0000${v}`;
  const hit = memo.get(k);
  if (hit !== undefined) return hit as T;
  const r = f(eco, v);
  memo.set(k, r, 96 + 2 * (k.length + (r?.length ?? 0)));
  return r;
}
/**
 * A plain `MAJOR.MINOR.PATCH` of npm or Cargo (no prefix, prerelease, build or leading zero, each
 * number safe) is its own clean, pinned and canonical form: one regular expression answers it, cheaper
 * than the memo's lookup, and most stack entries are such versions.
 */
const PLAIN_SEMVER = /^(?:0|[1-9]\d{0,14})\.(?:0|[1-9]\d{0,14})\.(?:0|[1-9]\d{0,14})$/;
const plainSemver = (eco: Ecosystem, v: string) => (eco === "npm" || eco === "cargo") && PLAIN_SEMVER.test(v);

/** For tests: what the version memo holds. */
export const versionMemoSize = () => ({ entries: memo.size, bytes: memo.bytes, parsed: { entries: parsed.size, bytes: parsed.bytes } });

/** A version in the ecosystem's canonical form, or null when it is not a version there. */
export function cleanVersion(eco: Ecosystem, v: string): string | null {
  if (plainSemver(eco, v)) return v;
  return memoised("c", eco, v, cleanVersionOnce);
}
function cleanVersionOnce(eco: Ecosystem, v: string): string | null {
  const s = v.trim();
  if (!s || s.length > 128) return null;
  switch (eco) {
    case "npm":
    case "cargo": {
      const p = semver().valid(s.replace(/^[=v]+/, ""));
      return p;
    }
    case "pypi":
      return pep440.valid(s) ? s : null;
    case "go": {
      const g = goToSemver(s);
      if (!g || !semver().valid(g)) return null;
      return s.startsWith("v") ? s : `v${s}`;
    }
  }
}

/**
 * The version a stack entry pins: an exact version as is, or for a range (`^1.2.3`, `~=2.0`,
 * `>=1.4`, Cargo's `>=1.2, <1.5`) its lowest matching version, the one a fresh install could still
 * resolve to. PyPI: the lower bound of the specifier list (`>=`, `~=`, `==`, `===`, `==2.1.*`, `>`).
 */
export function pinnedVersion(eco: Ecosystem, v: string): string | null {
  if (plainSemver(eco, v)) return v;
  return memoised("p", eco, v, pinnedVersionOnce);
}
function pinnedVersionOnce(eco: Ecosystem, v: string): string | null {
  const exact = cleanVersion(eco, v);
  if (exact) return exact;
  try {
    if (eco === "npm" || eco === "cargo") {
      const r = eco === "cargo" ? cargoRange(v) : semver().validRange(v.trim());
      const min = r ? semver().minVersion(r) : null;
      return min ? min.version : null;
    }
    if (eco === "pypi") {
      if (!pep440.validRange(v.trim())) return null;
      for (const clause of v.split(",")) {
        const m = /^\s*(===|==|~=|>=|>)\s*([^\s]+?)(\.\*)?\s*$/.exec(clause);
        if (m && pep440.valid(m[2]!)) return m[2]!;
      }
      return null;
    }
    if (eco === "go") {
      const m = /^(?:>=|>)\s*(v?\d+\.\d+\.\d+\S*)$/.exec(v.trim());
      return m ? cleanVersion("go", m[1]!) : null;
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * A version's canonical key: equal keys for equal versions (PyPI `2.0` = `2.0.0`, npm `v1.2.3` =
 * `1.2.3`), so versions can be matched as plain strings (in SQL too). Unreadable versions keep
 * their trimmed text.
 */
export function versionKey(eco: Ecosystem, v: string): string {
  if (plainSemver(eco, v)) return v;
  return memoised("k", eco, v, versionKeyOnce);
}
function versionKeyOnce(eco: Ecosystem, v: string): string {
  const s = v.trim();
  if (eco === "pypi") {
    const p = pep440.explain(s);
    if (!p) return s;
    const release = [...p.release];
    while (release.length > 1 && release.at(-1) === 0) release.pop();
    // The library's types say arrays; at run time post and dev are numbers (or null).
    const x = p as unknown as { pre: (string | number)[] | null; post: number | null; dev: number | null };
    return `${p.epoch ? `${p.epoch}!` : ""}${release.join(".")}${x.pre ? x.pre.join("") : ""}${x.post !== null ? `.post${x.post}` : ""}${x.dev !== null ? `.dev${x.dev}` : ""}${p.local ? `+${p.local}` : ""}`.toLowerCase();
  }
  // Go: `v2.0.0` and `v2.0.0+incompatible` name the same tag of a module path (only one of them can
  // exist there), and the go command accepts the first for the second.
  if (eco === "go") return cleanVersion(eco, s)?.replace(/\+incompatible$/, "") ?? s;
  return cleanVersion(eco, s) ?? s;
}

/**
 * Parsed semver versions for comparing: a topic's releases are sorted and compared on every
 * freshness read (hundreds of versions, each parsed twice per comparison), always the same ones.
 * semver's `compare` takes a parsed version as it is. A text semver cannot parse is given back as
 * text, so `compare` throws on it as before.
 */
type SemVer = InstanceType<ReturnType<typeof semver>["SemVer"]>;
const parsed = new LruCache<string, SemVer>({ maxEntries: 20_000, maxBytes: VERSION_MEMO_BYTES });
function semverOf(v: string): SemVer | string {
  if (v.length > MEMO_MAX_TEXT) return v;
  let p = parsed.get(v);
  if (p === undefined) {
    try {
      p = new (semver().SemVer)(v);
    } catch {
      return v;
    }
    parsed.set(v, p, 160 + 2 * v.length);
  }
  return p;
}

/** semver's order of two versions, each parsed once (semverOf). */
function compareSemver(a: string, b: string): number {
  const pa = semverOf(a);
  const pb = semverOf(b);
  return typeof pa === "string" || typeof pb === "string" ? semver().compare(pa, pb) : pa.compare(pb);
}
/** An npm or Cargo version without its `v`/`=` prefixes (most have none: no new string then). */
const unprefixed = (v: string) => (v.charCodeAt(0) === 118 || v.charCodeAt(0) === 61 ? v.replace(/^[=v]+/, "") : v);

/** Sign of a - b in the ecosystem's order; both must be valid (see cleanVersion). */
export function compareVersions(eco: Ecosystem, a: string, b: string): number {
  switch (eco) {
    case "npm":
    case "cargo":
      return compareSemver(unprefixed(a), unprefixed(b));
    case "pypi":
      return pep440.compare(a, b);
    case "go":
      return compareSemver(goToSemver(a) ?? "0.0.0", goToSemver(b) ?? "0.0.0");
  }
}

export function isPrerelease(eco: Ecosystem, v: string): boolean {
  if (eco === "pypi") {
    const p = pep440.explain(v);
    return !!p && (p.is_prerelease || p.is_devrelease);
  }
  const s = eco === "go" ? goToSemver(v) : v.replace(/^[=v]+/, "");
  return !!s && (semver().prerelease(s)?.length ?? 0) > 0;
}

/** Major version (Go: from the version, which must agree with the module path's /vN). */
export function majorOf(eco: Ecosystem, v: string): number | null {
  if (eco === "pypi") {
    const p = pep440.explain(v);
    return p ? (p.release[0] ?? 0) : null;
  }
  const s = eco === "go" ? goToSemver(v) : v.replace(/^[=v]+/, "");
  return s && semver().valid(s) ? semver().major(s) : null;
}

/**
 * Whether going from `prev` to `next` may break callers by the version numbers alone: a new
 * major; for semver ecosystems also a 0.x minor bump (and 0.0.x patch). PyPI projects are often not
 * semver (Django's A.0), so only the first release segment counts there.
 */
export function isBreakingBump(eco: Ecosystem, prev: string, next: string): boolean {
  if (eco === "pypi") {
    const a = pep440.explain(prev);
    const b = pep440.explain(next);
    if (!a || !b) return false;
    if ((b.epoch ?? 0) !== (a.epoch ?? 0)) return true;
    const [a0 = 0, a1 = 0] = a.release;
    const [b0 = 0, b1 = 0] = b.release;
    return b0 > a0 || (a0 === 0 && b0 === 0 && b1 > a1);
  }
  const p = eco === "go" ? goToSemver(prev) : prev.replace(/^[=v]+/, "");
  const n = eco === "go" ? goToSemver(next) : next.replace(/^[=v]+/, "");
  if (!p || !n || !semver().valid(p) || !semver().valid(n)) return false;
  if (semver().major(n) > semver().major(p)) return true;
  if (semver().major(n) === 0 && semver().major(p) === 0) {
    if (semver().minor(n) > semver().minor(p)) return true;
    if (semver().minor(n) === 0 && semver().minor(p) === 0 && semver().patch(n) > semver().patch(p)) return true;
  }
  return false;
}

/**
 * Go: `github.com/foo/bar/v3` is major 3 of `github.com/foo/bar`. Returns the path without the
 * major suffix and the major it names (1 when none; gopkg.in's `.v3` form too).
 */
export function goModuleMajor(path: string): { base: string; major: number } {
  const m = /^(.*)\/v(\d+)$/.exec(path);
  if (m && Number(m[2]) >= 2) return { base: m[1]!, major: Number(m[2]) };
  const g = /^(gopkg\.in\/.*)\.v(\d+)$/.exec(path);
  if (g) return { base: g[1]!, major: Number(g[2]) };
  return { base: path, major: 1 };
}

/** Whether a Go version may live at this module path (v2+ needs /vN unless `+incompatible`). */
export function goVersionFitsPath(path: string, version: string): boolean {
  const major = majorOf("go", version);
  if (major === null) return false;
  const { major: pathMajor } = goModuleMajor(path);
  if (major >= 2) return pathMajor === major || (pathMajor === 1 && version.endsWith("+incompatible"));
  return pathMajor === 1 && !version.endsWith("+incompatible");
}

// ---- OSV ranges -------------------------------------------------------------------------------

export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}
export interface OsvRange {
  type: string;
  events: OsvEvent[];
  /** NPM_RANGE: the affected versions as an npm semver range (the historical npm reports). */
  expr?: string;
  /** CARGO_UNAFFECTED: Cargo requirements; a version that meets none of them is affected (RustSec). */
  unaffected?: string[];
}

/** Compares within one OSV range: SEMVER ranges use semver whatever the ecosystem (no `v`). */
function rangeCompare(eco: Ecosystem, type: string, a: string, b: string): number | null {
  if (type === "SEMVER") {
    const x = semver().valid(a.replace(/^v/, "")) ?? goToSemver(a);
    const y = semver().valid(b.replace(/^v/, "")) ?? goToSemver(b);
    return x && y ? semver().compare(x, y) : null;
  }
  const x = cleanVersion(eco, a);
  const y = cleanVersion(eco, b);
  return x && y ? compareVersions(eco, x, y) : null;
}

/**
 * OSV's evaluation (ossf.github.io/osv-schema, "Evaluation"): walk the events in version order;
 * `introduced` (`"0"` = from the first version) turns affected on, `fixed` off at that version,
 * `last_affected` off after it; `limit` bounds the whole range (versions >= a limit are never
 * affected; `"*"` is no limit). GIT ranges are commits, not versions: they never match here.
 */
export function inOsvRange(eco: Ecosystem, version: string, range: OsvRange): boolean {
  if (range.type === "NPM_RANGE" || range.type === "CARGO_UNAFFECTED") {
    const v = semver().valid(version.replace(/^[=v]+/, ""));
    if (!v) return false;
    if (range.type === "NPM_RANGE")
      return !!range.expr && semver().validRange(range.expr) !== null && semver().satisfies(v, range.expr, { includePrerelease: true });
    // An unreadable requirement is not taken as "safe": only requirements Cargo would accept count.
    return !(range.unaffected ?? []).some((req) => {
      const r = cargoRange(req);
      return r !== null && semver().satisfies(v, r, { includePrerelease: true });
    });
  }
  if (range.type !== "SEMVER" && range.type !== "ECOSYSTEM") return false;
  const cmp = (a: string, b: string) => rangeCompare(eco, range.type, a, b);
  if (cmp(version, version) === null) return false;
  const limits = range.events.map((e) => e.limit).filter((l): l is string => typeof l === "string" && l !== "*");
  if (limits.length && !limits.some((l) => (cmp(version, l) ?? 1) < 0)) return false;
  const events = range.events
    .filter((e) => e.introduced !== undefined || e.fixed !== undefined || e.last_affected !== undefined)
    .map((e) => ({ e, v: (e.introduced ?? e.fixed ?? e.last_affected)! }))
    .filter(({ v }) => v === "0" || cmp(v, v) !== null)
    .sort((a, b) => (a.v === "0" ? -1 : b.v === "0" ? 1 : cmp(a.v, b.v)!));
  let affected = false;
  for (const { e, v } of events) {
    if (e.introduced !== undefined) {
      if (v === "0" || cmp(version, v)! >= 0) affected = true;
    } else if (e.fixed !== undefined) {
      if (cmp(version, v)! >= 0) affected = false;
    } else if (e.last_affected !== undefined) {
      if (cmp(version, v)! > 0) affected = false;
    }
  }
  return affected;
}

/** Equal in the ecosystem's order (PyPI `2.10` = `2.10.0`), or the same string when either is unreadable. */
export function sameVersion(eco: Ecosystem, a: string, b: string): boolean {
  if (a === b) return true;
  const x = cleanVersion(eco, a);
  const y = cleanVersion(eco, b);
  return !!x && !!y && compareVersions(eco, x, y) === 0;
}

/** Whether `version` is affected by one OSV `affected[]` entry (explicit versions or ranges). */
export function osvAffects(eco: Ecosystem, version: string, affected: { ranges: OsvRange[]; versions: string[] }): boolean {
  const clean = cleanVersion(eco, version) ?? version;
  if (affected.versions.some((v) => sameVersion(eco, v, version))) return true;
  return affected.ranges.some((r) => inOsvRange(eco, clean, r));
}

/**
 * The shipped malicious snapshot writes versions as `*` (all), `?` (unknown), or a comma list of
 * versions and ranges (`>=1.0.0 <1.2.0`, `<=2.0.0`). Returns true/false, or null for `?`.
 */
export function inSnapshotVersions(eco: Ecosystem, version: string, spec: string): boolean | null {
  const s = spec.trim();
  if (s === "*") return true;
  if (s === "?" || s === "") return null;
  const clean = cleanVersion(eco, version) ?? version;
  for (const part of s
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (!/^[<>=]/.test(part)) {
      if (sameVersion(eco, part, version)) return true;
      continue;
    }
    const events: OsvEvent[] = [];
    for (const bound of part.split(/\s+/)) {
      const m = /^(>=|<=|<)(.+)$/.exec(bound);
      if (!m) continue;
      if (m[1] === ">=") events.push({ introduced: m[2]! });
      else if (m[1] === "<") events.push({ fixed: m[2]! });
      else events.push({ last_affected: m[2]! });
    }
    if (!events.some((e) => e.introduced !== undefined)) events.unshift({ introduced: "0" });
    if (inOsvRange(eco, clean, { type: "ECOSYSTEM", events })) return true;
  }
  return false;
}

/**
 * A Cargo version requirement (doc.rust-lang.org/cargo/reference/specifying-dependencies.html) as
 * a node-semver range, or null when Cargo would refuse it. Comparators are separated by commas
 * (`>=1.2, <1.5`); one without an operator is a caret requirement (`1.2` = `^1.2`); `~`, `=`, `*`
 * and `1.*` mean what they mean in npm. npm-only syntax (`||`, `1 - 2`, space-separated
 * comparators) is not Cargo's.
 */
export function cargoRange(spec: string): string | null {
  const parts = spec.split(",").map((p) => p.trim());
  if (!parts.length || parts.some((p) => !p)) return null;
  const out: string[] = [];
  for (const p of parts) {
    const m =
      /^(\^|~|=|>=|<=|>|<)?\s*(\*|[xX]|\d+(?:\.(?:\d+|\*|[xX]))?(?:\.(?:\d+|\*|[xX]))?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/.exec(p);
    if (!m) return null;
    const [, op, v] = m;
    const wildcard = /(^|\.)[*xX]/.test(v!);
    if (op && wildcard && op !== "=") return null;
    out.push(op ? `${op}${v}` : wildcard ? v! : `^${v}`);
  }
  const joined = out.join(" ");
  return semver().validRange(joined) ? joined : null;
}

/** Go pseudo-version (`v0.0.0-20191109021931-daa7c04131f5`, `v1.2.4-0.2024…-abcdef123456`), per cmd/go's pattern. */
export const isGoPseudoVersion = (v: string) =>
  /^v\d+\.(?:0\.0-|\d+\.\d+-(?:[^+]*\.)?0\.)\d{14}-[A-Za-z0-9]+(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/.test(v.trim());

/**
 * What a requested `version` means in its ecosystem:
 *   exact  one version (npm/cargo `1.2.3`, `=1.2.3`; PyPI `2.0`, `==2.0`, `===2.0`; Go `v1.2.3`,
 *          a pseudo-version, `v2.0.0+incompatible`). Cargo's bare `1.2.3` names that release here
 *          (write `^1.2.3` for the requirement Cargo.toml's bare form means).
 *   range  npm semver range; Cargo requirement (`>=1.0, <2`, `1.2`, `~1.2.3`, `*`); PEP 440
 *          specifiers (`~=2.0`, `==1.*`, `!=2.0.1,>=2`); Go queries (`latest`, `upgrade`, `v1`,
 *          `v1.2`, `<v1.3.0`, `>=v1.2.0`).
 *   tag    npm dist-tag (`latest`, `next`, `canary`): anything url-safe that is not a range.
 *   probe  Go branch or commit (`master`, `a1b2c3d`), resolved by the proxy's `.info`.
 *   invalid  not a version there, with the reason.
 */
export type VersionSpec =
  | { kind: "exact"; version: string }
  | { kind: "range"; spec: string }
  | { kind: "tag"; tag: string }
  | { kind: "probe"; query: string }
  | { kind: "invalid"; reason: string };

export function parseVersionSpec(eco: Ecosystem, raw: string): VersionSpec {
  const s = raw.trim();
  switch (eco) {
    case "npm": {
      const exact = cleanVersion(eco, s);
      if (exact) return { kind: "exact", version: exact };
      if (semver().validRange(s)) return { kind: "range", spec: s };
      // npm refuses dist-tags that are valid ranges and tags that need URL encoding.
      if (/^[A-Za-z0-9][A-Za-z0-9._~-]*$/.test(s)) return { kind: "tag", tag: s };
      return { kind: "invalid", reason: `"${s}" is not an npm version, range or dist-tag` };
    }
    case "cargo": {
      const exact = cleanVersion(eco, s);
      if (exact) return { kind: "exact", version: exact };
      if (cargoRange(s)) return { kind: "range", spec: s };
      return {
        kind: "invalid",
        reason: `"${s}" is not a Cargo version requirement (comparators are separated by commas, as in ">=1.2, <1.5")`,
      };
    }
    case "pypi": {
      const pinned = /^===?\s*([^,;\s*]+)$/.exec(s);
      if (pinned && pep440.valid(pinned[1]!)) return { kind: "exact", version: pinned[1]! };
      if (pep440.valid(s)) return { kind: "exact", version: s };
      if (/[<>=!~]/.test(s) && pep440.validRange(s)) return { kind: "range", spec: s };
      return { kind: "invalid", reason: `"${s}" is not a PEP 440 version or specifier` };
    }
    case "go": {
      const exact = cleanVersion(eco, s);
      if (exact) return { kind: "exact", version: exact };
      if (s === "latest" || s === "upgrade" || /^v\d+(\.\d+)?$/.test(s) || /^(<=|>=|<|>)v?\d+\.\d+\.\d+[0-9A-Za-z.+-]*$/.test(s))
        return { kind: "range", spec: s };
      if (s === "patch" || s === "none")
        return { kind: "invalid", reason: `"${s}" is relative to the version your go.mod requires; give that version instead` };
      if (/^[A-Za-z0-9][A-Za-z0-9._/+-]{0,99}$/.test(s)) return { kind: "probe", query: s };
      return { kind: "invalid", reason: `"${s}" is not a Go version or version query` };
    }
  }
}

/**
 * Go version queries (go.dev/ref/mod#version-queries) over a module's versions (retracted ones
 * already left out): `latest`/`upgrade` = the given latest; a prefix (`v1`, `v1.2`) = its highest
 * version; `<`/`<=` the highest below, `>`/`>=` the LOWEST above (Go's rule: the closest to the
 * target). Releases are preferred over prereleases.
 */
function goQuery(spec: string, versions: string[], latest: string | null): string | null {
  if (spec === "latest" || spec === "upgrade") return latest;
  const valid = versions.filter((v) => cleanVersion("go", v)).sort((a, b) => compareVersions("go", a, b));
  const prefer = (list: string[], pickLast: boolean) => {
    const stable = list.filter((v) => !isPrerelease("go", v));
    const from = stable.length ? stable : list;
    return (pickLast ? from.at(-1) : from[0]) ?? null;
  };
  const prefix = /^v(\d+)(?:\.(\d+))?$/.exec(spec);
  if (prefix) {
    return prefer(
      valid.filter(
        (v) => majorOf("go", v) === Number(prefix[1]) && (prefix[2] === undefined || semver().minor(goToSemver(v)!) === Number(prefix[2])),
      ),
      true,
    );
  }
  const cmp = /^(<=|>=|<|>)(.+)$/.exec(spec);
  const target = cmp ? cleanVersion("go", cmp[2]!.startsWith("v") ? cmp[2]! : `v${cmp[2]}`) : null;
  if (!cmp || !target) return null;
  const c = (v: string) => compareVersions("go", v, target);
  const op = cmp[1]!;
  const list = valid.filter((v) => (op === "<" ? c(v) < 0 : op === "<=" ? c(v) <= 0 : op === ">" ? c(v) > 0 : c(v) >= 0));
  return prefer(list, op.startsWith("<"));
}

/**
 * A version requirement that is not one exact version: an npm semver range (`^4.17.0`, `~1.2`,
 * `>=2 <3`), a Cargo requirement (`>=1.0, <2`), a PEP 440 specifier (`>=2.0,<3`, `~=2.0`) or a Go
 * query (`latest`, `v1.2`, `>=v1.2.0`). Returns the version of `versions` a fresh install would
 * pick, or null when none satisfies it; undefined when `spec` is not a range in this ecosystem.
 * npm picks as npm-pick-manifest does: the `latest` tag when it satisfies the range and is not
 * deprecated, else the highest satisfying version, non-deprecated ones first. Cargo and PyPI pick
 * the highest (stable releases first); Go follows its query rules (`opts.latest` is `@latest`).
 */
export function resolveRange(
  eco: Ecosystem,
  spec: string,
  versions: string[],
  opts: { latest?: string | null; deprecated?: (v: string) => boolean } = {},
): string | null | undefined {
  const s = spec.trim();
  try {
    if (eco === "npm" || eco === "cargo") {
      const range = eco === "cargo" ? cargoRange(s) : semver().validRange(s);
      if (!range) return undefined;
      const fits = versions.filter((v) => semver().valid(v) && semver().satisfies(v, range));
      if (eco === "cargo") return semver().maxSatisfying(fits, range) ?? null;
      const deprecated = opts.deprecated ?? (() => false);
      if (opts.latest && fits.includes(opts.latest) && !deprecated(opts.latest)) return opts.latest;
      const fresh = fits.filter((v) => !deprecated(v));
      return semver().maxSatisfying(fresh.length ? fresh : fits, range) ?? null;
    }
    if (eco === "pypi") {
      if (!/[<>=!~]/.test(s) || !pep440.validRange(s)) return undefined;
      const valid = versions.filter((v) => pep440.valid(v));
      // A specifier that names a prerelease admits prereleases (PEP 440, "Handling of pre-releases").
      const mentionsPre = s.split(",").some((c) => {
        const v = c
          .replace(/^\s*(===|==|~=|!=|>=|<=|>|<)\s*/, "")
          .replace(/\.\*\s*$/, "")
          .trim();
        return pep440.valid(v) && isPrerelease("pypi", v);
      });
      const stable = valid.filter((v) => !isPrerelease("pypi", v));
      if (mentionsPre) return pep440.maxSatisfying(valid, s, { prereleases: true }) ?? null;
      return pep440.maxSatisfying(stable, s) ?? pep440.maxSatisfying(valid, s, { prereleases: true }) ?? null;
    }
    if (eco === "go") {
      if (parseVersionSpec("go", s).kind !== "range") return undefined;
      return goQuery(s, versions, opts.latest ?? null);
    }
  } catch {
    return undefined;
  }
  return undefined;
}
