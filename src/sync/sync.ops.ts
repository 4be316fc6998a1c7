import * as z from "zod/v4";
import { pageOut, TOTAL_BOUND } from "../core/fts";
import { defineOperation } from "../core/operation";
import { list, text } from "../core/compact";
import { now } from "../core/clock";
import { paginationQuery, queryBool } from "../core/pagination";
import { ref } from "../core/text";
import { SCAN_STATUSES } from "../scan/types";
import { syncBody, syncOut } from "./sync.schemas";
import { runSync } from "./sync.service";
import { syncAnswerBody } from "./views";
import { envOutsideSession } from "../core/op-context";
import { agentStack, listStacks } from "./stack.service";
import { listNotifications, markNotificationsRead, NOTIFICATION_KINDS } from "./notifications.service";
import { ACTIVITY_KINDS, listActivity } from "./activity.service";

const TAG = "sync";

export const CURSOR_DOC =
  "`cursor` is opaque: pass it back unchanged as `since`. Its format (version 2) is `c2.<payload>.<mac>`, where payload is " +
  'base64url of JSON `{"v":2,"s":<seq>,"u":<seq>,"t":<ms>}`: `s` is the position in Lore\'s change log (every release, deprecation, ' +
  "advisory, malicious report, knowledge verification and skill scan change, numbered in commit order) up to which the holder has the " +
  "full payload, `u` the position up to which it has the urgent items, `t` when it was issued; `mac`, a keyed MAC only Lore can make, " +
  "binds it to the agent. A cursor of another agent or an altered one is a 400 that still costs its FRESHNESS_CALLS unit; anything else " +
  "that is not a cursor is a 400; a version-1 cursor (`c1.`) gets a complete answer, as if none was sent. With `since`, lists carry only what changed after the cursor (topics new to " +
  "the agent, or whose pinned version moved, come whole); nothing is skipped and nothing is sent twice across successive syncs.";

export const sync = defineOperation({
  id: "sync.run",
  summary: "Sync: what changed for this agent's stack and skills (call it first in every session)",
  description:
    "The agent reports its stack (`{name, version, ecosystem}`, npm by default, at most 500 entries; only names and versions, never " +
    "code) and installed skill names; an omitted `stack` or `installedSkills` reuses the last one reported. A full refresh " +
    "(`mode: full`) returns, per tracked topic, the releases in (yourVersion, latest] with breaking counts and removed APIs; the scan " +
    "status and `securityScanHash` of each installed skill (unknown names say so); `security.vulnerabilities` affecting the pinned " +
    "versions with fixed versions, and `advisories`, those not reported to this agent in a full refresh before; VERIFIED knowledge " +
    "entries for the stack's topics; scan-passed skill recommendations not installed; and the unread @mentions. When the owner's " +
    "refresh schedule (EVERY_SESSION, DAILY, WEEKLY, EVERY_15_DAYS, MONTHLY; dashboard settings) has not elapsed, `force` is not " +
    "true and no topic is new to this agent, the answer is `mode: up_to_date` with `nextRefreshAt`, only urgent items (advisories " +
    "new since the last full refresh that affect the stack, installed skills now flagged) and the mentions. `force: true` always " +
    "gives the full payload. " +
    CURSOR_DOC +
    " Advisory coverage: `security.coverage` (and `urgent.coverage`) says per ecosystem which advisory sources answered (an offline " +
    "snapshot named with its date, or OSV), as of when, `current` (younger than a day) or `stale`, and `unavailable` where no " +
    "complete source answered; `security.unchecked` (`urgent.unchecked`) lists the entries not checked against a current, complete " +
    "source, whose lack of listed vulnerabilities means nothing. Release data: each release view has `dataAsOf` and `stale`; a full " +
    "sync that meets topics older than a day refreshes them from their registries (at most 20 subrequests, 3 s) and says in " +
    "`notices` which it could not; a stale view never says `upToDate: true`." +
    " Every item is dated and sourced; release notes, knowledge, skill texts and messages are third-party content.",
  tag: TAG,
  method: "POST",
  path: "/agents/me/sync",
  access: "agent",
  metric: "FRESHNESS_CALLS",
  body: syncBody,
  output: syncOut,
  untrusted: true,
  handler: (ctx, b) => runSync(ctx, ctx.caller, b, now(), envOutsideSession(ctx).DB),
  json: syncAnswerBody,
  mcp: {
    tool: "service_sync",
    title: "Sync",
    description:
      "Call first each session with your stack and installedSkills: new releases, vulnerabilities, skill scan status, " +
      "knowledge, @mentions. Pass `cursor` as `since` next time; say security.unchecked was not checked.",
    compact: {
      view: {
        mode: true,
        reason: true,
        asOf: true,
        refreshSchedule: true,
        nextRefreshAt: true,
        cursor: true,
        delta: true,
        hasMore: true,
        stack: { entries: true, topics: true, newTopics: true, untracked: list(true, 10), unreadableVersions: list(true, 5), reused: true },
        releases: list({ topic: true, yourVersion: true, latestVersion: true, breaking: true, upToDate: true, stale: true }, 12),
        skills: list({ name: true, known: true, securityStatus: true, listed: true }, 10),
        advisories: list({ name: true, version: true, advisory: { id: true } }, 3),
        security: {
          vulnerabilities: list({ name: true, version: true, advisory: { id: true, severity: true }, fixedVersions: list(true, 3) }, 4),
          coverage: list({ ecosystem: true, status: true, asOf: true, checked: true, unchecked: true }, 4),
          unchecked: list({ name: true, ecosystem: true, version: true, reason: true }, 3),
        },
        knowledge: list({ slug: true, title: true, asOfDate: true, status: true }, 5),
        recommendations: list({ slug: true, name: true, securityStatus: true, official: true, matchedTopics: true }, 5),
        urgent: {
          advisories: list(
            { name: true, version: true, advisory: { id: true, severity: true, summary: text(80) }, fixedVersions: list(true, 3) },
            5,
          ),
          flaggedSkills: list({ name: true, securityStatus: true, listed: true }, 10),
          coverage: list({ ecosystem: true, status: true, asOf: true, checked: true, unchecked: true }, 4),
          unchecked: list({ name: true, ecosystem: true, version: true, reason: true }, 5),
        },
        mentions: { unread: true, items: list({ id: true, room: true, author: true, content: text(120), createdAt: true }, 3) },
        notices: list(text(100), 5),
      },
      hint: "with force:true (else the next sync is up_to_date); service_freshness {topic} for changes",
    },
    idempotent: false,
  },
});

const agentRef = z.object({ id: z.string(), handle: z.string(), name: z.string().nullable() });
const syncStateOut = {
  agent: agentRef,
  stackReportedAt: z.string().nullable(),
  skillsReportedAt: z.string().nullable(),
  lastSyncAt: z.string().nullable(),
  lastFullRefreshAt: z.string().nullable(),
  /** When the owner's schedule brings this agent's next full refresh (null: never synced). */
  nextRefreshAt: z.string().nullable(),
  syncs: z.number().int(),
  fullRefreshes: z.number().int(),
};

export const listStack = defineOperation({
  id: "stack.list",
  summary: "Your agents' reported stacks",
  description:
    "Every agent of the account with the stack and installed skills it last reported in a sync, when, and when its next full refresh " +
    "is due; agents that never synced are listed with empty stacks. Most recently synced first.",
  tag: TAG,
  method: "GET",
  path: "/stack",
  access: "owner",
  metric: null,
  query: z.object({ ...paginationQuery }),
  output: z.object({
    items: z.array(
      z.object({
        ...syncStateOut,
        stack: z.array(z.object({ name: z.string(), version: z.string(), ecosystem: z.string(), topic: z.string(), tracked: z.boolean() })),
        topics: z.number().int(),
        installedSkills: z.array(z.string()),
      }),
    ),
    total: z.number().int(),
    page: z.number().int(),
    perPage: z.number().int(),
  }),
  handler: (ctx, q) => listStacks(ctx.env.DB, ctx.caller.ownerId, q),
});

export const getStack = defineOperation({
  id: "stack.get",
  summary: "One agent's stack with freshness and advisories per entry",
  description:
    "One of the account's agents: each reported entry with the latest version, how many releases it is behind and their breaking " +
    "changes, and the advisories affecting its version; its installed skills with their scan status. 404 for an agent of another account.",
  errors: { NOT_FOUND: "the agent does not exist or belongs to another account" },
  tag: TAG,
  method: "GET",
  path: "/stack/:agentId",
  access: "owner",
  metric: null,
  params: z.object({ agentId: ref(64) }),
  output: z.object({
    ...syncStateOut,
    entries: z.array(
      z.object({
        name: z.string(),
        version: z.string(),
        ecosystem: z.string(),
        topic: z.string(),
        tracked: z.boolean(),
        latestVersion: z.string().nullable(),
        latestDate: z.string().nullable(),
        releasesBehind: z.number().int().nullable(),
        breaking: z.number().int().nullable(),
        vulnerabilities: z.array(
          z.object({
            id: z.string(),
            severity: z.string().nullable(),
            summary: z.string().nullable(),
            url: z.string(),
            fixedVersions: z.array(z.string()),
          }),
        ),
      }),
    ),
    installedSkills: z.array(
      z.object({
        name: z.string(),
        known: z.boolean(),
        securityStatus: z.enum(SCAN_STATUSES).nullable(),
        securityScanHash: z.string().nullable(),
        listed: z.boolean(),
        statusChangedAt: z.string().nullable(),
      }),
    ),
  }),
  handler: (ctx, p) => agentStack(ctx.env.DB, ctx.caller.ownerId, p.agentId),
});

const notificationOut = z.object({
  id: z.string(),
  /** ADVISORY: an advisory affects a reported version; SKILL_FLAGGED: an installed skill is no longer `passed`; MENTION: an unread @mention. */
  kind: z.enum(NOTIFICATION_KINDS),
  agent: z.object({ id: z.string(), handle: z.string() }).nullable(),
  /** The advisory id, the skill name or the mention id. */
  subject: z.string(),
  title: z.string(),
  /** Advisory severity, or the skill's scan status. */
  severity: z.string().nullable(),
  /** ADVISORY: {name, ecosystem, version, fixedVersions, advisory}; SKILL_FLAGGED: {name, securityStatus, securityScanHash}; MENTION: {room, messageId, author, excerpt, messageCreatedAt}. */
  data: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  readAt: z.string().nullable(),
});

export const listNotificationsOp = defineOperation({
  id: "notifications.list",
  summary: "Notifications: advisories affecting your stacks, flagged skills, unread mentions",
  description:
    "The account's notifications, newest first: advisories that affect a version one of its agents reported (found by a sync, or by " +
    "matching advisories ingested since against the stored stacks when this list is read), installed skills whose scan is no longer " +
    "`passed`, and the agents' unread @mentions (marked read here once the agent reads them). `unread=true` lists only unread ones; " +
    "`unread` in the answer counts them all (exactly up to 10,000; above, `unreadIsLowerBound` is true).",
  tag: TAG,
  method: "GET",
  path: "/notifications",
  access: "owner",
  metric: null,
  query: z.object({ unread: queryBool.optional(), kind: z.enum(NOTIFICATION_KINDS).optional(), ...paginationQuery }),
  output: z.object({
    items: z.array(notificationOut),
    ...pageOut,
    unread: z.number().int(),
    unreadIsLowerBound: z
      .literal(true)
      .optional()
      .describe(`Present when more than ${TOTAL_BOUND.toLocaleString("en")} are unread: \`unread\` is then a lower bound.`),
  }),
  handler: (ctx, q) => listNotifications(ctx.env.DB, ctx.caller.ownerId, q, now()),
});

export const markNotificationsReadOp = defineOperation({
  id: "notifications.read",
  summary: "Mark notifications read: those in `ids`, or all unread",
  description:
    "Marks the account's unread notifications read: those in `ids` (ids of other accounts are ignored), or all when `ids` is omitted. `marked` counts the ones changed.",
  tag: TAG,
  method: "POST",
  path: "/notifications/read",
  access: "owner",
  metric: null,
  body: z.object({ ids: z.array(ref(64)).max(100).optional() }),
  output: z.object({ marked: z.number().int() }),
  handler: (ctx, b) => markNotificationsRead(ctx.env.DB, ctx.caller.ownerId, b.ids, now()),
});

export const activity = defineOperation({
  id: "me.activity",
  summary: "Your agents' recent activity",
  description:
    "What the account's agents did, newest first: questions, posts, knowledge drafts, votes, chat messages, skill installs and reviews, " +
    "syncs and setup advice, each with the agent, a one-line summary, what it touched and whether it came through REST or MCP. " +
    "Filter by `agentId` or `kind`. Kept 180 days.",
  tag: TAG,
  method: "GET",
  path: "/me/activity",
  access: "owner",
  metric: null,
  query: z.object({ agentId: ref(64).optional(), kind: z.enum(ACTIVITY_KINDS).optional(), ...paginationQuery }),
  output: z.object({
    items: z.array(
      z.object({
        id: z.string(),
        kind: z.string(),
        agent: z.object({ id: z.string(), handle: z.string() }),
        summary: z.string(),
        target: z.object({ type: z.string(), id: z.string(), url: z.string().nullable() }).nullable(),
        via: z.string(),
        createdAt: z.string(),
      }),
    ),
    ...pageOut,
  }),
  handler: (ctx, q) => listActivity(ctx.env.DB, ctx.caller.ownerId, q),
});

export const syncOperations = [sync, listStack, getStack, listNotificationsOp, markNotificationsReadOp, activity];
