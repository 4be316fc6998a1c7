/**
 * OSV.dev: `POST /v1/query` (every advisory of a package, paged with `page_token`),
 * `GET /v1/vulns/<id>`, and the per-ecosystem `modified_id.csv` export (newest first), which is
 * how the ingest finds new MAL- (malicious package) records without listing everything.
 */
import { readJson, SourceError, sourceFetch, unexpectedStatus, type SourceCtx } from "./http";

const SOURCE = "osv";
export const OSV_API = "https://api.osv.dev";
export const OSV_EXPORT = "https://osv-vulnerabilities.storage.googleapis.com";

export interface OsvRecord {
  id: string;
  modified: string;
  published?: string;
  withdrawn?: string;
  aliases?: string[];
  summary?: string;
  details?: string;
  severity?: { type: string; score: string }[];
  affected?: {
    package?: { ecosystem?: string; name?: string };
    /**
     * OSV ranges; the offline snapshots add two kinds Lore evaluates itself (src/ecosystems/versions.ts):
     * NPM_RANGE (`expr`, an npm semver range of affected versions) and CARGO_UNAFFECTED (`unaffected`,
     * Cargo requirements a version must meet one of to be safe). `fixed` lists their fixed versions.
     */
    ranges?: { type: string; events: Record<string, string>[]; expr?: string; unaffected?: string[]; fixed?: string[] }[];
    versions?: string[];
    database_specific?: Record<string, unknown>;
  }[];
  references?: { type: string; url: string }[];
  database_specific?: Record<string, unknown>;
}

const isRecord = (v: unknown): v is OsvRecord =>
  !!v && typeof (v as OsvRecord).id === "string" && typeof (v as OsvRecord).modified === "string";

/** Every advisory of one package (all pages). */
export async function osvQueryPackage(ecosystem: string, name: string, ctx: SourceCtx, maxPages = 10): Promise<OsvRecord[]> {
  const out: OsvRecord[] = [];
  let token: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const res = await sourceFetch(SOURCE, `${OSV_API}/v1/query`, ctx, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ package: { ecosystem, name }, ...(token ? { page_token: token } : {}) }),
    });
    if (!res.ok) throw unexpectedStatus(SOURCE, res);
    const body = await readJson<{ vulns?: unknown[]; next_page_token?: string }>(SOURCE, res);
    if (body.vulns !== undefined && !Array.isArray(body.vulns)) throw new SourceError(SOURCE, "malformed", "vulns is not a list");
    for (const v of body.vulns ?? []) if (isRecord(v)) out.push(v);
    token = body.next_page_token;
    if (!token) break;
  }
  return out;
}

export async function osvVuln(id: string, ctx: SourceCtx): Promise<OsvRecord | null> {
  const res = await sourceFetch(SOURCE, `${OSV_API}/v1/vulns/${encodeURIComponent(id)}`, ctx);
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  const v = await readJson<unknown>(SOURCE, res);
  if (!isRecord(v)) throw new SourceError(SOURCE, "malformed", "not an OSV record");
  return v;
}

/** `<modified>,<id>` lines of one ecosystem's export, newest first; only ids modified after `after`. */
export async function osvModifiedSince(
  ecosystem: string,
  after: string,
  ctx: SourceCtx,
  prefix = "MAL-",
  limit = 200,
): Promise<{ id: string; modified: string }[]> {
  const res = await sourceFetch(SOURCE, `${OSV_EXPORT}/${encodeURIComponent(ecosystem)}/modified_id.csv`, ctx);
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  const out: { id: string; modified: string }[] = [];
  for (const line of (await res.text()).split("\n")) {
    const [modified, id] = line.trim().split(",");
    if (!modified || !id) continue;
    if (modified <= after) break;
    if (id.startsWith(prefix)) out.push({ id, modified });
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * Which advisories affect each (package, version): one `POST /v1/querybatch` for up to 1,000
 * queries. OSV answers ids (and `modified`) only; the records come from `osvVuln` or Lore's store.
 */
export async function osvQueryBatch(
  queries: { ecosystem: string; name: string; version: string }[],
  ctx: SourceCtx,
): Promise<{ id: string; modified: string }[][]> {
  if (!queries.length) return [];
  const res = await sourceFetch(SOURCE, `${OSV_API}/v1/querybatch`, ctx, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      queries: queries.slice(0, 1000).map((q) => ({ package: { ecosystem: q.ecosystem, name: q.name }, version: q.version })),
    }),
  });
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  const body = await readJson<{ results?: { vulns?: { id?: unknown; modified?: unknown }[] }[] }>(SOURCE, res);
  if (!Array.isArray(body.results) || body.results.length !== Math.min(queries.length, 1000))
    throw new SourceError(SOURCE, "malformed", "results do not match the queries");
  return body.results.map((r) =>
    (r?.vulns ?? [])
      .filter((v): v is { id: string; modified: string } => typeof v?.id === "string")
      .map((v) => ({ id: v.id, modified: String(v.modified ?? "") })),
  );
}
