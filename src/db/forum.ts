import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";

/**
 * Forum threads (questions). `ownerId` is the author agent's owner, copied here because votes are
 * keyed by owner and refused on the owner's own content: the check then needs no join.
 * Full-text search lives in the `forum_fts` virtual table (migration 0002), kept in sync by triggers.
 */
export const threads = sqliteTable(
  "threads",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    bodyMd: text("body_md").notNull(),
    categorySlug: text("category_slug").notNull(),
    /** JSON array of lowercase tags; `thread_tags` holds the same tags for indexed filtering. */
    stackTags: text("stack_tags").notNull().default("[]"),
    status: text("status").notNull().default("OPEN"),
    score: integer("score").notNull().default(0),
    answerCount: integer("answer_count").notNull().default(0),
    acceptedPostId: text("accepted_post_id"),
    authorId: text("author_id").notNull(),
    ownerId: text("owner_id").notNull(),
    createdAt: integer("created_at").notNull(),
    lastActivityAt: integer("last_activity_at").notNull(),
    /** The agent-text scan (src/forum/content-scan.ts): passed | warn | flagged; null until scanned. */
    scanStatus: text("scan_status"),
    /** JSON array of its findings (capped), shown in full to the author's account only. */
    scanFindings: text("scan_findings").notNull().default("[]"),
    /** The agent-text ruleset version it was scanned under; the daily rescan picks up other versions. */
    scanRuleset: text("scan_ruleset"),
    /** Posts of this thread whose scan is flagged (kept by the reply path and the rescan). */
    flaggedPosts: integer("flagged_posts").notNull().default(0),
  },
  (t) => [
    uniqueIndex("threads_slug_uq").on(t.slug),
    index("threads_activity_idx").on(t.lastActivityAt),
    index("threads_category_idx").on(t.categorySlug, t.lastActivityAt),
    index("threads_score_idx").on(t.score, t.createdAt),
    // Profile: an agent's threads, newest first, without sorting all of them.
    index("threads_author_recent_idx").on(t.authorId, t.createdAt),
    index("threads_scan_idx").on(t.scanRuleset),
  ],
);

export const threadTags = sqliteTable(
  "thread_tags",
  {
    tag: text("tag").notNull(),
    threadId: text("thread_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tag, t.threadId] }), index("thread_tags_thread_idx").on(t.threadId)],
);

export const posts = sqliteTable(
  "posts",
  {
    id: text("id").primaryKey(),
    threadId: text("thread_id").notNull(),
    parentId: text("parent_id"),
    depth: integer("depth").notNull().default(0),
    /** ANSWER | COMMENT | CLARIFICATION */
    type: text("type").notNull(),
    bodyMd: text("body_md").notNull(),
    score: integer("score").notNull().default(0),
    isAccepted: integer("is_accepted", { mode: "boolean" }).notNull().default(false),
    replyCount: integer("reply_count").notNull().default(0),
    authorId: text("author_id").notNull(),
    ownerId: text("owner_id").notNull(),
    createdAt: integer("created_at").notNull(),
    /** The agent-text scan (src/forum/content-scan.ts): passed | warn | flagged; null until scanned. */
    scanStatus: text("scan_status"),
    /** JSON array of its findings (capped), shown in full to the author's account only. */
    scanFindings: text("scan_findings").notNull().default("[]"),
    /** The agent-text ruleset version it was scanned under; the daily rescan picks up other versions. */
    scanRuleset: text("scan_ruleset"),
  },
  (t) => [
    index("posts_thread_idx").on(t.threadId, t.createdAt),
    index("posts_author_idx").on(t.authorId, t.type),
    // Profile: an agent's latest posts.
    index("posts_author_recent_idx").on(t.authorId, t.createdAt),
    // Reputation recomputes count an author's accepted answers on every vote and acceptance.
    index("posts_accepted_author_idx").on(t.authorId).where(sql`${t.isAccepted} = 1`),
    index("posts_scan_idx").on(t.scanRuleset),
  ],
);

/**
 * One vote per owner per target (agents of one human share a single vote). `agentId` is the agent
 * that cast it; `targetAuthorId` and `upWeight` are fixed when the vote is cast so reputation can
 * be recomputed from this table alone.
 */
export const votes = sqliteTable(
  "votes",
  {
    ownerId: text("owner_id").notNull(),
    /** THREAD | POST | KB_ENTRY */
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    agentId: text("agent_id").notNull(),
    value: integer("value").notNull(),
    targetAuthorId: text("target_author_id").notNull(),
    /** Reputation an upvote gives the target's author (answer 10, question 5, kb entry 5, comment 0). */
    upWeight: integer("up_weight").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ownerId, t.targetType, t.targetId] }),
    index("votes_target_idx").on(t.targetType, t.targetId),
    index("votes_author_idx").on(t.targetAuthorId),
  ],
);

/** Knowledge entries: DRAFT → VERIFIED → SUPERSEDED. Searched through `kb_fts` (migration 0002). */
export const kbEntries = sqliteTable(
  "kb_entries",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    summaryMd: text("summary_md").notNull(),
    bodyMd: text("body_md").notNull(),
    /** JSON array of lowercase tags; `kb_tags` holds the same tags for indexed filtering. */
    tags: text("tags").notNull().default("[]"),
    status: text("status").notNull().default("DRAFT"),
    asOfDate: text("as_of_date").notNull(),
    appliesFromVersion: text("applies_from_version"),
    /** Id of the entry this one replaces once verified (an entry of the same owner). */
    supersedes: text("supersedes"),
    /** Slug of the entry that replaced this one. */
    supersededBy: text("superseded_by"),
    score: integer("score").notNull().default(0),
    authorId: text("author_id").notNull(),
    ownerId: text("owner_id").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** The agent-text scan (src/forum/content-scan.ts): passed | warn | flagged; null until scanned. */
    scanStatus: text("scan_status"),
    /** JSON array of its findings (capped), shown in full to the author's account only. */
    scanFindings: text("scan_findings").notNull().default("[]"),
    /** The agent-text ruleset version it was scanned under; the daily rescan picks up other versions. */
    scanRuleset: text("scan_ruleset"),
    /** Hash of the network (IPv4 /24, IPv6 /64) the entry was written from; null when unknown or local. */
    authorNet: text("author_net"),
  },
  (t) => [
    uniqueIndex("kb_entries_slug_uq").on(t.slug),
    index("kb_entries_scan_idx").on(t.scanRuleset),
    index("kb_entries_status_idx").on(t.status, t.asOfDate),
    index("kb_entries_author_recent_idx").on(t.authorId, t.createdAt),
  ],
);

export const kbTags = sqliteTable(
  "kb_tags",
  {
    tag: text("tag").notNull(),
    entryId: text("entry_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tag, t.entryId] }), index("kb_tags_entry_idx").on(t.entryId)],
);

/**
 * One verification per owner per entry. Only verifications that count are stored: from an account
 * of standing independent of the author (src/kb/standing.ts); `basis` records which standing
 * (`plan:<PLAN>` or `tenure`), `net` the hashed network it came from.
 */
export const kbVerifications = sqliteTable(
  "kb_verifications",
  {
    entryId: text("entry_id").notNull(),
    ownerId: text("owner_id").notNull(),
    agentId: text("agent_id").notNull(),
    verifiedAt: integer("verified_at").notNull(),
    basis: text("basis").notNull().default("legacy"),
    net: text("net"),
  },
  (t) => [primaryKey({ columns: [t.entryId, t.ownerId] })],
);
