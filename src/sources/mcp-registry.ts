/**
 * The official MCP registry's read API (registry.modelcontextprotocol.io, `/v0.1`, the frozen
 * additive-only version): `GET /v0.1/servers` pages with an opaque `cursor`, `limit` 1-100,
 * `version=latest` for a full crawl and `updated_since` (RFC 3339) for increments, which also
 * returns deleted entries so a sync sees removals. Entries are `{server, _meta}`; they are parsed
 * by src/mcp-servers/records.ts, not here. Early versions of the API spelled the cursor
 * `next_cursor`; both are read.
 */
import { readJson, SourceError, sourceFetch, unexpectedStatus, type SourceCtx } from "./http";

export const MCP_REGISTRY = "https://registry.modelcontextprotocol.io";
const SOURCE = "mcp-registry";

export interface RegistryQuery {
  cursor?: string | null;
  limit?: number;
  updatedSince?: string | null;
  latestOnly?: boolean;
}

export interface RegistryPage {
  servers: unknown[];
  nextCursor: string | null;
  count: number;
  url: string;
}

export function registryUrl(base: string, q: RegistryQuery): string {
  const u = new URL("/v0.1/servers", base);
  u.searchParams.set("limit", String(Math.min(100, Math.max(1, q.limit ?? 100))));
  if (q.cursor) u.searchParams.set("cursor", q.cursor);
  if (q.updatedSince) u.searchParams.set("updated_since", q.updatedSince);
  if (q.latestOnly) u.searchParams.set("version", "latest");
  return u.toString();
}

export async function registryPage(ctx: SourceCtx, q: RegistryQuery, base = MCP_REGISTRY): Promise<RegistryPage> {
  const url = registryUrl(base, q);
  const res = await sourceFetch(SOURCE, url, ctx, { headers: { accept: "application/json" } });
  if (!res.ok) {
    await res.body?.cancel();
    throw unexpectedStatus(SOURCE, res);
  }
  const doc = await readJson<{ servers?: unknown; metadata?: { nextCursor?: unknown; next_cursor?: unknown; count?: unknown } }>(
    SOURCE,
    res,
  );
  if (!Array.isArray(doc.servers)) throw new SourceError(SOURCE, "malformed", "the page has no servers list");
  const next = doc.metadata?.nextCursor ?? doc.metadata?.next_cursor;
  return {
    servers: doc.servers,
    nextCursor: typeof next === "string" && next !== "" ? next : null,
    count: typeof doc.metadata?.count === "number" ? doc.metadata.count : doc.servers.length,
    url,
  };
}
