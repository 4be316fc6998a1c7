/**
 * JSON-RPC checks made before a message reaches the SDK. The SDK parses each request's params
 * with its own schemas inside the handler and turns a failure into `-32603 Internal error` with a
 * zod dump; a client that sent `capabilities: "x"` deserves `-32602 Invalid params` naming the
 * field. The same schemas (the SDK's `specTypeSchemas`, which are the objects spec.ts imports from
 * the SDK's core package) are applied here first, so the answer is exactly what the SDK would have
 * required, as the right error.
 */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;

/**
 * The 2026 protocol's open stream for change notifications. Lore sends none (its tools are fixed per
 * deploy, and the server advertises `listChanged: false`), and the SDK would hold the request open
 * with nothing to send: refused before it reaches the SDK.
 */
const LISTEN = "subscriptions/listen";

export type McpSpec = typeof import("./spec");
let loading: Promise<McpSpec> | undefined;
/**
 * The protocol's schemas and versions (spec.ts), loaded with `import()` on the first MCP request:
 * the SDK's core package builds its zod schemas when it loads, work no REST request, page or cron
 * run needs.
 */
export function mcpSpec(): Promise<McpSpec> {
  loading ??= import("./spec");
  return loading;
}

/** Names echoed back in errors are cut here: a client's 1 MiB tool name is not repeated to it. */
export const MAX_ECHO = 100;
export const echo = (s: string) => (s.length > MAX_ECHO ? `${s.slice(0, MAX_ECHO)}…` : s);

type Id = string | number | null;
export interface RpcError {
  /** HTTP status: 400 for a body that is no JSON-RPC request at all, 200 for an answered request. */
  status: number;
  body: { jsonrpc: "2.0"; id: Id; error: { code: number; message: string; data?: unknown } };
}

const error = (status: number, id: Id, code: number, message: string, data?: unknown): RpcError => ({
  status,
  body: { jsonrpc: "2.0", id, error: { code, message, ...(data === undefined ? {} : { data }) } },
});

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

type PathItem = PropertyKey | { key: PropertyKey };
const pathOf = (path: ReadonlyArray<PathItem> | undefined) => (path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");

/** One message: null when it may go on to the SDK, else the error to answer with. */
function checkOne(msg: unknown, tools: ReadonlySet<string>, schemas: McpSpec["METHOD_SCHEMAS"]): RpcError | null {
  if (!isObject(msg)) return error(400, null, INVALID_REQUEST, "Invalid Request: a JSON-RPC message must be an object");
  const id: Id = typeof msg.id === "string" || typeof msg.id === "number" ? msg.id : null;
  if (msg.jsonrpc !== "2.0") return error(400, id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"');
  if ("id" in msg && msg.id !== undefined && typeof msg.id !== "string" && typeof msg.id !== "number") {
    return error(400, null, INVALID_REQUEST, 'Invalid Request: "id" must be a string or a number');
  }
  // A response to a server request (result or error with an id): the SDK deals with it.
  if (!("method" in msg)) return null;
  if (typeof msg.method !== "string") return error(400, id, INVALID_REQUEST, 'Invalid Request: "method" must be a string');
  // A notification has no id: there is nothing to answer it with, so it is refused with a 400.
  const status = "id" in msg ? 200 : 400;
  if ("params" in msg && msg.params !== undefined && !isObject(msg.params)) {
    return error(status, id, INVALID_PARAMS, `Invalid params: "params" must be an object, not ${describe(msg.params)}`, {
      issues: [{ path: "params", message: `expected an object, received ${describe(msg.params)}` }],
    });
  }
  if (msg.method === LISTEN) {
    return error(
      status,
      id,
      METHOD_NOT_FOUND,
      `Method not found: ${LISTEN} (Lore's tool list does not change while a client is connected, so there is nothing to listen for: capabilities.tools.listChanged is false)`,
    );
  }
  const schema = Object.hasOwn(schemas, msg.method) ? schemas[msg.method] : undefined;
  if (schema) {
    const result = schema["~standard"].validate({
      method: msg.method,
      ...(msg.params === undefined ? {} : { params: msg.params }),
    });
    if (result instanceof Promise) return null;
    if (result.issues?.length) {
      const issues = result.issues.map((i) => ({ path: pathOf(i.path) || "params", message: i.message }));
      const first = issues[0]!;
      return error(status, id, INVALID_PARAMS, `Invalid params for ${msg.method}: ${first.path}: ${first.message}`, { issues });
    }
  }
  if (msg.method === "tools/call") {
    const name = (msg.params as { name: string }).name;
    if (!tools.has(name)) {
      return error(status, id, INVALID_PARAMS, `Unknown tool: ${echo(name)} (tools/list names the tools this server has)`);
    }
  }
  return null;
}

const describe = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`);

/**
 * JSON-RPC batches exist in the protocol versions before 2025-06-18, which removed them. A request
 * that names no version is taken as 2025-03-26, as the Streamable HTTP transport says a server
 * should assume.
 */
export const BATCH_VERSIONS: ReadonlySet<string> = new Set(["2024-10-07", "2024-11-05", "2025-03-26"]);
export const VERSION_WITHOUT_HEADER = "2025-03-26";
/**
 * The most messages one batch may hold. Each is admitted and counted as if it came alone, so a
 * batch costs what its messages would; the cap bounds what one HTTP request can make the server do
 * before its first answer (the SDK's own cap is 100).
 */
export const MAX_BATCH = 10;

/** The 2026 protocol's per-request envelope (`params._meta` naming a protocol version). */
const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
export const carriesEnvelope = (m: unknown) =>
  isObject(m) && isObject(m.params) && isObject(m.params._meta) && PROTOCOL_VERSION_META_KEY in m.params._meta;

/** A batch the protocol version in use does not allow, or one too large: the -32600 to answer, else null. */
function checkBatch(batch: unknown[], headers: Headers): RpcError | null {
  const version = headers.get("mcp-protocol-version") ?? VERSION_WITHOUT_HEADER;
  if (!BATCH_VERSIONS.has(version)) {
    return error(
      400,
      null,
      INVALID_REQUEST,
      `Invalid Request: JSON-RPC batches are not part of MCP protocol version ${echo(version)} (removed in 2025-06-18): send one message per request`,
    );
  }
  if (batch.length === 0) return error(400, null, INVALID_REQUEST, "Invalid Request: an empty batch");
  if (batch.length > MAX_BATCH) {
    return error(
      400,
      null,
      INVALID_REQUEST,
      `Invalid Request: a batch holds at most ${MAX_BATCH} messages, this one has ${batch.length}: send the rest in further requests`,
    );
  }
  for (const m of batch) {
    if (isObject(m) && m.method === "initialize") {
      return error(400, null, INVALID_REQUEST, "Invalid Request: initialize must not be part of a JSON-RPC batch: send it alone");
    }
    if (carriesEnvelope(m))
      return error(
        400,
        null,
        INVALID_REQUEST,
        "Invalid Request: JSON-RPC batches may not carry requests of protocol revision 2026-07-28 or later",
      );
  }
  return null;
}

/**
 * Checks a POST body before it is handed on: valid UTF-8 (else -32700), JSON (else -32700), a
 * JSON-RPC message or a batch the protocol version allows (else -32600), and params the SDK's schemas accept (else -32602
 * naming the field), and a known tool name for tools/call. Returns the parsed body when it may go
 * on, or the error to answer with.
 */
export async function checkBody(
  bytes: Uint8Array,
  tools: ReadonlySet<string>,
  headers: Headers,
): Promise<{ ok: true; parsed: unknown } | { ok: false; error: RpcError }> {
  const { METHOD_SCHEMAS } = await mcpSpec();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { ok: false, error: error(400, null, PARSE_ERROR, "Parse error: the body is not valid UTF-8") };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, error: error(400, null, PARSE_ERROR, "Parse error: the body is not valid JSON") };
  }
  if (Array.isArray(parsed)) {
    const refused = checkBatch(parsed, headers);
    if (refused) return { ok: false, error: refused };
    for (const m of parsed) {
      const e = checkOne(m, tools, METHOD_SCHEMAS);
      if (e) return { ok: false, error: e };
    }
    return { ok: true, parsed };
  }
  const e = checkOne(parsed, tools, METHOD_SCHEMAS);
  return e ? { ok: false, error: e } : { ok: true, parsed };
}
