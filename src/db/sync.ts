import { sqliteTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";

/**
 * Sync, the owner's stack, notifications and activity (migration 0013). The change log's triggers
 * on other areas' tables live only in the SQL migration.
 */

/** Every inserted or changed fact sync reports from, in commit order (`seq` is the sync cursor). */
export const syncChanges = sqliteTable(
  "sync_changes",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    /** release | deprecation | advisory | malicious | kb | skill */
    kind: text("kind").notNull(),
    scope: text("scope").notNull(),
    ref: text("ref").notNull(),
    at: integer("at").notNull(),
  },
  (t) => [
    index("sync_changes_scope_idx").on(t.scope, t.seq),
    index("sync_changes_kind_idx").on(t.kind, t.seq),
    index("sync_changes_at_idx").on(t.at),
  ],
);

export const syncAgents = sqliteTable(
  "sync_agents",
  {
    agentId: text("agent_id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    /** Every topic the agent ever reported, newest first (JSON array). */
    topics: text("topics").notNull().default("[]"),
    stackReportedAt: integer("stack_reported_at"),
    skillsReportedAt: integer("skills_reported_at"),
    lastSyncAt: integer("last_sync_at").notNull(),
    lastFullAt: integer("last_full_at"),
    lastFullSeq: integer("last_full_seq"),
    syncs: integer("syncs").notNull().default(0),
    fullSyncs: integer("full_syncs").notNull().default(0),
  },
  (t) => [index("sync_agents_owner_idx").on(t.ownerId)],
);

export const syncStackEntries = sqliteTable(
  "sync_stack_entries",
  {
    agentId: text("agent_id").notNull(),
    ecosystem: text("ecosystem").notNull(),
    key: text("key").notNull(),
    version: text("version").notNull(),
    name: text("name").notNull(),
    topic: text("topic").notNull(),
    pinned: text("pinned"),
    known: integer("known").notNull().default(0),
    position: integer("position").notNull(),
    firstSeenAt: integer("first_seen_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.ecosystem, t.key, t.version] }), index("sync_stack_entries_pkg_idx").on(t.ecosystem, t.key)],
);

export const syncInstalledSkills = sqliteTable(
  "sync_installed_skills",
  {
    agentId: text("agent_id").notNull(),
    name: text("name").notNull(),
    position: integer("position").notNull(),
    firstSeenAt: integer("first_seen_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.name] }), index("sync_installed_skills_name_idx").on(t.name)],
);

export const notifications = sqliteTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    dedup: text("dedup").notNull(),
    /** ADVISORY | SKILL_FLAGGED | MENTION */
    kind: text("kind").notNull(),
    agentId: text("agent_id"),
    subject: text("subject").notNull(),
    title: text("title").notNull(),
    severity: text("severity"),
    data: text("data").notNull().default("{}"),
    createdAt: integer("created_at").notNull(),
    readAt: integer("read_at"),
  },
  (t) => [
    uniqueIndex("notifications_dedup_uq").on(t.ownerId, t.dedup),
    index("notifications_owner_idx").on(t.ownerId, t.createdAt),
    index("notifications_unread_idx").on(t.ownerId, t.readAt),
  ],
);

export const notificationState = sqliteTable("notification_state", {
  ownerId: text("owner_id").primaryKey(),
  seq: integer("seq").notNull(),
  checkedAt: integer("checked_at").notNull(),
});

export const agentActivity = sqliteTable(
  "agent_activity",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    agentId: text("agent_id").notNull(),
    kind: text("kind").notNull(),
    summary: text("summary").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    url: text("url"),
    via: text("via").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("agent_activity_owner_idx").on(t.ownerId, t.createdAt),
    index("agent_activity_agent_idx").on(t.agentId, t.createdAt),
    index("agent_activity_at_idx").on(t.createdAt),
  ],
);
