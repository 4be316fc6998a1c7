import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";

/**
 * Freshness, models and the package check (migration 0008). The FTS5 tables
 * (`fresh_deprecations_fts`, `models_fts`) and their triggers live only in the SQL migration.
 * Every fact row carries `ingestedAt` (ms, when Lore last changed it) for "what changed since".
 */
export const freshTopics = sqliteTable("fresh_topics", {
  topic: text("topic").primaryKey(),
  ecosystem: text("ecosystem").notNull(),
  displayName: text("display_name"),
  packages: text("packages").notNull().default("[]"),
  repo: text("repo"),
  changelog: text("changelog"),
  tracked: integer("tracked").notNull().default(1),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const freshAliases = sqliteTable(
  "fresh_aliases",
  { ecosystem: text("ecosystem").notNull(), alias: text("alias").notNull(), topic: text("topic").notNull() },
  (t) => [primaryKey({ columns: [t.ecosystem, t.alias] }), index("fresh_aliases_topic_idx").on(t.topic)],
);

export const freshTrackingRequests = sqliteTable(
  "fresh_tracking_requests",
  {
    topic: text("topic").notNull(),
    repoUrl: text("repo_url").notNull(),
    requests: integer("requests").notNull().default(1),
    firstOwnerId: text("first_owner_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.topic, t.repoUrl] })],
);

export const freshReleases = sqliteTable(
  "fresh_releases",
  {
    topic: text("topic").notNull(),
    version: text("version").notNull(),
    ecosystem: text("ecosystem").notNull(),
    package: text("package").notNull(),
    date: text("date"),
    dateBasis: text("date_basis"),
    dateRank: integer("date_rank").notNull().default(0),
    asOfDate: text("as_of_date").notNull(),
    title: text("title").notNull(),
    summaryMd: text("summary_md").notNull().default(""),
    /** Breaking changes counted from the publisher's notes; null = not assessed. */
    breaking: integer("breaking"),
    changes: text("changes").notNull().default("[]"),
    prerelease: integer("prerelease").notNull().default(0),
    url: text("url"),
    source: text("source").notNull(),
    verification: text("verification"),
    ingestedAt: integer("ingested_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.topic, t.version] }),
    index("fresh_releases_ingested_idx").on(t.ingestedAt),
    index("fresh_releases_date_idx").on(t.date),
  ],
);

export const freshDeprecations = sqliteTable(
  "fresh_deprecations",
  {
    id: text("id").primaryKey(),
    topic: text("topic").notNull(),
    ecosystem: text("ecosystem").notNull(),
    package: text("package"),
    api: text("api").notNull(),
    status: text("status").notNull(),
    since: text("since"),
    removedIn: text("removed_in"),
    replacement: text("replacement"),
    notes: text("notes"),
    exampleBefore: text("example_before"),
    exampleAfter: text("example_after"),
    asOfDate: text("as_of_date").notNull(),
    source: text("source").notNull(),
    verification: text("verification"),
    ingestedAt: integer("ingested_at").notNull(),
  },
  (t) => [index("fresh_deprecations_topic_idx").on(t.topic), index("fresh_deprecations_ingested_idx").on(t.ingestedAt)],
);

export const advisories = sqliteTable(
  "advisories",
  {
    id: text("id").primaryKey(),
    aliases: text("aliases").notNull().default("[]"),
    summary: text("summary"),
    details: text("details"),
    severity: text("severity"),
    cvssVector: text("cvss_vector"),
    published: text("published"),
    modified: text("modified").notNull(),
    malicious: integer("malicious").notNull().default(0),
    url: text("url"),
    source: text("source").notNull(),
    /** When the source last said this (a snapshot's date; an OSV answer's time), ISO 8601. */
    asOf: text("as_of"),
    /** Which source wins a tie on `modified`: 0 an offline snapshot line, 1 the live OSV record. */
    sourceRank: integer("source_rank").notNull().default(1),
    /** SHA-256 of what is served (summary, severity, aliases, … and the affected rows in one normal form); null before it was kept. */
    contentKey: text("content_key"),
    ingestedAt: integer("ingested_at").notNull(),
  },
  (t) => [index("advisories_published_idx").on(t.published), index("advisories_ingested_idx").on(t.ingestedAt)],
);

export const advisoryAffected = sqliteTable(
  "advisory_affected",
  {
    advisoryId: text("advisory_id").notNull(),
    ecosystem: text("ecosystem").notNull(),
    name: text("name").notNull(),
    ranges: text("ranges").notNull().default("[]"),
    versions: text("versions").notNull().default("[]"),
    fixed: text("fixed").notNull().default("[]"),
  },
  (t) => [primaryKey({ columns: [t.advisoryId, t.ecosystem, t.name] }), index("advisory_affected_pkg_idx").on(t.ecosystem, t.name)],
);

export const models = sqliteTable("models", {
  id: text("id").primaryKey(),
  provider: text("provider").notNull(),
  apiModelId: text("api_model_id").notNull(),
  name: text("name").notNull(),
  aliases: text("aliases").notNull().default("[]"),
  releaseDate: text("release_date"),
  releaseDateNotes: text("release_date_notes"),
  pricing: text("pricing"),
  contextWindow: integer("context_window"),
  maxInputTokens: integer("max_input_tokens"),
  maxOutputTokens: integer("max_output_tokens"),
  lifecycle: text("lifecycle").notNull().default("{}"),
  lifecycleStatus: text("lifecycle_status"),
  retirementDate: text("retirement_date"),
  benchmarks: text("benchmarks").notNull().default("[]"),
  sources: text("sources").notNull().default("[]"),
  source: text("source").notNull(),
  factsAsOf: text("facts_as_of").notNull().default("{}"),
  origin: text("origin").notNull(),
  ingestedAt: integer("ingested_at").notNull(),
});

export const maliciousPackages = sqliteTable(
  "malicious_packages",
  {
    ecosystem: text("ecosystem").notNull(),
    nameKey: text("name_key").notNull(),
    record: text("record").notNull(),
    name: text("name").notNull(),
    versions: text("versions").notNull(),
    malId: text("mal_id"),
    modified: text("modified"),
    summaryKind: text("summary_kind"),
    origin: text("origin").notNull(),
    ingestedAt: integer("ingested_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ecosystem, t.nameKey, t.record] }), index("malicious_packages_ingested_idx").on(t.ingestedAt)],
);

export const popularNames = sqliteTable(
  "popular_names",
  {
    ecosystem: text("ecosystem").notNull(),
    rank: integer("rank").notNull(),
    name: text("name").notNull(),
    nameKey: text("name_key").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ecosystem, t.rank] }), index("popular_names_key_idx").on(t.ecosystem, t.nameKey)],
);

export const popularKeys = sqliteTable(
  "popular_keys",
  { ecosystem: text("ecosystem").notNull(), keyHash: integer("key_hash").notNull(), rank: integer("rank").notNull() },
  (t) => [primaryKey({ columns: [t.ecosystem, t.keyHash, t.rank] })],
);

export const hallucinatedNames = sqliteTable(
  "hallucinated_names",
  {
    ecosystem: text("ecosystem").notNull(),
    nameKey: text("name_key").notNull(),
    name: text("name").notNull(),
    suggestion: text("suggestion").notNull(),
    note: text("note").notNull(),
    source: text("source").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ecosystem, t.nameKey] })],
);

/** A rowid table with its large columns last (migration 0017): a lookup by name never reads a version list it does not ask for. */
export const registryCache = sqliteTable(
  "registry_cache",
  {
    ecosystem: text("ecosystem").notNull(),
    nameKey: text("name_key").notNull(),
    status: text("status").notNull(),
    fetchedAt: integer("fetched_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    data: text("data").notNull(),
    flags: text("flags").notNull().default("{}"),
    versions: text("versions").notNull().default("[]"),
  },
  (t) => [primaryKey({ columns: [t.ecosystem, t.nameKey] })],
);

export const ingestStatus = sqliteTable(
  "ingest_status",
  {
    source: text("source").notNull(),
    topic: text("topic").notNull(),
    lastRunAt: integer("last_run_at").notNull(),
    lastOkAt: integer("last_ok_at"),
    lastError: text("last_error"),
    items: integer("items").notNull().default(0),
    cursor: text("cursor"),
  },
  (t) => [primaryKey({ columns: [t.source, t.topic] })],
);

/**
 * Which advisory sources have answered, for what, and as of when (migration 0013): a snapshot
 * covers a whole ecosystem (`scope` = '*'), an OSV query one package (`scope` = its folded key).
 * `complete` = 1 when absence from the source means "no known advisory" (OSV, the PyPI, Go and
 * RustSec databases); 0 when it only lists what it lists (the historical npm reports). An answer
 * counts a package as checked only against a complete source younger than `max_age_ms`.
 */
export const advisorySources = sqliteTable(
  "advisory_sources",
  {
    ecosystem: text("ecosystem").notNull(),
    scope: text("scope").notNull(),
    source: text("source").notNull(),
    label: text("label").notNull(),
    url: text("url"),
    license: text("license"),
    asOf: integer("as_of").notNull(),
    complete: integer("complete").notNull(),
    maxAgeMs: integer("max_age_ms").notNull(),
    records: integer("records"),
    note: text("note"),
  },
  (t) => [primaryKey({ columns: [t.ecosystem, t.scope, t.source] })],
);
