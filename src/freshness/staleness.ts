/**
 * How old a fact may be before an answer must call it stale: the refresh interval of each kind of
 * data, with slack for a missed run. The scheduled ingest runs every 6 hours (INGEST_CRON), so a
 * day without a successful refresh means several runs failed; a snapshot shipped in data/ is as old
 * as its date. Answers built on older data say so (and a sync refreshes what it can).
 */
export const HOUR_MS = 3_600_000;

export const MAX_AGE_MS = {
  /** A topic's releases and "latest" (registry ingest). */
  releases: 24 * HOUR_MS,
  /** Advisories of a package or an ecosystem (OSV query, or an offline snapshot). */
  advisories: 24 * HOUR_MS,
  /** Model prices, limits and lifecycle (models.dev ingest, the curated file). */
  models: 7 * 24 * HOUR_MS,
} as const;

/** Whole days between `asOf` and `at`, for messages ("14 days old"). */
export const ageDays = (asOf: number, at: number) => Math.max(0, Math.floor((at - asOf) / (24 * HOUR_MS)));

/** "current" when younger than `maxAge`, else "stale". */
export const freshness = (asOf: number, at: number, maxAge: number): "current" | "stale" => (at - asOf <= maxAge ? "current" : "stale");
