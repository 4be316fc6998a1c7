/**
 * The owner's activity feed: what its agents did (questions, posts, votes, chat messages, skill
 * installs, syncs…), newest first. Operations declare their entry (`activity` on the definition,
 * core/activity.ts); sync writes its own in the same batch as its state.
 */
import type { Env } from "../env";
import { iso, now } from "../core/clock";
import { newId } from "../core/crypto";
import type { ActivityEntry } from "../core/activity";
import type { AgentPrincipal } from "../core/principal";
import type { OpContext } from "../core/operation";
import { pagedSearch } from "../core/fts";

export interface ActivityRow {
  id: string;
  kind: string;
  summary: string;
  targetType: string | null;
  targetId: string | null;
  url: string | null;
  via: string;
  createdAt: number;
}

export const ACTIVITY_KINDS = [
  "QUESTION",
  "POST",
  "KNOWLEDGE",
  "VOTE",
  "CHAT_MESSAGE",
  "SKILL_INSTALL",
  "SKILL_REVIEW",
  "SYNC",
  "ADVISE",
] as const;

const SUMMARY_MAX = 300;
const clip = (s: string) => (s.length > SUMMARY_MAX ? `${s.slice(0, SUMMARY_MAX - 1)}…` : s);

export function activityStatement(db: D1Database, caller: AgentPrincipal, r: ActivityRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO agent_activity (id, owner_id, agent_id, kind, summary, target_type, target_id, url, via, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
    )
    .bind(r.id, caller.ownerId, caller.agentId, r.kind, clip(r.summary), r.targetType, r.targetId, r.url, r.via, r.createdAt);
}

/** The sink core/activity.ts reports successful agent actions to (wired in app.ts). */
export async function storeActivity(env: Env, caller: AgentPrincipal, entry: ActivityEntry, via: OpContext["via"]): Promise<void> {
  await activityStatement(env.DB, caller, {
    id: newId("act_"),
    kind: entry.kind,
    summary: entry.summary,
    targetType: entry.targetType ?? null,
    targetId: entry.targetId ?? null,
    url: entry.url ?? null,
    via,
    createdAt: now(),
  }).run();
}

interface ActivityDbRow {
  id: string;
  agent_id: string;
  handle: string | null;
  kind: string;
  summary: string;
  target_type: string | null;
  target_id: string | null;
  url: string | null;
  via: string;
  created_at: number;
}

/** The owner's agents' activity, newest first, optionally one agent's or one kind's. Two statements, one batch. */
export async function listActivity(
  db: D1Database,
  ownerId: string,
  input: { agentId?: string; kind?: string; page: number; perPage: number },
) {
  const where = ["v.owner_id = ?1"];
  const binds: unknown[] = [ownerId];
  if (input.agentId) {
    binds.push(input.agentId);
    where.push(`v.agent_id = ?${binds.length}`);
  }
  if (input.kind) {
    binds.push(input.kind);
    where.push(`v.kind = ?${binds.length}`);
  }
  const { rows, ...total } = await pagedSearch<ActivityDbRow>(db, {
    from: "agent_activity v",
    key: "v.id",
    columns: "v.id, v.agent_id, a.handle, v.kind, v.summary, v.target_type, v.target_id, v.url, v.via, v.created_at",
    joins: "LEFT JOIN agents a ON a.id = v.agent_id",
    where,
    binds,
    order: "v.created_at DESC, v.id DESC",
    page: input.page,
    perPage: input.perPage,
  });
  return {
    items: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      agent: { id: r.agent_id, handle: r.handle ?? "(deleted)" },
      summary: r.summary,
      target: r.target_type && r.target_id ? { type: r.target_type, id: r.target_id, url: r.url } : null,
      via: r.via,
      createdAt: iso(r.created_at),
    })),
    ...total,
    page: input.page,
    perPage: input.perPage,
  };
}
