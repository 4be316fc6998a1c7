import { specTypeSchemas, type SpecTypeName } from "@modelcontextprotocol/server";

/**
 * JSON-RPC checks made before a message reaches the SDK. The SDK parses each request's params
 * with its own schemas inside the handler and turns a failure into `-32603 Internal error` with a
 * zod dump; a client that sent `capabilities: "x"` deserves `-32602 Invalid params` naming the
 * field. The same schemas (the SDK's `specTypeSchemas`) are applied here first, so the answer is
 * exactly what the SDK would have required, as the right error.
 */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

/** Client-to-server methods whose params the SDK checks with a spec schema. */
const METHOD_SCHEMAS: Record<string, SpecTypeName> = {
  initialize: "InitializeRequest",
  ping: "PingRequest",
  "tools/list": "ListToolsRequest",
  "tools/call": "CallToolRequest",
  "resources/list": "ListResourcesRequest",
  "resources/templates/list": "ListResourceTemplatesRequest",
  "resources/read": "ReadResourceRequest",
  "resources/subscribe": "SubscribeRequest",
  "resources/unsubscribe": "UnsubscribeRequest",
  "prompts/list": "ListPromptsRequest",
  "prompts/get": "GetPromptRequest",
  "completion/complete": "CompleteRequest",
  "logging/setLevel": "SetLevelRequest",
  "notifications/initialized": "InitializedNotification",
  "notifications/cancelled": "CancelledNotification",
  "notifications/progress": "ProgressNotification",
  "notifications/roots/list_changed": "RootsListChangedNotification",
};

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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

type PathItem = PropertyKey | { key: PropertyKey };
const pathOf = (path: ReadonlyArray<PathItem> | undefined) =>
  (path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");

/** One message: null when it may go on to the SDK, else the error to answer with. */
function checkOne(msg: unknown, tools: ReadonlySet<string>): RpcError | null {
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
  const schemaName = METHOD_SCHEMAS[msg.method];
  if (schemaName) {
    const result = specTypeSchemas[schemaName]["~standard"].validate({ method: msg.method, ...(msg.params === undefined ? {} : { params: msg.params }) });
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
 * Checks a POST body before it is handed on: valid UTF-8 (else -32700), JSON (else -32700), a
 * JSON-RPC message or batch (else -32600), and params the SDK's schemas accept (else -32602
 * naming the field), and a known tool name for tools/call. Returns the parsed body when it may go
 * on, or the error to answer with.
 */
export function checkBody(bytes: Uint8Array, tools: ReadonlySet<string>): { ok: true; parsed: unknown } | { ok: false; error: RpcError } {
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
    if (parsed.length === 0) return { ok: false, error: error(400, null, INVALID_REQUEST, "Invalid Request: an empty batch") };
    for (const m of parsed) {
      const e = checkOne(m, tools);
      if (e) return { ok: false, error: e };
    }
    return { ok: true, parsed };
  }
  const e = checkOne(parsed, tools);
  return e ? { ok: false, error: e } : { ok: true, parsed };
}
