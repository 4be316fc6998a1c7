import type { Env } from "./env";
import { makeDb } from "./db/client";
import { pruneSessions } from "./auth";
import { pruneReadMentions } from "./chat";
import { pruneStripeEvents } from "./billing";
import { pruneRegistryCache } from "./packages";

/**
 * The daily job (cron in wrangler.toml): D1 rows that no longer serve anyone. The Durable Objects
 * trim their own storage as they write (AccountQuota history, ChatRoom messages).
 */
export async function runMaintenance(env: Env, at: number) {
  const db = makeDb(env.DB);
  const [expired, revoked, mentions, stripeEvents, registryRows] = await db.batch([
    ...pruneSessions(db, at),
    pruneReadMentions(db, at),
    pruneStripeEvents(db, at),
    pruneRegistryCache(db, at),
  ]);
  const result = {
    sessions: expired.meta.changes + revoked.meta.changes,
    mentions: mentions.meta.changes,
    stripeEvents: stripeEvents.meta.changes,
    registryCache: registryRows.meta.changes,
  };
  console.log(JSON.stringify({ level: "info", what: "maintenance", ...result }));
  return result;
}
