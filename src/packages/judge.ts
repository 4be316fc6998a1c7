/**
 * The version question of a package check: what the version asked (exact, a range, a tag, a Go
 * query) comes to against one registry answer, and what could not be verified.
 */
import { iso } from "../core/clock";
import { goModuleMajor, goVersionFitsPath, isGoPseudoVersion, majorOf, resolveRange, versionKey } from "../ecosystems/versions";
import { isRetracted } from "../sources/goproxy";
import type { Entry, Failure, Flags, Known } from "./facts";

/**
 * A cached list older than this does not prove a version missing (it may have been published
 * since): the name is looked up again, or the answer says it could not be checked.
 */
const VERSION_RECHECK_MS = 10 * 60_000;

/** What one entry's version question comes to, against one registry answer. */
export interface Judgement {
  /** null: no version asked, or it could not be verified. */
  versionFound: boolean | null;
  /** The version whose safety is judged (display form), or null. */
  judged: string | null;
  /** For a range, tag or query (or a Go version published with `+incompatible`): the version picked. */
  resolved: string | null;
  flags: Flags | null;
  /** Added to VERSION_NOT_FOUND. */
  note?: string;
  /** The version could not be verified (a stale list not re-checked, a mirror without tags, a failed probe). */
  unverified?: { code: "NOT_CHECKED" | "UNVERIFIED_TAG" | "REGISTRY_UNREACHABLE"; message: string };
}

export type ProbeResult = { status: "found"; version: string } | { status: "missing" } | Failure;

export const probeKey = (rkey: string, q: string) => `${rkey}\u0000${q}`;

/** The query a Go entry needs the proxy's `.info` for: a pseudo-version (never in `@v/list`), a branch or a commit. */
export const probeQuery = (e: Entry): string | null =>
  e.eco !== "go" || !e.spec
    ? null
    : e.spec.kind === "probe"
      ? e.spec.query
      : e.spec.kind === "exact" && isGoPseudoVersion(e.spec.version)
        ? e.spec.version
        : null;

function goMajorNote(path: string, version: string): string | undefined {
  const major = majorOf("go", version);
  const { base, major: pathMajor } = goModuleMajor(path);
  if (major === null) return undefined;
  if (major >= 2 && pathMajor !== major)
    return `; Go modules keep major version ${major} at the module path ${base}/v${major}${pathMajor === 1 ? " (or as +incompatible when the repository has no go.mod)" : ""}`;
  if (major < 2 && pathMajor >= 2) return `; the module path ${path} holds v${pathMajor}.x.y versions only`;
  return undefined;
}

/**
 * The version question of one entry against one registry answer. `recheck` is how this request's
 * attempt to look the name up again ended, when a cached list did not have the version asked.
 */
export function judge(
  e: Entry,
  k: Extract<Known, { status: "found" }>,
  probe: ProbeResult | undefined,
  at: number,
  recheck?: Failure,
): Judgement {
  const sum = k.summary;
  const flagsOf = (key: string | null) =>
    key ? (k.allFlags?.[key] ?? (key === (e.vkey ?? sum.latestKey) ? k.flags : null) ?? null) : null;
  const display = (key: string) => k.allFlags?.[key]?.v ?? key;
  const spec = e.spec;
  if (!spec) return { versionFound: null, judged: sum.latestVersion, resolved: null, flags: k.flags ?? flagsOf(sum.latestKey) };
  const stale = (what: string): Judgement["unverified"] => {
    if (at - k.fetchedAt <= VERSION_RECHECK_MS) return undefined;
    const why = `${what} is not among the versions Lore cached at ${iso(k.fetchedAt)} (it may have been published since)`;
    return recheck && !recheck.notChecked
      ? { code: "REGISTRY_UNREACHABLE", message: `${why}; looking it up again failed: ${recheck.reason}` }
      : { code: "NOT_CHECKED", message: `${why}; not looked up again in this request: lookup budget reached` };
  };
  const unprobed = (what: string): Judgement["unverified"] =>
    probe?.status === "error" && !probe.notChecked
      ? { code: "REGISTRY_UNREACHABLE", message: `could not verify ${what} with the Go module proxy: ${probe.reason}` }
      : { code: "NOT_CHECKED", message: `${what} was not looked up in this request: lookup budget reached` };
  switch (spec.kind) {
    case "invalid":
      return { versionFound: false, judged: null, resolved: null, flags: null, note: spec.reason };
    case "exact": {
      let found = k.versionFound ?? k.versions?.includes(e.vkey!) ?? false;
      let resolved: string | null = null;
      if (!found && probeQuery(e)) {
        if (probe?.status === "missing")
          return {
            versionFound: false,
            judged: spec.version,
            resolved: null,
            flags: null,
            note: "; the Go module proxy has no such version (404)",
          };
        if (probe?.status !== "found")
          return {
            versionFound: null,
            judged: spec.version,
            resolved: null,
            flags: null,
            unverified: unprobed(`the pseudo-version ${spec.version}`),
          };
        found = true;
        if (probe.version !== spec.version) resolved = probe.version;
      }
      const flags = flagsOf(e.vkey);
      // Go: `v2.0.0` asked, `v2.0.0+incompatible` published (one tag; the go command accepts either).
      if (flags?.v && flags.v !== spec.version) resolved = flags.v;
      if (e.eco === "go" && found && !goVersionFitsPath(e.rkey, resolved ?? spec.version)) {
        return {
          versionFound: false,
          judged: spec.version,
          resolved: null,
          flags: null,
          note: goMajorNote(e.rkey, spec.version) ?? `; ${spec.version} does not fit the module path ${e.rkey}`,
        };
      }
      if (!found) {
        const unverified = stale(`version ${spec.version}`);
        return {
          versionFound: unverified ? null : false,
          judged: spec.version,
          resolved: null,
          flags: null,
          note: e.eco === "go" ? goMajorNote(e.rkey, spec.version) : undefined,
          unverified,
        };
      }
      return { versionFound: true, judged: resolved ?? spec.version, resolved, flags };
    }
    case "range": {
      const versions = k.versions ?? [];
      const all = k.allFlags ?? {};
      // Installers skip yanked releases unless pinned exactly (PEP 592; cargo likewise); Go skips retracted ones.
      const candidates = versions.filter((v) => {
        if (e.eco !== "npm" && all[v]?.y !== undefined) return false;
        return !(e.eco === "go" && sum.retracted.some((r) => isRetracted(all[v]?.v ?? v, r)));
      });
      const key = resolveRange(e.eco, spec.spec, candidates, {
        latest: e.eco === "npm" ? (sum.distTags?.latest ?? sum.latestKey) : sum.latestKey,
        deprecated: (v) => all[v]?.d !== undefined,
      });
      if (!key) {
        const unverified = stale(`no version satisfying ${e.version}`);
        return { versionFound: unverified ? null : false, judged: null, resolved: null, flags: null, unverified };
      }
      const shown = display(key);
      return { versionFound: true, judged: shown, resolved: shown, flags: all[key] ?? null };
    }
    case "tag": {
      const target = sum.distTags?.[spec.tag];
      if (target) return { versionFound: true, judged: target, resolved: target, flags: flagsOf(versionKey(e.eco, target)) };
      const tags = Object.keys(sum.distTags ?? {});
      if (!sum.distTagsComplete) {
        return {
          versionFound: null,
          judged: null,
          resolved: null,
          flags: null,
          unverified: {
            code: "UNVERIFIED_TAG",
            message: `the registry answered from a mirror that keeps only some dist-tags (${tags.join(", ") || "none"}), so Lore could not verify the tag "${spec.tag}"`,
          },
        };
      }
      const unverified = stale(`the dist-tag "${spec.tag}"`);
      return {
        versionFound: unverified ? null : false,
        judged: null,
        resolved: null,
        flags: null,
        note: `; the package's dist-tags are ${tags.join(", ") || "none"}`,
        unverified,
      };
    }
    case "probe": {
      if (probe?.status === "found") {
        return {
          versionFound: true,
          judged: probe.version,
          resolved: probe.version,
          flags: k.allFlags?.[versionKey("go", probe.version)] ?? null,
        };
      }
      if (probe?.status === "missing")
        return {
          versionFound: false,
          judged: null,
          resolved: null,
          flags: null,
          note: `; the Go module proxy cannot resolve "${spec.query}" for this module (404)`,
        };
      return { versionFound: null, judged: null, resolved: null, flags: null, unverified: unprobed(`"${spec.query}"`) };
    }
  }
}
