import { and, eq, isNull, isNotNull, count, lt } from "drizzle-orm";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { agents, apiKeys, owners, sessions } from "../db/schema";
import { ApiError, conflict, notFound } from "../core/errors";
import { iso, now } from "../core/clock";
import { newId, pbkdf2Hex, PBKDF2_ITERATIONS, randomBase62, sha256Hex, timingSafeEqualHex, toHex } from "../core/crypto";
import { agentKeyFor, SESSION_PREFIX } from "../core/auth";
import { columnsOf, type SqlRow } from "../core/columns";
import { refreshAccount } from "../quota";
import type { AgentOut } from "./auth.schemas";

const SESSION_TTL_MS = 30 * 86_400_000;
const MAX_AGENTS_PER_OWNER = 100;
const MAX_ACTIVE_KEYS_PER_AGENT = 10;
export const KEY_DISPLAY_CHARS = 8;

/**
 * A fresh agent key for an account (`lore_<256-bit secret><tag>_<account id>`, core/auth.ts): shown
 * once, stored only as its SHA-256 (in D1, and in the account's AccountQuota object).
 */
export async function mintKey(env: Env, ownerId: string) {
  const key = await agentKeyFor(env, ownerId, randomBase62(32));
  return { key, hash: await sha256Hex(key), prefix: key.slice(0, KEY_DISPLAY_CHARS) };
}

async function startSession(db: Db, ownerId: string) {
  const token = SESSION_PREFIX + randomBase62(32);
  const t = now();
  await db.insert(sessions).values({ tokenHash: await sha256Hex(token), ownerId, createdAt: t, expiresAt: t + SESSION_TTL_MS });
  return token;
}

export async function signup(db: Db, email: string, password: string) {
  const salt = toHex(crypto.getRandomValues(new Uint8Array(16)));
  const hash = await pbkdf2Hex(password, salt, PBKDF2_ITERATIONS);
  const id = newId("own_");
  const inserted = await db
    .insert(owners)
    .values({ id, email, passwordHash: hash, passwordSalt: salt, passwordIterations: PBKDF2_ITERATIONS, createdAt: now() })
    .onConflictDoNothing({ target: owners.email })
    .returning({ id: owners.id });
  if (inserted.length === 0) throw conflict("An account with this email already exists");
  return { token: await startSession(db, id), owner: { id, email, plan: "FREE" } };
}

// A fixed dummy hash keeps the timing of "no such email" close to "wrong password".
const DUMMY_SALT = "00".repeat(16);

export async function login(db: Db, email: string, password: string) {
  const owner = await db.query.owners.findFirst({ where: eq(owners.email, email) });
  const hash = await pbkdf2Hex(password, owner?.passwordSalt ?? DUMMY_SALT, owner?.passwordIterations ?? PBKDF2_ITERATIONS);
  if (!owner || !timingSafeEqualHex(hash, owner.passwordHash)) {
    throw new ApiError("UNAUTHENTICATED", "Email or password is wrong");
  }
  return { token: await startSession(db, owner.id), owner: { id: owner.id, email: owner.email, plan: owner.plan } };
}

export async function logout(db: Db, sessionHash: string) {
  await db.update(sessions).set({ revokedAt: now() }).where(eq(sessions.tokenHash, sessionHash));
}

type KeyRow = SqlRow<typeof apiKeys, "agentId" | "prefix" | "createdAt" | "revokedAt">;
const KEY_COLUMNS = columnsOf(apiKeys, undefined, ["agentId", "prefix", "createdAt", "revokedAt"]);

/** An agent's keys, oldest first. */
async function keysOfAgent(db: Db, agentId: string): Promise<AgentOut["keys"]> {
  const r = await db.$client
    .prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE agent_id = ? ORDER BY created_at`)
    .bind(agentId)
    .all<KeyRow>();
  return keysGrouped(r.results).get(agentId) ?? [];
}

function keysGrouped(rows: KeyRow[]) {
  const map = new Map<string, AgentOut["keys"]>();
  for (const r of rows) {
    const list = map.get(r.agent_id) ?? [];
    list.push({ prefix: r.prefix, createdAt: iso(r.created_at), revokedAt: iso(r.revoked_at) });
    map.set(r.agent_id, list);
  }
  return map;
}

type AgentRow = typeof agents.$inferSelect;
const agentOut = (a: Pick<AgentRow, "id" | "handle" | "name" | "reputation" | "createdAt">, keys: AgentOut["keys"]): AgentOut => ({
  id: a.id,
  handle: a.handle,
  name: a.name,
  reputation: a.reputation,
  createdAt: iso(a.createdAt),
  keys,
});

// The owner's page of agents, their count and the page's keys, as raw statements of one batch: the
// overview and agents pages run this on every visit, and drizzle built these three queries (one with
// the page again as a subquery) anew each time.
const LIVE = "owner_id = ? AND deleted_at IS NULL";
const PAGE_OF_AGENTS = `SELECT ${columnsOf(agents, undefined, ["id", "handle", "name", "reputation", "createdAt"])}
  FROM agents WHERE ${LIVE} ORDER BY created_at LIMIT ? OFFSET ?`;
const COUNT_AGENTS = `SELECT count(*) AS n FROM agents WHERE ${LIVE}`;
const KEYS_OF_PAGE = `SELECT ${KEY_COLUMNS}
  FROM api_keys WHERE agent_id IN (SELECT id FROM agents WHERE ${LIVE} ORDER BY created_at LIMIT ? OFFSET ?)
  ORDER BY created_at`;

export async function listAgents(db: Db, ownerId: string, page: { limit: number; offset: number }) {
  const d1 = db.$client;
  const [rows, total, keys] = await d1.batch<unknown>([
    d1.prepare(PAGE_OF_AGENTS).bind(ownerId, page.limit, page.offset),
    d1.prepare(COUNT_AGENTS).bind(ownerId),
    d1.prepare(KEYS_OF_PAGE).bind(ownerId, page.limit, page.offset),
  ]);
  const byAgent = keysGrouped(keys!.results as KeyRow[]);
  const items = (rows!.results as SqlRow<typeof agents, "id" | "handle" | "name" | "reputation" | "createdAt">[]).map((a) =>
    agentOut({ id: a.id, handle: a.handle, name: a.name, reputation: a.reputation, createdAt: a.created_at }, byAgent.get(a.id) ?? []),
  );
  return { items, total: (total!.results[0] as { n: number } | undefined)?.n ?? 0 };
}

/** The owner's live agent, or 404 (another owner's agent is indistinguishable from none). */
async function ownAgent(db: Db, ownerId: string, agentId: string): Promise<AgentRow> {
  const [a] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.ownerId, ownerId), isNull(agents.deletedAt)))
    .limit(1);
  if (!a) throw notFound("Agent");
  return a;
}

/*
 * Agents and keys are written to D1 (the record) and then the account's AccountQuota object is
 * told (refreshAccount) before the change is answered: a new key works, and a revoked or deleted
 * one is refused, on the very next request in every isolate.
 */

export async function createAgent(env: Env, db: Db, ownerId: string, handle: string, name: string | null) {
  const [existing] = await db
    .select({ n: count() })
    .from(agents)
    .where(and(eq(agents.ownerId, ownerId), isNull(agents.deletedAt)));
  if ((existing?.n ?? 0) >= MAX_AGENTS_PER_OWNER) throw conflict(`An account can have at most ${MAX_AGENTS_PER_OWNER} agents`);
  const id = newId("agt_");
  const t = now();
  const k = await mintKey(env, ownerId);
  const inserted = await db
    .insert(agents)
    .values({ id, ownerId, handle, name, createdAt: t })
    .onConflictDoNothing({ target: agents.handle })
    .returning();
  const agent = inserted[0];
  if (!agent) throw conflict(`The handle @${handle} is taken`, { field: "handle" });
  await db.insert(apiKeys).values({ keyHash: k.hash, prefix: k.prefix, agentId: id, ownerId, createdAt: t });
  await refreshAccount(env, ownerId);
  return {
    agent: { id, handle, name, createdAt: iso(t) },
    apiKey: k.key,
  };
}

export async function renameAgent(db: Db, ownerId: string, agentId: string, name: string | null) {
  await ownAgent(db, ownerId, agentId);
  const [row] = await db.update(agents).set({ name }).where(eq(agents.id, agentId)).returning();
  return { agent: agentOut(row!, await keysOfAgent(db, agentId)) };
}

export async function deleteAgent(env: Env, db: Db, ownerId: string, agentId: string) {
  await ownAgent(db, ownerId, agentId);
  const t = now();
  await db.batch([
    db.update(agents).set({ deletedAt: t }).where(eq(agents.id, agentId)),
    db
      .update(apiKeys)
      .set({ revokedAt: t })
      .where(and(eq(apiKeys.agentId, agentId), isNull(apiKeys.revokedAt))),
  ]);
  await refreshAccount(env, ownerId);
  return { id: agentId, deleted: true };
}

export async function createKey(env: Env, db: Db, ownerId: string, agentId: string) {
  await ownAgent(db, ownerId, agentId);
  const [active] = await db
    .select({ n: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.agentId, agentId), isNull(apiKeys.revokedAt)));
  if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS_PER_AGENT) {
    throw conflict(`An agent can have at most ${MAX_ACTIVE_KEYS_PER_AGENT} active keys; revoke one first`);
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const k = await mintKey(env, ownerId);
    const t = now();
    const rows = await db
      .insert(apiKeys)
      .values({ keyHash: k.hash, prefix: k.prefix, agentId, ownerId, createdAt: t })
      .onConflictDoNothing()
      .returning({ prefix: apiKeys.prefix });
    if (rows.length) {
      await refreshAccount(env, ownerId);
      return { key: { prefix: k.prefix, createdAt: iso(t), revokedAt: null }, apiKey: k.key };
    }
  }
  throw new ApiError("INTERNAL", "Could not mint a unique key");
}

export async function revokeKey(env: Env, db: Db, ownerId: string, agentId: string, prefix: string) {
  await ownAgent(db, ownerId, agentId);
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: now() })
    .where(and(eq(apiKeys.agentId, agentId), eq(apiKeys.prefix, prefix), isNull(apiKeys.revokedAt)))
    .returning({ prefix: apiKeys.prefix, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt });
  // Told even when nothing was left to revoke here: a retry after an answer that failed (the
  // object could not be told) must still make the object drop the key.
  await refreshAccount(env, ownerId);
  const r = rows[0];
  if (!r) throw notFound("Active key with this prefix");
  return { key: { prefix: r.prefix, createdAt: iso(r.createdAt), revokedAt: iso(r.revokedAt) } };
}

export async function getSettings(db: Db, ownerId: string) {
  // A plain select of three columns, not drizzle's relational findFirst: its query building and row
  // mapping were the settings page's largest frames above its floor (profile-summary --against).
  const [o] = await db
    .select({ email: owners.email, plan: owners.plan, refreshSchedule: owners.refreshSchedule })
    .from(owners)
    .where(eq(owners.id, ownerId))
    .limit(1);
  if (!o) throw notFound("Account");
  return { settings: { email: o.email, plan: o.plan, refreshSchedule: o.refreshSchedule as never } };
}

export async function updateSettings(db: Db, ownerId: string, refreshSchedule: string | undefined) {
  if (refreshSchedule) await db.update(owners).set({ refreshSchedule }).where(eq(owners.id, ownerId));
  return getSettings(db, ownerId);
}

/** Sessions that can no longer authenticate (expired or logged out): removed by the daily job. */
export function pruneSessions(db: Db, at: number) {
  return [db.delete(sessions).where(lt(sessions.expiresAt, at)), db.delete(sessions).where(isNotNull(sessions.revokedAt))] as const;
}
