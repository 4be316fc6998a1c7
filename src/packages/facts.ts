/**
 * What a package check knows before it asks anyone: the entries as the check reads them, the
 * registry answers (cached or fresh) in one shape, and the offline facts of all names read from D1
 * in one batch (malicious reports, hallucinated names, popular names and their typo neighbours,
 * stored advisories and their sources, cached registry answers with the version facts each
 * question needs).
 */
import { LruCache } from "../core/cache";
import { groupBy } from "../core/group";
import { registryKey } from "../ecosystems/topics";
import type { Ecosystem, VersionSpec } from "../ecosystems/versions";
import { columnsOf, type SqlRow } from "../core/columns";
import { type hallucinatedNames, popularNames, registryCache } from "../db/freshness";
import { AFFECTED_COLS, advisorySourcesRead, type AffectedRow, type MaliciousRow, type SourceRow } from "../freshness";
import { keyHash, neighbourKeys } from "./typo";

/** The registry as a reader knows it, for messages ("could not verify with PyPI: unreachable"). */
export const REGISTRY_NAMES: Record<Ecosystem, string> = {
  npm: "the npm registry",
  pypi: "PyPI",
  go: "the Go module proxy",
  cargo: "crates.io",
};

/** The shape of a registry_cache row's data; rows of another shape are not read (they expire). */
export const CACHE_FORMAT = 2;

/** What the cache statement returns besides the summary: 1 = the version list and every version's flags, 2 = the flags. */
export type Want = 0 | 1 | 2;

export interface Entry {
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
export interface Flags {
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
export type Known =
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
export type Failure = { status: "error"; reason: string; notChecked?: boolean };

export const pairKey = (eco: string, key: string) => `${eco}\u0000${key}`;
export const entryKey = (e: { eco: string; rkey: string; vkey: string | null; want: number }) =>
  `${e.eco}\u0000${e.rkey}\u0000${e.vkey ?? ""}\u0000${e.want}`;

const POPULAR_KEYS = ["ecosystem", "name", "nameKey", "rank"] as const;
type PopularRow = SqlRow<typeof popularNames, (typeof POPULAR_KEYS)[number]>;
const NEAR_KEYS = ["name", "nameKey", "rank"] as const;
/** Read with `h.*`; what the check uses of it. */
type HallucinatedRow = SqlRow<typeof hallucinatedNames, "ecosystem" | "nameKey" | "suggestion" | "note" | "source">;
const CACHE_KEYS = ["ecosystem", "nameKey", "status", "data", "fetchedAt"] as const;
/** A cached registry answer and what SQL worked out of it for the question asked (`vkey`, `want`). */
type CacheDbRow = SqlRow<typeof registryCache, (typeof CACHE_KEYS)[number]> & {
  vkey: string | null;
  want: number;
  version_found: number | null;
  flags: string | null;
  versions: string | null;
  all_flags: string | null;
};

/**
 * A name's neighbour keys, hashed as popular_keys stores them: a pure function of the name (the
 * homoglyph skeleton, deletions and variants are most of a warm check's own CPU), so held per
 * isolate. Names are the callers': bounded by count and by bytes (key and hashes).
 */
const hashesHeld = new LruCache<string, number[]>({ maxEntries: 20_000, maxBytes: 2 * 1024 * 1024 });
export function neighbourHashes(eco: Ecosystem, key: string): number[] {
  const id = `${eco}\u0000${key}`;
  const held = hashesHeld.get(id);
  if (held) return held;
  const hashes = [...new Set(neighbourKeys(eco, key, true).map(keyHash))];
  return hashesHeld.set(id, hashes, 64 + 2 * id.length + 8 * hashes.length);
}

/** One D1 batch: every offline fact the check needs for all names (and the cached registry answers). */
export async function offlineFacts(db: D1Database, entries: Entry[], at: number) {
  const pairs = [...new Set(entries.map((e) => pairKey(e.eco, e.key)))].map((s) => s.split("\u0000"));
  // Per name as the popular list tells names apart: its neighbour keys' hashes, and back the popular
  // names they find, per name. Only a name that is neither popular nor hallucinated is compared
  // with its neighbours (verdict.ts), so SQL skips the others' keys (for a request of popular names,
  // hundreds of index lookups); and a name is compared only with the neighbours its own keys find
  // (every pair `classify` confirms shares a key), not with every name's.
  const askers = new Map<string, [string, string, string | null, number[]]>();
  for (const e of entries) {
    const id = nearKey(e);
    if (!askers.has(id)) askers.set(id, [e.eco, e.key, popularExact(e), neighbourHashes(e.eco, e.key)]);
  }
  const askerIds = [...askers.keys()];
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
        `SELECT ${columnsOf(popularNames, "p", POPULAR_KEYS)} FROM json_each(?1) j ${join("popular_names p INDEXED BY popular_names_key_idx")}`,
      )
      .bind(p),
    // popularRank's test in SQL: the same folded name, and for npm and Go the same registry name
    // (popular names are stored trimmed; Go's registry name drops trailing slashes).
    db
      .prepare(
        `SELECT DISTINCT j.key AS asker, k.ecosystem, ${columnsOf(popularNames, "p", NEAR_KEYS)} FROM json_each(?1) j CROSS JOIN json_each(j.value, '$[3]') h
           CROSS JOIN popular_keys k ON k.ecosystem = json_extract(j.value, '$[0]') AND k.key_hash = h.value
           CROSS JOIN popular_names p ON p.ecosystem = k.ecosystem AND p.rank = k.rank
          WHERE NOT EXISTS (SELECT 1 FROM popular_names q INDEXED BY popular_names_key_idx
                             WHERE q.ecosystem = json_extract(j.value, '$[0]') AND q.name_key = json_extract(j.value, '$[1]')
                               AND (json_extract(j.value, '$[2]') IS NULL
                                    OR (CASE q.ecosystem WHEN 'go' THEN rtrim(q.name, '/') ELSE q.name END) = json_extract(j.value, '$[2]')))
            AND NOT EXISTS (SELECT 1 FROM hallucinated_names x WHERE x.ecosystem = json_extract(j.value, '$[0]') AND x.name_key = json_extract(j.value, '$[1]'))`,
      )
      .bind(JSON.stringify([...askers.values()])),
    // The version checks run in SQL over the stored version list: no per-request parse of it for
    // an exact version; ranges, tags and Go queries get the list (or the flags) they resolve over.
    db
      .prepare(
        `SELECT ${columnsOf(registryCache, "c", CACHE_KEYS)}, json_extract(j.value, '$[2]') AS vkey, json_extract(j.value, '$[3]') AS want,
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
        `SELECT ${AFFECTED_COLS} FROM json_each(?1) j ${join("advisory_affected f", "name")} JOIN advisories a ON a.id = f.advisory_id AND a.malicious = 0`,
      )
      .bind(p),
    // Which advisory sources answered for these packages, as of when (what "no advisory" is worth).
    ...sourcesRead.statements,
  ]);
  const group = <T extends { ecosystem?: string; name_key?: string; eco?: string; key?: string }>(rows: T[]) =>
    groupBy(rows, (r) => pairKey((r.ecosystem ?? r.eco)!, (r.name_key ?? r.key)!));
  const cached = new Map<string, Known>();
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
    hallucinated: new Map((hall!.results as unknown as HallucinatedRow[]).map((h) => [pairKey(h.ecosystem, h.name_key), h])),
    popular: group(pop!.results as unknown as PopularRow[]),
    near: groupBy(near!.results as unknown as (PopularRow & { asker: number })[], (r) => askerIds[r.asker]!) as Map<string, PopularRow[]>,
    cached,
    advisories: group(adv!.results as unknown as AffectedRow[]),
    sources: sourcesRead.read(srcRes) as SourceRow[],
  };
}

export type Facts = Awaited<ReturnType<typeof offlineFacts>>;

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
export type OsvAnswer = { status: "answered"; ids: string[] } | { status: "failed"; reason: string };

/** What popularRank compares a popular row's name with: the registry name where the registry tells case apart. */
const popularExact = (e: Pick<Entry, "eco" | "name">) => (e.eco === "npm" || e.eco === "go" ? registryKey(e.eco, e.name) : null);
/** The popular names that share a neighbour key with this name (none for popular and hallucinated names): facts.near's key. */
export const nearKey = (e: Pick<Entry, "eco" | "key" | "name">) => `${e.eco}\u0000${e.key}\u0000${popularExact(e) ?? ""}`;

/** The popular-list rank of this exact name (npm and Go: same spelling; PyPI and crates: same folded name). */
export function popularRank(e: Pick<Entry, "eco" | "key" | "name">, facts: Facts): number | undefined {
  const rows = facts.popular.get(pairKey(e.eco, e.key)) ?? [];
  const caseSensitive = e.eco === "npm" || e.eco === "go";
  return rows.find((r) => !caseSensitive || registryKey(e.eco, r.name) === registryKey(e.eco, e.name))?.rank;
}

/** Malicious reports about this name: npm reports name the exact package; Go paths (GitHub owners) fold case. */
export function maliciousRows(e: Pick<Entry, "eco" | "key" | "name">, facts: Facts): MaliciousRow[] {
  const rows = facts.malicious.get(pairKey(e.eco, e.key)) ?? [];
  return e.eco === "npm" ? rows.filter((m) => m.name.trim() === e.name.trim()) : rows;
}
