import { DurableObject } from "cloudflare:workers";
import { createMcpHandler } from "agents/mcp/server";
import type { Env } from "../env";
import { buildMcpServer } from "../core/mcp-tools";
import { makeDb } from "../db/client";
import { OPERATIONS } from "../operations";
import type { AgentPrincipal } from "../core/principal";
import type { OpContext } from "../core/operation";
import { preferJson } from "./json-response";

export const MCP_PATH = "/v1/mcp";
/** Set by the Worker after authenticating; the object is reachable only through the Worker. */
export const PRINCIPAL_HEADER = "x-lore-principal";
export const REQUEST_ID_HEADER = "x-request-id";
export const ORIGIN_HEADER = "x-lore-origin";
/**
 * The Worker forwards to this internal address: the public Host and Origin were checked by the
 * Worker, and the SDK's localhost Host check must not apply to an internal hop.
 */
export const INTERNAL_MCP_URL = `https://mcp.lore.internal${MCP_PATH}`;

interface CallerInfo {
  principal: AgentPrincipal;
  requestId: string;
  origin: string;
}

/**
 * The remote MCP endpoint, one object per account (DESIGN.md §1): all of an account's MCP traffic
 * lands in one isolate, so `handler.notify` reaches that account's open streams. Each request gets
 * a fresh SDK v2 McpServer from the same operation definitions the REST routes use.
 */
export class McpEndpoint extends DurableObject<Env> {
  private readonly handler = createMcpHandler(
    (reqCtx) => {
      const info = reqCtx.authInfo?.extra?.caller as CallerInfo;
      return buildMcpServer(OPERATIONS, () => this.opContext(info));
    },
    {
      route: MCP_PATH,
      // The Worker in front validates Origin and authenticates; the object sees internal requests.
      allowedOriginHostnames: "*",
      allowedHostnames: undefined,
      corsOptions: false,
    },
  );

  override async fetch(request: Request): Promise<Response> {
    const principal = JSON.parse(request.headers.get(PRINCIPAL_HEADER) ?? "null") as AgentPrincipal | null;
    if (!principal) return new Response("missing principal", { status: 500 });
    const caller: CallerInfo = {
      principal,
      requestId: request.headers.get(REQUEST_ID_HEADER) ?? "",
      origin: request.headers.get(ORIGIN_HEADER) ?? "",
    };
    const headers = new Headers(request.headers);
    headers.delete(PRINCIPAL_HEADER);
    headers.delete(ORIGIN_HEADER);
    const body = request.method === "POST" ? new Uint8Array(await request.arrayBuffer()) : null;
    const inner = new Request(request.url, { method: request.method, headers, body, signal: request.signal });
    const res = await this.handler.fetch(inner, {
      authInfo: { token: principal.keyPrefix, clientId: principal.agentId, scopes: [], extra: { caller } },
    });
    if (!body) return res;
    // The Worker checked that the body is JSON; `[` starts a batch.
    const batch = new TextDecoder().decode(body.subarray(0, 64)).trimStart().startsWith("[");
    return preferJson(res, { batch, accept: request.headers.get("accept") });
  }

  private opContext(info: CallerInfo): OpContext {
    return {
      env: this.env,
      db: makeDb(this.env.DB),
      caller: info.principal,
      requestId: info.requestId,
      origin: info.origin,
      via: "mcp",
      waitUntil: (p) => this.ctx.waitUntil(p),
      clientIp: null,
    };
  }
}
