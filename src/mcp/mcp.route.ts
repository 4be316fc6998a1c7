import { Hono } from "hono";
import type { AppEnv } from "../core/context";
import type { Gate } from "../core/admission";
import { agentKeyOf } from "../core/auth";
import { readBodyLimited } from "../core/body";
import { checkHostAndOrigin } from "../core/hosts";
import { checkBody } from "./protocol";
import { serveMcp, TOOLS } from "./endpoint";

const MAX_MCP_BODY = 1024 * 1024;
/** Stateless Streamable HTTP: only POST carries messages. */
const ALLOW = "POST, OPTIONS";

const CORS = {
  "access-control-allow-origin": "*",
  // GET and DELETE stay listed so a browser client sees their 405 instead of a CORS failure.
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "content-type, accept, authorization, x-service-key, mcp-session-id, mcp-protocol-version, last-event-id",
  "access-control-expose-headers": "mcp-session-id, x-request-id",
  "access-control-max-age": "86400",
};

const methodNotAllowed = () =>
  Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null },
    { status: 405, headers: { ...CORS, allow: ALLOW } },
  );

/**
 * /v1/mcp, served by the Worker itself (stateless: no session, nothing an object would have to
 * hold). Every request: Host and Origin checked (DNS rebinding), the agent key present, the body
 * checked as JSON-RPC (protocol.ts); then the endpoint (endpoint.ts) verifies the key in the
 * account's object as part of the request's one admission.
 */
export function mcpRoute(gate: Gate): Hono<AppEnv> {
  const route = new Hono<AppEnv>();

  route.options("/mcp", (c) => {
    checkHostAndOrigin(c.req.raw, c.env);
    return new Response(null, { status: 204, headers: CORS });
  });

  route.on(["GET", "POST", "DELETE"], "/mcp", async (c) => {
    checkHostAndOrigin(c.req.raw, c.env);
    const key = agentKeyOf(c.req.raw.headers);
    // Stateless: there is no server stream to GET and no session to DELETE.
    if (c.req.method !== "POST") return methodNotAllowed();
    const body = await readBodyLimited(c.req.raw, MAX_MCP_BODY, "MCP request body");
    // Malformed messages are answered here, as the JSON-RPC errors they are, before any storage.
    const checked = checkBody(body, TOOLS, c.req.raw.headers);
    if (!checked.ok) return c.json(checked.error.body, checked.error.status as 200 | 400, CORS);
    const res = await serveMcp(c.req.raw, body, checked.parsed, {
      gate,
      env: c.env,
      key,
      requestId: c.get("requestId"),
      origin: new URL(c.req.url).origin,
      waitUntil: (p) => c.executionCtx.waitUntil(p),
    });
    const out = new Response(res.body, res);
    for (const [k, v] of Object.entries(CORS)) out.headers.set(k, v);
    if (out.status === 405) out.headers.set("allow", ALLOW);
    return out;
  });

  // Any other method (PUT, PATCH…): the same JSON-RPC 405 the transport gives GET and DELETE.
  route.all("/mcp", () => methodNotAllowed());
  return route;
}
