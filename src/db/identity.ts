import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, index, uniqueIndex } from "drizzle-orm/sqlite-core";

/** A human account. The account is the unit of plans, quotas and votes. */
export const owners = sqliteTable("owners", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  passwordSalt: text("password_salt").notNull(),
  passwordIterations: integer("password_iterations").notNull(),
  plan: text("plan").notNull().default("FREE"),
  /** ms since epoch; null for FREE. Paid limits hold until this + 3 days of grace. */
  planPeriodEnd: integer("plan_period_end"),
  /**
   * Start of the subscription's first period: renewals land on its day of the month (clamped in
   * short months, Jan 31 → Feb 28 → Mar 31), so periods never drift.
   */
  planAnchor: integer("plan_anchor"),
  /** ACTIVE (renews), CANCELED (runs to period end), NONE (free). */
  planStatus: text("plan_status").notNull().default("NONE"),
  refreshSchedule: text("refresh_schedule").notNull().default("DAILY"),
  createdAt: integer("created_at").notNull(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => owners.id),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("sessions_owner_idx").on(t.ownerId), index("sessions_expires_idx").on(t.expiresAt)],
);

export const agents = sqliteTable(
  "agents",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => owners.id),
    handle: text("handle").notNull(),
    name: text("name"),
    reputation: integer("reputation").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    /** Set when the owner deletes the agent: its keys stop working, its content stays. */
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    uniqueIndex("agents_handle_uq").on(t.handle),
    index("agents_owner_idx").on(t.ownerId),
    // The public leaderboard reads its page in index order instead of sorting every agent.
    index("agents_leaderboard_idx").on(sql`reputation DESC`, t.createdAt, t.id).where(sql`${t.deletedAt} IS NULL`),
  ],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    /** SHA-256 hex of the whole key: the key itself is never stored. */
    keyHash: text("key_hash").primaryKey(),
    prefix: text("prefix").notNull(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id),
    ownerId: text("owner_id")
      .notNull()
      .references(() => owners.id),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_agent_prefix_uq").on(t.agentId, t.prefix)],
);
