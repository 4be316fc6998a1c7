import type { Env } from "../env";
import { ApiError } from "./errors";
import { sha256Hex } from "./crypto";
import { now } from "./clock";
import type { Access } from "./operation";
import type { AgentPrincipal, OwnerPrincipal, Principal } from "./principal";

export const AGENT_KEY_PREFIX = "lore_";
export const SESSION_PREFIX = "lore_s_";
export const SESSION_COOKIE = "lore_session";

type Credential = { kind: "agent" | "session"; token: string } | null;

/** Reads the one credential a request carries: Bearer, x-service-key, or the session cookie. */
export function readCredential(headers: Headers): Credential {
  const auth = headers.get("authorization");
  let token: string | undefined;
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) throw new ApiError("UNAUTHENTICATED", "Authorization header must be 'Bearer <key>'");
    token = m[1];
  }
  token ??= headers.get("x-service-key")?.trim() || undefined;
  if (!token) {
    const cookie = headers.get("cookie");
    const m = cookie && new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([^;]+)`).exec(cookie);
    const fromCookie = m?.[1] ? safeDecode(m[1].trim()) : "";
    // The cookie only ever carries a dashboard session: an agent key there is ignored, so a
    // browser's ambient cookie can never act as an agent.
    if (fromCookie.startsWith(SESSION_PREFIX)) return { kind: "session", token: fromCookie };
    return null;
  }
  if (token.startsWith(SESSION_PREFIX)) return { kind: "session", token };
  return { kind: "agent", token };
}

/** A cookie value with broken percent-encoding is just an unknown token, never a 500. */
function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

async function agentFromKey(env: Env, key: string): Promise<AgentPrincipal | null> {
  if (!key.startsWith(AGENT_KEY_PREFIX) || key.length > 200) return null;
  const hash = await sha256Hex(key);
  const row = await env.DB.prepare(
    `SELECT k.prefix, a.id AS agent_id, a.handle, o.id AS owner_id, o.plan, o.plan_period_end, o.plan_status
       FROM api_keys k JOIN agents a ON a.id = k.agent_id JOIN owners o ON o.id = a.owner_id
      WHERE k.key_hash = ? AND k.revoked_at IS NULL AND a.deleted_at IS NULL`,
  )
    .bind(hash)
    .first<{ prefix: string; agent_id: string; handle: string; owner_id: string; plan: string; plan_period_end: number | null; plan_status: string }>();
  if (!row) return null;
  return {
    kind: "agent",
    agentId: row.agent_id,
    handle: row.handle,
    ownerId: row.owner_id,
    plan: row.plan,
    planPeriodEnd: row.plan_period_end,
    planStatus: row.plan_status,
    keyPrefix: row.prefix,
  };
}

async function ownerFromSession(env: Env, token: string): Promise<OwnerPrincipal | null> {
  const hash = await sha256Hex(token);
  const row = await env.DB.prepare(
    `SELECT o.id, o.email FROM sessions s JOIN owners o ON o.id = s.owner_id
      WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > ?`,
  )
    .bind(hash, now())
    .first<{ id: string; email: string }>();
  return row ? { kind: "owner", ownerId: row.id, email: row.email, sessionHash: hash } : null;
}

/**
 * Whether a request came from this origin's own pages, as far as the browser tells: `Origin` when
 * it is sent, else `Sec-Fetch-Site` (neither can be set by page script). A request carrying
 * neither is not from a browser (curl, an SDK) and passes.
 */
export function fromThisOrigin(req: Request): boolean {
  const h = req.headers;
  const origin = h.get("origin");
  const fetchSite = h.get("sec-fetch-site");
  // Chromium sends `Origin: null` on a same-origin form post when the page's referrer policy is
  // no-referrer (and from sandboxed frames, data: URLs…): only Sec-Fetch-Site can tell them apart.
  if (origin === "null") return fetchSite === "same-origin";
  if (origin) return origin === new URL(req.url).origin;
  return !fetchSite || fetchSite === "same-origin" || fetchSite === "none";
}

const CROSS_ORIGIN_MESSAGE =
  "This request must come from this site's own pages: state-changing requests carried by the session cookie, and the dashboard's forms, refuse other origins";

/** For the dashboard's own forms (login and signup included, against login CSRF): 403 unless from this origin. */
export function assertFromThisOrigin(req: Request): void {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return;
  if (!fromThisOrigin(req)) throw new ApiError("FORBIDDEN", CROSS_ORIGIN_MESSAGE);
}

/**
 * CSRF guard for the one ambient credential, the session cookie: a state-changing request that
 * authenticates only by the cookie must come from this origin. SameSite=Lax already keeps the
 * cookie off cross-site POSTs; this also covers sibling subdomains (same-site, other origin), which
 * matters because JSON bodies are read whatever their Content-Type.
 */
export function checkCookieOrigin(req: Request): void {
  const h = req.headers;
  if (h.get("authorization") || h.get("x-service-key")?.trim() || !h.get("cookie")?.includes(`${SESSION_COOKIE}=`)) return;
  assertFromThisOrigin(req);
}

/**
 * The one auth path, for REST routes and the MCP endpoint alike. Agent endpoints take agent keys
 * (a session token is 401); dashboard endpoints take session tokens (an agent key is 403);
 * public endpoints take anything and resolve it when present and valid.
 */
export async function authenticate(env: Env, headers: Headers, access: Access): Promise<Principal | null> {
  if (access === "public") {
    // Public endpoints need nothing, so a malformed header (say `Authorization: Basic …` set by a
    // proxy) is ignored like an unknown key, not refused.
    let cred: Credential;
    try {
      cred = readCredential(headers);
    } catch {
      return null;
    }
    if (!cred) return null;
    return cred.kind === "agent" ? agentFromKey(env, cred.token) : ownerFromSession(env, cred.token);
  }
  const cred = readCredential(headers);
  if (!cred) {
    throw new ApiError(
      "UNAUTHENTICATED",
      access === "agent"
        ? "An agent key is required: send 'Authorization: Bearer <key>' or 'x-service-key: <key>'"
        : "A dashboard session is required: log in with POST /v1/auth/login",
    );
  }
  if (access === "agent") {
    if (cred.kind === "session") {
      throw new ApiError("UNAUTHENTICATED", "Agent endpoints need an agent key, not a dashboard session token");
    }
    const agent = await agentFromKey(env, cred.token);
    if (!agent) throw new ApiError("UNAUTHENTICATED", "The agent key is unknown or revoked");
    return agent;
  }
  if (cred.kind === "agent") {
    throw new ApiError("FORBIDDEN", "Dashboard endpoints need a session token; agent keys cannot manage accounts");
  }
  const owner = await ownerFromSession(env, cred.token);
  if (!owner) throw new ApiError("UNAUTHENTICATED", "The session is unknown, expired or logged out");
  return owner;
}
