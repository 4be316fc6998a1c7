import { and, count, desc, eq, gte, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agents, mentions } from "../db/schema";
import { badRequest } from "../core/errors";
import { iso, now } from "../core/clock";
import { newId } from "../core/crypto";
import type { BatchRead } from "../core/batch";
import { columnsOf, type SqlRow } from "../core/columns";
import { MAX_MENTIONS, type MemberRecord, type MentionOut, type MessageOut, type MessageType } from "./chat.schemas";

/**
 * `@handle` tags in a message, lowercased and distinct, in order of first appearance. A tag must
 * not follow a word character, `.` or `@` (so `bob@example.com` is an address, not a tag) and
 * must be a whole handle (a run longer than 32 characters is not a handle).
 */
const TAG = /(?<![A-Za-z0-9_.@-])@([A-Za-z0-9_-]{3,32})(?![A-Za-z0-9_-])/g;

export function parseMentions(content: string, type: MessageType): string[] {
  // Tags are not interpreted in CODE messages (contract): `@decorator` is code, not a person.
  if (type === "CODE") return [];
  const seen = new Set<string>();
  for (const m of content.matchAll(TAG)) seen.add(m[1]!.toLowerCase());
  const handles = [...seen];
  if (handles.length > MAX_MENTIONS) {
    throw badRequest(`A message can tag at most ${MAX_MENTIONS} distinct @handles; this one tags ${handles.length}`, ["body", "content"]);
  }
  return handles;
}

/** The live agents among `handles`, in the order given; unknown and deleted handles drop out. */
export async function resolveHandles(db: Db, handles: string[]): Promise<{ id: string; handle: string; ownerId: string }[]> {
  if (handles.length === 0) return [];
  const rows = await db
    .select({ id: agents.id, handle: agents.handle, ownerId: agents.ownerId })
    .from(agents)
    .where(and(inArray(agents.handle, handles), isNull(agents.deletedAt)));
  const byHandle = new Map(rows.map((r) => [r.handle, r]));
  return handles.flatMap((h) => byHandle.get(h) ?? []);
}

/** An inbox row as the ChatRoom's outbox keeps it until it is in D1 (ids fixed at posting time). */
export type NewMention = typeof mentions.$inferInsert;

/**
 * One inbox row per tagged agent. The author is not notified of its own tag. The id is fixed here,
 * when the room accepts the message, so delivering the same row again can never duplicate it.
 */
export function mentionRows(message: MessageOut, tagged: { id: string; handle: string }[], at: number): NewMention[] {
  return tagged
    .filter((a) => a.id !== message.author.id)
    .map((a) => ({
      id: newId("men_"),
      agentId: a.id,
      room: message.room,
      messageId: message.id,
      messageCreatedAt: message.createdAt,
      authorId: message.author.id,
      authorHandle: message.author.handle,
      content: message.content,
      createdAt: at,
      readAt: null,
    }));
}

// 9 rows × 11 columns stays under D1's 100 bound parameters per statement.
const ROWS_PER_INSERT = 9;

/**
 * Writes inbox rows to D1 in one batch (atomic), each at most once: a row whose id is already
 * there (an earlier delivery that landed but whose answer was lost) is skipped.
 */
export async function insertMentions(db: Db, rows: NewMention[]): Promise<void> {
  if (rows.length === 0) return;
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    statements.push(
      db
        .insert(mentions)
        .values(rows.slice(i, i + ROWS_PER_INSERT))
        .onConflictDoNothing({ target: mentions.id }),
    );
  }
  await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
}

type MentionRow = typeof mentions.$inferSelect;
const mentionOut = (r: MentionRow): MentionOut => ({
  id: r.id,
  room: r.room,
  messageId: r.messageId,
  author: { id: r.authorId, handle: r.authorHandle },
  content: r.content,
  createdAt: r.messageCreatedAt,
  readAt: iso(r.readAt),
});

interface InboxQuery {
  unreadOnly: boolean;
  limit: number;
  offset: number;
}

const inboxWhere = (agentId: string, unreadOnly: boolean) =>
  unreadOnly ? and(eq(mentions.agentId, agentId), isNull(mentions.readAt)) : eq(mentions.agentId, agentId);
// Two mentions can be written in the same millisecond; the message's createdAt (strictly
// increasing within a room) keeps their order deterministic, the id settles the rest.
const NEWEST_FIRST = [desc(mentions.createdAt), desc(mentions.messageCreatedAt), desc(mentions.id)] as const;

/** The page of rows and the total, as two statements for one batch. */
function inboxStatements(db: Db, agentId: string, opts: InboxQuery) {
  const where = inboxWhere(agentId, opts.unreadOnly);
  return [
    db
      .select()
      .from(mentions)
      .where(where)
      .orderBy(...NEWEST_FIRST)
      .limit(opts.limit)
      .offset(opts.offset),
    db.select({ n: count() }).from(mentions).where(where),
  ] as const;
}

/** The caller's mentions, newest first, optionally only the unread ones. */
export async function listMentions(db: Db, agentId: string, opts: InboxQuery) {
  const [rows, [total]] = await db.batch(inboxStatements(db, agentId, opts));
  return { items: rows.map(mentionOut), total: total?.n ?? 0 };
}

/**
 * One inbox page and, with `markRead`, the page's unread mentions marked read, in one D1 batch:
 * one round trip, and atomic, so the items shown (as they were before marking) are exactly the
 * ones marked. The update picks the page with the same filter, order, limit and offset.
 */
export async function readInbox(db: Db, agentId: string, opts: InboxQuery & { markRead: boolean }) {
  if (!opts.markRead) return { ...(await listMentions(db, agentId, opts)), marked: 0 };
  const page = db
    .select({ id: mentions.id })
    .from(mentions)
    .where(inboxWhere(agentId, opts.unreadOnly))
    .orderBy(...NEWEST_FIRST)
    .limit(opts.limit)
    .offset(opts.offset);
  const [rows, [total], marked] = await db.batch([
    ...inboxStatements(db, agentId, opts),
    db
      .update(mentions)
      .set({ readAt: now() })
      .where(and(eq(mentions.agentId, agentId), isNull(mentions.readAt), inArray(mentions.id, page)))
      .returning({ id: mentions.id }),
  ]);
  return { items: rows.map(mentionOut), total: total?.n ?? 0, marked: marked.length };
}

/**
 * Marks the caller's unread mentions read: those in `ids`, or all when `ids` is omitted. Ids of
 * other agents' mentions, unknown ids and already-read ones are not counted (and not touched).
 */
export async function markMentionsRead(db: Db, agentId: string, ids?: string[]): Promise<{ marked: number }> {
  if (ids && ids.length === 0) return { marked: 0 };
  const mine = and(eq(mentions.agentId, agentId), isNull(mentions.readAt));
  // json_each binds the whole id list as one parameter (D1 allows 100 per statement).
  const where = ids ? and(mine, sql`${mentions.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`) : mine;
  const rows = await db.update(mentions).set({ readAt: now() }).where(where).returning({ id: mentions.id });
  return { marked: rows.length };
}

/**
 * The unread part of an agent's inbox: how many, and the newest `limit` of them. The sync
 * response calls this (DESIGN.md §9: `mentions: {unread, items}`).
 */
export async function unreadMentions(db: Db, agentId: string, limit: number): Promise<{ unread: number; items: MentionOut[] }> {
  const page = await listMentions(db, agentId, { unreadOnly: true, limit, offset: 0 });
  return { unread: page.total, items: page.items };
}

/**
 * Handle autocomplete: members of the room whose handle starts with `prefix` first (by handle),
 * then other agents. A range on the unique handle index instead of LIKE, so it stays an index
 * seek. The caller is left out: tagging yourself notifies nobody.
 */
export async function mentionable(db: Db, callerId: string, members: MemberRecord[], prefix: string, limit: number) {
  const memberRole = new Map(members.filter((m) => m.agentId !== callerId).map((m) => [m.agentId, m.role]));
  const cols = { id: agents.id, handle: agents.handle, name: agents.name };
  const byPrefix = db
    .select(cols)
    .from(agents)
    .where(and(gte(agents.handle, prefix), lt(agents.handle, `${prefix}\u007f`), isNull(agents.deletedAt)))
    .orderBy(agents.handle)
    .limit(limit + memberRole.size + 1);
  let liveMembers: { id: string; handle: string; name: string | null }[] = [];
  let others: { id: string; handle: string; name: string | null }[];
  if (memberRole.size > 0) {
    const [m, o] = await db.batch([
      db
        .select(cols)
        .from(agents)
        .where(and(inArray(agents.id, [...memberRole.keys()]), isNull(agents.deletedAt)))
        .orderBy(agents.handle),
      byPrefix,
    ]);
    liveMembers = m;
    others = o;
  } else {
    others = await byPrefix;
  }
  const items = [
    ...liveMembers.map((a) => ({ ...a, role: memberRole.get(a.id)! })),
    ...others.filter((a) => a.id !== callerId && !memberRole.has(a.id)).map((a) => ({ ...a, role: null })),
  ];
  return { items: items.slice(0, limit) };
}

/** Mentions read more than this long ago leave the inbox (unread ones stay until read). */
export const READ_MENTION_RETENTION_MS = 90 * 86_400_000;

export function pruneReadMentions(db: Db, at: number) {
  return db.delete(mentions).where(lt(mentions.readAt, at - READ_MENTION_RETENTION_MS));
}

const UNREAD_KEYS = ["id", "room", "messageId", "messageCreatedAt", "authorId", "authorHandle", "content", "readAt"] as const;

/**
 * The same unread part of the inbox as a read that joins the caller's one D1 batch (sync reads a
 * whole stack's answer in one round trip): the newest `limit` unread mentions and their count.
 */
export function unreadMentionsRead(d1: D1Database, agentId: string, limit: number): BatchRead<{ unread: number; items: MentionOut[] }> {
  return {
    statements: [
      d1
        .prepare(
          `SELECT ${columnsOf(mentions, "", UNREAD_KEYS)} FROM mentions
            WHERE agent_id = ?1 AND read_at IS NULL ORDER BY created_at DESC, message_created_at DESC, id DESC LIMIT ?2`,
        )
        .bind(agentId, limit),
      d1.prepare(`SELECT COUNT(*) AS n FROM mentions WHERE agent_id = ?1 AND read_at IS NULL`).bind(agentId),
    ],
    read: ([rows, count]) => ({
      unread: (count!.results[0] as { n: number }).n,
      items: (rows!.results as SqlRow<typeof mentions, (typeof UNREAD_KEYS)[number]>[]).map((r) => ({
        id: r.id,
        room: r.room,
        messageId: r.message_id,
        author: { id: r.author_id, handle: r.author_handle },
        content: r.content,
        createdAt: r.message_created_at,
        readAt: iso(r.read_at),
      })),
    }),
  };
}
