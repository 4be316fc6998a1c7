import { type Context, Hono } from "hono";
import type { AppEnv } from "../core/context";
import type { Gate } from "../core/admission";
import type { ActivitySink } from "../core/activity";
import { agentKeyOf } from "../core/auth";
import { readBodyLimited } from "../core/body";
import { checkHostAndOrigin } from "../core/hosts";
import { corsPreflightHeaders } from "../core/cors";
import { checkBody } from "./protocol";
import { builtHere, refused, serveMcp, TOOLS } from "./endpoint";
import { ApiError } from "../core/errors";
import {
  KEY_HASH_HEADER,
  ORIGIN_HEADER,
  OWNER_HEADER,
  REQUEST_ID_HEADER,
  SESSION_ID,
  inSessionVersion,
  sessionNotFound,
  type McpSessions,
} from "./sessions.do";
import type { ToolCall } from "../core/mcp-tools";

const MAX_MCP_BODY = 1024 * 1024;
/** Without a session only POST carries messages; GET and DELETE need one. */
const ALLOW = "POST, OPTIONS";

const CORS = corsPreflightHeaders("mcp", ["GET", "POST", "DELETE"]);

const methodNotAllowed = () =>
  Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null },
    { status: 405, headers: { ...CORS, allow: ALLOW } },
  );

const isInitialize = (m: unknown) =>
  typeof m === "object" && m !== null && !Array.isArray(m) && (m as { method?: unknown }).method === "initialize";

/**
 * /v1/mcp. Every request: Host and Origin checked (DNS rebinding), the agent key present, the body
 * checked as JSON-RPC (protocol.ts). Then an `initialize`, and every request naming a session
 * (`Mcp-Session-Id`: POST, the GET stream, DELETE), goes to the account's McpSessions object
 * (sessions.do.ts), addressed by the account the key names, except a session's tools/list and ping:
 * the object only checks and touches the session, and they are answered here with its version. Any
 * other request is served here, statelessly (endpoint.ts), with the key verified in the account's
 * object as part of its one admission.
 */
export function mcpRoute(gate: Gate, activity: ActivitySink | null): Hono<AppEnv> {
  const route = new Hono<AppEnv>();

  route.options("/mcp", (c) => {
    checkHostAndOrigin(c.req.raw, c.env);
    return new Response(null, { status: 204, headers: CORS });
  });

  route.on(["GET", "POST", "DELETE"], "/mcp", async (c) => {
    checkHostAndOrigin(c.req.raw, c.env);
    const key = agentKeyOf(c.req.raw.headers);
    const sid = c.req.header("mcp-session-id");
    // Without a session there is no server stream to GET and nothing to DELETE.
    if (c.req.method !== "POST" && sid === undefined) return methodNotAllowed();
    let body: Uint8Array | undefined;
    let parsed: unknown;
    if (c.req.method === "POST") {
      body = await readBodyLimited(c.req.raw, MAX_MCP_BODY, "MCP request body");
      // Malformed messages are answered here, as the JSON-RPC errors they are, before any storage.
      const checked = await checkBody(body, TOOLS, c.req.raw.headers);
      if (!checked.ok) return c.json(checked.error.body, checked.error.status as 200 | 400, CORS);
      if (sid === undefined && !isInitialize(checked.parsed)) return stateless(c, gate, activity, key, body, checked.parsed);
      parsed = checked.parsed;
    }
    return withCors(await toSessions(c, gate, activity, key, sid, body, parsed));
  });

  // Any other method (PUT, PATCH…): the same JSON-RPC 405 the transport gives GET and DELETE.
  route.all("/mcp", () => methodNotAllowed());
  return route;
}

function withCors(res: Response): Response {
  // A fetched response's headers cannot be changed: it is copied (endpoint.ts's own are not).
  const out = builtHere(res) ? res : new Response(res.body, res);
  for (const [k, v] of Object.entries(CORS)) out.headers.set(k, v);
  if (out.status === 405) out.headers.set("allow", ALLOW);
  return out;
}

/**
 * To the account's sessions object. A session id that is not one Lore could have made is 404 here,
 * and a key that names no account is the endpoint's 401, both before any object is addressed. The
 * object trusts the account and key hash it is handed: only this route reaches it.
 */
async function toSessions(
  c: Context<AppEnv>,
  gate: Gate,
  activity: ActivitySink | null,
  key: string,
  sid: string | undefined,
  body: Uint8Array | undefined,
  parsed: unknown,
) {
  if (sid !== undefined && !SESSION_ID.test(sid)) return sessionNotFound();
  const account = await gate.route(c.env, key);
  if (!account) return refused(new ApiError("UNAUTHENTICATED", "The agent key is unknown or revoked"), c.get("requestId"));
  const stub = c.env.MCP_SESSIONS.get(c.env.MCP_SESSIONS.idFromName(account.ownerId)) as DurableObjectStub<McpSessions>;
  if (sid !== undefined && body !== undefined && answeredHere(parsed)) {
    // The object keeps the session alive and names its version; the answer is made here, so its
    // bytes (a tools/list is the largest answer of a session) never cross the object's hop.
    const session = await stub.touch(sid, account.keyHash);
    if (session === "not-found") return sessionNotFound();
    if (session === "revoked") return refused(new ApiError("UNAUTHENTICATED", "The agent key is unknown or revoked"), c.get("requestId"));
    const request = inSessionVersion(c.req.raw, session.protocolVersion);
    const res = await serveMcp(request, body, parsed, callOf(c, gate, activity, key));
    const out = builtHere(res) ? res : new Response(res.body, res);
    out.headers.set("mcp-session-id", sid);
    return out;
  }
  const headers = new Headers(c.req.raw.headers);
  headers.set(OWNER_HEADER, account.ownerId);
  headers.set(KEY_HASH_HEADER, account.keyHash);
  headers.set(REQUEST_ID_HEADER, c.get("requestId"));
  headers.set(ORIGIN_HEADER, new URL(c.req.url).origin);
  return stub.fetch(
    new Request(`https://mcp.lore.internal${c.req.path}`, { method: c.req.method, headers, body, signal: c.req.raw.signal }),
  );
}

/** One tools/list or ping request (not a batch, not a notification): nothing in its answer is the session object's but the version. */
const answeredHere = (m: unknown) =>
  typeof m === "object" &&
  m !== null &&
  !Array.isArray(m) &&
  "id" in m &&
  ((m as { method?: unknown }).method === "tools/list" || (m as { method?: unknown }).method === "ping");

const callOf = (c: Context<AppEnv>, gate: Gate, activity: ActivitySink | null, key: string): ToolCall => ({
  gate,
  activity,
  env: c.env,
  key,
  requestId: c.get("requestId"),
  origin: new URL(c.req.url).origin,
  waitUntil: (p) => c.executionCtx.waitUntil(p),
});

async function stateless(c: Context<AppEnv>, gate: Gate, activity: ActivitySink | null, key: string, body: Uint8Array, parsed: unknown) {
  return withCors(await serveMcp(c.req.raw, body, parsed, callOf(c, gate, activity, key)));
}
