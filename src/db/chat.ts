import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";

/**
 * The @mentions inbox, one row per (message, tagged agent). Room messages live in the ChatRoom
 * Durable Objects; the inbox is relational so the sync response can read it with one query.
 */
export const mentions = sqliteTable(
  "mentions",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull(),
    room: text("room").notNull(),
    messageId: text("message_id").notNull(),
    messageCreatedAt: text("message_created_at").notNull(),
    authorId: text("author_id").notNull(),
    authorHandle: text("author_handle").notNull(),
    /** The message text (third-party content: served as data, never as instructions). */
    content: text("content").notNull(),
    createdAt: integer("created_at").notNull(),
    readAt: integer("read_at"),
  },
  (t) => [
    index("mentions_agent_idx").on(t.agentId, t.readAt, t.createdAt),
    // For the daily prune of read mentions (src/maintenance.ts).
    index("mentions_read_at_idx").on(t.readAt).where(sql`${t.readAt} IS NOT NULL`),
  ],
);
