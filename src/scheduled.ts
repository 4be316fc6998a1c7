import type { Env } from "./env";
import { runMaintenance } from "./maintenance";
import { now } from "./core/clock";
import { rescanOutdated } from "./skills";
import { rescanContent } from "./forum";
import { INGEST_CRON } from "./freshness";
import { ingestAndPush, pruneSyncData } from "./sync";
import { WARM_CRON, warmRegistryCache } from "./packages";
import { MCP_INGEST_CRON, runMcpIngest } from "./mcp-servers";

/** The Worker's cron triggers (wrangler.toml `[triggers]`), loaded by index.ts on an isolate's first scheduled event. */
export function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): void {
  // The MCP servers directory, daily in an invocation of its own (its own subrequest and CPU budget):
  // rescans after a rules change, the official registry's new and changed records, live tool lists.
  if (controller.cron === MCP_INGEST_CRON) {
    ctx.waitUntil(
      runMcpIngest(env, now()).catch((e) => console.error(JSON.stringify({ level: "error", what: "mcp-ingest", error: String(e) }))),
    );
    return;
  }
  if (controller.cron === INGEST_CRON) {
    ctx.waitUntil(ingestAndPush(env, now()));
    return;
  }
  // The package check's registry cache, warmed for the popular lists (src/packages/warm.ts).
  if (controller.cron === WARM_CRON) {
    ctx.waitUntil(warmRegistryCache(env, now()));
    return;
  }
  ctx.waitUntil(runMaintenance(env, now()));
  // Stored skill versions scanned under an older ruleset are scanned again (newly flagged ones leave the index).
  ctx.waitUntil(rescanOutdated(env));
  // Knowledge entries, questions and posts scanned under an older agent-text ruleset (or never) are scanned again.
  ctx.waitUntil(rescanContent(env));
  // Sync's change log (90 days), read notifications and old activity.
  ctx.waitUntil(pruneSyncData(env, now()));
}
