import { Hono } from "hono";
import type { AppEnv } from "../core/context";
import { authenticate } from "../core/auth";
import { readBodyLimited } from "../core/body";
import type { AgentPrincipal } from "../core/principal";
import { checkHostAndOrigin } from "../core/hosts";
import { OPERATIONS } from "../operations";
import { INTERNAL_MCP_URL, ORIGIN_HEADER, PRINCIPAL_HEADER } from "./mcp.do";
import { checkBody } from "./protocol";

const MAX_MCP_BODY = 1024 * 1024;
/** Stateless Streamable HTTP: only POST carries messages. */
const ALLOW = "POST, OPTIONS";

const TOOLS: ReadonlySet<string> = new Set(OPERATIONS.flatMap((o) => (o.mcp ? [o.mcp.tool] : [])));

const CORS = {
  "access-control-allow-origin": "*",
  // GET and DELETE stay listed so a browser client sees their 405 instead of a CORS failure.
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers":
    "content-type, accept, authorization, x-service-key, mcp-session-id, mcp-protocol-version, last-event-id",
  "access-control-expose-headers": "mcp-session-id, x-request-id",
  "access-control-max-age": "86400",
};

export const mcpRoute = new Hono<AppEnv>();

mcpRoute.options("/mcp", (c) => {
  checkHostAndOrigin(c.req.raw, c.env);
  return new Response(null, { status: 204, headers: CORS });
});

// Authenticated here with the same keys as REST; the account's McpEndpoint object serves it.
mcpRoute.on(["GET", "POST", "DELETE"], "/mcp", async (c) => {
  checkHostAndOrigin(c.req.raw, c.env);
  const caller = (await authenticate(c.env, c.req.raw.headers, "agent")) as AgentPrincipal;
  const body = c.req.method === "POST" ? await readBodyLimited(c.req.raw, MAX_MCP_BODY, "MCP request body") : undefined;
  if (body) {
    // Malformed messages are answered here, as the JSON-RPC errors they are (protocol.ts).
    const checked = checkBody(body, TOOLS);
    if (!checked.ok) return c.json(checked.error.body, checked.error.status as 200 | 400, CORS);
  }
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
