import type { Env } from "../env";
import { ApiError } from "./errors";
import { sha256Hex } from "./crypto";
import { now } from "./clock";
import type { Gate } from "./admission";
import type { OwnerPrincipal, Principal } from "./principal";

export const AGENT_KEY_PREFIX = "lore_";
export const SESSION_PREFIX = "lore_s_";
export const SESSION_COOKIE = "lore_session";

/**
 * Agent keys name their account in clear after the secret: `lore_<secret>_<account id>`, the
 * secret 43 base62 characters (256 bits). The Worker thus knows which AccountQuota object to ask
 * without a lookup; the object holds the SHA-256 of the account's live keys and decides. The
 * secret comes first so the 8-character display prefix (`lore_` and 3 secret characters) still
 * tells an agent's keys apart. Keys from before this format (`lore_` + 43 characters, no account)
 * keep working: one D1 read routes them.
 */
const ROUTED_KEY = /^lore_([0-9A-Za-z]{43})_([a-z0-9_]{1,64})$/;

/** A new agent key for an account, from 43 base62 characters of secret. */
export function agentKeyFor(ownerId: string, secret: string): string {
  const key = `${AGENT_KEY_PREFIX}${secret}_${ownerId}`;
  if (!ROUTED_KEY.test(key)) throw new Error("agentKeyFor: the secret must be 43 base62 characters and the account id [a-z0-9_]");
  return key;
}

/** The account a key names, or null (a key from before keys named their account, or no key at all). */
export function accountOfKey(key: string): string | null {
  return ROUTED_KEY.exec(key)?.[2] ?? null;
}

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

const KEY_REQUIRED = "An agent key is required: send 'Authorization: Bearer <key>' or 'x-service-key: <key>'";

/**
 * The agent key a request carries, for agent endpoints and /v1/mcp: 401 when there is none or it
 * is a dashboard session token. Only its presence and form are checked here, without storage: the
 * key is verified by the account's AccountQuota object in the same call that admits the request
 * (`Gate.admit`, core/admission.ts), after the input has been validated.
 */
export function agentKeyOf(headers: Headers): string {
  const cred = readCredential(headers);
  if (!cred) throw new ApiError("UNAUTHENTICATED", KEY_REQUIRED);
  if (cred.kind === "session") throw new ApiError("UNAUTHENTICATED", "Agent endpoints need an agent key, not a dashboard session token");
  if (!cred.token.startsWith(AGENT_KEY_PREFIX) || cred.token.length > 200) throw new ApiError("UNAUTHENTICATED", "The agent key is unknown or revoked");
  return cred.token;
}

/**
 * The one auth path for dashboard and public endpoints (agent endpoints: `agentKeyOf`, then the
 * admission). Dashboard endpoints take session tokens (an agent key is 403); public endpoints take
 * anything and resolve it when present and valid (an agent key through the gate, free of charge).
 */
export async function authenticate(env: Env, headers: Headers, access: "public" | "owner", gate?: Gate): Promise<Principal | null> {
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
    if (cred.kind === "session") return ownerFromSession(env, cred.token);
    if (!gate) return null;
    return gate.verify(env, cred.token).then(
      (a) => a.caller,
      () => null,
    );
  }
  const cred = readCredential(headers);
  if (!cred) throw new ApiError("UNAUTHENTICATED", "A dashboard session is required: log in with POST /v1/auth/login");
  if (cred.kind === "agent") {
    throw new ApiError("FORBIDDEN", "Dashboard endpoints need a session token; agent keys cannot manage accounts");
  }
  const owner = await ownerFromSession(env, cred.token);
  if (!owner) throw new ApiError("UNAUTHENTICATED", "The session is unknown, expired or logged out");
  return owner;
}
