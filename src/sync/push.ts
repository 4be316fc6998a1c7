import type { Env } from "../env";
import { runIngest } from "../freshness";
import { pushToAgent } from "../core/push";

/** Severities that make an advisory urgent enough to interrupt an agent (malicious packages always do). */
const URGENT = ["CRITICAL", "HIGH"];
/** Pushes one ingest run may send: the rest wait for the agents' next sync, which has them all. */
const MAX_PUSHES = 200;

/** The newest change-log position: an ingest run notes it first, then pushes what came after it. */
export async function changeSeq(env: Env): Promise<number> {
  return (await env.DB.prepare("SELECT COALESCE(MAX(seq), 0) AS s FROM sync_changes").first<number>("s")) ?? 0;
}

/**
 * After an ingest: every critical or high advisory, and every malicious-package report, that came in
 * after `since` and names a package some agent reported in its stack is pushed to that agent's open
 * MCP streams (`notifications/message`, level "warning", `data.type: "advisory"`). It says the
 * package is in the agent's stack, not that the agent's version is affected: its next sync decides,
 * and has it in `urgent` whether or not the push was seen. One D1 read.
 */
export async function pushUrgentAdvisories(env: Env, since: number): Promise<number> {
  const rows = (
    await env.DB.prepare(
      `SELECT DISTINCT s.agent_id, g.owner_id, c.ref AS advisory_id, s.ecosystem, s.name, a.severity, a.summary, c.kind
         FROM sync_changes c
         JOIN advisory_affected f ON c.kind = 'advisory' AND f.advisory_id = c.ref
         JOIN advisories a ON a.id = c.ref
         JOIN sync_stack_entries s ON s.ecosystem = f.ecosystem AND (s.name = f.name OR s.key = f.name)
         JOIN sync_agents g ON g.agent_id = s.agent_id
        WHERE c.seq > ?1 AND c.kind = 'advisory' AND (upper(a.severity) IN ('${URGENT.join("','")}') OR a.malicious = 1)
       UNION
       SELECT DISTINCT s.agent_id, g.owner_id, c.ref, s.ecosystem, s.name, 'CRITICAL', 'malicious package', c.kind
         FROM sync_changes c
         JOIN sync_stack_entries s ON c.kind = 'malicious' AND c.scope = s.ecosystem || '/' || s.key
         JOIN sync_agents g ON g.agent_id = s.agent_id
        WHERE c.seq > ?1 AND c.kind = 'malicious'
        LIMIT ${MAX_PUSHES}`,
    )
      .bind(since)
      .all<{
        agent_id: string;
        owner_id: string;
        advisory_id: string;
        ecosystem: string;
        name: string;
        severity: string | null;
        summary: string | null;
        kind: string;
      }>()
  ).results;
  await Promise.allSettled(
    rows.map((r) =>
      pushToAgent(env, r.owner_id, r.agent_id, "warning", {
        type: "advisory",
        advisoryId: r.advisory_id,
        ecosystem: r.ecosystem,
        name: r.name,
        severity: r.severity,
        summary: r.summary && r.summary.length > 160 ? `${r.summary.slice(0, 160)}…` : r.summary,
        hint: "A package in your reported stack; call service_sync to see whether your version is affected.",
      }),
    ),
  );
  return rows.length;
}

/**
 * The scheduled ingest (and the operator's run of it), then the push of what it brought that is
 * urgent for a reported stack. The push lives here, above freshness, because only sync knows the
 * stacks; a failed push is logged and loses nothing (the next sync has it all).
 */
export async function ingestAndPush(env: Env, at: number, opts?: Parameters<typeof runIngest>[2]) {
  const since = await changeSeq(env);
  const report = await runIngest(env, at, opts);
  await pushUrgentAdvisories(env, since).catch((e) =>
    console.error(JSON.stringify({ level: "error", what: "advisory push", error: String(e) })),
  );
  return report;
}
