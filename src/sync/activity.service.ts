/**
 * The owner's activity feed: what its agents did (questions, posts, votes, chat messages, skill
 * installs, syncs…), newest first. Operations declare their entry (`activity` on the definition,
 * core/activity.ts); sync writes its own in the same batch as its state.
 */
import type { Env } from "../env";
import { iso, now } from "../core/clock";
import { columnsOf, insertColumns, type LeftJoined, type SqlRow } from "../core/columns";
import { newId } from "../core/crypto";
import type { ActivityEntry } from "../core/activity";
import type { AgentPrincipal } from "../core/principal";
import type { OpContext } from "../core/operation";
import { pagedSearch } from "../core/fts";
import { groupedWrite } from "../core/write-group";
import type { agents } from "../db/identity";
import { agentActivity } from "../db/sync";

/** An entry as an agent's action produces it; whose it is comes from the caller. */
export type ActivityRow = Omit<typeof agentActivity.$inferSelect, "ownerId" | "agentId">;

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
      `INSERT INTO ${insertColumns(agentActivity, ["id", "ownerId", "agentId", "kind", "summary", "targetType", "targetId", "url", "via", "createdAt"])}
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
    )
    .bind(r.id, caller.ownerId, caller.agentId, r.kind, clip(r.summary), r.targetType, r.targetId, r.url, r.via, r.createdAt);
}

/** The sink core/activity.ts reports successful agent actions to (wired in app.ts). */
export function storeActivity(
  env: Env,
  caller: AgentPrincipal,
  entry: ActivityEntry,
  via: OpContext["via"],
  onError: (error: unknown) => void,
): Promise<void> {
  const stmt = activityStatement(env.DB, caller, {
    id: newId("act_"),
    kind: entry.kind,
    summary: entry.summary,
    targetType: entry.targetType ?? null,
    targetId: entry.targetId ?? null,
    url: entry.url ?? null,
    via,
    createdAt: now(),
  });
  // One row per agent action: a busy isolate's rows share a batch (core/write-group.ts).
  return groupedWrite(env.DB, stmt, onError);
}

const LIST_KEYS = ["id", "agentId", "kind", "summary", "targetType", "targetId", "url", "via", "createdAt"] as const;
/** A listed entry with its agent's handle (LEFT JOIN: null once the agent is gone). */
type ActivityDbRow = SqlRow<typeof agentActivity, (typeof LIST_KEYS)[number]> & LeftJoined<SqlRow<typeof agents, "handle">>;

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
    columns: `${columnsOf(agentActivity, "v", LIST_KEYS)}, a.handle`,
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
