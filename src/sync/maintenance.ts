/**
 * Daily pruning of sync's own tables (called from the daily cron next to the shared maintenance):
 * the change log keeps 90 days (a cursor older than that gets a complete answer instead of a
 * delta; the newest row always stays, so positions never restart), read notifications 90 days,
 * activity 180 days.
 */
import { DAY_MS } from "../core/clock";
import type { Env } from "../env";

export const CHANGE_LOG_DAYS = 90;
export const NOTIFICATIONS_READ_DAYS = 90;
export const ACTIVITY_DAYS = 180;

export async function pruneSyncData(env: Env, at: number) {
  const [changes, notifications, activity] = await env.DB.batch([
    env.DB.prepare(`DELETE FROM sync_changes WHERE at < ?1 AND seq < (SELECT max(seq) FROM sync_changes)`).bind(
      at - CHANGE_LOG_DAYS * DAY_MS,
    ),
    env.DB.prepare(`DELETE FROM notifications WHERE read_at IS NOT NULL AND read_at < ?1`).bind(at - NOTIFICATIONS_READ_DAYS * DAY_MS),
    env.DB.prepare(`DELETE FROM agent_activity WHERE created_at < ?1`).bind(at - ACTIVITY_DAYS * DAY_MS),
  ]);
  const result = { changes: changes!.meta.changes, notifications: notifications!.meta.changes, activity: activity!.meta.changes };
  console.log(JSON.stringify({ level: "info", what: "sync-maintenance", ...result }));
  return result;
}
