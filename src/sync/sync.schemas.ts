import * as z from "zod/v4";
import { installedSkillsInput, stackInput } from "../ecosystems/stack";
import { changeOut, deprecationOut } from "../freshness";
import { vulnerabilityOut } from "../freshness";
import { advisoryCoverageOut, uncheckedOut } from "../freshness";
import { kbItemOut } from "../kb";
import { skillItemOut } from "../skills";
import { mentionOut } from "../chat";
import { REFRESH_SCHEDULES } from "../auth";
import { SCAN_STATUSES } from "../scan/types";

export const syncBody = z.object({
  stack: stackInput.optional(),
  installedSkills: installedSkillsInput.optional(),
  force: z.boolean().optional(),
  since: z.string().max(300).optional(),
});
export type SyncInput = z.infer<typeof syncBody>;

export const releaseViewOut = z.object({
  topic: z.string(),
  ecosystem: z.string(),
  /** The stack's package names that map to this topic (react, react-dom…). */
  packages: z.array(z.string()),
  /** The version the caller pins (the lowest, when several of its packages map to the topic). */
  yourVersion: z.string(),
  latestVersion: z.string().nullable(),
  latestDate: z.string().nullable(),
  /** Breaking changes in `changes`. */
  breaking: z.number().int(),
  /** null when yourVersion is newer than every release Lore knows, or when it is the latest but the data is stale (then `note` says so). */
  upToDate: z.boolean().nullable(),
  /** Whether yourVersion is among the releases Lore knows. */
  versionKnown: z.boolean(),
  note: z.string().nullable(),
  /** Releases in (yourVersion, latestVersion], oldest first (in a delta: only those changed since the cursor). */
  changes: z.array(changeOut),
  /** Deprecated APIs removed in that interval, with their replacements. */
  removedDeprecations: z.array(deprecationOut),
  /** False in a delta answer: only what changed since the cursor is listed for this topic. */
  complete: z.boolean(),
  /** When this topic's release data is as of: its registry's last answer (the scheduled ingest, or this sync), else the shipped data's date. */
  dataAsOf: z
    .string()
    .nullable()
    .describe(
      "When this topic's release data is as of: its registry's last answer (the scheduled ingest, or this sync), else the shipped data's date.",
    ),
  /** Older than the release refresh interval (a day) even after this sync tried to refresh it: `upToDate` is then never true, and `note` says why. */
  stale: z
    .boolean()
    .describe(
      "The release data is older than a day even after this sync tried to refresh it: latestVersion may not be the latest, upToDate is never true, and note says why.",
    ),
  /** True when this sync refreshed the topic from its registry (it was stale). */
  refreshed: z.boolean().describe("This sync refreshed the topic from its registry because its data was older than a day."),
});

export const skillStatusOut = z.object({
  name: z.string(),
  /** False for a name Lore does not know (every other field is then null or false). */
  known: z.boolean(),
  securityStatus: z.enum(SCAN_STATUSES).nullable(),
  securityScanHash: z.string().nullable(),
  latestVersion: z.string().nullable(),
  /** In the discovery index and installable (scan passed). */
  listed: z.boolean(),
  statusChangedAt: z.string().nullable(),
  /** The skill's detail URL (`/v1/skills/<name>`), or null for an unknown name. */
  source: z.string().nullable(),
});

export const knowledgeOut = kbItemOut.extend({ source: z.string() });

export const recommendationOut = skillItemOut.extend({
  /** The stack topics this skill's tags matched. */
  matchedTopics: z.array(z.string()),
  source: z.string(),
});

export const syncOut = z.object({
  /** `full`: the complete payload (or, with `since`, everything changed after the cursor); `up_to_date`: no full refresh is due. */
  mode: z.enum(["full", "up_to_date"]),
  /** Why this is a full refresh: first_sync, force, new_topics (a topic this agent never reported), schedule; null when up_to_date. */
  reason: z.enum(["first_sync", "force", "new_topics", "schedule"]).nullable(),
  asOf: z.string(),
  refreshSchedule: z.enum(REFRESH_SCHEDULES),
  /** When the owner's schedule brings the next full refresh (a new topic or `force` bring one sooner). */
  nextRefreshAt: z.string(),
  /** Pass back as `since` next time: only what changed after this answer is returned then. */
  cursor: z.string(),
  /** True when `since` was applied: lists carry only what changed after it (topics new to this agent are complete). */
  delta: z.boolean(),
  /** More changes than one answer holds: sync again with `cursor` at once. */
  hasMore: z.boolean(),
  stack: z.object({
    entries: z.number().int(),
    topics: z.number().int(),
    /** Topics this agent had never reported (they force a full refresh). */
    newTopics: z.array(z.string()),
    /** Topics Lore does not track (no release data; request one with POST /v1/freshness/topics). All of them in a complete full answer; in up_to_date and delta answers only those of entries reported for the first time. */
    untracked: z.array(z.string()),
    /** Entries whose version this ecosystem cannot read (no release view for them); listed like `untracked`. */
    unreadableVersions: z.array(z.object({ name: z.string(), version: z.string(), ecosystem: z.string() })),
    /** True when `stack` was omitted and the last reported stack was used. */
    reused: z.boolean(),
    reportedAt: z.string().nullable(),
  }),
  releases: z.array(releaseViewOut).optional(),
  skills: z.array(skillStatusOut).optional(),
  /** Advisories affecting the pinned versions that this agent has not been told about in a full refresh before. */
  advisories: z.array(vulnerabilityOut).optional(),
  security: z
    .object({
      vulnerabilities: z.array(vulnerabilityOut),
      /** Per ecosystem of the stack: which advisory sources answered, as of when, current or stale, and how many entries they checked. Applies to `advisories` too. */
      coverage: z.array(advisoryCoverageOut),
      /** Entries no current, complete advisory source answered for: their listed vulnerabilities are what is known, not all there is. */
      unchecked: z.array(uncheckedOut),
    })
    .optional(),
  knowledge: z.array(knowledgeOut).optional(),
  recommendations: z.array(recommendationOut).optional(),
  /** up_to_date only: advisories new since the last full refresh that affect the stack, and installed skills now not `passed`. */
  urgent: z
    .object({
      advisories: z.array(vulnerabilityOut),
      flaggedSkills: z.array(skillStatusOut),
      /** As in `security.coverage`: what the urgent advisories were looked up in, and as of when. */
      coverage: z.array(advisoryCoverageOut),
      /** As in `security.unchecked`: entries whose lack of urgent advisories means nothing. */
      unchecked: z.array(uncheckedOut),
    })
    .optional(),
  mentions: z.object({ unread: z.number().int(), items: z.array(mentionOut) }),
  notices: z.array(z.string()),
});
export type SyncOut = z.infer<typeof syncOut>;
export type ReleaseViewOut = z.infer<typeof releaseViewOut>;
export type SkillStatusOut = z.infer<typeof skillStatusOut>;
