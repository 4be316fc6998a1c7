/**
 * The pre-install package check. Offline facts come from D1 in one batch (malicious reports,
 * hallucinated names, popular names and their typo neighbours, stored advisories, cached registry
 * answers with the version facts each question needs); only names the cache cannot answer go to
 * their registry, in parallel, within a subrequest budget, each with a timeout. A registry that
 * cannot be reached never yields `ok` and never `block` on a guess: the answer is `warn` with the
 * reason, unless an offline fact decides.
 *
 * Names: the registry cache and the per-request dedupe use the registry's own identity
 * (registryKey: npm and Go names are case-sensitive, PyPI and crates.io fold theirs); the offline
 * lists use the folded key (packageKey), so that `React` still finds `react` to point at.
 */
import { groupBy } from "../core/group";
import { DAY_MS, iso, now } from "../core/clock";
import { bulkStatements, jsonCols } from "../core/bulk";
import type { Env } from "../env";
import { packageKey, registryKey } from "../ecosystems/topics";
import {
  goModuleMajor,
  goVersionFitsPath,
  inSnapshotVersions,
  isGoPseudoVersion,
  majorOf,
  osvAffects,
  parseVersionSpec,
  resolveRange,
  versionKey,
  type Ecosystem,
  type VersionSpec,
} from "../ecosystems/versions";
import { ADV_COLS, advisoryFromRow, osvStatements, type AdvRowDb, type MaliciousRow } from "../freshness";
import { advisorySourcesRead, entryCoverage, type SourceRow } from "../freshness";
import { OSV_ECOSYSTEM } from "../ecosystems/versions";
import { osvQueryBatch, osvVuln, type OsvRecord } from "../sources/osv";
import { cratesLookup } from "../sources/crates";
import { goInfo, goLookup, isRetracted } from "../sources/goproxy";
import { SourceError, sourceCtx, type Lookup, type PackageFacts, type SourceCtx } from "../sources/http";
import { npmLookup } from "../sources/npm";
import { pypiLookup } from "../sources/pypi";
import { classify, keyHash, neighbourKeys, TYPO_MESSAGES, type TypoKind } from "./typo";
import type { CheckResult } from "./packages.schemas";

/**
 * Subrequests one Worker invocation may make, per Workers plan (developers.cloudflare.com/workers/
 * platform/limits): `WORKERS_PLAN` in wrangler.toml names the plan the service runs on.
 */
export const PLAN_SUBREQUESTS = { free: 50, paid: 1000 } as const;
/** Kept back from a check's registry lookups for the rest of its request (the OSV query, the quota, D1). */
const RESERVED_SUBREQUESTS = 10;
/** The free plan's lookup budget (and the warm-up's default). */
export const SUBREQUEST_BUDGET = PLAN_SUBREQUESTS.free - RESERVED_SUBREQUESTS;
/** A check's registry lookups: `PACKAGE_CHECK_SUBREQUESTS` when set, else the configured plan's limit less the reserve. */
export function lookupBudget(env: Pick<Env, "PACKAGE_CHECK_SUBREQUESTS" | "WORKERS_PLAN">): number {
  const explicit = Number(env.PACKAGE_CHECK_SUBREQUESTS);
  if (explicit > 0) return Math.floor(explicit);
  return (env.WORKERS_PLAN === "paid" ? PLAN_SUBREQUESTS.paid : PLAN_SUBREQUESTS.free) - RESERVED_SUBREQUESTS;
}
/** Workers keep at most 6 connections open per invocation; more would only queue (and time out queued). */
const CONCURRENCY = 6;
/** Lookups not started within this time of the check's start are not started: the answer says so. */
export const CHECK_DEADLINE_MS = 12_000;
/** Advisory records fetched from OSV in one check when Lore does not hold them yet. */
const MAX_OSV_RECORDS = 25;

/** The registry as a reader knows it, for messages ("could not verify with PyPI: unreachable"). */
export const REGISTRY_NAMES: Record<Ecosystem, string> = {
  npm: "the npm registry",
  pypi: "PyPI",
  go: "the Go module proxy",
  cargo: "crates.io",
};

/** A source failure in words: "unreachable (…)", "no answer within 4000 ms", "answered HTTP 503". */
function failureText(err: unknown): string {
  if (err instanceof SourceError) {
    const detail = err.message.replace(/^[^:]+: /, "");
    if (err.kind === "status") return `answered HTTP ${err.status}`;
    if (err.kind === "malformed") return `answered with a document Lore could not read (${detail})`;
    return detail;
  }
  return `lookup failed (${String((err as Error)?.message ?? err).slice(0, 200)})`;
}
/** Subrequests of one registry lookup (PyPI: JSON + Simple API; Go: list, @latest, .mod, first .info). */
export const COST: Record<Ecosystem, number> = { npm: 1, cargo: 1, pypi: 2, go: 4 };
const NEW_PACKAGE_DAYS = 30;
/**
 * found 6 h (popular names 24 h: the scheduled warm-up keeps them fresh); missing 1 h (a squatter
 * may register the name), except npm names with capitals, which npm no longer lets anyone publish.
 */
export const CACHE_TTL = { found: 6 * 3600_000, foundPopular: 24 * 3600_000, missing: 3600_000, missingUnpublishable: 24 * 3600_000 };
/** The shape of a registry_cache row's data; rows of another shape are not read (they expire). */
export const CACHE_FORMAT = 2;
/**
 * A cached list older than this does not prove a version missing (it may have been published
 * since): the name is looked up again, or the answer says it could not be checked.
 */
const VERSION_RECHECK_MS = 10 * 60_000;

const NAME_RULES: Record<Ecosystem, RegExp> = {
  npm: /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/i,
  pypi: /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/i,
  cargo: /^[a-z][a-z0-9_-]{0,63}$/i,
  go: /^[a-z0-9.-]+\.[a-z]{2,}(?:\/[A-Za-z0-9._~+-]+)*$/i,
};

export type Lookuper = (eco: Ecosystem, name: string, ctx: SourceCtx, popular: boolean) => Promise<Lookup>;
/** Go: what the proxy's `.info` says a version query (pseudo-version, branch, commit) is, or null (404/410). */
export type Prober = (module: string, query: string, ctx: SourceCtx) => Promise<{ version: string } | null>;

export const registryLookup: Lookuper = (eco, name, ctx, popular) => {
  switch (eco) {
    case "npm":
      // Popular packages need no dates (they are not new) and their full documents are huge.
      return npmLookup(name, ctx, { full: !popular });
    case "pypi":
      return pypiLookup(name, ctx);
    case "go":
      return goLookup(name, ctx);
    case "cargo":
      return cratesLookup(name, ctx);
  }
};

export const registryProbe: Prober = async (module, query, ctx) => {
  const info = await goInfo(module, query, ctx);
  return info ? { version: info.Version } : null;
};

/** What the cache statement returns besides the summary: 1 = the version list and every version's flags, 2 = the flags. */
type Want = 0 | 1 | 2;

interface Entry {
  i: number;
  name: string;
  eco: Ecosystem;
  /** Folded key (packageKey): offline lists. */
  key: string;
  /** Registry identity (registryKey): cache and dedupe. */
  rkey: string;
  version?: string;
  spec: VersionSpec | null;
  /** An exact spec's canonical key (versionKey), matched as a string in SQL. */
  vkey: string | null;
  want: Want;
  validName: boolean;
}

/** What the cache keeps of a registry answer besides the version list and per-version flags. */
export interface Summary {
  name: string;
  latestVersion: string | null;
  latestKey: string | null;
  firstPublished: string | null;
  datesTrusted: boolean;
  packageDeprecated: string | null;
  securityHolder: boolean;
  quarantined: boolean;
  source: string;
  /** Go `retract` entries (versions and `[a, b]` ranges). */
  retracted: string[];
  /** npm dist-tags; null elsewhere. */
  distTags: Record<string, string> | null;
  distTagsComplete: boolean;
}
/**
 * Per-version facts: d = deprecation message, y = yank/retraction reason, i = runs install scripts,
 * v = the version as published when its canonical key differs (PyPI `2.0.0` is keyed `2`, Go
 * `v2.0.0+incompatible` is keyed `v2.0.0`).
 */
interface Flags {
  d?: string;
  y?: string;
  i?: 1;
  v?: string;
}
export interface CacheForm {
  summary: Summary;
  versions: string[];
  flags: Record<string, Flags>;
}

/** A registry answer as the check reads it: from this request's lookup or from the cache. */
type Known =
  | {
      status: "found";
      summary: Summary;
      fetchedAt: number;
      /** SQL's answer for an exact version (cached rows); null when not asked. */
      versionFound: boolean | null;
      /** The flags of the exact version asked, or of the latest. */
      flags: Flags | null;
      versions: string[] | null;
      allFlags: Record<string, Flags> | null;
    }
  | { status: "missing"; source: string; detail: string; fetchedAt: number };
type Failure = { status: "error"; reason: string; notChecked?: boolean };

const pairKey = (eco: string, key: string) => `${eco}\u0000${key}`;
const entryKey = (e: { eco: string; rkey: string; vkey: string | null; want: number }) =>
  `${e.eco}\u0000${e.rkey}\u0000${e.vkey ?? ""}\u0000${e.want}`;

/** The cache form of a registry answer: summary, canonical version keys, flags of the versions that have any. */
export function toCache(eco: Ecosystem, f: PackageFacts): CacheForm {
  const flags: Record<string, Flags> = {};
  const flag = (v: string) => (flags[versionKey(eco, v)] ??= {});
  for (const [v, msg] of Object.entries(f.deprecated)) flag(v).d = msg;
  const retracted: string[] = [];
  for (const [v, why] of Object.entries(f.yanked)) {
    if (eco === "go" && v.startsWith("[")) retracted.push(v);
    else flag(v).y = why;
  }
  for (const v of f.installScripts) flag(v).i = 1;
  for (const v of f.versions) if (versionKey(eco, v) !== v) flag(v).v = v;
  return {
    summary: {
      name: f.name,
      latestVersion: f.latestVersion,
      latestKey: f.latestVersion ? versionKey(eco, f.latestVersion) : null,
      firstPublished: f.firstPublished,
      datesTrusted: f.datesTrusted,
      packageDeprecated: f.packageDeprecated,
      securityHolder: f.securityHolder,
      quarantined: f.quarantined,
      source: f.source,
      retracted,
      distTags: eco === "npm" ? (f.distTags ?? {}) : null,
      distTagsComplete: f.distTagsComplete ?? true,
    },
    versions: [...new Set(f.versions.map((v) => versionKey(eco, v)))],
    flags,
  };
}

/** A registry_cache row (for UPSERT_CACHE) of a lookup's answer. */
export function cacheRow(eco: Ecosystem, rkey: string, r: Lookup, at: number, popular: boolean, extraVersions: string[] = []): unknown[] {
  if (r.status === "found") {
    const c = toCache(eco, r.facts);
    for (const v of extraVersions) if (!c.versions.includes(v)) c.versions.push(v);
    const ttl = popular ? CACHE_TTL.foundPopular : CACHE_TTL.found;
    return [
      eco,
      rkey,
      "found",
      JSON.stringify({ ...c.summary, fv: CACHE_FORMAT }),
      JSON.stringify(c.versions),
      JSON.stringify(c.flags),
      at,
      at + ttl,
    ];
  }
  const unpublishable = eco === "npm" && /[A-Z]/.test(rkey);
  return [
    eco,
    rkey,
    "missing",
    JSON.stringify({ source: r.source, detail: r.detail, fv: CACHE_FORMAT }),
    "[]",
    "{}",
    at,
    at + (unpublishable ? CACHE_TTL.missingUnpublishable : CACHE_TTL.missing),
  ];
}

export const UPSERT_CACHE = `INSERT INTO registry_cache (ecosystem, name_key, status, data, versions, flags, fetched_at, expires_at)
  SELECT ${jsonCols(8)} FROM json_each(?1) WHERE true
  ON CONFLICT (ecosystem, name_key) DO UPDATE SET status = excluded.status, data = excluded.data, versions = excluded.versions,
    flags = excluded.flags, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`;

interface PopularRow {
  ecosystem: string;
  name: string;
  name_key: string;
  rank: number;
}

/** One D1 batch: every offline fact the check needs for all names (and the cached registry answers). */
async function offlineFacts(db: D1Database, entries: Entry[], at: number) {
  const pairs = [...new Set(entries.map((e) => pairKey(e.eco, e.key)))].map((s) => s.split("\u0000"));
  const keys = new Map<string, [string, number]>();
  for (const e of entries) for (const k of neighbourKeys(e.eco, e.key, true)) keys.set(`${e.eco}:${k}`, [e.eco, keyHash(k)]);
  const p = JSON.stringify(pairs);
  const asked = new Map<string, [string, string, string | null, number]>();
  for (const e of entries) asked.set(entryKey(e), [e.eco, e.rkey, e.vkey, e.want]);
  // CROSS JOIN keeps SQLite's join order: the few asked names first, then index lookups (left to
  // itself the planner may scan the 52k popular names once per asked name).
  const join = (t: string, col = "name_key") =>
    `CROSS JOIN ${t} ON ${t.split(" ")[1]}.ecosystem = json_extract(j.value, '$[0]') AND ${t.split(" ")[1]}.${col} = json_extract(j.value, '$[1]')`;
  const sourcesRead = advisorySourcesRead(
    db,
    entries.map((e) => ({ ecosystem: e.eco, key: e.key })),
  );
  const [mal, hall, pop, near, cache, adv, ...srcRes] = await db.batch([
    db.prepare(`SELECT m.* FROM json_each(?1) j ${join("malicious_packages m")}`).bind(p),
    db.prepare(`SELECT h.* FROM json_each(?1) j ${join("hallucinated_names h")}`).bind(p),
    // Left to itself the planner searches popular_names by its primary key's ecosystem prefix (a
    // scan of the whole list per name) once `name` is selected: measured 1 s against 13 ms.
    db
      .prepare(
        `SELECT p.ecosystem, p.name, p.name_key, p.rank FROM json_each(?1) j ${join("popular_names p INDEXED BY popular_names_key_idx")}`,
      )
      .bind(p),
    db
      .prepare(
        `SELECT DISTINCT k.ecosystem, p.name, p.name_key, p.rank FROM json_each(?1) j ${join("popular_keys k", "key_hash")}
           JOIN popular_names p ON p.ecosystem = k.ecosystem AND p.rank = k.rank`,
      )
      .bind(JSON.stringify([...keys.values()])),
    // The version checks run in SQL over the stored version list: no per-request parse of it for
    // an exact version; ranges, tags and Go queries get the list (or the flags) they resolve over.
    db
      .prepare(
        `SELECT c.ecosystem, c.name_key, json_extract(j.value, '$[2]') AS vkey, json_extract(j.value, '$[3]') AS want, c.status, c.data, c.fetched_at,
                CASE WHEN json_extract(j.value, '$[2]') IS NULL THEN NULL
                     ELSE EXISTS (SELECT 1 FROM json_each(c.versions) v WHERE v.value = json_extract(j.value, '$[2]')) END AS version_found,
                json_extract(c.flags, '$."' || coalesce(json_extract(j.value, '$[2]'), json_extract(c.data, '$.latestKey'), '') || '"') AS flags,
                CASE WHEN json_extract(j.value, '$[3]') = 1 THEN c.versions END AS versions,
                CASE WHEN json_extract(j.value, '$[3]') >= 1 THEN c.flags END AS all_flags
           FROM json_each(?1) j ${join("registry_cache c")} WHERE c.expires_at > ?2 AND json_extract(c.data, '$.fv') = ?3`,
      )
      .bind(JSON.stringify([...asked.values()]), at, CACHE_FORMAT),
    db
      .prepare(
        `SELECT f.ecosystem AS eco, f.name AS key, f.ranges, f.versions, f.fixed, ${ADV_COLS} FROM json_each(?1) j ${join("advisory_affected f", "name")} JOIN advisories a ON a.id = f.advisory_id AND a.malicious = 0`,
      )
      .bind(p),
    // Which advisory sources answered for these packages, as of when (what "no advisory" is worth).
    ...sourcesRead.statements,
  ]);
  const group = <T extends { ecosystem?: string; name_key?: string; eco?: string; key?: string }>(rows: T[]) =>
    groupBy(rows, (r) => pairKey((r.ecosystem ?? r.eco)!, (r.name_key ?? r.key)!));
  const cached = new Map<string, Known>();
  type CacheDbRow = {
    ecosystem: string;
    name_key: string;
    vkey: string | null;
    want: number;
    status: string;
    data: string;
    fetched_at: number;
    version_found: number | null;
    flags: string | null;
    versions: string | null;
    all_flags: string | null;
  };
  for (const c of cache!.results as CacheDbRow[]) {
    const data = JSON.parse(c.data);
    cached.set(
      entryKey({ eco: c.ecosystem, rkey: c.name_key, vkey: c.vkey, want: c.want }),
      c.status === "found"
        ? {
            status: "found",
            summary: data as Summary,
            fetchedAt: c.fetched_at,
            versionFound: c.version_found === null ? null : !!c.version_found,
            flags: c.flags ? (JSON.parse(c.flags) as Flags) : null,
            versions: c.versions ? (JSON.parse(c.versions) as string[]) : null,
            allFlags: c.all_flags ? (JSON.parse(c.all_flags) as Record<string, Flags>) : null,
          }
        : { status: "missing", source: data.source, detail: data.detail, fetchedAt: c.fetched_at },
    );
  }
  return {
    malicious: group(mal!.results as unknown as MaliciousRow[]),
    hallucinated: new Map(
      (hall!.results as { ecosystem: string; name_key: string; suggestion: string; note: string; source: string }[]).map((h) => [
        pairKey(h.ecosystem, h.name_key),
        h,
      ]),
    ),
    popular: group(pop!.results as unknown as PopularRow[]),
    near: near!.results as unknown as PopularRow[],
    cached,
    advisories: group(adv!.results as unknown as AdvFactRow[]),
    sources: sourcesRead.read(srcRes) as SourceRow[],
  };
}

type Facts = Awaited<ReturnType<typeof offlineFacts>>;
type AdvFactRow = AdvRowDb & { eco: string; key: string; ranges: string; versions: string; fixed: string };

/** One of a version's known advisories, as the check names it. */
export interface KnownAdvisory {
  id: string;
  aliases: string[];
  severity: string | null;
  summary: string | null;
  fixedVersions: string[];
  url: string;
  source: string;
  asOf: string;
}

/** What OSV said about one (package, version) in this request: the advisory ids, or why it could not be asked. */
type OsvAnswer = { status: "answered"; ids: string[] } | { status: "failed"; reason: string };

/** The popular-list rank of this exact name (npm and Go: same spelling; PyPI and crates: same folded name). */
function popularRank(e: Pick<Entry, "eco" | "key" | "name">, facts: Facts): number | undefined {
  const rows = facts.popular.get(pairKey(e.eco, e.key)) ?? [];
  const caseSensitive = e.eco === "npm" || e.eco === "go";
  return rows.find((r) => !caseSensitive || registryKey(e.eco, r.name) === registryKey(e.eco, e.name))?.rank;
}

/** Malicious reports about this name: npm reports name the exact package; Go paths (GitHub owners) fold case. */
function maliciousRows(e: Pick<Entry, "eco" | "key" | "name">, facts: Facts): MaliciousRow[] {
  const rows = facts.malicious.get(pairKey(e.eco, e.key)) ?? [];
  return e.eco === "npm" ? rows.filter((m) => m.name.trim() === e.name.trim()) : rows;
}

/** Runs `fn` over items with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, fn: (t: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export interface CheckOptions {
  lookup?: Lookuper;
  probe?: Prober;
  ctx?: SourceCtx;
  waitUntil?: (p: Promise<unknown>) => void;
  /** Registry subrequests this check may make (default: PACKAGE_CHECK_SUBREQUESTS, else the plan's limit less a reserve). */
  budget?: number;
  /** OSV's querybatch and record reads (tests pass recorded answers). */
  osvBatch?: typeof osvQueryBatch;
  osvRecord?: typeof osvVuln;
  /** Lookups not started this long after the check began are not started (ms). */
  deadlineMs?: number;
  /** Called after each registry lookup of the check (done, planned): an MCP call's progress. */
  onProgress?: (done: number, total: number) => void;
}

/** What one entry's version question comes to, against one registry answer. */
interface Judgement {
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

type ProbeResult = { status: "found"; version: string } | { status: "missing" } | Failure;

const probeKey = (rkey: string, q: string) => `${rkey}\u0000${q}`;

/** The query a Go entry needs the proxy's `.info` for: a pseudo-version (never in `@v/list`), a branch or a commit. */
const probeQuery = (e: Entry): string | null =>
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
function judge(e: Entry, k: Extract<Known, { status: "found" }>, probe: ProbeResult | undefined, at: number, recheck?: Failure): Judgement {
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

interface Task {
  kind: "lookup" | "probe";
  eco: Ecosystem;
  name: string;
  rkey: string;
  query?: string;
  popular: boolean;
  /** 1: names nothing else answers (not cached, not popular); 2: re-checks and probes of cached names; 3: popular names not cached. */
  priority: 1 | 2 | 3;
  cost: number;
  order: number;
}

export async function checkPackages(
  env: Env,
  packages: { name: string; ecosystem: Ecosystem; version?: string }[],
  opts: CheckOptions = {},
): Promise<{ results: CheckResult[] }> {
  const at = now();
  const db = env.DB;
  const entries: Entry[] = packages.map((p, i) => {
    const spec = p.version ? parseVersionSpec(p.ecosystem, p.version) : null;
    return {
      i,
      name: p.name,
      eco: p.ecosystem,
      key: packageKey(p.ecosystem, p.name),
      rkey: registryKey(p.ecosystem, p.name),
      version: p.version,
      spec,
      vkey: spec?.kind === "exact" ? versionKey(p.ecosystem, spec.version) : null,
      want: spec?.kind === "range" ? 1 : spec?.kind === "tag" || spec?.kind === "probe" ? 2 : 0,
      validName: NAME_RULES[p.ecosystem].test(p.name),
    };
  });
  const facts = await offlineFacts(db, entries, at);

  // What each name needs from its registry: nothing (cached and conclusive, or decided offline), a
  // lookup (not cached; or a cached list without the version asked that may be stale), and for Go
  // pseudo-versions, branches and commits a `.info` probe.
  const tasks = new Map<string, Task>();
  const addTask = (t: Omit<Task, "order">) => {
    const id = t.kind === "lookup" ? pairKey(t.eco, t.rkey) : `probe\u0000${probeKey(t.rkey, t.query!)}`;
    const cur = tasks.get(id);
    if (!cur) tasks.set(id, { ...t, order: tasks.size });
    else if (t.priority < cur.priority) cur.priority = t.priority;
  };
  for (const e of entries) {
    const popular = popularRank(e, facts) !== undefined;
    const cached = facts.cached.get(entryKey(e));
    const decidedOffline =
      !e.validName || facts.hallucinated.has(pairKey(e.eco, e.key)) || maliciousRows(e, facts).some((m) => m.versions === "*");
    if (!cached && decidedOffline) continue;
    const pq = probeQuery(e);
    if (!cached) {
      const priority = popular ? 3 : 1;
      addTask({ kind: "lookup", eco: e.eco, name: e.name, rkey: e.rkey, popular, priority, cost: COST[e.eco] });
      if (pq) addTask({ kind: "probe", eco: e.eco, name: e.name, rkey: e.rkey, query: pq, popular, priority, cost: 1 });
      continue;
    }
    if (cached.status !== "found") continue;
    if (pq) {
      if (!(e.spec?.kind === "exact" && cached.versionFound))
        addTask({ kind: "probe", eco: e.eco, name: e.name, rkey: e.rkey, query: pq, popular, priority: 2, cost: 1 });
      continue;
    }
    if (judge(e, cached, undefined, at).unverified?.code === "NOT_CHECKED")
      addTask({ kind: "lookup", eco: e.eco, name: e.name, rkey: e.rkey, popular, priority: 2, cost: COST[e.eco] });
  }

  // Names nothing else answers first, then re-checks, then popular names; within each, request order.
  // One subrequest stays for the OSV query of the versions judged.
  let budget = (opts.budget ?? lookupBudget(env)) - 1;
  const planned: Task[] = [];
  const skipped: Task[] = [];
  const lookedUp = new Set<string>();
  const ordered = [...tasks.values()].sort(
    (a, b) => a.priority - b.priority || (a.kind === b.kind ? 0 : a.kind === "lookup" ? -1 : 1) || a.order - b.order,
  );
  for (const t of ordered) {
    // A probe of a name that is neither cached nor looked up would answer nothing on its own.
    const orphan = t.kind === "probe" && t.priority !== 2 && !lookedUp.has(pairKey(t.eco, t.rkey));
    if (budget < t.cost || orphan) {
      skipped.push(t);
      continue;
    }
    budget -= t.cost;
    planned.push(t);
    if (t.kind === "lookup") lookedUp.add(pairKey(t.eco, t.rkey));
  }

  const ctx = opts.ctx ?? sourceCtx(env, 4_000);
  const lookup = opts.lookup ?? registryLookup;
  const probe = opts.probe ?? registryProbe;
  const fresh = new Map<string, { lookup: Lookup; form: CacheForm | null } | Failure>();
  const probes = new Map<string, ProbeResult>();
  const notChecked =
    "not looked up: this request reached its registry lookup budget (the Workers plan's subrequest limit); check it again in a separate request";
  for (const t of skipped) {
    const f: Failure = { status: "error", reason: notChecked, notChecked: true };
    if (t.kind === "lookup") fresh.set(pairKey(t.eco, t.rkey), f);
    else probes.set(probeKey(t.rkey, t.query!), f);
  }
  const deadline = Date.now() + (opts.deadlineMs ?? CHECK_DEADLINE_MS);
  let done = 0;
  await pool(planned, CONCURRENCY, async (t) => {
    try {
      await lookupOne(t);
    } finally {
      opts.onProgress?.(++done, planned.length);
    }
  });
  async function lookupOne(t: Task) {
    if (Date.now() > deadline) {
      const f: Failure = {
        status: "error",
        reason: `not looked up: ${REGISTRY_NAMES[t.eco]} did not answer the earlier lookups of this request in time; check it again in a separate request`,
        notChecked: true,
      };
      if (t.kind === "lookup") fresh.set(pairKey(t.eco, t.rkey), f);
      else probes.set(probeKey(t.rkey, t.query!), f);
      return;
    }
    try {
      if (t.kind === "lookup") {
        const r = await lookup(t.eco, t.name, ctx, t.popular);
        fresh.set(pairKey(t.eco, t.rkey), { lookup: r, form: r.status === "found" ? toCache(t.eco, r.facts) : null });
      } else {
        const r = await probe(t.rkey, t.query!, ctx);
        probes.set(probeKey(t.rkey, t.query!), r ? { status: "found", version: r.version } : { status: "missing" });
      }
    } catch (err) {
      const reason = failureText(err);
      if (t.kind === "lookup") fresh.set(pairKey(t.eco, t.rkey), { status: "error", reason });
      else probes.set(probeKey(t.rkey, t.query!), { status: "error", reason });
    }
  }

  // The registry's answer for each entry: this request's lookup, else the cache.
  const knownOf = (e: Entry): { known: Known | Failure | null; recheck?: Failure } => {
    const f = fresh.get(pairKey(e.eco, e.rkey));
    const cached = facts.cached.get(entryKey(e)) ?? null;
    if (f && "lookup" in f) {
      if (f.lookup.status === "missing")
        return { known: { status: "missing", source: f.lookup.source, detail: f.lookup.detail, fetchedAt: at } };
      const form = f.form!;
      return {
        known: {
          status: "found",
          summary: form.summary,
          fetchedAt: at,
          versionFound: e.vkey ? form.versions.includes(e.vkey) : null,
          flags: form.flags[e.vkey ?? form.summary.latestKey ?? ""] ?? null,
          versions: form.versions,
          allFlags: form.flags,
        },
      };
    }
    // A failed or skipped re-check keeps the cached answer (its version question then stays open).
    if (cached) return { known: cached, recheck: f as Failure | undefined };
    return { known: (f as Failure | undefined) ?? null };
  };
  const judged = entries.map((e) => {
    const { known, recheck } = knownOf(e);
    const pq = probeQuery(e);
    const j = known?.status === "found" ? judge(e, known, pq ? probes.get(probeKey(e.rkey, pq)) : undefined, at, recheck) : null;
    return { e, known, j };
  });

  // Advisories of the versions judged: one OSV query for all of them (current, whatever Lore's
  // store holds), then the records Lore does not hold yet, within what is left of the budget.
  const candidates = judged.filter(
    ({ e, known, j }) => known?.status === "found" && j?.judged && j.versionFound !== false && !j.unverified && e.validName,
  );
  const osvAnswers = new Map<number, OsvAnswer>();
  // Packages whose stored advisories are current (the OSV ingest asked within the day) need no query.
  const storedCurrent = (c: (typeof candidates)[number]) =>
    entryCoverage(facts.sources, { ecosystem: c.e.eco, key: c.e.key, pinned: c.j!.judged }, at).state === "current";
  for (const c of candidates)
    if (storedCurrent(c))
      osvAnswers.set(c.e.i, {
        status: "failed",
        reason: "OSV not asked in this request: Lore's stored advisories for this package are current",
      });
  const osvAsked = candidates.filter((c) => !osvAnswers.has(c.e.i));
  const osvRecords = new Map<string, OsvRecord>();
  if (osvAsked.length) {
    try {
      if (budget < 0) throw new Error("OSV not asked: this request reached its subrequest budget");
      const answers = await (opts.osvBatch ?? osvQueryBatch)(
        osvAsked.map(({ e, j }) => ({ ecosystem: OSV_ECOSYSTEM[e.eco], name: e.name, version: j!.judged! })),
        ctx,
      );
      osvAsked.forEach(({ e }, i) => {
        osvAnswers.set(e.i, { status: "answered", ids: [...new Set((answers[i] ?? []).map((v) => v.id))] });
      });
      const held = new Set([...facts.advisories.values()].flat().map((a) => a.id));
      const missing = [...new Set(answers.flat().map((v) => v.id))]
        .filter((id) => !held.has(id) && !id.startsWith("MAL-"))
        .slice(0, Math.max(0, Math.min(MAX_OSV_RECORDS, budget + 1)));
      budget -= missing.length;
      const got = await Promise.all(missing.map((id) => (opts.osvRecord ?? osvVuln)(id, ctx).catch(() => null)));
      for (const r of got) if (r) osvRecords.set(r.id, r);
    } catch (err) {
      const reason = err instanceof SourceError ? `OSV ${failureText(err)}` : String((err as Error)?.message ?? err);
      for (const { e } of osvAsked) osvAnswers.set(e.i, { status: "failed", reason });
    }
  }
  const results = judged.map(({ e, known, j }) => verdictFor(e, facts, known, j, at, osvAnswers.get(e.i), osvRecords));

  // Cache writes (after the answer when the runtime allows): fresh answers, and pseudo-versions the
  // proxy confirmed (never listed in `@v/list`), so the next check of them needs no probe.
  const confirmed = new Map<string, string[]>();
  for (const e of entries) {
    const pq = probeQuery(e);
    const p = pq ? probes.get(probeKey(e.rkey, pq)) : undefined;
    if (p?.status === "found" && isGoPseudoVersion(p.version))
      confirmed.set(e.rkey, [...new Set([...(confirmed.get(e.rkey) ?? []), versionKey("go", p.version)])]);
  }
  const rows: unknown[][] = [];
  for (const t of planned) {
    const f = t.kind === "lookup" ? fresh.get(pairKey(t.eco, t.rkey)) : undefined;
    if (f && "lookup" in f)
      rows.push(cacheRow(t.eco, t.rkey, f.lookup, at, t.popular, t.eco === "go" ? (confirmed.get(t.rkey) ?? []) : []));
  }
  const appends = [...confirmed].flatMap(([rkey, versions]) =>
    lookedUp.has(pairKey("go", rkey)) ? [] : versions.map((v) => [rkey, v] as const),
  );
  const stmts = [
    ...bulkStatements(db, UPSERT_CACHE, rows),
    // OSV records fetched for this answer: the next check (and sync) finds them in the store.
    ...(osvRecords.size ? osvStatements(db, [...osvRecords.values()], at) : []),
    ...appends.map(([rkey, v]) =>
      db
        .prepare(
          `UPDATE registry_cache SET versions = json_insert(versions, '$[#]', ?3)
            WHERE ecosystem = 'go' AND name_key = ?1 AND status = 'found' AND expires_at > ?2 AND NOT EXISTS (SELECT 1 FROM json_each(versions) WHERE value = ?3)`,
        )
        .bind(rkey, at, v),
    ),
  ];
  if (stmts.length) {
    const write = db
      .batch(stmts)
      .catch((err) => console.error(JSON.stringify({ level: "error", what: "registry_cache write", error: String(err) })));
    if (opts.waitUntil) opts.waitUntil(write);
    else await write;
  }
  return { results };
}

function bestImitation(e: Entry, facts: Facts): { target: string; kind: TypoKind } | null {
  let best: { target: string; kind: TypoKind; rank: number } | null = null;
  const caseSensitive = e.eco === "npm" || e.eco === "go";
  for (const n of facts.near) {
    if (n.ecosystem !== e.eco) continue;
    let kind: TypoKind | null;
    if (n.name_key === e.key) {
      // The same folded name: the same package for PyPI and crates; another one for npm and Go.
      kind = caseSensitive && registryKey(e.eco, n.name) !== registryKey(e.eco, e.name) ? "case" : null;
    } else kind = classify(e.eco, e.key, n.name_key);
    if (kind && (!best || n.rank < best.rank)) best = { target: n.name, kind, rank: n.rank };
  }
  return best;
}

const originLabel = (origin: string) =>
  origin === "osv"
    ? "OSV"
    : origin.startsWith("package-checks@")
      ? `Lore's curated package facts (${origin})`
      : `OpenSSF malicious-packages, ${origin}`;

/** An OSV record's facts for one package, as the check names them. */
function knownFromOsv(r: OsvRecord, e: Entry, at: number): KnownAdvisory {
  const fixed = new Set<string>();
  for (const a of r.affected ?? []) {
    if (packageKey(e.eco, a.package?.name ?? "") !== e.key) continue;
    for (const rg of a.ranges ?? []) for (const ev of rg.events) if (ev.fixed) fixed.add(ev.fixed);
  }
  const label = r.database_specific?.severity;
  return {
    id: r.id,
    aliases: r.aliases ?? [],
    severity: typeof label === "string" ? label.toUpperCase() : null,
    summary: r.summary ?? null,
    fixedVersions: [...fixed],
    url: `https://osv.dev/vulnerability/${r.id}`,
    source: `https://osv.dev/vulnerability/${r.id}`,
    asOf: iso(at),
  };
}

const sourceSummary = (r: SourceRow, at: number) =>
  `${r.label}${r.label.includes(iso(r.as_of).slice(0, 10)) ? "" : `, as of ${iso(r.as_of).slice(0, 10)}`}${r.complete ? (at - r.as_of > r.max_age_ms ? " (stale: advisories published since are not in it)" : "") : " (lists only some advisories)"}`;

const sourceOut = (r: SourceRow, at: number) => ({
  source: r.label,
  asOf: iso(r.as_of),
  status: at - r.as_of <= r.max_age_ms ? ("current" as const) : ("stale" as const),
  complete: !!r.complete,
});

function verdictFor(
  e: Entry,
  facts: Facts,
  known: Known | Failure | null,
  j: Judgement | null,
  at: number,
  osv?: OsvAnswer,
  osvRecords: Map<string, OsvRecord> = new Map(),
): CheckResult {
  const k = pairKey(e.eco, e.key);
  const block: CheckResult["reasons"] = [];
  const warn: CheckResult["reasons"] = [];
  const result: CheckResult = { name: e.name, ecosystem: e.eco, verdict: "ok", reasons: [], exists: null };
  if (e.version) result.version = e.version;
  const advisories: string[] = [];
  const unverified: string[] = [];
  const rank = popularRank(e, facts);
  const hall = facts.hallucinated.get(k);
  const imit = rank === undefined && !hall ? bestImitation(e, facts) : null;

  if (!e.validName) {
    block.push({
      code: "INVALID_NAME",
      message: `"${e.name}" is not a valid ${e.eco} package name, so it cannot be installed from the registry as written`,
    });
    result.exists = false;
  }
  if (hall) {
    block.push({
      code: "HALLUCINATED",
      message: `"${e.name}" is a name coding models are known to invent: ${hall.note} Use "${hall.suggestion}". (${hall.source})`,
    });
    result.suggestion = hall.suggestion;
  }

  const found = known?.status === "found" ? known : null;
  const sum = found?.summary ?? null;
  // The version whose safety is judged: the one asked (a range, tag or query: the version it
  // resolves to), else the latest the registry offers; null when Lore cannot tell.
  const judged = j ? j.judged : e.spec?.kind === "exact" ? e.spec.version : null;

  for (const m of maliciousRows(e, facts)) {
    const source = originLabel(m.origin);
    // "MAL-2022-1, …" or, for a report without an OSV id, nothing before the versions.
    const id = m.mal_id ? `${m.mal_id}, ` : "";
    const target = m.summary_kind?.startsWith("typosquat:") ? m.summary_kind.slice(10) : null;
    if (target && !result.suggestion) {
      result.suggestion = target;
      result.imitates = target;
    }
    const hit = m.versions === "*" ? true : judged ? inSnapshotVersions(e.eco, judged, m.versions) : null;
    if (hit === true) {
      block.push({
        code: "MALICIOUS",
        message: `reported malicious (${id}${m.versions === "*" ? "every version" : `versions ${m.versions}`}${target ? `, a typosquat of "${target}"` : ""}; source: ${source})`,
      });
      if (m.mal_id) advisories.push(m.mal_id);
    } else if (hit === null && rank === undefined) {
      // Not a popular name, and Lore cannot tell which version an install would get (no version
      // asked and no registry answer, or the versions are not known): the report covers it.
      const which =
        m.versions === "?"
          ? "affected versions not known"
          : `versions ${m.versions}; Lore could not learn which version an install would get`;
      block.push({
        code: "MALICIOUS",
        message: `reported malicious (${id}${which}, so every version is treated as affected${target ? `; a typosquat of "${target}"` : ""}; source: ${source})`,
      });
      if (m.mal_id) advisories.push(m.mal_id);
    } else if (hit === null) {
      // A popular name with some compromised releases: which one an install gets is not known here.
      warn.push({
        code: "MALICIOUS_VERSIONS",
        message: `some versions were reported malicious (${m.mal_id ?? source}: ${m.versions === "?" ? "which ones is not known" : m.versions}); ${m.versions === "?" ? "check the release you install against the report" : "pin a version that is not among them"}`,
      });
      if (m.mal_id) advisories.push(m.mal_id);
    }
    // hit === false: the version judged is not among the reported ones; nothing to say.
  }

  if (e.spec?.kind === "invalid") block.push({ code: "VERSION_NOT_FOUND", message: e.spec.reason });

  if (known?.status === "missing") {
    result.exists = false;
    let detail = `${known.detail} (${known.source}, checked ${iso(known.fetchedAt)})`;
    if (e.eco === "npm" && /[A-Z]/.test(e.name)) {
      detail += `; npm package names are case-sensitive and new packages cannot contain capital letters, so nobody can publish "${e.name}"`;
      if (imit?.kind === "case") detail += `: did you mean "${imit.target}"?`;
    } else if (e.eco === "go" && imit?.kind === "case") {
      detail += `; Go module paths are case-sensitive: did you mean "${imit.target}"?`;
    }
    block.push({ code: "NOT_FOUND", message: detail });
    result.source = known.source;
    result.checkedAt = iso(known.fetchedAt);
  } else if (known?.status === "error") {
    warn.push({
      code: known.notChecked ? "NOT_CHECKED" : "REGISTRY_UNREACHABLE",
      message: `could not verify with ${REGISTRY_NAMES[e.eco]}: ${known.reason}${known.notChecked && rank !== undefined ? ` (a popular package: rank ${rank} of Lore's ${e.eco} list)` : ""}`,
    });
  } else if (found && sum && j) {
    result.exists = true;
    result.source = sum.source;
    result.checkedAt = iso(found.fetchedAt);
    if (sum.latestVersion) result.latestVersion = sum.latestVersion;
    if (sum.firstPublished) result.firstPublished = sum.firstPublished;
    if (sum.securityHolder) {
      block.push({
        code: "SECURITY_HOLDER",
        message: `npm removed this package for security reasons and holds the name with a "${sum.latestVersion}" stub (security holding package); it has no real code`,
      });
    }
    if (sum.quarantined) {
      block.push({ code: "QUARANTINED", message: "PyPI quarantined this project (reported malicious): nothing can be installed from it" });
    }
    if (e.spec && e.spec.kind !== "invalid" && !sum.securityHolder && !sum.quarantined) {
      if (j.unverified) warn.push({ code: j.unverified.code, message: j.unverified.message });
      else if (j.versionFound === false) {
        const what =
          e.spec.kind === "exact"
            ? `version ${e.version} does not exist`
            : e.spec.kind === "tag"
              ? `npm has no dist-tag "${e.spec.tag}" for this package`
              : e.spec.kind === "probe"
                ? `"${e.version}" is not a version of this module`
                : `no published version satisfies ${e.version}${e.eco === "pypi" || e.eco === "cargo" ? " (yanked releases left out, as the installer does)" : e.eco === "go" ? " (retracted versions left out)" : ""}`;
        block.push({
          code: "VERSION_NOT_FOUND",
          message: `${what}${j.note ?? ""}${sum.latestVersion ? `; the latest is ${sum.latestVersion}` : ""}`,
        });
      }
    }
    if (j.resolved) result.resolvedVersion = j.resolved;
    const flags = j.flags ?? {};
    if (flags.d) warn.push({ code: "DEPRECATED", message: `${judged} is deprecated: ${flags.d}` });
    else if (sum.packageDeprecated) warn.push({ code: "DEPRECATED", message: `deprecated: ${sum.packageDeprecated}` });
    if (judged && j.versionFound !== false) {
      const range = e.eco === "go" ? sum.retracted.find((r) => isRetracted(judged, r)) : undefined;
      if (flags.y !== undefined || range)
        warn.push({
          code: "YANKED",
          message: `${judged} was ${e.eco === "go" ? "retracted" : "yanked"}${flags.y ? `: ${flags.y}` : range ? ` (retract ${range})` : ""}`,
        });
      if (flags.i)
        warn.push({ code: "INSTALL_SCRIPTS", message: `${judged} runs install scripts (preinstall/install/postinstall) when installed` });
    }
    if (sum.firstPublished && sum.datesTrusted) {
      const ageDays = (at - Date.parse(sum.firstPublished)) / DAY_MS;
      if (ageDays < NEW_PACKAGE_DAYS)
        warn.push({
          code: "NEW_PACKAGE",
          message: `first published ${sum.firstPublished.slice(0, 10)}, less than ${NEW_PACKAGE_DAYS} days ago`,
        });
    } else if (!sum.datesTrusted) {
      unverified.push("firstPublished", ...(e.eco === "npm" ? ["deprecated"] : []));
      // A popular name is not new, whatever the dates say; anything else could be.
      if (rank === undefined)
        warn.push({
          code: "UNVERIFIED_DATES",
          message: "the registry answered without trustworthy publish dates (a mirror), so Lore could not verify how new this package is",
        });
    }
  }

  // Known advisories of the version judged, and what they were looked up in.
  if (judged && osv) {
    const knownAdv = new Map<string, KnownAdvisory>();
    const rows = facts.advisories.get(k) ?? [];
    const fromRow = (a: AdvFactRow): KnownAdvisory => {
      const adv = advisoryFromRow(a);
      return {
        id: adv.id,
        aliases: adv.aliases,
        severity: adv.severity,
        summary: adv.summary,
        fixedVersions: JSON.parse(a.fixed),
        url: adv.url,
        source: adv.source,
        asOf: adv.asOf,
      };
    };
    for (const a of rows)
      if (osvAffects(e.eco, judged, { ranges: JSON.parse(a.ranges), versions: JSON.parse(a.versions) })) knownAdv.set(a.id, fromRow(a));
    if (osv.status === "answered") {
      for (const id of osv.ids) {
        if (knownAdv.has(id)) continue;
        if (id.startsWith("MAL-")) {
          if (!advisories.includes(id))
            block.push({
              code: "MALICIOUS",
              message: `OSV reports ${judged} malicious (${id}; source: https://osv.dev/vulnerability/${id})`,
            });
          advisories.push(id);
          continue;
        }
        const row = rows.find((a) => a.id === id);
        const rec = osvRecords.get(id);
        knownAdv.set(
          id,
          row
            ? fromRow(row)
            : rec
              ? knownFromOsv(rec, e, at)
              : {
                  id,
                  aliases: [],
                  severity: null,
                  summary: null,
                  fixedVersions: [],
                  url: `https://osv.dev/vulnerability/${id}`,
                  source: "https://osv.dev",
                  asOf: iso(at),
                },
        );
      }
    }
    for (const a of knownAdv.values()) {
      advisories.push(a.id);
      const fix = a.fixedVersions.length ? `fixed in ${a.fixedVersions.join(", ")}` : "no fixed version published";
      warn.push({
        code: "VULNERABLE",
        message: `${judged} is affected by ${a.id}${a.severity ? ` (${a.severity}` : " ("}${a.severity ? "; " : ""}${fix})${a.summary ? `: ${a.summary}` : ""}`,
      });
    }
    if (knownAdv.size) result.knownAdvisories = [...knownAdv.values()];
    const cov = entryCoverage(facts.sources, { ecosystem: e.eco, key: e.key, pinned: judged }, at);
    if (osv.status === "answered") {
      result.advisoryCheck = {
        status: "current",
        version: judged,
        sources: [
          { source: "OSV (api.osv.dev)", asOf: iso(at), status: "current", complete: true },
          ...cov.sources.map((r) => sourceOut(r, at)),
        ],
        note: null,
      };
    } else {
      const held = cov.sources.length ? cov.sources.map((r) => sourceSummary(r, at)).join("; ") : `no advisory data for ${e.eco}`;
      const note = `${osv.reason}; what Lore holds: ${held}`;
      result.advisoryCheck = { status: cov.state, version: judged, sources: cov.sources.map((r) => sourceOut(r, at)), note };
      if (cov.state !== "current") {
        const found = knownAdv.size
          ? `the ${knownAdv.size} listed are what is known, not all there is`
          : "none found there does not mean none exist";
        warn.push({ code: "ADVISORIES_UNCHECKED", message: `advisories unchecked for ${judged}: ${note}; ${found}` });
      }
    }
  }

  if (imit) {
    warn.push({ code: "TYPOSQUAT", message: `"${e.name}" is ${TYPO_MESSAGES[imit.kind](imit.target)}; did you mean "${imit.target}"?` });
    result.imitates = imit.target;
    result.suggestion ??= imit.target;
  }

  result.reasons = [...block, ...warn];
  result.verdict = block.length ? "block" : warn.length ? "warn" : "ok";
  if (advisories.length) result.advisories = [...new Set(advisories)];
  if (unverified.length) result.unverified = [...new Set(unverified)];
  return result;
}
