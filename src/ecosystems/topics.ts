/**
 * Topics: canonical lowercase names (`react`, `next`, `drizzle-orm`) that packages of an ecosystem
 * map to through a curated alias table (`react-dom`, `@types/react` → `react`; `Next.js` → `next`).
 * Names the table does not know stay their own topic, normalised the ecosystem's way.
 */
import type { SqlRow } from "../core/columns";
import type { freshAliases, freshTopics } from "../db/freshness";
import type { Ecosystem } from "./versions";
import { goModuleMajor, parseEcosystem } from "./versions";

/** PEP 503: runs of `-`, `_`, `.` become one `-`, lowercase. */
export const pep503 = (name: string) =>
  name
    .trim()
    .replace(/[-_.]+/g, "-")
    .toLowerCase();

/**
 * The folded key of a package name: npm lowercase (scopes kept), PyPI PEP 503, crates lowercase
 * with `_` as `-` (crates.io treats them as one name), Go module paths lowercase (GitHub owners are
 * case-insensitive). Topics, aliases and the offline lists use it; the registry cache does not
 * (npm and Go names are case-sensitive there: registryKey).
 */
export function packageKey(eco: Ecosystem, name: string): string {
  const n = name.trim();
  switch (eco) {
    case "npm":
      return n.toLowerCase();
    case "pypi":
      return pep503(n);
    case "cargo":
      return n.toLowerCase().replace(/_/g, "-");
    case "go":
      return n.toLowerCase().replace(/\/+$/, "");
  }
}

/**
 * The name as the registry itself tells packages apart, for its cache and for deduping lookups.
 * npm and the Go module proxy are case-sensitive: `Chalk` is not `chalk` (npm answers 404 for it),
 * `JSONStream` and `jsonstream` are two packages, and `github.com/Sirupsen/logrus` is a module path
 * of its own. PyPI (PEP 503) and crates.io (case and `-`/`_`) fold names themselves, so their
 * folded key is their identity. packageKey (folded) stays the key for topics and for the offline
 * lists (popular, typo neighbours, malicious, hallucinated), where a case variant must be found.
 */
export function registryKey(eco: Ecosystem, name: string): string {
  const n = name.trim();
  switch (eco) {
    case "npm":
      return n;
    case "go":
      return n.replace(/\/+$/, "");
    case "pypi":
    case "cargo":
      return packageKey(eco, n);
  }
}

/** Display-name folding (`Next.js`, `nextjs`, `next-js` → `nextjs`), for display aliases only. */
export const foldDisplay = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s._-]+/g, "");

/** `@types/react` → `react`; `@types/babel__core` → `@babel/core` (DefinitelyTyped's scoped form). */
export function stripTypesScope(name: string): string {
  const m = /^@types\/(.+)$/.exec(name);
  if (!m) return name;
  const inner = m[1]!;
  const scoped = /^([^_]+)__(.+)$/.exec(inner);
  return scoped ? `@${scoped[1]}/${scoped[2]}` : inner;
}

/** The topic an unknown package becomes: its key, without `@types/` or a Go `/vN` major suffix. */
export function defaultTopic(eco: Ecosystem, name: string): string {
  const key = packageKey(eco, name);
  if (eco === "npm") return stripTypesScope(key);
  if (eco === "go") return goModuleMajor(key).base;
  return key;
}

/** The alias keys to look up for a name, most specific first. */
export function aliasKeys(eco: Ecosystem, name: string): string[] {
  const key = packageKey(eco, name);
  const keys = [key];
  if (eco === "npm") keys.push(stripTypesScope(key));
  if (eco === "go") keys.push(goModuleMajor(key).base);
  return [...new Set(keys)];
}

/** A known alias with its topic and the ingest facts the subqueries add. */
type TopicRow = SqlRow<typeof freshAliases, "alias" | "topic"> &
  SqlRow<typeof freshTopics, "ecosystem" | "tracked" | "packages" | "repo" | "changelog"> & {
    alias_eco: string;
    last_ok_at: number | null;
    last_run_at: number | null;
    last_error: string | null;
    seed_as_of: string | null;
  };

export interface TopicRef {
  topic: string;
  ecosystem: string;
  /** True when the alias table knows the name (a tracked topic), false when it is its own topic. */
  known: boolean;
  /** A known topic's release data: how old it is, and what a refresh needs (null for unknown names). */
  data: TopicData | null;
}

export interface TopicData {
  tracked: boolean;
  packages: string;
  repo: string | null;
  changelog: string | null;
  /** When its registry last answered (ms), or null. */
  lastOkAt: number | null;
  /** When its registry was last asked (ms), or null. */
  lastRunAt: number | null;
  lastError: string | null;
  /** The newest `as of` date of its stored releases (a shipped file's date), or null. */
  seedAsOf: string | null;
}

/** When a topic's release data is as of (ms): its registry's last answer, else the date of the data shipped. */
export const topicDataAsOf = (d: TopicData | null): number | null => {
  if (!d) return null;
  const seed = d.seedAsOf ? Date.parse(`${d.seedAsOf.slice(0, 10)}T00:00:00Z`) : null;
  const best = Math.max(d.lastOkAt ?? -1, seed ?? -1);
  return best < 0 ? null : best;
};

/** The registry ingests whose answers date a topic's releases. */
const REGISTRY_SOURCES = "('npm', 'pypi', 'go', 'crates')";

/**
 * Resolves many (ecosystem, name) pairs to topics with one D1 query: exact ecosystem aliases first,
 * then display-name aliases of a topic in the same ecosystem (or any, when `ecosystem` is null:
 * a free-text topic like `Next.js` in a freshness read).
 */
export async function resolveTopics(db: D1Database, items: { name: string; ecosystem: Ecosystem | null }[]): Promise<TopicRef[]> {
  const lookups: [string, string][] = [];
  // Each item's candidate keys, in the order they are tried below (computed once).
  const keysOf = items.map((it) => {
    const own: [string, string][] = it.ecosystem
      ? aliasKeys(it.ecosystem, it.name).map((k) => [it.ecosystem!, k])
      : (["npm", "pypi", "go", "cargo"] as const).map((eco) => [eco, packageKey(eco, it.name)]);
    const display = [foldDisplay(it.name), it.name.trim().toLowerCase()];
    for (const l of own) lookups.push(l);
    for (const d of display) lookups.push(["", d]);
    return { own, display };
  });
  const rows = lookups.length
    ? (
        await db
          .prepare(
            `SELECT a.ecosystem AS alias_eco, a.alias, a.topic, t.ecosystem, t.tracked, t.packages, t.repo, t.changelog,
                    (SELECT max(s.last_ok_at) FROM ingest_status s WHERE s.topic = t.topic AND s.source IN ${REGISTRY_SOURCES}) AS last_ok_at,
                    (SELECT max(s.last_run_at) FROM ingest_status s WHERE s.topic = t.topic AND s.source IN ${REGISTRY_SOURCES}) AS last_run_at,
                    (SELECT s.last_error FROM ingest_status s WHERE s.topic = t.topic AND s.source IN ${REGISTRY_SOURCES} ORDER BY s.last_run_at DESC LIMIT 1) AS last_error,
                    (SELECT max(r.as_of_date) FROM fresh_releases r WHERE r.topic = t.topic) AS seed_as_of
               FROM json_each(?1) j
               JOIN fresh_aliases a ON a.ecosystem = json_extract(j.value, '$[0]') AND a.alias = json_extract(j.value, '$[1]')
               JOIN fresh_topics t ON t.topic = a.topic`,
          )
          .bind(JSON.stringify(lookups))
          .all<TopicRow>()
      ).results
    : [];
  const byKey = new Map(rows.map((r) => [`${r.alias_eco}\u0000${r.alias}`, r]));
  const ref = (hit: TopicRow): TopicRef => ({
    topic: hit.topic,
    ecosystem: hit.ecosystem,
    known: true,
    data: {
      tracked: !!hit.tracked,
      packages: hit.packages,
      repo: hit.repo,
      changelog: hit.changelog,
      lastOkAt: hit.last_ok_at,
      lastRunAt: hit.last_run_at,
      lastError: hit.last_error,
      seedAsOf: hit.seed_as_of,
    },
  });
  return items.map((it, i) => {
    const { own, display } = keysOf[i]!;
    for (const [eco, k] of own) {
      const hit = byKey.get(`${eco}\u0000${k}`);
      if (hit) return ref(hit);
    }
    for (const k of display) {
      const hit = byKey.get(`\u0000${k}`);
      if (hit && (!it.ecosystem || hit.ecosystem === it.ecosystem)) return ref(hit);
    }
    const eco = it.ecosystem ?? "npm";
    return { topic: defaultTopic(eco, it.name), ecosystem: eco, known: false, data: null };
  });
}

/**
 * The same resolution as resolveTopics for one name, as an SQL expression (for `WITH q AS (SELECT
 * <expr> AS topic)`), so a read can resolve its topic inside its own batch: one round trip.
 * `?N` is the candidates parameter (JSON [[ecosystem, alias, requiredTopicEcosystem|null], …] in
 * priority order), `?M` the default topic.
 */
export function topicCandidates(
  name: string,
  ecosystem: Ecosystem | null,
): { candidates: string; fallback: string; fallbackEcosystem: Ecosystem } {
  const c: [string, string, string | null][] = [];
  if (ecosystem) for (const k of aliasKeys(ecosystem, name)) c.push([ecosystem, k, null]);
  else for (const eco of ["npm", "pypi", "go", "cargo"] as const) c.push([eco, packageKey(eco, name), null]);
  for (const k of [foldDisplay(name), name.trim().toLowerCase()]) c.push(["", k, ecosystem]);
  const eco = ecosystem ?? "npm";
  return { candidates: JSON.stringify(c), fallback: defaultTopic(eco, name), fallbackEcosystem: eco };
}

export const topicExpr = (candidates: string, fallback: string) => `coalesce((SELECT a.topic FROM json_each(${candidates}) j
    JOIN fresh_aliases a ON a.ecosystem = json_extract(j.value, '$[0]') AND a.alias = json_extract(j.value, '$[1]')
    JOIN fresh_topics t ON t.topic = a.topic
   WHERE json_extract(j.value, '$[2]') IS NULL OR t.ecosystem = json_extract(j.value, '$[2]')
   ORDER BY j.key LIMIT 1), ${fallback})`;

export { parseEcosystem };
