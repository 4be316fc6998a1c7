import * as z from "zod/v4";
import { paginationQuery } from "../core/pagination";
import { vulnerabilityOut } from "./advisories";
import { advisoryCoverageOut, uncheckedOut } from "./coverage";

/** `YYYY-MM-DD` or a full ISO 8601 timestamp; compared as a UTC calendar day. */
export const sinceDate = z
  .string()
  .trim()
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}(T.*)?$/.test(s) && !Number.isNaN(Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s)),
    "a date as YYYY-MM-DD or an ISO 8601 timestamp",
  )
  .transform((s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : s).toISOString().slice(0, 10));

export const changeItemOut = z.object({
  kind: z.string(),
  text: z.string(),
  breaking: z.boolean(),
});

export const changeOut = z.object({
  topic: z.string(),
  ecosystem: z.string(),
  package: z.string(),
  version: z.string(),
  /** The release day the publisher states (changelog, blog, GitHub release), else the registry's publish time. */
  date: z.string().nullable(),
  dateBasis: z.string().nullable(),
  asOfDate: z.string(),
  title: z.string(),
  summaryMd: z.string(),
  /** Breaking changes in this release. */
  breaking: z.number().int(),
  /** `notes`: counted from the publisher's notes; `version`: not assessed there, inferred from the version bump. */
  breakingBasis: z.enum(["notes", "version"]),
  changes: z.array(changeItemOut),
  prerelease: z.boolean(),
  url: z.string().nullable(),
  source: z.string(),
  verification: z.string().nullable(),
});
export type ChangeOut = z.infer<typeof changeOut>;

export const deprecationOut = z.object({
  id: z.string(),
  topic: z.string(),
  ecosystem: z.string(),
  package: z.string().nullable(),
  api: z.string(),
  /** deprecated | removed | renamed | moved | incompatible (wrong API for the context, not deprecated everywhere). */
  status: z.string(),
  since: z.string().nullable(),
  removedIn: z.string().nullable(),
  replacement: z.string().nullable(),
  notes: z.string().nullable(),
  exampleBefore: z.string().nullable(),
  exampleAfter: z.string().nullable(),
  asOfDate: z.string(),
  source: z.string(),
  verification: z.string().nullable(),
});
export type DeprecationOut = z.infer<typeof deprecationOut>;

export const freshnessQuery = z.object({
  topic: z.string().trim().min(1).max(214).optional(),
  ecosystem: z.string().trim().max(20).optional(),
  since: sinceDate.optional(),
  version: z.string().trim().min(1).max(128).optional(),
  ...paginationQuery,
});

export const upgradeOut = z.object({
  from: z.string(),
  /** The latest release Lore knows, and its date. */
  to: z.string().nullable(),
  toDate: z.string().nullable(),
  /** Releases in (from, to]. */
  releases: z.number().int(),
  breaking: z.number().int(),
  removedDeprecations: z.array(deprecationOut),
  /** null when `from` is newer than every release Lore knows (see `note`): not known, so not said to be current. */
  upToDate: z.boolean().nullable(),
  /** Whether `from` is one of the releases Lore knows. */
  versionKnown: z.boolean(),
  note: z.string().nullable(),
});

export const freshnessOut = z.object({
  topic: z.string().nullable(),
  ecosystem: z.string().nullable(),
  /** Whether Lore tracks this topic (false: unknown name, kept as its own topic; request tracking with POST /freshness/topics). */
  tracked: z.boolean(),
  latestVersion: z.string().nullable(),
  latestDate: z.string().nullable(),
  yourVersion: z.string().nullable(),
  upgrade: upgradeOut.nullable(),
  changes: z.array(changeOut),
  total: z.number().int(),
  page: z.number().int(),
  perPage: z.number().int(),
  lastIngestAt: z.string().nullable(),
  /** When the topic's release data is as of: its registry's last answer (the scheduled ingest), else the shipped data's date. */
  dataAsOf: z.string().nullable(),
  /** Older than the release refresh interval (a day): `latestVersion` may not be the latest, and `upgrade.upToDate` is never true. */
  stale: z.boolean(),
  /**
   * With `version`: the advisories affecting that version of the package named in `topic`, per
   * ecosystem the advisory sources consulted (as of when, current or stale), and `unchecked` when
   * no current, complete source answered. Null without a version.
   */
  security: z
    .object({ vulnerabilities: z.array(vulnerabilityOut), coverage: z.array(advisoryCoverageOut), unchecked: z.array(uncheckedOut) })
    .nullable(),
});

export const deprecationsQuery = z.object({
  topic: z.string().trim().min(1).max(214).optional(),
  q: z.string().max(300).optional(),
  status: z.string().trim().toLowerCase().max(20).optional(),
  ...paginationQuery,
});

export const topicOut = z.object({
  topic: z.string(),
  ecosystem: z.string(),
  /** tracked: ingested from its sources; requested: asked for with POST /freshness/topics, not yet tracked. */
  status: z.enum(["tracked", "requested"]),
  packages: z.array(z.string()),
  aliases: z.array(z.string()),
  sources: z.array(z.object({ kind: z.enum(["repo", "changelog", "requested"]), url: z.string(), requests: z.number().int().optional() })),
  latestVersion: z.string().nullable(),
  releaseCount: z.number().int(),
  deprecationCount: z.number().int(),
  lastIngestAt: z.string().nullable(),
  lastIngestError: z.string().nullable(),
});
export type TopicOut = z.infer<typeof topicOut>;

export const topicsQuery = z.object({
  q: z.string().trim().max(100).optional(),
  ecosystem: z.string().trim().max(20).optional(),
  status: z.enum(["tracked", "requested"]).optional(),
  ...paginationQuery,
});

export const trackBody = z.object({
  topic: z.string().trim().min(1).max(214),
  ecosystem: z.string().trim().max(20).optional(),
  sources: z
    .array(z.object({ repoUrl: z.string().max(500) }))
    .min(1)
    .max(5),
});
