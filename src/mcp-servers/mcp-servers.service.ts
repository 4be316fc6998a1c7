/**
 * The directory's reads: search (FTS5 with bm25 over name, title, description and tool names;
 * filters by scan status and transport; pages with a total) and one server's detail with its
 * tools, findings, review, scan history and the configuration for every harness. One D1 round
 * trip each (a batch).
 */
import { iso } from "../core/clock";
import { columnsOf, type SqlRow } from "../core/columns";
import { mcpServers } from "../db/mcp-servers";
import { notFound } from "../core/errors";
import { ftsQuery, pagedSearch, emptyPage } from "../core/fts";
import type { ScanStatus } from "../scan/types";
import type { ScanLayer } from "../scan/judge";
import { renderMcpConfig, renderMcpConfigs, type HarnessMcpConfig, type McpConfigInput } from "../harnesses/mcp-config";
import { LruCache } from "../core/cache";
import type { McpFinding, McpToolInput } from "./scanner/types";
import { installInput } from "./install";
import { remotes as normaliseRemotes, type PackageRecord } from "./records";
import type { ServerDetailOut, ServerItemOut } from "./mcp-servers.schemas";

/** A catalog item's columns (`itemOut`). */
const ITEM_KEYS = [
  "slug",
  "name",
  "title",
  "description",
  "version",
  "repository",
  "websiteUrl",
  "hasStdio",
  "hasHttp",
  "hasSse",
  "securityStatus",
  "toolCount",
  "toolsKnown",
  "toolsComplete",
  "registryStatus",
  "reviewedAt",
  "scannedAt",
  "updatedAt",
] as const;
type ItemRow = SqlRow<typeof mcpServers, (typeof ITEM_KEYS)[number]>;
const ITEM_COLS = columnsOf(mcpServers, "s", ITEM_KEYS);

/** The detail's columns beyond the item's. */
const DETAIL_KEYS = [
  "id",
  "remotes",
  "packages",
  "license",
  "source",
  "registryStatusMessage",
  "publishedAt",
  "registryUpdatedAt",
  "instructions",
  "tools",
  "toolsSource",
  "toolsNote",
  "toolsHash",
  "securityFindings",
  "changeFindings",
  "rulesetVersion",
  "scanLayers",
  "reviewNote",
] as const;
type DetailRow = ItemRow & SqlRow<typeof mcpServers, (typeof DETAIL_KEYS)[number]>;

const transportsOf = (r: Pick<ItemRow, "has_stdio" | "has_http" | "has_sse">) =>
  [r.has_stdio ? "stdio" : null, r.has_http ? "streamable-http" : null, r.has_sse ? "sse" : null].filter(
    (x): x is "stdio" | "streamable-http" | "sse" => x !== null,
  );

function itemOut(r: ItemRow): ServerItemOut {
  return {
    slug: r.slug,
    name: r.name,
    title: r.title,
    description: r.description,
    version: r.version,
    repository: r.repository ? JSON.parse(r.repository) : null,
    websiteUrl: r.website_url,
    transports: transportsOf(r),
    securityStatus: r.security_status as ScanStatus,
    toolCount: r.tool_count,
    toolsComplete: r.tools_known ? (r.tools_complete === null ? null : r.tools_complete === 1) : null,
    registryStatus: r.registry_status === "deprecated" ? "deprecated" : "active",
    reviewedAt: r.reviewed_at,
    scannedAt: iso(r.scanned_at),
    updatedAt: iso(r.updated_at),
  };
}

export interface ListInput {
  q?: string;
  security?: "passed";
  transport?: "stdio" | "streamable-http" | "sse";
  page: number;
  perPage: number;
}

const TRANSPORT_COLUMN = { stdio: "s.has_stdio", "streamable-http": "s.has_http", sse: "s.has_sse" } as const;

export async function searchServers(db: D1Database, input: ListInput) {
  const where = ["s.registry_status <> 'deleted'"];
  const q = input.q?.trim();
  const match = q ? ftsQuery(q) : null;
  if (q && !match) return emptyPage(input);
  if (input.security) where.push("s.security_status = 'passed'");
  if (input.transport) where.push(`${TRANSPORT_COLUMN[input.transport]} = 1`);
  const { rows, ...total } = await pagedSearch<ItemRow>(db, {
    from: "mcp_servers s",
    key: "s.rowid",
    columns: ITEM_COLS,
    // bm25 weights: name 8, title 10, description 4, tool names 2 (server_id is unindexed).
    fts: match ? { table: "mcp_servers_fts", match, rank: "bm25(mcp_servers_fts, 0.0, 8.0, 10.0, 4.0, 2.0)" } : undefined,
    where,
    binds: [],
    order: match ? "s.name" : "coalesce(s.title, s.name) COLLATE NOCASE, s.name",
    page: input.page,
    perPage: input.perPage,
  });
  return { items: rows.map(itemOut), ...total, page: input.page, perPage: input.perPage };
}

/**
 * A server's configuration for every harness depends only on its name, remotes and packages as
 * stored: rendered once per isolate for each (13 renderers, a YAML and a TOML writer among them)
 * and served as the same objects, which are only ever serialised. Keyed by the stored text, so an
 * ingest that changes any of it renders anew; bounded by count and bytes.
 */
const renderedConfigs = new LruCache<string, HarnessMcpConfig[]>({ maxEntries: 1_000, maxBytes: 8 * 1024 * 1024 });

function everyHarness(r: { name: string; remotes: string; packages: string }, input: McpConfigInput): HarnessMcpConfig[] {
  const key = `${r.name}\u0000${r.remotes}\u0000${r.packages}`;
  return renderedConfigs.getOrSet(
    key,
    () => renderMcpConfigs(input),
    (made) => 2 * (key.length + JSON.stringify(made).length),
  );
}

/** A server by slug, or by its registry name (`io.github.owner/server`, URL-encoded in the path). */
export async function getServer(db: D1Database, slugOrName: string, harness?: string): Promise<ServerDetailOut> {
  const [found, scans] = await db.batch([
    db
      .prepare(
        `SELECT ${ITEM_COLS}, ${columnsOf(mcpServers, "s", DETAIL_KEYS)}
           FROM mcp_servers s WHERE (s.slug = ?1 OR s.name = ?1) AND s.registry_status <> 'deleted' LIMIT 1`,
      )
      .bind(slugOrName),
    db
      .prepare(
        `SELECT c.seq, c.scanned_at, c.version, c.tools_hash, c.status, c.findings_count, c.reason, c.changes FROM mcp_scans c
           JOIN mcp_servers s ON s.id = c.server_id WHERE (s.slug = ?1 OR s.name = ?1) ORDER BY c.seq DESC LIMIT 10`,
      )
      .bind(slugOrName),
  ]);
  const r = (found!.results as DetailRow[])[0];
  if (!r) throw notFound(`MCP server '${slugOrName}'`);
  // Normalised again on read: a row stored before the ingest normalised remotes must not break the output schema.
  const remotes = normaliseRemotes(JSON.parse(r.remotes));
  const packages = JSON.parse(r.packages) as PackageRecord[];
  const install = installInput({ name: r.name, remotes, packages });
  const input = install.input;
  const configs = !input ? [] : harness ? [renderMcpConfig(harness, input)!] : everyHarness(r, input);
  const findings = [...(JSON.parse(r.change_findings) as McpFinding[]), ...(JSON.parse(r.security_findings) as McpFinding[])];
  const order = ["critical", "high", "medium", "low", "info"];
  findings.sort((a, b) => order.indexOf(a.severity) - order.indexOf(b.severity));
  const registry =
    r.source === "registry" || r.published_at
      ? {
          status: r.registry_status === "deprecated" ? ("deprecated" as const) : ("active" as const),
          statusMessage: r.registry_status_message,
          publishedAt: r.published_at,
          updatedAt: r.registry_updated_at,
        }
      : null;
  return {
    server: {
      slug: r.slug,
      name: r.name,
      title: r.title,
      description: r.description,
      version: r.version,
      websiteUrl: r.website_url,
      repository: r.repository ? JSON.parse(r.repository) : null,
      remotes,
      packages,
      license: r.license,
      transports: transportsOf(r),
      source: r.source === "registry" ? "registry" : "seed",
      _meta: { "io.modelcontextprotocol.registry/official": registry },
    },
    tools: JSON.parse(r.tools) as McpToolInput[] as ServerDetailOut["tools"],
    instructions: r.instructions,
    toolsComplete: r.tools_known ? (r.tools_complete === null ? null : r.tools_complete === 1) : null,
    toolsSource: r.tools_source,
    toolsNote: r.tools_note,
    toolsHash: r.tools_hash,
    securityStatus: r.security_status as ScanStatus,
    findings,
    rulesetVersion: r.ruleset_version,
    scanLayers: JSON.parse(r.scan_layers) as ScanLayer[],
    scannedAt: iso(r.scanned_at),
    review: r.review_note ? { note: r.review_note, reviewedAt: r.reviewed_at } : null,
    scans: (
      scans!.results as {
        seq: number;
        scanned_at: number;
        version: string;
        tools_hash: string | null;
        status: string;
        findings_count: number;
        reason: string;
        changes: string;
      }[]
    ).map((c) => ({
      seq: c.seq,
      scannedAt: iso(c.scanned_at),
      version: c.version,
      toolsHash: c.tools_hash,
      status: c.status as ScanStatus,
      findingsCount: c.findings_count,
      reason: c.reason,
      changes: JSON.parse(c.changes) as McpFinding[],
    })),
    install: { target: install.target, notes: install.notes, harnesses: configs },
  };
}
