import { RpcTarget } from "cloudflare:workers";
import {
  admitMessage,
  callTool,
  errorResult,
  KeyRefused,
  serverDefinitionJson,
  toolResultJson,
  type ToolCall,
  type ToolResult,
} from "../core/mcp-tools";
import type { AnyOperation } from "../core/operation";
import { ApiError, errorResponse } from "../core/errors";
import { OPERATIONS } from "../operations";
import { preferJson } from "./json-response";
import { carriesEnvelope, isObject, mcpSpec, type McpSpec } from "./protocol";
import type { McpSdkRpc, ToolHost } from "../core/mcp-sdk-rpc";

export const MCP_PATH = "/v1/mcp";

const BY_TOOL = new Map<string, AnyOperation>(OPERATIONS.flatMap((o) => (o.mcp ? [[o.mcp.tool, o] as const] : [])));
export const TOOLS: ReadonlySet<string> = new Set(BY_TOOL.keys());

type Message = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: Record<string, unknown> };

/**
 * The protocol's schemas and versions (protocol.ts `mcpSpec`), loaded on the first MCP request
 * rather than at module load. Every request this endpoint serves awaits it first (serveMcp, and
 * protocol.ts checkBody before it), so `spec` is set wherever it is read.
 */
let spec: McpSpec | undefined;

/**
 * The main Worker's side of a request the SDK Worker serves (src/mcp-worker/): each tool call the
 * SDK makes comes back here and runs as the endpoint's own do (callTool). The key was verified when
 * the request came in; one revoked since is a tool error, as is anything that fails unexpectedly.
 */
class SdkHost extends RpcTarget implements ToolHost {
  readonly #call: ToolCall;
  /** Whether the SDK asked for a tool call: a failure after that is not safe to retry blindly. */
  #ran = false;
  constructor(call: ToolCall) {
    super();
    this.#call = call;
  }
  get ranTool(): boolean {
    return this.#ran;
  }
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const op = BY_TOOL.get(name);
    if (!op) return errorResult(new ApiError("NOT_FOUND", "No such tool."));
    this.#ran = true;
    return callTool(op, args, this.#call).catch((err) =>
      errorResult(err instanceof KeyRefused ? err.error : new ApiError("INTERNAL", "Internal error")),
    );
  }
}

/**
 * The request headers the SDK reads (the transport's content negotiation, the protocol version and
 * session, the 2026 protocol's method and name headers, a stream's resumption): nothing else is
 * handed on, neither the credentials nor what the route or the sessions object added (x-lore-*).
 */
const forSdk = (name: string) => name === "accept" || name === "content-type" || name === "last-event-id" || name.startsWith("mcp-");

/**
 * The address of what the endpoint hands the SDK itself (sdkResult): only its headers and body are
 * sent (viaSdk); the SDK Worker serves them at an internal address of its own.
 */
const SDK_REQUEST_URL = `https://mcp.lore.internal${MCP_PATH}`;

/** Statuses whose response has no body (the Fetch standard's null body statuses). */
const NULL_BODY: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/**
 * One POST handed to the SDK Worker (the route checked its Host, Origin and key; only the headers
 * the SDK reads are passed on), answered as the SDK answered it. An SDK Worker that cannot answer is
 * the contract's INTERNAL: retryable when no tool call had started, else not, since the call may
 * have taken effect (and been counted) before the answer was lost.
 */
export async function viaSdk(request: Request, body: Uint8Array, call: ToolCall): Promise<Response> {
  const headers: [string, string][] = [];
  for (const [k, v] of request.headers) if (forSdk(k)) headers.push([k, v]);
  const host = new SdkHost(call);
  let answer: Awaited<ReturnType<McpSdkRpc["serve"]>>;
  try {
    answer = await (call.env.MCP_SDK as unknown as McpSdkRpc).serve({ headers, body }, serverDefinitionJson(OPERATIONS), host);
  } catch (e) {
    console.error(
      JSON.stringify({
        level: "error",
        what: "mcp-sdk-unavailable",
        ranTool: host.ranTool,
        error: (e instanceof Error ? e.message : String(e)).slice(0, 300),
      }),
    );
    if (host.ranTool)
      throw new ApiError(
        "INTERNAL",
        "The MCP server failed after the tool call started: it may have taken effect. Check (service_usage, or the thing it changes) before calling it again.",
      );
    throw new ApiError("INTERNAL", "The MCP server could not answer this request. Try again in a moment.", { retryable: true });
  }
  const res = new Response(NULL_BODY.has(answer.status) ? null : answer.body, {
    status: answer.status,
    headers: answer.headers,
  });
  // The route checked that the body is JSON; `[` starts a batch.
  const batch = new TextDecoder().decode(body.subarray(0, 64)).trimStart().startsWith("[");
  return preferJson(res, { batch, accept: request.headers.get("accept") });
}

/**
 * What the SDK answers to one request that calls no tool (initialize for a protocol version, the
 * tool list), remembered per isolate as JSON text and its bytes: those answers depend on nothing
 * but the server's definition and the version asked for, so computing them once is exact, and the
 * tool list (some 60 tools with their schemas) is not serialized again for every request. Bounded
 * by the supported versions.
 */
const remembered = new Map<string, Remembered>();
/** A remembered result: its JSON text (for a batch's array) and that text as UTF-8 (a message sent alone). */
interface Remembered {
  text: string;
  bytes: Uint8Array;
}
/**
 * Only settled answers are kept, never a promise in flight: the SDK's answer comes over RPC, I/O of
 * the request that asked, and workerd cancels another request that waits on it once that request
 * ends (or is cancelled by its client) first. The requests of a cold isolate's first burst may each
 * ask the SDK once; every one after is answered from memory.
 */
async function sdkResult(cacheKey: string, message: Message, call: ToolCall): Promise<Remembered> {
  const hit = remembered.get(cacheKey);
  if (hit) return hit;
  const body = encoder.encode(JSON.stringify({ ...message, id: 1 }));
  const request = new Request(SDK_REQUEST_URL, {
    method: "POST",
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
    body,
  });
  const res = await viaSdk(request, body, call);
  const json = (await res.json()) as { result?: unknown };
  if (res.status !== 200 || json.result === undefined) throw new Error(`MCP ${message.method}: the SDK answered ${res.status}`);
  const text = JSON.stringify(json.result);
  const r = { text, bytes: encoder.encode(text) };
  remembered.set(cacheKey, r);
  return r;
}

/**
 * The requests the endpoint answers itself, exactly as the SDK would (every case is compared with
 * the SDK's own answer in test/mcp.test.ts): one 2025-era JSON-RPC request (not a batch, no 2026
 * envelope, a supported or absent MCP-Protocol-Version) from a client that accepts JSON and sends
 * it, calling initialize, ping, tools/list (with no cursor or a string one) or tools/call, or the
 * notifications/initialized notification. Everything else goes to the SDK.
 */
function answerable(request: Request, msg: unknown): msg is Message {
  if (!isObject(msg) || typeof msg.method !== "string") return false;
  const h = request.headers;
  const accept = h.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return false;
  if ((h.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase() !== "application/json") return false;
  const version = h.get("mcp-protocol-version");
  if (version !== null && !spec!.SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false;
  const params = isObject(msg.params) ? msg.params : undefined;
  // The 2026 protocol's per-request envelope: such requests go to the SDK.
  if (carriesEnvelope(msg)) return false;
  if (!("id" in msg)) return msg.method === "notifications/initialized";
  switch (msg.method) {
    case "initialize":
    case "ping":
    case "tools/call":
      return true;
    case "tools/list":
      // Lore's tools are one page: the SDK's handler ignores a cursor, and only a cursor that is not a
      // string (its schema's invalid-params error) is left to it.
      return !params || !("cursor" in params) || typeof params.cursor === "string";
    default:
      return false;
  }
}

/** An agent key the account's object refused, or a full per-minute window: the contract's 401 or 429, as for REST. */
export const refused = (err: ApiError, requestId: string): Response => errorResponse(err, requestId);

/** The JSON-RPC error a message of a batch gets when its admission is refused (the 429 of a message sent alone). */
export const RATE_LIMITED_CODE = -32029;
/** JSON-RPC's internal error: a message of a batch the SDK Worker could not answer (the 500 of a message sent alone). */
const INTERNAL_ERROR_CODE = -32603;

/**
 * `text`: a JSON-RPC response; with `bytes`, the same response as UTF-8 made from a remembered
 * result's bytes (a message sent alone). A tool list is some 40 KB of text that is not Latin-1:
 * encoding it again for every request cost up to 0.08 ms of a 29 KB answer's 0.7 (docs/profiling.md).
 */
type Answer = { kind: "text"; text: string; bytes?: () => Uint8Array } | { kind: "none" } | { kind: "response"; response: Response };

const isToolCall = (m: unknown): m is Message & { id: string | number } => isObject(m) && m.method === "tools/call" && "id" in m;

/**
 * One message, admitted as if it came alone: a tool call by its own admission (callTool: the key,
 * then per-minute → API_CALLS → the tool's metric), every other message by `admitMessage` (a slot
 * of the per-minute rate, no daily quota), before anything is answered. Answers the JSON-RPC text
 * of its response, nothing (a notification), or, for what the endpoint does not answer itself, the
 * SDK's HTTP response.
 */
async function answer(request: Request, body: Uint8Array, msg: unknown, call: ToolCall): Promise<Answer> {
  if (isToolCall(msg) && answerable(request, msg)) {
    const params = msg.params as { name: string; arguments?: Record<string, unknown> };
    const token = progressToken(params);
    if (token !== undefined) return withProgress(msg, params, token, call);
    const result = toolResultJson(await callTool(BY_TOOL.get(params.name)!, params.arguments ?? {}, call));
    return { kind: "text", text: `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}` };
  }
  // A tool call the SDK serves is admitted by callTool inside it when the SDK runs it (a message the
  // SDK refuses first, for its headers or its 2026 envelope, costs only this key check); the key is
  // checked first, so a refused one is the endpoint's 401 rather than a tool error.
  if (isToolCall(msg)) await call.gate.verify(call.env, call.key);
  else await admitMessage(call);
  if (!answerable(request, msg)) return { kind: "response", response: await viaSdk(request, body, call) };
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":`;
  const reply = (result: string) => ({ kind: "text" as const, text: `${head}${result}}` });
  const replyRemembered = (r: Remembered): Answer => ({
    kind: "text",
    text: `${head}${r.text}}`,
    bytes: () => {
      const start = encoder.encode(head);
      const out = new Uint8Array(start.length + r.bytes.length + 1);
      out.set(start);
      out.set(r.bytes, start.length);
      out[out.length - 1] = 0x7d; // }
      return out;
    },
  });
  switch (msg.method) {
    case "initialize": {
      const asked = (msg.params as { protocolVersion: string }).protocolVersion;
      const version = spec!.SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : "other";
      return replyRemembered(await sdkResult(`initialize:${version}`, { jsonrpc: "2.0", method: "initialize", params: msg.params }, call));
    }
    case "tools/list":
      return replyRemembered(await sdkResult("tools/list", { jsonrpc: "2.0", method: "tools/list" }, call));
    case "ping":
      return reply("{}");
    default:
      // notifications/initialized: nothing to answer.
      return { kind: "none" };
  }
}

const progressToken = (params: Record<string, unknown>): string | number | undefined => {
  const meta = params._meta;
  const t = isObject(meta) ? meta.progressToken : undefined;
  return typeof t === "string" || typeof t === "number" ? t : undefined;
};

const encoder = new TextEncoder();
const sseEvent = (json: string) => encoder.encode(`event: message\ndata: ${json}\n\n`);

/**
 * A tool call whose client sent a progressToken. The operation reports how far it got
 * (OpContext.progress); once it reports, the answer becomes an SSE stream: each report as a
 * `notifications/progress` for the token, then the result, then the end of the stream. A call that
 * finishes before reporting anything (a warm check, a short sync) is answered as JSON, as without a
 * token; so is a refused key (HTTP 401), since admission comes before any report.
 */
async function withProgress(
  msg: Message & { id: string | number },
  params: { name: string; arguments?: Record<string, unknown> },
  token: string | number,
  call: ToolCall,
): Promise<Answer> {
  const pending: Uint8Array[] = [];
  let writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  let reported: () => void = () => {};
  const firstReport = new Promise<"reported">((resolve) => {
    reported = () => resolve("reported");
  });
  let last = 0;
  const progress = (p: number, total?: number, message?: string) => {
    if (!(p > last)) return;
    last = p;
    const event = sseEvent(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: p, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) },
      }),
    );
    if (writer) writer.write(event).catch(() => {});
    else pending.push(event);
    reported();
  };
  const done = callTool(BY_TOOL.get(params.name)!, params.arguments ?? {}, { ...call, progress }).then(
    (result) => ({ text: `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${toolResultJson(result)}}` }),
    (error: unknown) => ({ error }),
  );
  const first = await Promise.race([done, firstReport]);
  if (first !== "reported") {
    if ("error" in first) throw first.error;
    return { kind: "text", text: first.text };
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const w = (writer = writable.getWriter());
  for (const e of pending) w.write(e).catch(() => {});
  call.waitUntil(
    done.then(async (end) => {
      const text =
        "text" in end
          ? end.text
          : JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32603, message: "The call failed after it began." } });
      await w.write(sseEvent(text)).catch(() => {});
      await w.close().catch(() => {});
    }),
  );
  return {
    kind: "response",
    response: new Response(readable, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } }),
  };
}

/**
 * Responses this module built itself, whose headers the route may still set (it adds CORS) instead
 * of copying the whole response for that.
 */
const built = new WeakSet<Response>();
export const builtHere = (res: Response): boolean => built.has(res);
const own = (res: Response): Response => (built.add(res), res);

const jsonText = (text: string | Uint8Array, status = 200) =>
  own(new Response(text, { status, headers: { "content-type": "application/json" } }));

/**
 * A batch (protocol versions before 2025-06-18; protocol.ts refuses the others, and batches over
 * MAX_BATCH messages, before anything is read or counted): each message in order, admitted and
 * counted exactly as if it came alone. A message whose admission is refused gets its JSON-RPC error
 * (RATE_LIMITED_CODE, the contract's error in `data`; a tool call gets its usual error result) and
 * the rest still run; a refused key refuses the whole request (401). Answers the array of responses,
 * or 202 when the batch held only notifications and responses.
 */
async function serveBatch(request: Request, batch: unknown[], call: ToolCall): Promise<Response> {
  // The transport's own refusals, once for the whole batch (as the SDK answers them), before anything is admitted.
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return jsonText(
      JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Not Acceptable: Client must accept both application/json and text/event-stream" },
        id: null,
      }),
      406,
    );
  }
  if ((request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase() !== "application/json") {
    return jsonText(
      JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Unsupported Media Type: Content-Type must be application/json" },
        id: null,
      }),
      415,
    );
  }
  const out: string[] = [];
  for (const msg of batch) {
    const id = isObject(msg) && "id" in msg ? (msg.id as string | number) : undefined;
    const one = new TextEncoder().encode(JSON.stringify(msg));
    let a: Answer;
    try {
      a = await answer(request, one, msg, call);
    } catch (err) {
      // A full window refuses this message alone; so does an SDK Worker that could not answer it
      // (INTERNAL, from viaSdk): the messages before it were answered, the ones after still run.
      if (!(err instanceof ApiError) || (err.code !== "RATE_LIMITED" && err.code !== "INTERNAL")) throw err;
      if (id !== undefined && isObject(msg) && "method" in msg) {
        const code = err.code === "RATE_LIMITED" ? RATE_LIMITED_CODE : INTERNAL_ERROR_CODE;
        out.push(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message: err.message, data: err.toBody().error } }));
      }
      continue;
    }
    if (a.kind === "text") out.push(a.text);
    else if (a.kind === "response") {
      // The SDK's answer to one message: its JSON-RPC response when it has one (202 has none).
      const text = await a.response.text();
      if (id !== undefined && text.trim().startsWith("{")) out.push(text);
    }
  }
  return out.length ? jsonText(`[${out.join(",")}]`) : new Response(null, { status: 202 });
}

/**
 * One POST to /v1/mcp with a well-formed body (protocol.ts checked it). Every message is admitted
 * before it is answered: tool calls as REST requests are, every other message for a slot of the
 * per-minute rate; initialize and tools/list are then answered from memory. A message refused by the
 * per-minute rate is the contract's 429 (Retry-After, `details`); a refused key is its 401.
 */
export async function serveMcp(request: Request, body: Uint8Array, parsed: unknown, call: ToolCall): Promise<Response> {
  try {
    spec ??= await mcpSpec();
    if (Array.isArray(parsed)) return await serveBatch(request, parsed, call);
    const a = await answer(request, body, parsed, call);
    if (a.kind === "response") return a.response;
    if (a.kind === "none") return own(new Response(null, { status: 202 }));
    return jsonText(a.bytes ? a.bytes() : a.text);
  } catch (err) {
    if (err instanceof KeyRefused) return refused(err.error, call.requestId);
    if (err instanceof ApiError && (err.code === "UNAUTHENTICATED" || err.code === "RATE_LIMITED")) return refused(err, call.requestId);
    throw err;
  }
}
