import { createMcpHandler } from "agents/mcp/server";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { buildMcpServer, callTool, KeyRefused, toolResultJson, type ToolCall } from "../core/mcp-tools";
import type { AnyOperation } from "../core/operation";
import { ApiError } from "../core/errors";
import { OPERATIONS } from "../operations";
import { preferJson } from "./json-response";

export const MCP_PATH = "/v1/mcp";
/**
 * Requests handed to the SDK carry this address: the public Host and Origin were checked by the
 * route, and the SDK's own localhost Host check must not apply to the inner request.
 */
const INTERNAL_MCP_URL = `https://mcp.lore.internal${MCP_PATH}`;

const BY_TOOL = new Map<string, AnyOperation>(OPERATIONS.flatMap((o) => (o.mcp ? [[o.mcp.tool, o] as const] : [])));
export const TOOLS: ReadonlySet<string> = new Set(BY_TOOL.keys());

/** The `_meta` key of the 2026 protocol's per-request envelope: such requests go to the SDK. */
const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";

type Message = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: Record<string, unknown> };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The SDK: the stateless handler of the agents package over a fresh SDK v2 McpServer per request,
 * built from the same operations. It serves everything the endpoint does not answer itself, and
 * computes once per isolate the answers the endpoint then gives from memory.
 */
const sdk = createMcpHandler(
  (reqCtx) => {
    const call = reqCtx.authInfo?.extra?.call as ToolCall;
    return buildMcpServer(OPERATIONS, () => call);
  },
  {
    route: MCP_PATH,
    // The route validated Host and Origin against the allowlist and checked the key's presence.
    allowedOriginHostnames: "*",
    allowedHostnames: undefined,
    corsOptions: false,
  },
);

async function viaSdk(request: Request, body: Uint8Array, call: ToolCall): Promise<Response> {
  const headers = new Headers(request.headers);
  for (const h of ["authorization", "x-service-key", "cookie"]) headers.delete(h);
  const inner = new Request(INTERNAL_MCP_URL, { method: "POST", headers, body, signal: request.signal });
  const res = await sdk.fetch(inner, { authInfo: { token: "agent-key", clientId: "lore", scopes: [], extra: { call } } });
  // The route checked that the body is JSON; `[` starts a batch.
  const batch = new TextDecoder().decode(body.subarray(0, 64)).trimStart().startsWith("[");
  return preferJson(res, { batch, accept: request.headers.get("accept") });
}

/**
 * What the SDK answers to one request that calls no tool (initialize for a protocol version, the
 * tool list), remembered per isolate as JSON text: those answers depend on nothing but the
 * server's definition and the version asked for, so computing them once is exact, and the tool
 * list (some 60 tools with their schemas) is not serialized again for every request. Bounded by
 * the supported versions.
 */
const remembered = new Map<string, Promise<string>>();
function sdkResult(cacheKey: string, message: Message, call: ToolCall): Promise<string> {
  let p = remembered.get(cacheKey);
  if (!p) {
    const body = new TextEncoder().encode(JSON.stringify({ ...message, id: 1 }));
    const request = new Request(INTERNAL_MCP_URL, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body,
    });
    p = viaSdk(request, body, call).then(async (res) => {
      const json = (await res.json()) as { result?: unknown };
      if (res.status !== 200 || json.result === undefined) throw new Error(`MCP ${message.method}: the SDK answered ${res.status}`);
      return JSON.stringify(json.result);
    });
    p.catch(() => remembered.delete(cacheKey));
    remembered.set(cacheKey, p);
  }
  return p;
}

/**
 * The requests the endpoint answers itself, exactly as the SDK would (every case is compared with
 * the SDK's own answer in test/mcp.test.ts): one 2025-era JSON-RPC request (not a batch, no 2026
 * envelope, a supported or absent MCP-Protocol-Version) from a client that accepts JSON and sends
 * it, calling initialize, ping, tools/list (no cursor) or tools/call, or the
 * notifications/initialized notification. Everything else goes to the SDK.
 */
function answerable(request: Request, msg: unknown): msg is Message {
  if (!isObject(msg) || typeof msg.method !== "string") return false;
  const h = request.headers;
  const accept = h.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return false;
  if ((h.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase() !== "application/json") return false;
  const version = h.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false;
  const params = isObject(msg.params) ? msg.params : undefined;
  if (params && isObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta) return false;
  if (!("id" in msg)) return msg.method === "notifications/initialized";
  switch (msg.method) {
    case "initialize":
    case "ping":
    case "tools/call":
      return true;
    case "tools/list":
      return !params || !("cursor" in params);
    default:
      return false;
  }
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** An agent key the account's object refused: the contract's 401, as for REST. */
function refused(err: ApiError, requestId: string) {
  return new Response(JSON.stringify(err.toBody()), {
    status: err.status,
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
  });
}

/**
 * One POST to /v1/mcp with a well-formed body. initialize, ping and tools/list are answered from
 * memory after the key is verified (one round trip to the account's object, nothing counted);
 * tools/call costs one admission (the same round trip, counting) and the operation's own work.
 */
export async function serveMcp(request: Request, body: Uint8Array, parsed: unknown, call: ToolCall): Promise<Response> {
  const verify = () => call.gate.verify(call.env, call.key);
  try {
    if (!answerable(request, parsed)) {
      await verify();
      return await viaSdk(request, body, call);
    }
    const msg = parsed;
    const reply = (result: unknown) => json({ jsonrpc: "2.0", id: msg.id, result });
    const replyText = (result: string) =>
      new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}`, { headers: { "content-type": "application/json" } });
    switch (msg.method) {
      case "tools/call": {
        const params = msg.params as { name: string; arguments?: Record<string, unknown> };
        return replyText(toolResultJson(await callTool(BY_TOOL.get(params.name)!, params.arguments ?? {}, call)));
      }
      case "initialize": {
        await verify();
        const asked = (msg.params as { protocolVersion: string }).protocolVersion;
        const version = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : "other";
        return replyText(await sdkResult(`initialize:${version}`, { jsonrpc: "2.0", method: "initialize", params: msg.params }, call));
      }
      case "tools/list":
        await verify();
        return replyText(await sdkResult("tools/list", { jsonrpc: "2.0", method: "tools/list" }, call));
      case "ping":
        await verify();
        return reply({});
      default:
        // notifications/initialized: nothing to answer.
        await verify();
        return new Response(null, { status: 202 });
    }
  } catch (err) {
    if (err instanceof KeyRefused) return refused(err.error, call.requestId);
    if (err instanceof ApiError && err.code === "UNAUTHENTICATED") return refused(err, call.requestId);
    throw err;
  }
}
