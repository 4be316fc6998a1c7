import { Hono } from "hono";
import type { AppEnv } from "../core/context";
import { authenticate } from "../core/auth";
import { ApiError } from "../core/errors";
import { readBodyLimited } from "../core/body";
import type { AgentPrincipal } from "../core/principal";
import { INTERNAL_MCP_URL, ORIGIN_HEADER, PRINCIPAL_HEADER } from "./mcp.do";

const MAX_MCP_BODY = 1024 * 1024;
/** Stateless Streamable HTTP: only POST carries messages. */
const ALLOW = "POST, OPTIONS";

const CORS = {
  "access-control-allow-origin": "*",
  // GET and DELETE stay listed so a browser client sees their 405 instead of a CORS failure.
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers":
    "content-type, accept, authorization, x-service-key, mcp-session-id, mcp-protocol-version, last-event-id",
  "access-control-expose-headers": "mcp-session-id, x-request-id",
  "access-control-max-age": "86400",
};

/**
 * Browsers may only reach the endpoint from its own origin or a local tool (the MCP Inspector);
 * this is the DNS-rebinding protection the MCP transport spec asks for. Non-browser clients send
 * no Origin and pass.
 */
function checkOrigin(req: Request) {
  const origin = req.headers.get("origin");
  if (!origin) return;
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    throw new ApiError("FORBIDDEN", "Invalid Origin header");
  }
  const self = new URL(req.url).hostname;
  if (host === self || host === "localhost" || host === "127.0.0.1" || host === "[::1]") return;
  throw new ApiError("FORBIDDEN", `Origin ${origin} may not call this MCP endpoint`);
}

export const mcpRoute = new Hono<AppEnv>();

mcpRoute.options("/mcp", () => new Response(null, { status: 204, headers: CORS }));

// Authenticated here with the same keys as REST; the account's McpEndpoint object serves it.
mcpRoute.on(["GET", "POST", "DELETE"], "/mcp", async (c) => {
  checkOrigin(c.req.raw);
  const caller = (await authenticate(c.env, c.req.raw.headers, "agent")) as AgentPrincipal;
  const body = c.req.method === "POST" ? await readBodyLimited(c.req.raw, MAX_MCP_BODY, "MCP request body") : undefined;
  const headers = new Headers(c.req.raw.headers);
  // The object trusts these three headers, so they are always the Worker's, never the client's
  // (set overwrites whatever the client sent). The credentials were checked here and go no further.
  headers.set(PRINCIPAL_HEADER, JSON.stringify(caller));
  headers.set("x-request-id", c.get("requestId"));
  headers.set(ORIGIN_HEADER, new URL(c.req.url).origin);
  for (const h of ["authorization", "x-service-key", "cookie"]) headers.delete(h);
  const stub = c.env.MCP_ENDPOINT.get(c.env.MCP_ENDPOINT.idFromName(caller.ownerId));
  const res = await stub.fetch(new Request(INTERNAL_MCP_URL, { method: c.req.method, headers, body }));
  const out = new Response(res.body, res);
  for (const [k, v] of Object.entries(CORS)) out.headers.set(k, v);
  // Stateless: GET (server stream) and DELETE (end session) are 405, which must say what is allowed.
  if (out.status === 405) out.headers.set("allow", ALLOW);
  return out;
});

// Any other method (PUT, PATCH…): the same JSON-RPC 405 the transport gives GET and DELETE.
mcpRoute.all("/mcp", (c) =>
  c.json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null }, 405, {
    ...CORS,
    allow: ALLOW,
  }),
);
