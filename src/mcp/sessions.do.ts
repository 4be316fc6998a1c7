import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { Admitted, Gate } from "../core/admission";
import type { AgentPrincipal } from "../core/principal";
import { agentKeyOf } from "../core/auth";
import { now } from "../core/clock";
import { ApiError, errorResponse } from "../core/errors";
import type { ToolCall } from "../core/mcp-tools";
import { sseData } from "./json-response";

/**
 * The quota gate, the activity store, the admission of messages and the MCP endpoint (which holds
 * every operation, their schemas and drizzle's tables), loaded
 * with `import()` on the object's first request rather than when the script loads: the script is
 * the Worker's too, and its other objects' isolates never use them (src/index.ts).
 */
const deps = () => import("./sessions.deps");

/** An agent key the account's object refused, or a full per-minute window: the contract's 401 or 429, as for REST. */
const refused = (err: ApiError, requestId: string): Response => errorResponse(err, requestId);

/** A session unused this long is gone: its next request is 404 and the client initializes again. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** Sessions one account may hold; a new one past this ends the least recently used. */
export const MAX_SESSIONS = 100;
/** Events kept per session for `Last-Event-ID` resumption, and for how long. */
export const MAX_EVENTS = 100;
export const EVENT_TTL_MS = 60 * 60_000;
/** How often a message sweeps expired sessions and old events (the alarm sweeps whenever it runs). */
const SWEEP_EVERY_MS = 60_000;
/** Messages that call no tool, per session and rolling minute (they take no account quota in a session). */
/** What a session keeps of the client's `initialize` (capabilities, client info): enough to read, never a store. */
const MAX_CLIENT_JSON = 4096;
const bounded = (v: unknown): string => {
  const text = JSON.stringify(v ?? {});
  return text.length <= MAX_CLIENT_JSON ? text : JSON.stringify({ truncated: true, bytes: text.length });
};
/** What a client waits before it reconnects a dropped stream (the SSE `retry` field). */
const RETRY_MS = 3_000;

/** Headers the route adds when it hands a request to the object; a client's own copies are replaced. */
export const OWNER_HEADER = "x-lore-owner";
export const KEY_HASH_HEADER = "x-lore-key-hash";
export const REQUEST_ID_HEADER = "x-lore-request-id";
export const ORIGIN_HEADER = "x-lore-origin";

/** A session id: 32 random bytes, hex (256 bits). */
export const SESSION_ID = /^[0-9a-f]{64}$/;

interface SessionRow extends Record<string, SqlStorageValue> {
  id: string;
  key_hash: string;
  owner_id: string;
  protocol_version: string;
  capabilities: string;
  client_info: string;
  caller: string;
  created_at: number;
  last_seen: number;
  /** 1: the account's object no longer accepts the key (recheck); the next request is 401 and ends the session. */
  revoked: number;
}

const rpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });

/** The Streamable HTTP transport's answer to a session id it does not hold (unknown, ended, expired or another key's). */
export const sessionNotFound = () => rpcError(404, -32001, "Session not found: initialize a new session.");

/** A session's POST as served: the negotiated version stands for a request that names none. */
export function inSessionVersion(request: Request, version: string): Request {
  const headers = new Headers(request.headers);
  if (!headers.has("mcp-protocol-version")) headers.set("mcp-protocol-version", version);
  return new Request(request.url, { method: "POST", headers });
}

type Stream = { writer: WritableStreamDefaultWriter<Uint8Array>; closed: boolean };
/** Events a stream may hold unread (a full replay and as many again) before it is closed. */
const MAX_UNREAD = 2 * MAX_EVENTS + 16;
const encoder = new TextEncoder();

/**
 * The account's MCP sessions (one object per account, addressed by the account id the route read
 * from a verified key): every session, its open GET stream and the events kept for resumption live
 * here, so a notification for the account reaches every connected agent of it from one place.
 *
 * Messages are answered by the same code as stateless requests (endpoint.ts: the agents package's
 * `createMcpHandler` over an SDK v2 McpServer, plus the answers it remembers); this object adds the
 * session around them. Every tool call is admitted by the account's AccountQuota object (the second
 * and last hop): a revoked key, a changed plan or a spent quota shows on the next call. Every other
 * message of a session takes its per-minute slot there too, as the design's rolling window over all
 * authenticated requests says (a per-session allowance in this object would multiply by the number
 * of sessions an account opens); a key revoked meanwhile is refused on its next message, and its
 * open streams are closed at once when the account's object is refreshed (`recheck`).
 */
export class McpSessions extends DurableObject<Env> {
  private readonly streams = new Map<string, Stream>();
  private tables = false;

  /** Tables are made on first use, so an account that never opened a session stores nothing. */
  private schema(): void {
    if (this.tables) return;
    this.ctx.storage.sql.exec(`
      CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY, key_hash TEXT NOT NULL, owner_id TEXT NOT NULL, protocol_version TEXT NOT NULL,
        capabilities TEXT NOT NULL, client_info TEXT NOT NULL, caller TEXT NOT NULL,
        created_at INTEGER NOT NULL, last_seen INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE IF NOT EXISTS events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, data TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS events_session ON events(session_id, seq);
      CREATE INDEX IF NOT EXISTS events_at ON events(at);`);
    this.tables = true;
  }

  private hasTables(): boolean {
    if (this.tables) return true;
    const found = this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'").toArray();
    if (found.length) this.tables = true;
    return this.tables;
  }

  override async fetch(request: Request): Promise<Response> {
    const h = request.headers;
    const ownerId = h.get(OWNER_HEADER) ?? "";
    const keyHash = h.get(KEY_HASH_HEADER) ?? "";
    const { quotaGate, storeActivity, KeyRefused, BENCH_SLOT_HEADER, recordingInside } = await deps();
    const call: ToolCall = {
      gate: quotaGate,
      activity: storeActivity,
      env: this.env,
      key: agentKeyOf(h),
      requestId: h.get(REQUEST_ID_HEADER) ?? "",
      origin: h.get(ORIGIN_HEADER) ?? "",
      waitUntil: (p) => this.ctx.waitUntil(p),
    };
    const sid = h.get("mcp-session-id");
    // The bench's own server: this request's storage work is its slot's (core/bench-replay.ts). Only
    // a Worker with BENCH_ROUTES "1" records a slot; elsewhere the header finds none and changes nothing.
    const slot = h.get(BENCH_SLOT_HEADER);
    if (slot) {
      const self = { binding: "MCP_SESSIONS" as const, id: this.ctx.id.toString(), method: "benchTouch", args: [sid, keyHash] };
      call.env = recordingInside(slot, this.env, self);
    }
    this.schema();
    this.sweep();
    try {
      if (sid === null) return await this.initialize(request, ownerId, keyHash, call);
      const session = this.held(sid, keyHash);
      if (session === "not-found") return sessionNotFound();
      if (session === "revoked") return refused(new ApiError("UNAUTHENTICATED", "The agent key is unknown or revoked"), call.requestId);
      if (request.method === "DELETE") {
        this.end([sid]);
        return new Response(null, { status: 200 });
      }
      if (request.method === "GET") return this.open(session, h);
      return await this.post(request, session, call);
    } catch (err) {
      if (err instanceof KeyRefused) {
        this.endKey(keyHash);
        return refused(err.error, call.requestId);
      }
      // Every error of the contract is answered here, in its shape: thrown on, it would reach the
      // route through the object's stub as a plain Error, and be a 500 without its code or details.
      if (err instanceof ApiError) return refused(err, call.requestId);
      throw err;
    }
  }

  /**
   * The bench's floor for a message of a session (src/admin/bench.route.ts): the storage work
   * `fetch` does before the message is served (the session read and its last-seen write).
   */
  benchTouch(sid: string | null, keyHash: string): boolean {
    return sid !== null && typeof this.touch(sid, keyHash) === "object";
  }

  /**
   * A message the Worker answers itself in a session (tools/list, ping: nothing of the object's
   * state but the negotiated version goes into them, and their answer is the largest a session
   * sends), asked of the object first as `fetch` would: the session held for this key, kept alive,
   * and its protocol version; "not-found" (unknown, ended, expired, another key's), or "revoked"
   * (the session is ended, as `fetch` ends it).
   */
  touch(sid: string, keyHash: string): { protocolVersion: string } | "not-found" | "revoked" {
    this.schema();
    this.sweep();
    const session = this.held(sid, keyHash);
    return typeof session === "string" ? session : { protocolVersion: session.protocol_version };
  }

  /** The session a message names, kept alive; or why there is none (a revoked one is ended here). */
  private held(sid: string, keyHash: string): SessionRow | "not-found" | "revoked" {
    const session = this.session(sid, keyHash);
    if (!session) return "not-found";
    if (session.revoked) {
      this.end([sid]);
      return "revoked";
    }
    this.ctx.storage.sql.exec("UPDATE sessions SET last_seen = ? WHERE id = ?", now(), sid);
    return session;
  }

  /** A session held for this key, or null (unknown, expired, or made by another key). */
  private session(id: string, keyHash: string): SessionRow | null {
    const row = this.ctx.storage.sql.exec<SessionRow>("SELECT * FROM sessions WHERE id = ?", id).toArray()[0];
    if (!row || row.key_hash !== keyHash || row.last_seen + SESSION_IDLE_MS <= now()) return null;
    return row;
  }

  /**
   * `initialize` without a session id: admitted like any message (the key, a per-minute slot), then
   * answered as a stateless request would be, and the answer carries the new session's id. A
   * client that never sends the id back still works: its requests are served statelessly.
   */
  private async initialize(request: Request, ownerId: string, keyHash: string, call: ToolCall): Promise<Response> {
    const body = new Uint8Array(await request.arrayBuffer());
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { params?: { capabilities?: unknown; clientInfo?: unknown } };
    const { admitMessage, serveMcp } = await deps();
    const admitted = await admitMessage(call);
    const res = await serveMcp(request, body, parsed, { ...call, gate: this.initializeGate(call.gate, admitted.caller) });
    if (res.status !== 200) return res;
    const text = await res.text();
    const json = (res.headers.get("content-type") ?? "").includes("text/event-stream") ? sseData(text)[0] : text;
    const version = (JSON.parse(json ?? "{}") as { result?: { protocolVersion?: string } }).result?.protocolVersion;
    const out = new Response(text, res);
    if (!version) return out;
    const id = [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const t = now();
    this.ctx.storage.sql.exec(
      "INSERT INTO sessions (id, key_hash, owner_id, protocol_version, capabilities, client_info, caller, created_at, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      id,
      keyHash,
      ownerId,
      version,
      bounded(parsed.params?.capabilities),
      bounded(parsed.params?.clientInfo),
      JSON.stringify(admitted.caller),
      t,
      t,
    );
    const over = this.ctx.storage.sql
      .exec<{ id: string }>("SELECT id FROM sessions ORDER BY last_seen DESC, created_at DESC LIMIT -1 OFFSET ?", MAX_SESSIONS)
      .toArray();
    if (over.length) this.end(over.map((r) => r.id));
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + SESSION_IDLE_MS);
    out.headers.set("mcp-session-id", id);
    return out;
  }

  private async post(request: Request, session: SessionRow, call: ToolCall): Promise<Response> {
    const body = new Uint8Array(await request.arrayBuffer());
    const parsed = JSON.parse(new TextDecoder().decode(body)) as unknown;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    if (messages.some((m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize")) {
      return rpcError(400, -32600, "Invalid Request: this session is already initialized.");
    }
    const inner = inSessionVersion(request, session.protocol_version);
    // Admitted by the account's object like any request (call.gate is the quota gate).
    const { serveMcp } = await deps();
    const res = await serveMcp(inner, body, parsed, call);
    const out = new Response(res.body, res);
    out.headers.set("mcp-session-id", session.id);
    return out;
  }

  /**
   * The gate of `initialize` once admitted above: the caller is known and its slot taken, so the
   * answer is built without a second admission.
   */
  private initializeGate(quotaGate: Gate, caller: AgentPrincipal): Gate {
    const local = async (): Promise<Admitted> => ({ caller, bookmark: null, admission: undefined as never });
    return {
      ...quotaGate,
      admit: (env, key, want) => (want.metric === null && want.counted === "minute" ? local() : quotaGate.admit(env, key, want)),
      verify: async () => ({ caller, bookmark: null }),
    };
  }

  /**
   * A GET: the session's stream of server messages (push notifications), which replaces any stream
   * the session had open. With `Last-Event-ID`, the events kept after that one are sent first.
   */
  private open(session: SessionRow, h: Headers): Response {
    if (!(h.get("accept") ?? "").includes("text/event-stream")) {
      return rpcError(406, -32000, "Not Acceptable: Client must accept text/event-stream");
    }
    this.close(session.id);
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const stream: Stream = { writer: writable.getWriter(), closed: false };
    this.streams.set(session.id, stream);
    const last = Number.parseInt(h.get("last-event-id") ?? "", 10);
    const lastSeq = this.ctx.storage.sql.exec<{ seq: number }>("SELECT COALESCE(MAX(seq), 0) AS seq FROM events").one().seq;
    // The priming event: an id to resume from even before the first notification.
    this.write(stream, `id: ${lastSeq}\nretry: ${RETRY_MS}\ndata: \n\n`);
    if (Number.isSafeInteger(last)) {
      for (const e of this.ctx.storage.sql.exec<{ seq: number; data: string }>(
        "SELECT seq, data FROM events WHERE session_id = ? AND seq > ? AND at > ? ORDER BY seq",
        session.id,
        last,
        now() - EVENT_TTL_MS,
      )) {
        this.write(stream, `id: ${e.seq}\nevent: message\ndata: ${e.data}\n\n`);
      }
    }
    return new Response(readable, {
      status: 200,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "mcp-session-id": session.id },
    });
  }

  private write(stream: Stream, text: string): void {
    if (stream.closed) return;
    // A client that holds its stream open but never reads would have every push buffered here:
    // past a replay's worth of unread events the stream is closed instead (the events are kept, so
    // a GET with Last-Event-ID gets them back).
    if ((stream.writer.desiredSize ?? 0) < -MAX_UNREAD) {
      stream.closed = true;
      stream.writer.abort(new Error("too many events unread")).catch(() => {});
      return;
    }
    stream.writer.write(encoder.encode(text)).catch(() => {
      stream.closed = true;
    });
  }

  private close(sid: string): void {
    const s = this.streams.get(sid);
    if (!s) return;
    this.streams.delete(sid);
    s.closed = true;
    s.writer.close().catch(() => {});
  }

  private end(ids: string[]): void {
    for (const id of ids) {
      this.ctx.storage.sql.exec("DELETE FROM sessions WHERE id = ?", id);
      this.ctx.storage.sql.exec("DELETE FROM events WHERE session_id = ?", id);
      this.close(id);
    }
  }

  private endKey(keyHash: string): void {
    if (!this.hasTables()) return;
    this.end(
      this.ctx.storage.sql
        .exec<{ id: string }>("SELECT id FROM sessions WHERE key_hash = ?", keyHash)
        .toArray()
        .map((r) => r.id),
    );
  }

  /** When this object last swept (the injected clock). */
  private sweptAt = Number.NEGATIVE_INFINITY;

  /**
   * Expired sessions and old events go: on a message at most once a minute (a scan of the sessions
   * and a delete on every message cost more than the message), always from the alarm. Nothing waits
   * on it: `session` refuses an idle session and the replay of events skips old ones by themselves.
   */
  private sweep(always = false): void {
    const t = now();
    if (!always && t >= this.sweptAt && t - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = t;
    const expired = this.ctx.storage.sql
      .exec<{ id: string }>("SELECT id FROM sessions WHERE last_seen <= ?", t - SESSION_IDLE_MS)
      .toArray()
      .map((r) => r.id);
    if (expired.length) this.end(expired);
    this.ctx.storage.sql.exec("DELETE FROM events WHERE at <= ?", t - EVENT_TTL_MS);
  }

  override async alarm(): Promise<void> {
    if (!this.hasTables()) return;
    this.sweep(true);
    const left = this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sessions").one().n;
    if (left > 0) await this.ctx.storage.setAlarm(Date.now() + SESSION_IDLE_MS);
  }

  /**
   * A notification for the account's sessions (those of one agent when `agentId` is given): kept
   * for resumption (at most MAX_EVENTS per session, for EVENT_TTL_MS) and written to each open
   * stream. Answers how many sessions it was kept for.
   */
  async notify(message: { method: string; params?: Record<string, unknown> }, agentId?: string): Promise<number> {
    if (!this.hasTables()) return 0;
    this.sweep();
    const data = JSON.stringify({ jsonrpc: "2.0", ...message });
    let n = 0;
    const rows = this.ctx.storage.sql.exec<{ id: string; caller: string }>("SELECT id, caller FROM sessions WHERE revoked = 0").toArray();
    for (const s of rows) {
      // Undefined means the whole account; any other value (an empty one too) names one agent.
      if (agentId !== undefined && (JSON.parse(s.caller) as AgentPrincipal).agentId !== agentId) continue;
      const seq = this.ctx.storage.sql
        .exec<{ seq: number }>("INSERT INTO events (session_id, data, at) VALUES (?, ?, ?) RETURNING seq", s.id, data, now())
        .one().seq;
      this.ctx.storage.sql.exec(
        "DELETE FROM events WHERE session_id = ? AND seq NOT IN (SELECT seq FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT ?)",
        s.id,
        s.id,
        MAX_EVENTS,
      );
      const stream = this.streams.get(s.id);
      if (stream) this.write(stream, `id: ${seq}\nevent: message\ndata: ${data}\n\n`);
      n++;
    }
    return n;
  }

  /**
   * After the account changed (a key revoked, an agent deleted): the sessions of every key the
   * account's object no longer accepts are marked, so their next request of any kind (tools/list
   * too) is the endpoint's 401 and ends them, and their open streams close now.
   */
  async recheck(): Promise<void> {
    if (!this.hasTables()) return;
    const { accountStub } = await deps();
    const rows = this.ctx.storage.sql
      .exec<{ key_hash: string; owner_id: string }>("SELECT DISTINCT key_hash, owner_id FROM sessions")
      .toArray();
    for (const r of rows) {
      const v = await accountStub(this.env, r.owner_id).verify({ ownerId: r.owner_id, keyHash: r.key_hash });
      if (!v.ok) {
        // Marked, so the next request is a 401 that ends the session; its stream closes now, so no
        // push reaches a revoked key in between.
        const ids = this.ctx.storage.sql
          .exec<{ id: string }>("UPDATE sessions SET revoked = 1 WHERE key_hash = ? RETURNING id", r.key_hash)
          .toArray();
        for (const { id } of ids) this.close(id);
      }
    }
  }
}
