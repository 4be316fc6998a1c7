/**
 * Stage 8 of a sync: what it leaves behind, in one D1 batch: the agent's sync state (topics sent,
 * the last full refresh and its change-log position), the stack and skills when they changed, the
 * owner's notifications, and the activity line.
 */
import { LruCache } from "../../core/cache";
import { insertColumns } from "../../core/columns";
import { newId } from "../../core/crypto";
import type { AgentPrincipal } from "../../core/principal";
import { syncAgents, syncInstalledSkills, syncStackEntries } from "../../db/sync";
import { activityStatement } from "../activity.service";
import { insertNotificationsStatement, type NotificationRow } from "../notifications.service";
import type { SyncInput } from "../sync.schemas";
import type { SyncMode } from "./choose-mode";
import { type ResolvedStack, skillFirstSeen } from "./resolve-stack";

/**
 * Whether this sync's write is bookkeeping only: the sync count, the times of the last sync and
 * report, the activity line and notifications (read on the owner's side, from the primary). Then
 * no later sync reads anything it changed, so it need not be read back from a replica that has it:
 * it is written outside the request's D1 session, and the account's object keeps no bookmark for it
 * (a Durable Object call and a storage write on every up_to_date sync). A full refresh moves the
 * last full refresh and its change-log position (the next sync's mode and urgent items), a new
 * stack or skill list is what the next sync answers for: those are the session's writes.
 *
 * The answer's cursor is a change-log position (`cut`) the next sync must find: a replica behind it
 * would refuse the cursor as one ahead of the log. The last full refresh's position is covered by a
 * bookmark the account already keeps (that sync wrote through the session after reading it), so
 * only an answer that stands no further than it may skip its own.
 */
export const bookkeepingOnly = (
  stack: Pick<ResolvedStack, "stackChanged" | "skillsChanged" | "known" | "newTopics" | "lastFullSeq">,
  full: boolean,
  cut: number,
) =>
  !full &&
  stack.known &&
  !stack.stackChanged &&
  !stack.skillsChanged &&
  !stack.newTopics.length &&
  stack.lastFullSeq !== null &&
  cut <= stack.lastFullSeq;

/**
 * Notifications this isolate has written, by owner and `dedup`, with the ingest generation they
 * were written at. A full sync notifies every advisory it finds (most of them found by the syncs
 * before it too) with an INSERT OR IGNORE, one notification per fact per account: rows this
 * isolate wrote at the same generation exist, and writing them again (their JSON bound, parsed and
 * probed against the unique index, in the sync's one write batch) changes nothing. Keyed by owner
 * and fact, so an account's rows never stand for another's; another generation (an ingest, storage
 * restored to another state) writes them again, as does an hour later: only a notification pruned
 * (read 90 days ago) within that hour is written again that much later than before.
 */
const notified = new LruCache<string, string>({ maxEntries: 20_000, ttlMs: 60 * 60 * 1000 });
const generationKey = (g: ResolvedStack["generation"]) => `${g.seq}:${g.at}`;

/** Topics an agent's state remembers as sent (the newest first). */
const TOPICS_REMEMBERED = 2000;

export async function saveSync(
  session: D1Database,
  bookkeeping: D1Database,
  caller: AgentPrincipal,
  via: string,
  input: Pick<SyncInput, "stack" | "installedSkills">,
  stack: ResolvedStack,
  mode: Pick<SyncMode, "full" | "delta" | "reason">,
  cut: number,
  notify: NotificationRow[],
  at: number,
): Promise<void> {
  const { full, delta, reason } = mode;
  const { entries, installed } = stack;
  const db = bookkeepingOnly(stack, full, cut) ? bookkeeping : session;
  const remembered = [...stack.newTopics, ...stack.rememberedTopics].slice(0, TOPICS_REMEMBERED);
  const writes: D1PreparedStatement[] = [
    db
      .prepare(
        `INSERT INTO ${insertColumns(syncAgents, ["agentId", "ownerId", "topics", "stackReportedAt", "skillsReportedAt", "lastSyncAt", "lastFullAt", "lastFullSeq", "syncs", "fullSyncs"])}
         VALUES (?1, ?2, coalesce(?3, '[]'), ?4, ?5, ?6, ?7, ?8, 1, ?9)
         ON CONFLICT (agent_id) DO UPDATE SET topics = coalesce(?3, sync_agents.topics),
           stack_reported_at = coalesce(excluded.stack_reported_at, sync_agents.stack_reported_at),
           skills_reported_at = coalesce(excluded.skills_reported_at, sync_agents.skills_reported_at),
           last_sync_at = excluded.last_sync_at,
           last_full_at = coalesce(excluded.last_full_at, sync_agents.last_full_at),
           last_full_seq = coalesce(excluded.last_full_seq, sync_agents.last_full_seq),
           syncs = sync_agents.syncs + 1, full_syncs = sync_agents.full_syncs + excluded.full_syncs`,
      )
      .bind(
        caller.agentId,
        caller.ownerId,
        // No topic new to the agent: the list it has is the one stored, not written again.
        stack.known && !stack.newTopics.length ? null : JSON.stringify(remembered),
        input.stack ? at : null,
        input.installedSkills ? at : null,
        at,
        full ? at : null,
        full ? cut : null,
        full ? 1 : 0,
      ),
  ];
  if (stack.stackChanged) {
    writes.push(db.prepare(`DELETE FROM sync_stack_entries WHERE agent_id = ?`).bind(caller.agentId));
    if (entries.length) {
      writes.push(
        db
          .prepare(
            `INSERT INTO ${insertColumns(syncStackEntries, ["agentId", "ecosystem", "key", "version", "name", "topic", "pinned", "known", "position", "firstSeenAt"])}
             SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),
                    json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), key, json_extract(value, '$[7]')
               FROM json_each(?2)`,
          )
          .bind(
            caller.agentId,
            JSON.stringify(entries.map((e) => [e.ecosystem, e.key, e.version, e.name, e.topic, e.pinned, e.known ? 1 : 0, e.firstSeenAt])),
          ),
      );
    }
  }
  if (stack.skillsChanged) {
    writes.push(db.prepare(`DELETE FROM sync_installed_skills WHERE agent_id = ?`).bind(caller.agentId));
    if (installed.length) {
      writes.push(
        db
          .prepare(
            `INSERT INTO ${insertColumns(syncInstalledSkills, ["agentId", "name", "position", "firstSeenAt"])} SELECT ?1, json_extract(value, '$[0]'), key, json_extract(value, '$[1]') FROM json_each(?2)`,
          )
          .bind(caller.agentId, JSON.stringify(installed.map((n) => [n, skillFirstSeen(stack, n, at)]))),
      );
    }
  }
  const gen = generationKey(stack.generation);
  const unwritten = notify.filter((r) => notified.get(`${r.ownerId}\u0000${r.dedup}`) !== gen);
  if (unwritten.length) writes.push(insertNotificationsStatement(db, unwritten));
  writes.push(
    activityStatement(db, caller, {
      id: newId("act_"),
      kind: "SYNC",
      summary: `Synced ${entries.length} dependencies (${full ? `full refresh: ${reason!.replace("_", " ")}` : "up to date"}${delta ? ", changes since the last cursor" : ""})`,
      targetType: null,
      targetId: null,
      url: null,
      via,
      createdAt: at,
    }),
  );
  await db.batch(writes);
  for (const r of unwritten) notified.set(`${r.ownerId}\u0000${r.dedup}`, gen);
}
