/**
 * Loads data/freshness/releases.json (topics, aliases, dated releases) and deprecations.json.
 * Upserts change `ingested_at` only when a fact changed, so sync cursors see real changes only.
 */
import type { Env } from "../env";
import { bulkStatements, jsonCols } from "../core/bulk";
import { now } from "../core/clock";
import { foldDisplay, packageKey } from "../ecosystems/topics";
import { isPrerelease, parseEcosystem, type Ecosystem } from "../ecosystems/versions";
import { insertColumns, type SqlTuple } from "../core/columns";
import { freshTopics, freshAliases, freshReleases, freshDeprecations } from "../db/freshness";

interface ReleasesFile {
  as_of: string;
  topics: { topic: string; ecosystem: string; packages: string[]; aliases: string[]; repo?: string; changelog?: string }[];
  releases: {
    topic: string;
    ecosystem: string;
    package: string;
    version: string;
    date: string | null;
    date_basis?: string;
    breaking: boolean | null;
    breaking_examples?: string[];
    notes?: string;
    source: string;
    verification?: string;
  }[];
}

/** How much a date is worth; an ingest never overwrites a date with a weaker one. */
export const DATE_RANK = { registry: 0, githubRelease: 1, changelog: 2, publisher: 3 } as const;

const rankOfVerification = (v?: string) =>
  v === "primary" ? DATE_RANK.publisher : v === "secondary" ? DATE_RANK.changelog : DATE_RANK.githubRelease;

/** Upsert of topics (SQL shared with the ingest). ?1 = JSON rows [topic, eco, display, packages, repo, changelog], ?2 = now. */
export const UPSERT_TOPICS = `INSERT INTO ${insertColumns(freshTopics, ["topic", "ecosystem", "displayName", "packages", "repo", "changelog", "tracked", "createdAt", "updatedAt"])}
  SELECT ${jsonCols(6)}, 1, ?2, ?2 FROM json_each(?1) WHERE true
  ON CONFLICT (topic) DO UPDATE SET ecosystem = excluded.ecosystem, display_name = coalesce(excluded.display_name, fresh_topics.display_name),
    packages = excluded.packages, repo = coalesce(excluded.repo, fresh_topics.repo), changelog = coalesce(excluded.changelog, fresh_topics.changelog),
    tracked = 1, updated_at = excluded.updated_at
  WHERE fresh_topics.packages IS NOT excluded.packages OR fresh_topics.repo IS NOT excluded.repo
     OR fresh_topics.changelog IS NOT excluded.changelog OR fresh_topics.tracked = 0 OR fresh_topics.ecosystem IS NOT excluded.ecosystem`;

const RELEASE_KEYS = [
  "topic",
  "version",
  "ecosystem",
  "package",
  "date",
  "dateBasis",
  "dateRank",
  "asOfDate",
  "title",
  "summaryMd",
  "breaking",
  "changes",
  "prerelease",
  "url",
  "source",
  "verification",
] as const;

/**
 * Upsert of releases. A field is replaced only by a source of strictly higher rank, or when it is
 * still empty: so two sources of equal rank never take turns (a reseed after an ingest changes
 * nothing), and a registry time never replaces a changelog or publisher date. `ingested_at` moves
 * only when something was replaced. ?1 = JSON rows (see columns), ?2 = now.
 */
export const UPSERT_RELEASES = `INSERT INTO ${insertColumns(freshReleases, [...RELEASE_KEYS, "ingestedAt"])}
  SELECT ${jsonCols(RELEASE_KEYS.length)}, ?2 FROM json_each(?1) WHERE true
  ON CONFLICT (topic, version) DO UPDATE SET
    date = CASE WHEN excluded.date IS NOT NULL AND (fresh_releases.date IS NULL OR excluded.date_rank > fresh_releases.date_rank) THEN excluded.date ELSE fresh_releases.date END,
    date_basis = CASE WHEN excluded.date IS NOT NULL AND (fresh_releases.date IS NULL OR excluded.date_rank > fresh_releases.date_rank) THEN excluded.date_basis ELSE fresh_releases.date_basis END,
    summary_md = CASE WHEN excluded.summary_md <> '' AND (fresh_releases.summary_md = '' OR excluded.date_rank > fresh_releases.date_rank) THEN excluded.summary_md ELSE fresh_releases.summary_md END,
    breaking = CASE WHEN excluded.breaking IS NOT NULL AND (fresh_releases.breaking IS NULL OR excluded.date_rank > fresh_releases.date_rank) THEN excluded.breaking ELSE fresh_releases.breaking END,
    changes = CASE WHEN excluded.changes <> '[]' AND (fresh_releases.changes = '[]' OR excluded.date_rank > fresh_releases.date_rank) THEN excluded.changes ELSE fresh_releases.changes END,
    url = coalesce(fresh_releases.url, excluded.url),
    source = CASE WHEN excluded.date_rank > fresh_releases.date_rank THEN excluded.source ELSE fresh_releases.source END,
    verification = CASE WHEN excluded.date_rank > fresh_releases.date_rank THEN excluded.verification ELSE fresh_releases.verification END,
    date_rank = CASE WHEN excluded.date IS NOT NULL AND (fresh_releases.date IS NULL OR excluded.date_rank > fresh_releases.date_rank) THEN excluded.date_rank ELSE fresh_releases.date_rank END,
    ingested_at = excluded.ingested_at
  WHERE (excluded.date IS NOT NULL AND excluded.date IS NOT fresh_releases.date AND (fresh_releases.date IS NULL OR excluded.date_rank > fresh_releases.date_rank))
     OR (excluded.breaking IS NOT NULL AND excluded.breaking IS NOT fresh_releases.breaking AND (fresh_releases.breaking IS NULL OR excluded.date_rank > fresh_releases.date_rank))
     OR (excluded.changes <> '[]' AND excluded.changes IS NOT fresh_releases.changes AND (fresh_releases.changes = '[]' OR excluded.date_rank > fresh_releases.date_rank))
     OR (excluded.summary_md <> '' AND excluded.summary_md IS NOT fresh_releases.summary_md AND (fresh_releases.summary_md = '' OR excluded.date_rank > fresh_releases.date_rank))`;

/** One release as UPSERT_RELEASES reads it from its JSON rows (`ingested_at` is ?2). */
export type ReleaseRow = SqlTuple<typeof freshReleases, typeof RELEASE_KEYS>;

export async function loadReleases(env: Env, text: string): Promise<{ rows: number }> {
  const file = JSON.parse(text) as ReleasesFile;
  const t = now();
  const topics = file.topics.map((tp) => [
    tp.topic,
    parseEcosystem(tp.ecosystem) ?? tp.ecosystem,
    tp.topic,
    JSON.stringify(tp.packages),
    tp.repo ?? null,
    tp.changelog ?? null,
  ]);
  const aliases: [string, string, string][] = [];
  for (const tp of file.topics) {
    const eco = (parseEcosystem(tp.ecosystem) ?? "npm") as Ecosystem;
    for (const a of new Set([tp.topic, ...tp.packages, ...tp.aliases])) {
      aliases.push([eco, packageKey(eco, a), tp.topic]);
      aliases.push(["", foldDisplay(a), tp.topic]);
    }
  }
  const releases: ReleaseRow[] = file.releases.map((r) => {
    const eco = (parseEcosystem(r.ecosystem) ?? "npm") as Ecosystem;
    const examples = r.breaking_examples ?? [];
    const breaking = r.breaking === null ? null : r.breaking ? Math.max(1, examples.length) : 0;
    const summary = [r.notes, r.date_basis ? `Date: ${r.date_basis}.` : null].filter(Boolean).join("\n\n");
    return [
      r.topic,
      r.version,
      eco,
      r.package,
      r.date,
      r.date_basis ?? null,
      rankOfVerification(r.verification),
      file.as_of,
      `${r.package} ${r.version}`,
      summary,
      breaking,
      JSON.stringify(examples.map((text) => ({ kind: "breaking", text, breaking: true }))),
      isPrerelease(eco, r.version) ? 1 : 0,
      r.source,
      r.source,
      r.verification ?? null,
    ];
  });
  await env.DB.batch([
    ...bulkStatements(env.DB, UPSERT_TOPICS, topics, [t]),
    ...bulkStatements(
      env.DB,
      `INSERT OR REPLACE INTO ${insertColumns(freshAliases, ["ecosystem", "alias", "topic"])} SELECT ${jsonCols(3)} FROM json_each(?1)`,
      aliases,
    ),
    ...bulkStatements(env.DB, UPSERT_RELEASES, releases, [t]),
  ]);
  return { rows: releases.length };
}

interface DeprecationsFile {
  as_of: string;
  deprecations: {
    id: string;
    topic: string;
    ecosystem: string;
    package?: string;
    api: string;
    status: string;
    deprecated_in?: string | null;
    removed_in?: string | null;
    replacement?: string | null;
    notes?: string;
    example_before?: string;
    example_after?: string;
    source: string;
    verification?: string;
  }[];
}

/** ?1 = JSON rows of the 15 columns below, ?2 = now. Shared with the ingest (npm/Go deprecations). */
export const UPSERT_DEPRECATIONS = `INSERT INTO ${insertColumns(freshDeprecations, ["id", "topic", "ecosystem", "package", "api", "status", "since", "removedIn", "replacement", "notes", "exampleBefore", "exampleAfter", "asOfDate", "source", "verification", "ingestedAt"])}
  SELECT ${jsonCols(15)}, ?2 FROM json_each(?1) WHERE true
  ON CONFLICT (id) DO UPDATE SET topic = excluded.topic, ecosystem = excluded.ecosystem, package = excluded.package, api = excluded.api,
    status = excluded.status, since = excluded.since, removed_in = excluded.removed_in, replacement = excluded.replacement,
    notes = excluded.notes, example_before = excluded.example_before, example_after = excluded.example_after,
    as_of_date = excluded.as_of_date, source = excluded.source, verification = excluded.verification, ingested_at = excluded.ingested_at
  WHERE fresh_deprecations.api IS NOT excluded.api OR fresh_deprecations.status IS NOT excluded.status
     OR fresh_deprecations.since IS NOT excluded.since OR fresh_deprecations.removed_in IS NOT excluded.removed_in
     OR fresh_deprecations.replacement IS NOT excluded.replacement OR fresh_deprecations.notes IS NOT excluded.notes
     OR fresh_deprecations.source IS NOT excluded.source`;

export async function loadDeprecations(env: Env, text: string): Promise<{ rows: number }> {
  const file = JSON.parse(text) as DeprecationsFile;
  const t = now();
  const rows = file.deprecations.map((d) => [
    d.id,
    d.topic,
    parseEcosystem(d.ecosystem) ?? d.ecosystem,
    d.package ?? null,
    d.api,
    d.status,
    d.deprecated_in ?? null,
    d.removed_in ?? null,
    d.replacement ?? null,
    d.notes ?? null,
    d.example_before ?? null,
    d.example_after ?? null,
    file.as_of,
    d.source,
    d.verification ?? null,
  ]);
  // Topics that only have deprecations (runtimes, standard libraries) are topics too.
  const topics = [...new Map(file.deprecations.map((d) => [d.topic, d])).values()].map((d) => [
    d.topic,
    parseEcosystem(d.ecosystem) ?? d.ecosystem,
    d.topic,
  ]);
  await env.DB.batch([
    ...bulkStatements(
      env.DB,
      `INSERT INTO ${insertColumns(freshTopics, ["topic", "ecosystem", "displayName", "packages", "tracked", "createdAt", "updatedAt"])}
       SELECT ${jsonCols(3)}, '[]', 1, ?2, ?2 FROM json_each(?1) WHERE true ON CONFLICT (topic) DO NOTHING`,
      topics,
      [t],
    ),
    ...bulkStatements(
      env.DB,
      `INSERT OR IGNORE INTO ${insertColumns(freshAliases, ["ecosystem", "alias", "topic"])} SELECT json_extract(value, '$[1]'), json_extract(value, '$[0]'), json_extract(value, '$[0]') FROM json_each(?1)`,
      topics,
    ),
    ...bulkStatements(env.DB, UPSERT_DEPRECATIONS, rows, [t]),
  ]);
  return { rows: rows.length };
}
