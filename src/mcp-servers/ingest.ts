/**
 * The directory's daily refresh (its own daily cron, MCP_INGEST_CRON, src/index.ts):
 *   1. servers scanned under an older ruleset are rescanned from their stored tools;
 *   2. the official registry's list API is paged: a full crawl of the latest versions the first
 *      time, then `updated_since` the start of the last complete crawl (deleted entries included,
 *      so removals are seen). Every page is upserted as it arrives and the cursor saved after it,
 *      so a page that fails stops the run without losing anything stored, and the next run resumes
 *      at that page; `updated_since` moves only when a crawl completes;
 *   3. tool lists are read from servers whose records say how: a Streamable HTTP remote that needs
 *      no credential and no URL variable (initialize + tools/list, never a tool call), a few per
 *      run, oldest first. Packages are never run. A changed list is a rug-pull finding (store.ts).
 */
import type { Env } from "../env";
import type { SqlRow } from "../core/columns";
import { mcpRegistryState } from "../db/mcp-servers";
import { sourceCtx } from "../sources/http";
import { MCP_REGISTRY, registryPage } from "../sources/mcp-registry";
import { fetchRemoteTools } from "../sources/mcp-remote";
import { parseRegistryEntry, toolList, type RemoteRecord, type ServerRecord } from "./records";
import { applyToolLists, rescanOutdated, upsertServers, type ToolUpdate } from "./store";
import { withCallBudget, type Judge } from "../scan/judge";
import { judgeFromEnv } from "../scan/workers-ai-judge";
import { insertColumns } from "../core/columns";

/** The directory's daily cron in wrangler.toml (src/index.ts dispatches on it). */
export const MCP_INGEST_CRON = "23 4 * * *";

const STATE_ID = "official";
const UPSERT_CHUNK = 40;
/** The largest tool list (JSON) stored for one server. */
const MAX_STORED_TOOLS = 1_000_000;
/** A server's live tool list is read again after this long. */
const TOOLS_REFRESH_MS = 7 * 24 * 3600 * 1000;

export interface McpIngestOptions {
  /** Registry base URL (staging, a mirror); default the official registry, or MCP_REGISTRY_URL. */
  base?: string;
  maxPages?: number;
  maxToolFetches?: number;
  fetcher?: typeof fetch;
  /** The second opinion for this run (default: the configured one, at most JUDGE_CALLS_PER_RUN calls). */
  judge?: Judge | null;
}

/** Judge calls one directory refresh may make; servers past it stay warn and are judged on the next run. */
const JUDGE_CALLS_PER_RUN = 100;

export interface McpIngestReport {
  rescan: { rescanned: number; changed: number };
  registry: {
    mode: "full" | "incremental";
    pages: number;
    servers: number;
    malformed: string[];
    inserted: number;
    updated: number;
    complete: boolean;
    error: string | null;
  };
  tools: { fetched: number; failed: { name: string; error: string }[]; changed: number };
}

type StateRow = SqlRow<typeof mcpRegistryState, "cursor" | "updatedSince" | "runStartedAt">;

async function saveState(
  db: D1Database,
  s: Partial<{
    cursor: string | null;
    updatedSince: string | null;
    runStartedAt: string | null;
    lastSuccessAt: string;
    lastError: string | null;
    seen: number;
  }>,
  at: number,
) {
  await db
    .prepare(
      `INSERT INTO ${insertColumns(mcpRegistryState, ["id", "cursor", "updatedSince", "runStartedAt", "lastSuccessAt", "lastError", "serversSeen", "updatedAt"])}
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, coalesce(?7, 0), ?8)
       ON CONFLICT (id) DO UPDATE SET cursor = ?2, updated_since = coalesce(?3, updated_since), run_started_at = ?4,
         last_success_at = coalesce(?5, last_success_at), last_error = ?6, servers_seen = servers_seen + coalesce(?7, 0), updated_at = ?8`,
    )
    .bind(
      STATE_ID,
      s.cursor ?? null,
      s.updatedSince ?? null,
      s.runStartedAt ?? null,
      s.lastSuccessAt ?? null,
      s.lastError ?? null,
      s.seen ?? null,
      at,
    )
    .run();
}

async function ingestRegistry(env: Env, at: number, opts: McpIngestOptions, report: McpIngestReport) {
  const db = env.DB;
  const base = opts.base ?? env.MCP_REGISTRY_URL ?? MCP_REGISTRY;
  const ctx = sourceCtx(env, 10_000);
  const state = await db
    .prepare("SELECT cursor, updated_since, run_started_at FROM mcp_registry_state WHERE id = ?")
    .bind(STATE_ID)
    .first<StateRow>();
  const incremental = !!state?.updated_since;
  report.registry.mode = incremental ? "incremental" : "full";
  let cursor = state?.cursor ?? null;
  // A new crawl starts now; a resumed one keeps its start, which becomes the next updated_since.
  const runStartedAt = cursor && state?.run_started_at ? state.run_started_at : new Date(at).toISOString();
  const query = incremental ? { updatedSince: state!.updated_since } : { latestOnly: true };
  for (let page = 0; page < (opts.maxPages ?? 20); page++) {
    let got: Awaited<ReturnType<typeof registryPage>>;
    try {
      got = await registryPage(ctx, { ...query, cursor, limit: 100 }, base);
    } catch (e) {
      // Nothing stored is touched; the saved cursor makes the next run start at this page.
      report.registry.error = String((e as Error).message ?? e);
      await saveState(db, { cursor, runStartedAt, lastError: report.registry.error }, at);
      return;
    }
    report.registry.pages++;
    const records: ServerRecord[] = [];
    for (const entry of got.servers) {
      const r = parseRegistryEntry(entry);
      if (r.ok) records.push(r.record);
      else report.registry.malformed.push(r.reason);
    }
    try {
      for (let i = 0; i < records.length; i += UPSERT_CHUNK) {
        const u = await upsertServers(env, records.slice(i, i + UPSERT_CHUNK), { at, reason: "registry", judge: opts.judge });
        report.registry.inserted += u.inserted;
        report.registry.updated += u.updated;
      }
    } catch (e) {
      // Each chunk is one atomic batch: what was written stays, and this page is read again next time.
      report.registry.error = `storing page ${page + 1}: ${String((e as Error).message ?? e)}`;
      await saveState(db, { cursor, runStartedAt, lastError: report.registry.error }, at);
      return;
    }
    report.registry.servers += records.length;
    cursor = got.nextCursor;
    if (!cursor) {
      report.registry.complete = true;
      await saveState(
        db,
        {
          cursor: null,
          updatedSince: runStartedAt,
          runStartedAt: null,
          lastSuccessAt: new Date(at).toISOString(),
          lastError: null,
          seen: records.length,
        },
        at,
      );
      return;
    }
    await saveState(db, { cursor, runStartedAt, lastError: null, seen: records.length }, at);
  }
}

interface Candidate {
  id: string;
  name: string;
  remotes: string;
}

/** The remote Lore may read tools from without credentials: Streamable HTTP, no URL variables, no required header. */
export function readableRemote(remotes: RemoteRecord[]): RemoteRecord | null {
  return (
    remotes.find(
      (r) =>
        r.type === "streamable-http" &&
        r.url.startsWith("https://") &&
        !/[{}]/.test(r.url) &&
        !(r.headers ?? []).some((h) => h.isRequired === true || (h.isRequired === undefined && h.isSecret === true)),
    ) ?? null
  );
}

async function ingestTools(env: Env, at: number, opts: McpIngestOptions, report: McpIngestReport) {
  const max = opts.maxToolFetches ?? 20;
  if (max <= 0) return;
  const rows = await env.DB.prepare(
    `SELECT id, name, remotes FROM mcp_servers
      WHERE has_http = 1 AND registry_status <> 'deleted' AND (tools_fetched_at IS NULL OR tools_fetched_at < ?1)
      ORDER BY tools_fetched_at IS NOT NULL, tools_fetched_at, name LIMIT ?2`,
  )
    .bind(at - TOOLS_REFRESH_MS, max * 3)
    .all<Candidate>();
  const ctx = sourceCtx(env, 8_000);
  const updates = new Map<string, ToolUpdate>();
  const failed: string[] = [];
  for (const row of rows.results) {
    if (updates.size + failed.length >= max) break;
    const remote = readableRemote(JSON.parse(row.remotes) as RemoteRecord[]);
    if (!remote) continue;
    try {
      const got = await fetchRemoteTools(remote.url, ctx, opts.fetcher);
      const tools = toolList(got.tools) ?? [];
      // A D1 row holds at most 2 MB: a list that would not fit is refused, not truncated.
      if (JSON.stringify(tools).length + (got.instructions?.length ?? 0) > MAX_STORED_TOOLS)
        throw new Error(`the tool list is larger than ${MAX_STORED_TOOLS} characters`);
      updates.set(row.id, {
        tools,
        instructions: got.instructions?.slice(0, 65_536),
        complete: true,
        origin: "live",
        source: `tools/list of ${remote.url} (read ${new Date(at).toISOString().slice(0, 10)})`,
        note: null,
      });
    } catch (e) {
      failed.push(row.id);
      report.tools.failed.push({ name: row.name, error: String((e as Error).message ?? e) });
    }
  }
  report.tools.fetched = updates.size;
  if (updates.size || failed.length) {
    try {
      report.tools.changed = (await applyToolLists(env, updates, failed, at, opts.judge)).changedTools;
    } catch (e) {
      report.tools.failed.push({ name: "(storing tool lists)", error: String((e as Error).message ?? e) });
    }
  }
}

export async function runMcpIngest(env: Env, at: number, options: McpIngestOptions = {}): Promise<McpIngestReport> {
  const opts = { ...options, judge: options.judge === undefined ? withCallBudget(judgeFromEnv(env), JUDGE_CALLS_PER_RUN) : options.judge };
  const report: McpIngestReport = {
    rescan: { rescanned: 0, changed: 0 },
    registry: { mode: "full", pages: 0, servers: 0, malformed: [], inserted: 0, updated: 0, complete: false, error: null },
    tools: { fetched: 0, failed: [], changed: 0 },
  };
  report.rescan = await rescanOutdated(env, at, undefined, opts.judge);
  await ingestRegistry(env, at, opts, report);
  await ingestTools(env, at, opts, report);
  console.log(
    JSON.stringify({
      level: report.registry.error ? "warn" : "info",
      what: "mcp-ingest",
      rescanned: report.rescan.rescanned,
      mode: report.registry.mode,
      pages: report.registry.pages,
      servers: report.registry.servers,
      malformed: report.registry.malformed.length,
      complete: report.registry.complete,
      registryError: report.registry.error,
      toolsFetched: report.tools.fetched,
      toolsFailed: report.tools.failed.length,
      toolsChanged: report.tools.changed,
    }),
  );
  return report;
}
