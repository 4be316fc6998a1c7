import type { MiddlewareHandler } from "hono";
import type { AnyOperation } from "./operation";

/**
 * Cross-origin access comes in three classes (README "CORS"), never with credentials:
 *
 * - `public`: public read-only routes (GET and HEAD of public operations, the OpenAPI document,
 *   the skill discovery paths). Any origin may read them: `Access-Control-Allow-Origin: *`.
 * - `agent`: agent-key endpoints. Any origin may call them with `Authorization` (or
 *   `x-service-key`): the key is the credential, and cookies are never read there, so a page
 *   cannot act with a visitor's ambient authority.
 * - `mcp`: the MCP endpoint (src/mcp/mcp.route.ts), an agent-key endpoint whose clients also send
 *   and read the session and protocol headers; it sends every CORS header on every answer.
 * - `files`: public files read with validators (the skills discovery paths at /.well-known): any
 *   origin may read them and their `ETag`, and revalidate with `If-None-Match`.
 * - none: the dashboard's cookie routes (and the public sign-up and login, which set the cookie)
 *   send no CORS headers, so browsers keep them same-origin; the CSRF guard in core/auth.ts covers
 *   the rest.
 *
 * Operations get their class from `access` and `method` (core/rest.ts applies it). A route that
 * is not an operation opts in with `publicReadCors` (the OpenAPI document), or takes the headers
 * of its class from here (the MCP endpoint, the skills discovery routes).
 */
export type CorsClass = "public" | "agent" | "mcp" | "files";

export function corsClassOf(op: Pick<AnyOperation, "access" | "method">): CorsClass | null {
  if (op.access === "agent") return "agent";
  if (op.access === "public" && op.method === "GET") return "public";
  return null;
}

const MAX_AGE = "86400";

const EXPOSE: Record<CorsClass, string> = {
  public: "x-request-id",
  agent: "x-request-id, ratelimit, ratelimit-policy, retry-after",
  mcp: "mcp-session-id, x-request-id",
  files: "ETag, Content-Length, Content-Type",
};

const ALLOW_HEADERS: Record<CorsClass, string> = {
  // Public routes read a credential when one is sent (profiles and lists do not need one).
  public: "authorization, x-service-key, x-request-id",
  agent: "authorization, x-service-key, content-type, x-request-id",
  mcp: "content-type, accept, authorization, x-service-key, mcp-session-id, mcp-protocol-version, last-event-id",
  files: "If-None-Match",
};

/** Headers for an actual (non-preflight) response of this class. */
export function corsResponseHeaders(cls: CorsClass): Record<string, string> {
  return { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSE[cls] };
}

/** Every CORS header of this class: what a preflight answers, the methods of the class and the headers a page may send. */
export function corsPreflightHeaders(cls: CorsClass, corsMethods: readonly string[]): Record<string, string> {
  return {
    ...corsResponseHeaders(cls),
    "access-control-allow-methods": [...corsMethods, "OPTIONS"].join(", "),
    "access-control-allow-headers": ALLOW_HEADERS[cls],
    "access-control-max-age": MAX_AGE,
  };
}

/** A preflight answer: the methods of this class on the path, the headers it may send. */
export function preflightResponse(cls: CorsClass | null, allow: readonly string[], corsMethods: readonly string[]): Response {
  const headers: Record<string, string> = { allow: allow.join(", "), ...(cls ? corsPreflightHeaders(cls, corsMethods) : {}) };
  return new Response(null, { status: 204, headers });
}

export const isPreflight = (req: Request) => req.method === "OPTIONS" && req.headers.has("access-control-request-method");

/**
 * For routes that are not operations but are public and read-only (GET/HEAD): answers their
 * preflight and marks their responses readable from any origin.
 */
export const publicReadCors: MiddlewareHandler = async (c, next) => {
  if (c.req.method === "OPTIONS") {
    return preflightResponse(isPreflight(c.req.raw) ? "public" : null, ["GET", "HEAD"], ["GET", "HEAD"]);
  }
  await next();
  if (c.req.method === "GET" || c.req.method === "HEAD")
    for (const [k, v] of Object.entries(corsResponseHeaders("public"))) c.res.headers.set(k, v);
};
