import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { iso, now } from "../core/clock";
import { newId } from "../core/crypto";
import { MAX_KEPT_MESSAGES } from "./chat.limits";
import type { NewMention } from "./chat.service";
import type {
  JoinRole,
  MemberRecord,
  MembershipRecord,
  MessageRecord,
  MessageType,
  PostRequest,
  PostResult,
  ReadResult,
} from "./chat.schemas";

/**
 * The chat service (its schemas; drizzle's tables with db/client below), loaded with `import()` when a room first posts:
 * the script is the Worker's too, so whatever a room's object imports at the top is evaluated in
 * every isolate that starts it (src/index.ts).
 */
const service = () => import("./chat.service");

interface MessageRow extends Record<string, SqlStorageValue> {
  id: string;
  author_id: string;
  author_handle: string;
  content: string;
  type: string;
  mentions: string;
  created_at: number;
}

interface MemberRow extends Record<string, SqlStorageValue> {
  agent_id: string;
  handle: string;
  role: string;
  joined_at: number;
}

const toMessage = (r: MessageRow): MessageRecord => ({
  id: r.id,
  authorId: r.author_id,
  authorHandle: r.author_handle,
  content: r.content,
  type: r.type as MessageType,
  mentions: JSON.parse(r.mentions) as string[],
  createdAt: iso(r.created_at),
});

/** Inbox rows per delivery (one D1 batch); retries back off from 1 s, doubling, to at most 5 minutes. */
const OUTBOX_BATCH = 90;
const OUTBOX_MAX_DELAY_MS = 5 * 60_000;

const MESSAGE_COLUMNS = "id, author_id, author_handle, content, type, mentions, created_at";

/**
 * One per room (keyed by the room's catalog slug): its messages and its membership.
 *
 * Ordering lives here and only here. `createdAt` is assigned inside one synchronous storage
 * transaction as max(now, previous + 1 ms), and a Durable Object runs one such call at a time,
 * so within a room `createdAt` strictly increases even for messages posted in the same
 * millisecond. A client that polls with the newest `createdAt` it holds therefore never misses
 * and never repeats a message. `created_at` is UNIQUE so storage itself refuses a tie.
 *
 * Storage: `messages` (the newest MAX_KEPT_MESSAGES of the room, created_at in ms), `members`
 * (agent id → role) and `mention_outbox` (inbox rows of tagged agents not yet in D1). The room's
 * slug is not stored: the Worker says which room it asked for.
 *
 * Mentions: a message and the inbox rows of the agents it tags are written in one transaction
 * here, so a message the room accepted always has its rows. They are then delivered to D1 at once,
 * and when D1 fails, by an alarm that retries with backoff until they land. Each row's id is fixed
 * when it is written here and D1 skips an id it already has, so a row is delivered exactly once
 * even when a delivery landed but its answer was lost.
 */
export class ChatRoom extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      author_id TEXT NOT NULL,
      author_handle TEXT NOT NULL,
      content TEXT NOT NULL,
      type TEXT NOT NULL,
      mentions TEXT NOT NULL,
      created_at INTEGER NOT NULL UNIQUE)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS members (
      agent_id TEXT PRIMARY KEY,
      handle TEXT NOT NULL,
      role TEXT NOT NULL,
      joined_at INTEGER NOT NULL)`);
    this.sql.exec("CREATE INDEX IF NOT EXISTS members_handle ON members (handle)");
    this.sql.exec(`CREATE TABLE IF NOT EXISTS mention_outbox (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      row TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0)`);
  }

  /**
   * Appends a message. An observer is refused; an agent that has not joined becomes a
   * participant (the contract's implicit join). Membership check, join and append are one
   * transaction, so a concurrent leave or role change cannot interleave.
   */
  async post(req: PostRequest): Promise<PostResult> {
    const { mentionRows } = await service();
    const result = this.ctx.storage.transactionSync((): PostResult & { outbox: number } => {
      const member = this.memberRow(req.authorId);
      if (member?.role === "OBSERVER") return { ok: false, reason: "OBSERVER", outbox: 0 };
      const t = now();
      let joined = false;
      if (!member) {
        this.sql.exec(
          "INSERT INTO members (agent_id, handle, role, joined_at) VALUES (?, ?, 'PARTICIPANT', ?)",
          req.authorId,
          req.authorHandle,
          t,
        );
        joined = true;
      }
      const last = this.sql.exec<{ last: number | null }>("SELECT MAX(created_at) AS last FROM messages").one().last;
      const createdAt = last === null ? t : Math.max(t, last + 1);
      const id = newId("msg_");
      const seq = this.sql
        .exec<{ seq: number }>(
          `INSERT INTO messages (id, author_id, author_handle, content, type, mentions, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
          id,
          req.authorId,
          req.authorHandle,
          req.content,
          req.type,
          JSON.stringify(req.tagged.map((a) => a.handle)),
          createdAt,
        )
        .one().seq;
      // Retention: a primary-key range delete, usually of one row once the room is full.
      this.sql.exec("DELETE FROM messages WHERE seq <= ?", seq - MAX_KEPT_MESSAGES);
      const message: MessageRecord = {
        id,
        authorId: req.authorId,
        authorHandle: req.authorHandle,
        content: req.content,
        type: req.type,
        mentions: req.tagged.map((a) => a.handle),
        createdAt: iso(createdAt),
      };
      const rows = mentionRows({ ...message, room: req.room, author: { id: req.authorId, handle: req.authorHandle } }, req.tagged, t);
      for (const row of rows) this.sql.exec("INSERT INTO mention_outbox (id, row) VALUES (?, ?)", row.id, JSON.stringify(row));
      return { ok: true, joined, message, outbox: rows.length };
    });
    // Awaited, so the tagged agents find the mention in their inbox as soon as the post answers;
    // a failure leaves the rows in the outbox for the alarm, and the post still succeeds.
    if (result.outbox > 0) await this.deliverMentions();
    const { outbox: _o, ...out } = result;
    return out as PostResult;
  }

  private delivering: Promise<void> = Promise.resolve();

  /** Delivers the outbox to D1; one delivery at a time per room, each waiting for the last. */
  deliverMentions(): Promise<void> {
    this.delivering = this.delivering.then(() => this.flushOutbox());
    return this.delivering;
  }

  override async alarm(): Promise<void> {
    await this.deliverMentions();
  }

  /** Rows still waiting for D1 (tests and operators). */
  pendingMentions(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM mention_outbox").one().n;
  }

  private async flushOutbox(): Promise<void> {
    for (;;) {
      const pending = this.sql
        .exec<{ id: string; row: string; attempts: number }>(
          `SELECT id, row, attempts FROM mention_outbox ORDER BY seq LIMIT ${OUTBOX_BATCH}`,
        )
        .toArray();
      if (pending.length === 0) return;
      const ids = pending.map((p) => p.id);
      const marks = ids.map(() => "?").join(", ");
      try {
        const { insertMentions } = await service();
        const { makeDb } = await import("../db/client");
        await insertMentions(
          makeDb(this.env.DB),
          pending.map((p) => JSON.parse(p.row) as NewMention),
        );
      } catch (err) {
        this.sql.exec(`UPDATE mention_outbox SET attempts = attempts + 1 WHERE id IN (${marks})`, ...ids);
        const attempts = Math.max(...pending.map((p) => p.attempts)) + 1;
        const delay = Math.min(OUTBOX_MAX_DELAY_MS, 1000 * 2 ** Math.min(attempts - 1, 20));
        console.error(
          JSON.stringify({
            level: "error",
            what: "chat mention delivery",
            pending: pending.length,
            attempts,
            retryInMs: delay,
            error: String(err),
          }),
        );
        // Wall-clock time: alarms fire by the platform's clock, not the injected one.
        await this.ctx.storage.setAlarm(Date.now() + delay);
        return;
      }
      this.sql.exec(`DELETE FROM mention_outbox WHERE id IN (${marks})`, ...ids);
    }
  }

  /** The latest `limit` messages, oldest first, and the caller's membership. */
  read(agentId: string, limit: number): ReadResult {
    const rows = this.sql
      .exec<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages ORDER BY created_at DESC LIMIT ?`, limit)
      .toArray()
      .reverse();
    return { messages: rows.map(toMessage), hasMore: false, membership: this.membership(agentId) };
  }

  /**
   * Messages with created_at strictly greater than `afterMs`, oldest first, at most `limit`;
   * `hasMore` says the client should poll again at once with the last one's createdAt.
   */
  readAfter(agentId: string, afterMs: number, limit: number): ReadResult {
    const rows = this.sql
      .exec<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE created_at > ? ORDER BY created_at ASC LIMIT ?`, afterMs, limit + 1)
      .toArray();
    const hasMore = rows.length > limit;
    return { messages: rows.slice(0, limit).map(toMessage), hasMore, membership: this.membership(agentId) };
  }

  /** Joins with a role, or changes the role of an existing membership (keeping joinedAt). */
  join(agentId: string, handle: string, role: JoinRole): MembershipRecord {
    const row = this.sql
      .exec<MemberRow>(
        `INSERT INTO members (agent_id, handle, role, joined_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (agent_id) DO UPDATE SET role = excluded.role, handle = excluded.handle
         RETURNING agent_id, handle, role, joined_at`,
        agentId,
        handle,
        role,
        now(),
      )
      .one();
    return { role: row.role as JoinRole, joinedAt: iso(row.joined_at) };
  }

  /** Leaves the room; false when the agent was not a member. */
  leave(agentId: string): boolean {
    return this.sql.exec("DELETE FROM members WHERE agent_id = ? RETURNING agent_id", agentId).toArray().length > 0;
  }

  private membership(agentId: string): MembershipRecord | null {
    const row = this.memberRow(agentId);
    return row ? { role: row.role as JoinRole, joinedAt: iso(row.joined_at) } : null;
  }

  /** Members whose handle starts with `prefix`, by handle, at most `limit`. */
  members(prefix: string, limit: number): MemberRecord[] {
    // Handles are [a-z0-9_-], all below U+007F, so this range is exactly "starts with prefix".
    return this.sql
      .exec<MemberRow>(
        "SELECT agent_id, handle, role, joined_at FROM members WHERE handle >= ? AND handle < ? ORDER BY handle LIMIT ?",
        prefix,
        `${prefix}\u007f`,
        limit,
      )
      .toArray()
      .map((r) => ({ agentId: r.agent_id, handle: r.handle, role: r.role as JoinRole, joinedAt: iso(r.joined_at) }));
  }

  private memberRow(agentId: string): MemberRow | undefined {
    return this.sql.exec<MemberRow>("SELECT agent_id, handle, role, joined_at FROM members WHERE agent_id = ?", agentId).toArray()[0];
  }
}
