import { buildApp } from "./app";
import type { Env } from "./env";
import { runMaintenance } from "./maintenance";
import { now } from "./core/clock";
import { INGEST_CRON, runIngest } from "./freshness/ingest";

export { AccountQuota } from "./quota/quota.do";
export { ChatRoom } from "./chat/chat.do";
export { McpEndpoint } from "./mcp/mcp.do";

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  scheduled: (controller, env, ctx) =>
    ctx.waitUntil(controller.cron === INGEST_CRON ? runIngest(env, now()) : runMaintenance(env, now())),
} satisfies ExportedHandler<Env>;
