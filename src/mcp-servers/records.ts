/**
 * Server records in the official registry's `server.json` vocabulary, from either source Lore
 * reads: the registry's list API (`{server, _meta}` responses) and the shipped seed (server.json
 * facts plus the tools Lore read from each server's source). Both become a `ServerRecord` here and
 * go through the same upsert (store.ts). Records of older schema dates (snake_case fields,
 * `version_detail`) are normalised; entries that cannot be used (a remote without an http(s) URL,
 * a package without an identifier) are dropped, and a record without a valid name, version or
 * description is refused as a whole (the ingest counts it as malformed).
 */
import type { McpToolInput } from "./scanner/types";

export const REGISTRY_META = "io.modelcontextprotocol.registry/official";
export const PUBLISHER_META = "io.modelcontextprotocol.registry/publisher-provided";

export interface KeyValueInput {
  name: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: string;
  value?: string;
  default?: string;
  placeholder?: string;
  choices?: string[];
}

export interface RemoteRecord {
  type: "streamable-http" | "sse";
  url: string;
  headers?: KeyValueInput[];
  variables?: Record<string, { description?: string; isRequired?: boolean; default?: string }>;
}

export interface ArgumentRecord {
  type: "positional" | "named";
  name?: string;
  value?: string;
  valueHint?: string;
  isRequired?: boolean;
  isRepeated?: boolean;
  default?: string;
}

export interface PackageRecord {
  registryType: string;
  identifier: string;
  version?: string;
  registryBaseUrl?: string;
  fileSha256?: string;
  runtimeHint?: string;
  transport: { type: "stdio" | "streamable-http" | "sse"; url?: string; headers?: KeyValueInput[] };
  runtimeArguments?: ArgumentRecord[];
  packageArguments?: ArgumentRecord[];
  environmentVariables?: KeyValueInput[];
}

export interface RegistryMeta {
  status: "active" | "deprecated" | "deleted";
  statusMessage: string | null;
  publishedAt: string | null;
  updatedAt: string | null;
  isLatest: boolean;
}

export interface ServerRecord {
  name: string;
  title: string | null;
  description: string;
  version: string;
  websiteUrl: string | null;
  repository: { url: string; source: string; id?: string; subfolder?: string } | null;
  remotes: RemoteRecord[];
  packages: PackageRecord[];
  registry: RegistryMeta | null;
  /** The document as published (normalised to camelCase), for the versions table. */
  serverJson: Record<string, unknown>;
  source: "seed" | "registry";
  license: string | null;
  /** The tools, when this record says what they are; undefined when it does not. */
  tools?: McpToolInput[];
  instructions?: string;
  toolsComplete?: boolean | null;
  toolsNote?: string | null;
  toolsSource?: string | null;
  review?: { note: string; reviewedAt: string } | null;
}

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]\/[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$/;
const str = (v: unknown, max = 10_000): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.slice(0, max) : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === "boolean" ? v : undefined);
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** snake_case keys (the 2025-07-09 schema) to camelCase, leaving `_meta` and free-form maps as published. */
function camelKeys(v: unknown, depth = 0): unknown {
  if (depth > 20) return v;
  if (Array.isArray(v)) return v.map((x) => camelKeys(x, depth + 1));
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "_meta" || k === "variables") out[k] = x;
    else out[k.startsWith("$") ? k : camel(k)] = camelKeys(x, depth + 1);
  }
  return out;
}

function keyValues(v: unknown): KeyValueInput[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: KeyValueInput[] = [];
  for (const x of v) {
    if (!isObj(x) || !str(x.name, 200)) continue;
    out.push({
      name: str(x.name, 200)!,
      ...(str(x.description, 500) ? { description: str(x.description, 500) } : {}),
      ...(bool(x.isRequired) !== undefined ? { isRequired: bool(x.isRequired) } : {}),
      ...(bool(x.isSecret) !== undefined ? { isSecret: bool(x.isSecret) } : {}),
      ...(str(x.format, 50) ? { format: str(x.format, 50) } : {}),
      ...(str(x.value, 1000) ? { value: str(x.value, 1000) } : {}),
      ...(str(x.default, 1000) ? { default: str(x.default, 1000) } : {}),
      ...(str(x.placeholder, 200) ? { placeholder: str(x.placeholder, 200) } : {}),
    });
  }
  return out.length ? out : undefined;
}

type Variables = NonNullable<RemoteRecord["variables"]>;

/**
 * A remote's URL `variables` (`{tenant: {description, isRequired, default}}`), keeping only fields
 * of the right type: a variable published as a bare string or with `default: 5` keeps its name,
 * so the URL's `{tenant}` is still explained, and loses the field that is not what the schema says.
 */
function variables(v: unknown): Variables | undefined {
  if (!isObj(v)) return undefined;
  const out: Variables = {};
  for (const [name, x] of Object.entries(v).slice(0, 50)) {
    if (!name.trim() || name.length > 200) continue;
    const spec = isObj(x) ? x : {};
    out[name] = {
      ...(str(spec.description, 500) ? { description: str(spec.description, 500) } : {}),
      ...(bool(spec.isRequired) !== undefined ? { isRequired: bool(spec.isRequired) } : {}),
      ...(str(spec.default, 1000) ? { default: str(spec.default, 1000) } : {}),
    };
  }
  return Object.keys(out).length ? out : undefined;
}

function args(v: unknown): ArgumentRecord[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: ArgumentRecord[] = [];
  for (const x of v) {
    if (!isObj(x) || (x.type !== "positional" && x.type !== "named")) continue;
    if (x.type === "named" && !str(x.name, 200)) continue;
    out.push({
      type: x.type,
      ...(str(x.name, 200) ? { name: str(x.name, 200) } : {}),
      ...(str(x.value, 1000) ? { value: str(x.value, 1000) } : {}),
      ...(str(x.valueHint, 200) ? { valueHint: str(x.valueHint, 200) } : {}),
      ...(bool(x.isRequired) !== undefined ? { isRequired: bool(x.isRequired) } : {}),
      ...(bool(x.isRepeated) !== undefined ? { isRepeated: bool(x.isRepeated) } : {}),
      ...(str(x.default, 1000) ? { default: str(x.default, 1000) } : {}),
    });
  }
  return out.length ? out : undefined;
}

const httpUrl = (u: unknown): string | undefined => {
  const s = str(u, 2000);
  return s && /^https?:\/\/[^\s]+$/i.test(s) ? s : undefined;
};

/** A record's remotes, normalised; also applied to stored rows on read (rows written before `variables` were normalised). */
export function remotes(v: unknown): RemoteRecord[] {
  if (!Array.isArray(v)) return [];
  const out: RemoteRecord[] = [];
  for (const x of v) {
    if (!isObj(x)) continue;
    const type = x.type === "streamable-http" || x.type === "sse" ? x.type : x.type === "http" ? "streamable-http" : null;
    const url = httpUrl(x.url);
    if (!type || !url) continue;
    const vars = variables(x.variables);
    out.push({ type, url, ...(keyValues(x.headers) ? { headers: keyValues(x.headers) } : {}), ...(vars ? { variables: vars } : {}) });
  }
  return out;
}

function packages(v: unknown): PackageRecord[] {
  if (!Array.isArray(v)) return [];
  const out: PackageRecord[] = [];
  for (const x of v) {
    if (!isObj(x)) continue;
    const identifier = str(x.identifier, 500);
    const t = isObj(x.transport) ? x.transport : { type: "stdio" };
    const ttype = t.type === "stdio" || t.type === "streamable-http" || t.type === "sse" ? t.type : null;
    if (!identifier || !ttype) continue;
    // Registry types are an open list; a record without one (seen in the wild) is read as npm only when it says npx.
    const registryType = str(x.registryType, 50) ?? (x.runtimeHint === "npx" ? "npm" : "unknown");
    out.push({
      registryType,
      identifier,
      ...(str(x.version, 255) ? { version: str(x.version, 255) } : {}),
      ...(str(x.registryBaseUrl, 500) ? { registryBaseUrl: str(x.registryBaseUrl, 500) } : {}),
      ...(str(x.fileSha256, 64) ? { fileSha256: str(x.fileSha256, 64) } : {}),
      ...(str(x.runtimeHint, 50) ? { runtimeHint: str(x.runtimeHint, 50) } : {}),
      transport: {
        type: ttype,
        ...(httpUrl(t.url) ? { url: httpUrl(t.url) } : {}),
        ...(keyValues(t.headers) ? { headers: keyValues(t.headers) } : {}),
      },
      ...(args(x.runtimeArguments) ? { runtimeArguments: args(x.runtimeArguments) } : {}),
      ...(args(x.packageArguments) ? { packageArguments: args(x.packageArguments) } : {}),
      ...(keyValues(x.environmentVariables) ? { environmentVariables: keyValues(x.environmentVariables) } : {}),
    });
  }
  return out;
}

/** Tools as `tools/list` returns them; anything else in an entry is dropped, a nameless entry skipped. */
export function toolList(v: unknown): McpToolInput[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: McpToolInput[] = [];
  for (const x of v.slice(0, 1000)) {
    if (!isObj(x) || typeof x.name !== "string" || x.name === "") continue;
    out.push({
      name: x.name.slice(0, 256),
      ...(typeof x.title === "string" ? { title: x.title.slice(0, 1000) } : {}),
      ...(typeof x.description === "string" ? { description: x.description.slice(0, 65_536) } : {}),
      ...(isObj(x.inputSchema) ? { inputSchema: x.inputSchema } : {}),
      ...(isObj(x.outputSchema) ? { outputSchema: x.outputSchema } : {}),
      ...(isObj(x.annotations) ? { annotations: x.annotations } : {}),
    });
  }
  return out;
}

export type ParseResult = { ok: true; record: ServerRecord } | { ok: false; reason: string };

/** One server.json document (with the registry's metadata, when it came from the registry). */
export function parseServerJson(doc: unknown, meta: unknown, source: "seed" | "registry"): ParseResult {
  if (!isObj(doc)) return { ok: false, reason: "server is not an object" };
  const s = camelKeys(doc) as Record<string, unknown>;
  const name = str(s.name, 200);
  if (!name || !NAME.test(name)) return { ok: false, reason: `invalid name ${JSON.stringify(s.name ?? null).slice(0, 80)}` };
  const version = str(s.version, 255) ?? str(isObj(s.versionDetail) ? s.versionDetail.version : undefined, 255);
  if (!version) return { ok: false, reason: `${name}: no version` };
  const description = str(s.description, 1000);
  if (!description) return { ok: false, reason: `${name}: no description` };
  const repo = isObj(s.repository) && httpUrl(s.repository.url) ? s.repository : null;
  const m = isObj(meta) && isObj(meta[REGISTRY_META]) ? (meta[REGISTRY_META] as Record<string, unknown>) : null;
  // The 2025-07-09 schema kept the status inside the document.
  const inlineStatus = str(s.status, 20);
  const status = (m?.status ?? inlineStatus ?? "active") as string;
  const registry: RegistryMeta | null =
    m || inlineStatus
      ? {
          status: status === "deprecated" || status === "deleted" ? status : "active",
          statusMessage: str(m?.statusMessage, 1000) ?? null,
          publishedAt: str(m?.publishedAt, 40) ?? null,
          updatedAt: str(m?.updatedAt, 40) ?? str(m?.statusChangedAt, 40) ?? null,
          isLatest: m ? m.isLatest !== false : true,
        }
      : null;
  const publisher = isObj(s._meta) && isObj(s._meta[PUBLISHER_META]) ? (s._meta[PUBLISHER_META] as Record<string, unknown>) : null;
  const publishedTools = toolList(publisher?.tools);
  return {
    ok: true,
    record: {
      name,
      title: str(s.title, 200) ?? null,
      description,
      version,
      websiteUrl: httpUrl(s.websiteUrl) ?? null,
      repository: repo
        ? {
            url: httpUrl(repo.url)!,
            source: str(repo.source, 50) ?? "unknown",
            ...(str(repo.id, 200) ? { id: str(repo.id, 200) } : {}),
            ...(str(repo.subfolder, 500) ? { subfolder: str(repo.subfolder, 500) } : {}),
          }
        : null,
      remotes: remotes(s.remotes),
      packages: packages(s.packages),
      registry,
      serverJson: s,
      source,
      license: null,
      ...(publishedTools
        ? { tools: publishedTools, toolsComplete: null, toolsSource: "the publisher's tool list in the registry record" }
        : {}),
      ...(typeof publisher?.instructions === "string" ? { instructions: publisher.instructions.slice(0, 65_536) } : {}),
    },
  };
}

/** A registry list entry: `{server, _meta}`. */
export const parseRegistryEntry = (entry: unknown): ParseResult =>
  isObj(entry) ? parseServerJson(entry.server, entry._meta, "registry") : { ok: false, reason: "entry is not an object" };

/** A record of data/mcp-servers.json: server.json facts plus the tools Lore read from the source, and where from. */
export function parseSeedRecord(x: unknown): ParseResult {
  if (!isObj(x)) return { ok: false, reason: "seed record is not an object" };
  const { tools, toolsComplete, toolsNote, license, asOf, source, sourceCommit, notes, nameSource, versionSource, ...doc } = x;
  const parsed = parseServerJson(doc, null, "seed");
  if (!parsed.ok) return parsed;
  const list = toolList(tools) ?? [];
  const known = list.length > 0;
  const where = `${typeof source === "string" ? source : "its repository"}${typeof asOf === "string" ? ` on ${asOf}` : ""}`;
  const what = known
    ? toolsComplete === true
      ? `all ${list.length} tools read from the source at ${where}`
      : `${list.length} tools read from the source at ${where}, a subset${typeof toolsNote === "string" ? ` (${toolsNote})` : ""}`
    : `no tool list could be read from the source at ${where}`;
  const note = [
    `Reviewed: ${what}.`,
    typeof nameSource === "string" ? `Name from ${nameSource}.` : "",
    typeof versionSource === "string" ? `Version from ${versionSource}.` : "",
    typeof notes === "string" ? notes : "",
  ]
    .filter(Boolean)
    .join(" ");
  return {
    ok: true,
    record: {
      ...parsed.record,
      license: typeof license === "string" ? license : null,
      ...(known ? { tools: list } : {}),
      toolsComplete: known ? toolsComplete === true : null,
      toolsNote: typeof toolsNote === "string" ? toolsNote : !known && typeof notes === "string" ? notes : null,
      toolsSource: known
        ? `Lore's review of the source${typeof sourceCommit === "string" ? ` at commit ${sourceCommit.slice(0, 12)}` : ""}`
        : null,
      review: { note, reviewedAt: typeof asOf === "string" ? asOf : "" },
    },
  };
}

/** `io.github.github/github-mcp-server` → `io.github.github--github-mcp-server` (readable, one path segment). */
export const baseSlug = (name: string): string =>
  name
    .toLowerCase()
    .replace("/", "--")
    .replace(/[^a-z0-9.-]+/g, "-");

export function transportsOf(r: Pick<ServerRecord, "remotes" | "packages">) {
  return {
    stdio: r.packages.some((p) => p.transport.type === "stdio"),
    http: r.remotes.some((x) => x.type === "streamable-http") || r.packages.some((p) => p.transport.type === "streamable-http"),
    sse: r.remotes.some((x) => x.type === "sse") || r.packages.some((p) => p.transport.type === "sse"),
  };
}
