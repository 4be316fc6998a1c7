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

/** One item's candidates, ready to look up: its own ecosystem's keys, then display-name keys, then its own topic. */
interface ItemLookups {
  /** `ecosystem\u0000key` of the alias table, most specific first. */
  own: string[];
  /** `\u0000key` of a display-name alias. */
  display: string[];
  /** A display-name hit counts only for a topic of this ecosystem (null: any). */
  ecosystem: Ecosystem | null;
  /** What the item is when no alias names it. */
  fallback: TopicRef;
}

/**
 * What resolveTopics asks of D1 for these items, and how it reads the rows: a pure function of the
 * items (no storage read), so a caller that sees the same items again (a sync's stack) may keep it.
 */
export interface TopicLookups {
  /** The statement's parameter: JSON [[ecosystem, alias], …]. */
  lookups: string;
  items: ItemLookups[];
  /** Approximate bytes held (for a bounded cache). */
  bytes: number;
}

export function topicLookups(items: { name: string; ecosystem: Ecosystem | null }[]): TopicLookups {
  const lookups: [string, string][] = [];
  let bytes = 0;
  const out = items.map((it): ItemLookups => {
    const own: [string, string][] = it.ecosystem
      ? aliasKeys(it.ecosystem, it.name).map((k) => [it.ecosystem!, k])
      : (["npm", "pypi", "go", "cargo"] as const).map((eco) => [eco, packageKey(eco, it.name)]);
    const display = [foldDisplay(it.name), it.name.trim().toLowerCase()];
    for (const l of own) lookups.push(l);
    for (const d of display) lookups.push(["", d]);
    const eco = it.ecosystem ?? "npm";
    const fallback: TopicRef = { topic: defaultTopic(eco, it.name), ecosystem: eco, known: false, data: null };
    bytes += 200 + 6 * it.name.length * (own.length + display.length + 1);
    return { own: own.map(([e, k]) => `${e}\u0000${k}`), display: display.map((k) => `\u0000${k}`), ecosystem: it.ecosystem, fallback };
  });
  const json = JSON.stringify(lookups);
  return { lookups: json, items: out, bytes: bytes + 2 * json.length };
}

/**
 * Resolves many (ecosystem, name) pairs to topics with one D1 query: exact ecosystem aliases first,
 * then display-name aliases of a topic in the same ecosystem (or any, when `ecosystem` is null:
 * a free-text topic like `Next.js` in a freshness read).
 */
export function resolveTopics(db: D1Database, items: { name: string; ecosystem: Ecosystem | null }[]): Promise<TopicRef[]> {
  return resolveTopicLookups(db, topicLookups(items));
}

/**
 * resolveTopics with its lookups made before (topicLookups). An unknown name's ref is the one held
 * in `prep` (the same object each time: callers only read it); a known one's is made per row.
 */
export async function resolveTopicLookups(db: D1Database, prep: TopicLookups): Promise<TopicRef[]> {
  const rows = prep.items.length
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
          .bind(prep.lookups)
          .all<TopicRow>()
      ).results
    : [];
  const byKey = new Map(rows.map((r) => [`${r.alias_eco}\u0000${r.alias}`, r]));
  // One ref per row: the items it names share it.
  const refs = new Map<TopicRow, TopicRef>();
  const ref = (hit: TopicRow): TopicRef => {
    let r = refs.get(hit);
    if (!r)
      refs.set(
        hit,
        (r = {
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
        }),
      );
    return r;
  };
  if (!byKey.size) return prep.items.map((it) => it.fallback);
  return prep.items.map((it) => {
    for (const k of it.own) {
      const hit = byKey.get(k);
      if (hit) return ref(hit);
    }
    for (const k of it.display) {
      const hit = byKey.get(k);
      if (hit && (!it.ecosystem || hit.ecosystem === it.ecosystem)) return ref(hit);
    }
    return it.fallback;
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
