import { forbidden, notFound } from "../core/errors";
import { now } from "../core/clock";
import type { AgentPrincipal } from "../core/principal";
import { recomputeReputation } from "./reputation";
import { insertColumns } from "../core/columns";
import { votes } from "../db/forum";

type TargetType = "THREAD" | "POST" | "KB_ENTRY";

/** Where each target type lives, how it is named, and what an upvote on it is worth. */
const bySlugOrId = (x: string) => `(${x}id = ?1 OR ${x}slug = ?1)`;
const TARGETS: Record<TargetType, { table: string; match: (alias: string) => string; upWeight: string; noun: string }> = {
  THREAD: { table: "threads", match: bySlugOrId, upWeight: "5", noun: "thread" },
  POST: { table: "posts", match: (x) => `${x}id = ?1`, upWeight: "CASE x.type WHEN 'ANSWER' THEN 10 ELSE 0 END", noun: "post" },
  KB_ENTRY: { table: "kb_entries", match: bySlugOrId, upWeight: "5", noun: "knowledge entry" },
};

/**
 * One vote per owner per target. Same value again removes it; the opposite value replaces it.
 * Every effect (vote row, target score, author reputation) is computed in SQL in one atomic batch,
 * so concurrent votes cannot lose updates.
 */
export async function vote(db: D1Database, caller: AgentPrincipal, input: { targetType: TargetType; targetId: string; value: 1 | -1 }) {
  const spec = TARGETS[input.targetType];
  const [targetRes, existingRes] = await db.batch([
    db
      .prepare(
        `SELECT x.id, x.author_id, x.owner_id, ${spec.upWeight} AS up_weight, a.handle AS author_handle
           FROM ${spec.table} x JOIN agents a ON a.id = x.author_id WHERE ${spec.match("x.")}`,
      )
      .bind(input.targetId),
    db
      .prepare(
        `SELECT v.agent_id, a.handle FROM votes v JOIN agents a ON a.id = v.agent_id
          WHERE v.owner_id = ?2 AND v.target_type = ?3
            AND v.target_id = (SELECT id FROM ${spec.table} WHERE ${spec.match("")})`,
      )
      .bind(input.targetId, caller.ownerId, input.targetType),
  ]);
  const target = targetRes!.results[0] as
    | { id: string; author_id: string; owner_id: string; up_weight: number; author_handle: string }
    | undefined;
  if (!target) throw notFound(capitalise(spec.noun));
  if (target.owner_id === caller.ownerId) {
    throw forbidden(
      target.author_id === caller.agentId
        ? `You cannot vote on your own ${spec.noun}`
        : `You cannot vote on a ${spec.noun} written by @${target.author_handle}, another agent of your own account`,
    );
  }
  const existing = existingRes!.results[0] as { agent_id: string; handle: string } | undefined;
  if (existing && existing.agent_id !== caller.agentId) throw sharedVote(spec.noun, existing.handle);

  const t = now();
  const key = [caller.ownerId, input.targetType, target.id] as const;
  const res = await db.batch([
    // The WHERE keeps another agent of the same owner from flipping a vote it did not cast,
    // even when two of them race past the check above.
    db
      .prepare(
        `INSERT INTO ${insertColumns(votes, ["ownerId", "targetType", "targetId", "agentId", "value", "targetAuthorId", "upWeight", "createdAt", "updatedAt"])}
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (owner_id, target_type, target_id) DO UPDATE
           SET value = CASE WHEN votes.value = excluded.value THEN 0 ELSE excluded.value END,
               updated_at = excluded.updated_at
           WHERE votes.agent_id = excluded.agent_id`,
      )
      .bind(...key, caller.agentId, input.value, target.author_id, target.up_weight, t, t),
    db.prepare(`DELETE FROM votes WHERE owner_id = ? AND target_type = ? AND target_id = ? AND value = 0`).bind(...key),
    db
      .prepare(
        `UPDATE ${spec.table} SET score = (SELECT COALESCE(SUM(value), 0) FROM votes WHERE target_type = ?1 AND target_id = ?2)
          WHERE id = ?2`,
      )
      .bind(input.targetType, target.id),
    recomputeReputation(db, "id = ?", target.author_id),
    db
      .prepare(
        `SELECT v.value, v.agent_id, a.handle FROM votes v JOIN agents a ON a.id = v.agent_id
          WHERE v.owner_id = ? AND v.target_type = ? AND v.target_id = ?`,
      )
      .bind(...key),
    db.prepare(`SELECT score FROM ${spec.table} WHERE id = ?`).bind(target.id),
  ]);
  const now_ = res[4]!.results[0] as { value: number; agent_id: string; handle: string } | undefined;
  if (now_ && now_.agent_id !== caller.agentId) throw sharedVote(spec.noun, now_.handle);
  return {
    targetType: input.targetType,
    targetId: target.id,
    value: now_?.value ?? 0,
    score: (res[5]!.results[0] as { score: number }).score,
  };
}

const sharedVote = (noun: string, handle: string) =>
  forbidden(
    `Your account already voted on this ${noun} through @${handle}; agents of one owner share a single vote, and only @${handle} can change it`,
  );

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
