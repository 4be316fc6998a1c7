/**
 * The one write path of the directory: seed records, registry records and tool lists read from a
 * server all go through `upsertServers`. Per record it keeps the latest version's fields (an
 * older registry version only adds a row to `mcp_server_versions`), decides which tool list is
 * current (the record's own, else the one already stored), scans it when it or the ruleset
 * changed, compares it with the list reviewed before (rug pulls, scanner/rugpull.ts) and derives
 * the status from the content, the changes and the review's completeness. Everything for a chunk
 * of records is written in one D1 batch (atomic), after one read of what is stored.
 */
import type { Env } from "../env";
import { sha256Hex } from "../core/crypto";
import { columnsOf, type SqlRow, insertColumns } from "../core/columns";
import { mcpServers, mcpServerVersions, mcpScans } from "../db/mcp-servers";
import { bulkStatements, jsonCols } from "../core/bulk";
import { statusOf, type ScanStatus } from "../scan/types";
import { MCP_RULESET } from "./scanner/ruleset";
import { scanMcpToolsRemote } from "./scanner/remote";
import { seriousRulesByTool, toolChanges } from "./scanner/rugpull";
import { toolsHash } from "./scanner/hash";
import type { McpFinding, McpToolInput } from "./scanner/types";
import { baseSlug, transportsOf, type PackageRecord, type ServerRecord } from "./records";
import { runtimeFindings } from "./runtime";
import { judgeMcpScan } from "./second-opinion";
import { decidedVersion, withCallBudget, type Judge, type ScanLayer } from "../scan/judge";
import { judgeFromEnv } from "../scan/workers-ai-judge";

/** What an upsert compares a fetched record with (`readStored`). */
const STORED_KEYS = [
  "id",
  "slug",
  "name",
  "version",
  "source",
  "instructions",
  "tools",
  "packages",
  "toolsKnown",
  "toolsComplete",
  "toolsSource",
  "toolsOrigin",
  "toolsNote",
  "toolsHash",
  "toolsVersion",
  "toolsFetchedAt",
  "securityStatus",
  "securityFindings",
  "changeFindings",
  "rulesetVersion",
  "scanLayers",
  "reviewNote",
  "reviewedAt",
  "scannedAt",
  "statusChangedAt",
] as const;
export type StoredRow = SqlRow<typeof mcpServers, (typeof STORED_KEYS)[number]>;

export interface UpsertReport {
  inserted: number;
  updated: number;
  unchanged: number;
  versions: number;
  scanned: number;
  changedTools: number;
}

export type ToolOrigin = "review" | "live" | "publisher";

export interface ToolUpdate {
  tools: McpToolInput[];
  instructions?: string;
  complete: boolean | null;
  /** Where the list came from, in words (shown with the record). */
  source: string;
  /**
   * What kind of source: a change between two lists of the same kind is a change of the server;
   * moving from Lore's reading of the source to the server's own tools/list is not (no rug-pull finding).
   */
  origin: ToolOrigin;
  note?: string | null;
}

export const serverId = async (name: string) => `mcp_${(await sha256Hex(name)).slice(0, 24)}`;

const RANK = ["info", "low", "medium", "high", "critical"];

/**
 * Findings about the review itself: no tool list at all (unreviewed: warn), only a subset (shown),
 * and what of the packages' run instructions the configuration leaves out (runtime.ts).
 */
export function reviewFindings(
  known: boolean,
  complete: boolean | null,
  count: number,
  note: string | null,
  packages: readonly PackageRecord[] = [],
): McpFinding[] {
  return [...toolReviewFindings(known, complete, count, note), ...runtimeFindings(packages)];
}

function toolReviewFindings(known: boolean, complete: boolean | null, count: number, note: string | null): McpFinding[] {
  if (!known) {
    return [
      {
        ruleId: "review.tools-unread",
        severity: "medium",
        tool: null,
        field: "tools",
        excerpt: "",
        message: "No tool list has been read for this server: its tool descriptions are unreviewed, so it cannot be listed as passed",
      },
    ];
  }
  if (complete === false) {
    return [
      {
        ruleId: "review.tools-partial",
        severity: "low",
        tool: null,
        field: "tools",
        excerpt: "",
        message: `Lore read ${count} of this server's tools, not all of them${note ? ` (${note})` : ""}; the others were not scanned`,
      },
    ];
  }
  return [];
}

export function sortMcpFindings(list: McpFinding[]): McpFinding[] {
  return list.sort(
    (a, b) =>
      RANK.indexOf(b.severity) - RANK.indexOf(a.severity) ||
      (a.tool ?? "").localeCompare(b.tool ?? "") ||
      a.field.localeCompare(b.field) ||
      (a.line ?? 0) - (b.line ?? 0),
  );
}

/** The stored rows of these servers and the slugs already taken, in one round trip. */
async function readStored(db: D1Database, ids: string[], slugs: string[]) {
  const [rows, taken] = await db.batch([
    db
      .prepare(
        `SELECT ${columnsOf(mcpServers, "", STORED_KEYS)}
         FROM mcp_servers WHERE id IN (SELECT value FROM json_each(?1))`,
      )
      .bind(JSON.stringify(ids)),
    db.prepare(`SELECT slug, id FROM mcp_servers WHERE slug IN (SELECT value FROM json_each(?1))`).bind(JSON.stringify(slugs)),
  ]);
  return {
    byId: new Map((rows!.results as StoredRow[]).map((r) => [r.id, r])),
    slugOwner: new Map((taken!.results as { slug: string; id: string }[]).map((r) => [r.slug, r.id])),
  };
}

const UPSERT_SERVER = `INSERT INTO ${insertColumns(mcpServers, ["id", "slug", "name", "title", "description", "version", "websiteUrl", "repository", "remotes", "packages", "hasStdio", "hasHttp", "hasSse", "registryStatus", "registryStatusMessage", "publishedAt", "registryUpdatedAt", "source", "license", "instructions", "tools", "toolNames", "toolCount", "toolsKnown", "toolsComplete", "toolsSource", "toolsOrigin", "toolsNote", "toolsHash", "toolsVersion", "toolsFetchedAt", "securityStatus", "securityFindings", "changeFindings", "rulesetVersion", "scannedAt", "statusChangedAt", "reviewNote", "reviewedAt", "scanLayers", "createdAt", "updatedAt"])}
  SELECT ${jsonCols(40)}, ?2, ?2 FROM json_each(?1) WHERE true
  ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, name = excluded.name, title = excluded.title, description = excluded.description,
    version = excluded.version, website_url = excluded.website_url, repository = excluded.repository, remotes = excluded.remotes,
    packages = excluded.packages, has_stdio = excluded.has_stdio, has_http = excluded.has_http, has_sse = excluded.has_sse,
    registry_status = excluded.registry_status, registry_status_message = excluded.registry_status_message,
    published_at = excluded.published_at, registry_updated_at = excluded.registry_updated_at, source = excluded.source,
    license = coalesce(excluded.license, mcp_servers.license), instructions = excluded.instructions, tools = excluded.tools,
    tool_names = excluded.tool_names, tool_count = excluded.tool_count, tools_known = excluded.tools_known,
    tools_complete = excluded.tools_complete, tools_source = excluded.tools_source, tools_origin = excluded.tools_origin, tools_note = excluded.tools_note,
    tools_hash = excluded.tools_hash, tools_version = excluded.tools_version, tools_fetched_at = excluded.tools_fetched_at,
    security_status = excluded.security_status, security_findings = excluded.security_findings,
    change_findings = excluded.change_findings, ruleset_version = excluded.ruleset_version, scanned_at = excluded.scanned_at,
    status_changed_at = excluded.status_changed_at, review_note = coalesce(excluded.review_note, mcp_servers.review_note),
    reviewed_at = coalesce(excluded.reviewed_at, mcp_servers.reviewed_at), scan_layers = excluded.scan_layers, updated_at = excluded.updated_at`;

const UPSERT_VERSION = `INSERT INTO ${insertColumns(mcpServerVersions, ["serverId", "version", "serverJson", "status", "statusMessage", "publishedAt", "updatedAt", "isLatest", "source", "fetchedAt"])}
  SELECT ${jsonCols(9)}, ?2 FROM json_each(?1) WHERE true
  ON CONFLICT (server_id, version) DO UPDATE SET server_json = excluded.server_json, status = excluded.status,
    status_message = excluded.status_message, published_at = coalesce(excluded.published_at, mcp_server_versions.published_at),
    updated_at = excluded.updated_at, is_latest = excluded.is_latest, source = excluded.source, fetched_at = excluded.fetched_at
  WHERE mcp_server_versions.server_json IS NOT excluded.server_json OR mcp_server_versions.status IS NOT excluded.status
     OR mcp_server_versions.is_latest IS NOT excluded.is_latest OR mcp_server_versions.updated_at IS NOT excluded.updated_at`;

const INSERT_SCAN = `INSERT INTO ${insertColumns(mcpScans, ["serverId", "seq", "scannedAt", "version", "toolsHash", "rulesetVersion", "status", "findingsCount", "changes", "reason"])}
  SELECT json_extract(value, '$[0]'), coalesce((SELECT max(seq) FROM mcp_scans s WHERE s.server_id = json_extract(value, '$[0]')), 0) + 1, ?2,
         json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), json_extract(value, '$[4]'),
         json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]')
    FROM json_each(?1) WHERE true`;

const PRUNE_SCANS = `DELETE FROM mcp_scans WHERE server_id IN (SELECT value FROM json_each(?1))
  AND seq <= (SELECT max(seq) FROM mcp_scans s WHERE s.server_id = mcp_scans.server_id) - ?2`;

/** Scans kept per server: enough history to see every recent change. */
const KEEP_SCANS = 20;

/** Content findings of a tool list (scanner) as stored: everything but the review and change findings. */
function contentOf(stored: StoredRow | undefined): McpFinding[] {
  if (!stored) return [];
  return (JSON.parse(stored.security_findings) as McpFinding[]).filter(
    (f) => !f.ruleId.startsWith("review.") && !f.ruleId.startsWith("rugpull."),
  );
}

interface Evaluation {
  tools: McpToolInput[];
  instructions: string | null;
  known: boolean;
  complete: boolean | null;
  toolsSource: string | null;
  toolsOrigin: string | null;
  toolsNote: string | null;
  hash: string | null;
  toolsVersion: string | null;
  findings: McpFinding[];
  changes: McpFinding[];
  status: ScanStatus;
  statusChangedAt: number;
  scannedAt: number;
  rescanned: boolean;
  toolsChanged: boolean;
  /** The version to store: the rules', marked decided or owed by the judge when one is configured. */
  rulesetVersion: string;
  layers: ScanLayer[];
}

/**
 * The tool list that is current for a server (a fresh one, else the stored one), its scan (reused
 * when neither the tools nor the ruleset changed), the rug-pull diff against the list reviewed
 * before, and the status from all of it.
 */
async function evaluate(
  env: Pick<Env, "SCANNER">,
  stored: StoredRow | undefined,
  fresh: ToolUpdate | null,
  version: string,
  packages: readonly PackageRecord[],
  at: number,
  judge: Judge | null,
): Promise<Evaluation> {
  const storedTools = stored ? (JSON.parse(stored.tools) as McpToolInput[]) : null;
  const known = fresh !== null || stored?.tools_known === 1;
  const tools = fresh?.tools ?? storedTools ?? [];
  const instructions = fresh ? (fresh.instructions ?? null) : (stored?.instructions ?? null);
  const complete = fresh ? fresh.complete : stored && stored.tools_complete !== null ? stored.tools_complete === 1 : null;
  const toolsNote = fresh ? (fresh.note ?? null) : (stored?.tools_note ?? null);
  const hash = known ? await toolsHash({ instructions: instructions ?? undefined, tools }) : null;
  const rescanned = !stored || stored.tools_hash !== hash || stored.ruleset_version !== decidedVersion(MCP_RULESET.version, judge);
  const toolsChanged = !!(
    stored &&
    stored.tools_known === 1 &&
    fresh &&
    stored.tools_hash !== hash &&
    (stored.tools_origin ?? "review") === fresh.origin
  );
  let content = contentOf(stored);
  let changes = stored ? (JSON.parse(stored.change_findings) as McpFinding[]) : [];
  let rulesetVersion = stored?.ruleset_version ?? MCP_RULESET.version;
  let layers = stored ? (JSON.parse(stored.scan_layers) as ScanLayer[]) : [];
  if (rescanned) {
    const judged = await judgeMcpScan(
      judge,
      known ? await scanMcpToolsRemote(env, { instructions: instructions ?? undefined, tools }) : null,
      { instructions: instructions ?? undefined, tools },
    );
    content = judged.findings;
    rulesetVersion = judged.rulesetVersion;
    layers = judged.layers;
    if (toolsChanged) {
      changes = toolChanges(storedTools ?? [], tools, {
        previousVersion: stored!.tools_version,
        version,
        oldRules: seriousRulesByTool(contentOf(stored)),
        newRules: seriousRulesByTool(content),
      });
      if ((stored!.instructions ?? "") !== (instructions ?? "")) {
        changes.push({
          ruleId: "rugpull.instructions-changed",
          severity: stored!.tools_version === version ? "medium" : "low",
          tool: null,
          field: "instructions",
          excerpt: (instructions ?? "").slice(0, 200),
          message: "The server's initialize instructions changed since the last review",
        });
      }
    }
  }
  const findings = sortMcpFindings([...content, ...reviewFindings(known, complete, tools.length, toolsNote, packages)]);
  const status: ScanStatus = statusOf([...findings, ...changes]);
  return {
    tools,
    instructions,
    known,
    complete,
    toolsSource: fresh ? fresh.source : (stored?.tools_source ?? null),
    toolsOrigin: fresh ? fresh.origin : (stored?.tools_origin ?? null),
    toolsNote,
    hash,
    toolsVersion: fresh ? version : (stored?.tools_version ?? null),
    findings,
    changes,
    status,
    statusChangedAt: stored && stored.security_status === status ? stored.status_changed_at : at,
    scannedAt: rescanned || !stored ? at : stored.scanned_at,
    rescanned,
    toolsChanged,
    rulesetVersion,
    layers,
  };
}

export interface UpsertOptions {
  at: number;
  reason: "seed" | "registry";
  /** The second opinion to use (default: the configured one, judgeFromEnv); a job passes one with a call budget. */
  judge?: Judge | null;
}

/**
 * Upserts records from the seed or the registry (keep a call to ~40 records so the batch stays
 * small). A record's own tool list (seed, or the publisher's list in the registry record) counts
 * as fresh; a record without one keeps the tools already stored.
 */
export async function upsertServers(env: Env, records: readonly ServerRecord[], opts: UpsertOptions): Promise<UpsertReport> {
  const db = env.DB;
  const report: UpsertReport = { inserted: 0, updated: 0, unchanged: 0, versions: 0, scanned: 0, changedTools: 0 };
  const judge = opts.judge === undefined ? judgeFromEnv(env) : opts.judge;
  if (records.length === 0) return report;
  // The last record of a name in the list wins for its version; one row per name and version.
  const ids = await Promise.all(records.map((r) => serverId(r.name)));
  const { byId, slugOwner } = await readStored(db, [...new Set(ids)], [...new Set(records.map((r) => baseSlug(r.name)))]);
  const serverRows = new Map<string, unknown[]>();
  const versionRows = new Map<string, unknown[]>();
  const scanRows = new Map<string, unknown[]>();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const id = ids[i]!;
    const stored = byId.get(id);
    const latest = r.registry ? r.registry.isLatest : true;
    versionRows.set(`${id}\u0000${r.version}`, [
      id,
      r.version,
      JSON.stringify(r.serverJson),
      r.registry?.status ?? "active",
      r.registry?.statusMessage ?? null,
      r.registry?.publishedAt ?? null,
      r.registry?.updatedAt ?? null,
      latest ? 1 : 0,
      r.source,
    ]);
    // An older version only adds its version row; a seed reload never replaces what the registry said.
    if (stored && (!latest || (r.source === "seed" && stored.source === "registry"))) {
      report.unchanged++;
      continue;
    }
    const fresh: ToolUpdate | null = r.tools
      ? {
          tools: r.tools,
          instructions: r.instructions,
          complete: r.toolsComplete ?? null,
          source: r.toolsSource ?? `the ${r.source} record`,
          origin: r.source === "seed" ? "review" : "publisher",
          note: r.toolsNote ?? null,
        }
      : null;
    const e = await evaluate(env, stored, fresh, r.version, r.packages, opts.at, judge);
    const t = transportsOf(r);
    let slug = stored?.slug ?? baseSlug(r.name);
    if (!stored && slugOwner.has(slug) && slugOwner.get(slug) !== id) slug = `${slug}-${id.slice(4, 10)}`;
    slugOwner.set(slug, id);
    serverRows.set(id, [
      id,
      slug,
      r.name,
      r.title,
      r.description,
      r.version,
      r.websiteUrl,
      r.repository ? JSON.stringify(r.repository) : null,
      JSON.stringify(r.remotes),
      JSON.stringify(r.packages),
      t.stdio ? 1 : 0,
      t.http ? 1 : 0,
      t.sse ? 1 : 0,
      r.registry?.status ?? "active",
      r.registry?.statusMessage ?? null,
      r.registry?.publishedAt ?? null,
      r.registry?.updatedAt ?? null,
      r.source,
      r.license,
      e.instructions,
      JSON.stringify(e.tools),
      e.tools.map((x) => x.name).join(" "),
      e.tools.length,
      e.known ? 1 : 0,
      e.complete === null ? null : e.complete ? 1 : 0,
      e.toolsSource,
      e.toolsOrigin,
      e.toolsNote,
      e.hash,
      e.toolsVersion,
      stored?.tools_fetched_at ?? null,
      e.status,
      JSON.stringify(e.findings),
      JSON.stringify(e.changes),
      e.rulesetVersion,
      e.scannedAt,
      e.statusChangedAt,
      r.review?.note ?? null,
      r.review?.reviewedAt || null,
      JSON.stringify(e.layers),
    ]);
    if (e.rescanned) {
      scanRows.set(id, [
        id,
        r.version,
        e.hash,
        e.rulesetVersion,
        e.status,
        e.findings.length + e.changes.length,
        JSON.stringify(e.changes),
        opts.reason,
      ]);
      report.scanned++;
    }
    if (e.toolsChanged) report.changedTools++;
    if (stored) report.updated++;
    else report.inserted++;
  }
  report.versions = versionRows.size;
  const stmts: D1PreparedStatement[] = [
    ...bulkStatements(db, UPSERT_SERVER, [...serverRows.values()], [opts.at]),
    ...bulkStatements(db, UPSERT_VERSION, [...versionRows.values()], [opts.at]),
  ];
  if (scanRows.size) {
    stmts.push(...bulkStatements(db, INSERT_SCAN, [...scanRows.values()], [opts.at]));
    stmts.push(db.prepare(PRUNE_SCANS).bind(JSON.stringify([...scanRows.keys()]), KEEP_SCANS));
  }
  await db.batch(stmts);
  return report;
}

/**
 * Tool lists read from the servers themselves (the ingest's tools step): each replaces the stored
 * list, is scanned, and is compared with the list reviewed before. `failed` ids only record the
 * attempt, so a server that does not answer is not asked again every day.
 */
export async function applyToolLists(
  env: Env,
  updates: ReadonlyMap<string, ToolUpdate>,
  failed: readonly string[],
  at: number,
  judge: Judge | null = judgeFromEnv(env),
): Promise<{ scanned: number; changedTools: number }> {
  const db = env.DB;
  const ids = [...updates.keys()];
  const { byId } = await readStored(db, ids, []);
  const stmts: D1PreparedStatement[] = [];
  const scanRows: unknown[][] = [];
  let changedTools = 0;
  for (const [id, update] of updates) {
    const stored = byId.get(id);
    if (!stored) continue;
    const e = await evaluate(env, stored, update, stored.version, JSON.parse(stored.packages) as PackageRecord[], at, judge);
    if (e.toolsChanged) changedTools++;
    stmts.push(
      db
        .prepare(
          `UPDATE mcp_servers SET instructions = ?2, tools = ?3, tool_names = ?4, tool_count = ?5, tools_known = 1, tools_complete = ?6,
             tools_source = ?7, tools_note = ?8, tools_hash = ?9, tools_version = ?10, tools_fetched_at = ?11, security_status = ?12,
             security_findings = ?13, change_findings = ?14, ruleset_version = ?15, scanned_at = ?16, status_changed_at = ?17, updated_at = ?11,
             tools_origin = ?18, scan_layers = ?19
           WHERE id = ?1`,
        )
        .bind(
          id,
          e.instructions,
          JSON.stringify(e.tools),
          e.tools.map((x) => x.name).join(" "),
          e.tools.length,
          e.complete === null ? null : e.complete ? 1 : 0,
          e.toolsSource,
          e.toolsNote,
          e.hash,
          e.toolsVersion,
          at,
          e.status,
          JSON.stringify(e.findings),
          JSON.stringify(e.changes),
          e.rulesetVersion,
          e.scannedAt,
          e.statusChangedAt,
          e.toolsOrigin,
          JSON.stringify(e.layers),
        ),
    );
    if (e.rescanned)
      scanRows.push([
        id,
        stored.version,
        e.hash,
        e.rulesetVersion,
        e.status,
        e.findings.length + e.changes.length,
        JSON.stringify(e.changes),
        "tools",
      ]);
  }
  if (failed.length)
    stmts.push(
      db
        .prepare(`UPDATE mcp_servers SET tools_fetched_at = ?2 WHERE id IN (SELECT value FROM json_each(?1))`)
        .bind(JSON.stringify(failed), at),
    );
  if (scanRows.length) {
    stmts.push(...bulkStatements(db, INSERT_SCAN, scanRows, [at]));
    stmts.push(db.prepare(PRUNE_SCANS).bind(JSON.stringify(scanRows.map((r) => r[0])), KEEP_SCANS));
  }
  if (stmts.length) await db.batch(stmts);
  return { scanned: scanRows.length, changedTools };
}

/**
 * Rescans servers scanned under another ruleset version (the daily job, after a deploy changed
 * the rules): from the stored tools, keeping the stored change findings. Returns how many.
 */
export async function rescanOutdated(
  env: Env,
  at: number,
  limit = 200,
  judge: Judge | null = withCallBudget(judgeFromEnv(env), 50),
): Promise<{ rescanned: number; changed: number }> {
  const rows = await env.DB.prepare(
    `SELECT id, version, instructions, tools, packages, tools_known, tools_complete, tools_note, tools_hash, security_status, change_findings, status_changed_at
       FROM mcp_servers WHERE ruleset_version <> ? LIMIT ?`,
  )
    .bind(decidedVersion(MCP_RULESET.version, judge), limit)
    .all<{
      id: string;
      version: string;
      instructions: string | null;
      tools: string;
      packages: string;
      tools_known: number;
      tools_complete: number | null;
      tools_note: string | null;
      tools_hash: string | null;
      security_status: string;
      change_findings: string;
      status_changed_at: number;
    }>();
  let changed = 0;
  const stmts: D1PreparedStatement[] = [];
  for (const r of rows.results) {
    const tools = JSON.parse(r.tools) as McpToolInput[];
    const known = r.tools_known === 1;
    const judged = await judgeMcpScan(
      judge,
      known ? await scanMcpToolsRemote(env, { instructions: r.instructions ?? undefined, tools }) : null,
      { instructions: r.instructions ?? undefined, tools },
    );
    const content = judged.findings;
    const all = sortMcpFindings([
      ...content,
      ...reviewFindings(
        known,
        r.tools_complete === null ? null : r.tools_complete === 1,
        tools.length,
        r.tools_note,
        JSON.parse(r.packages) as PackageRecord[],
      ),
    ]);
    const changes = JSON.parse(r.change_findings) as McpFinding[];
    const status = statusOf([...all, ...changes]);
    if (status !== r.security_status) changed++;
    stmts.push(
      env.DB.prepare(
        `UPDATE mcp_servers SET security_status = ?2, security_findings = ?3, ruleset_version = ?4, scanned_at = ?5,
           status_changed_at = CASE WHEN security_status = ?2 THEN status_changed_at ELSE ?5 END, scan_layers = ?6 WHERE id = ?1`,
      ).bind(r.id, status, JSON.stringify(all), judged.rulesetVersion, at, JSON.stringify(judged.layers)),
      env.DB.prepare(
        `INSERT INTO ${insertColumns(mcpScans, ["serverId", "seq", "scannedAt", "version", "toolsHash", "rulesetVersion", "status", "findingsCount", "changes", "reason"])}
         VALUES (?1, coalesce((SELECT max(seq) FROM mcp_scans WHERE server_id = ?1), 0) + 1, ?2, ?3, ?4, ?5, ?6, ?7, '[]', 'rescan')`,
      ).bind(r.id, at, r.version, r.tools_hash, judged.rulesetVersion, status, all.length + changes.length),
    );
  }
  for (let i = 0; i < stmts.length; i += 400) await env.DB.batch(stmts.slice(i, i + 400));
  return { rescanned: rows.results.length, changed };
}
