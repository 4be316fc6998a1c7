import { buildApp } from "./app";
import type { Env } from "./env";
import { runMaintenance } from "./maintenance";
import { now } from "./core/clock";
import { rescanOutdated } from "./skills/rescan";
import { INGEST_CRON, runIngest } from "./freshness/ingest";

export { AccountQuota } from "./quota/quota.do";
export { ChatRoom } from "./chat/chat.do";

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  scheduled: (controller, env, ctx) => {
    if (controller.cron === INGEST_CRON) {
      ctx.waitUntil(runIngest(env, now()));
      return;
    }
    ctx.waitUntil(runMaintenance(env, now()));
    // Stored skill versions scanned under an older ruleset are scanned again (newly flagged ones leave the index).
    ctx.waitUntil(rescanOutdated(env));
  },
} satisfies ExportedHandler<Env>;
