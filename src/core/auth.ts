import type { Env } from "../env";
import { ApiError } from "./errors";
import { sha256Hex } from "./crypto";
import { now } from "./clock";
import { macCandidates, macSign, sameText, toBase62, type MacSecrets } from "./mac";
import type { OwnerPrincipal, Principal } from "./principal";

export const AGENT_KEY_PREFIX = "lore_";
export const SESSION_PREFIX = "lore_s_";
export const SESSION_COOKIE = "lore_session";

/**
 * Agent keys name their account in clear after the secret, with a tag that proves Lore wrote that
 * name: `lore_<secret><tag>_<account id>`, the secret 43 base62 characters (256 bits), the tag 22
 * (the first 128 bits of HMAC-SHA256 under `KEY_SECRET` of the secret and the account id). The
 * Worker checks the tag before it addresses the account's AccountQuota object, so a made-up key
 * costs no object, no storage and no D1 read; the object holds the SHA-256 of the account's live
 * keys and decides. The secret comes first so the 8-character display prefix (`lore_` and 3 secret
 * characters) still tells an agent's keys apart.
 *
 * Keys from before the tag (`lore_<secret>_<account id>`) and from before keys named their account
 * (`lore_` + 43 characters) keep working: one D1 read per isolate routes them (quota.client.ts).
 */
const TAGGED_KEY = /^lore_([0-9A-Za-z]{43})([0-9A-Za-z]{22})_([a-z0-9_]{1,64})$/;
const ROUTED_KEY = /^lore_([0-9A-Za-z]{43})_([a-z0-9_]{1,64})$/;

const keySecrets = (env: Env): MacSecrets => ({ name: "KEY_SECRET", current: env.KEY_SECRET, previous: env.KEY_SECRET_PREVIOUS });
const tagInput = (secret: string, ownerId: string) => `lore-agent-key\u0000${secret}\u0000${ownerId}`;
const TAG_CHARS = 22;
const tagText = (mac: Uint8Array) => toBase62(mac.subarray(0, 16), TAG_CHARS);

/** A new agent key for an account, from 43 base62 characters of secret, tagged under KEY_SECRET (a 500 when it is not set). */
export async function agentKeyFor(env: Env, ownerId: string, secret: string): Promise<string> {
  const key = `${AGENT_KEY_PREFIX}${secret}${tagText(await macSign(keySecrets(env), tagInput(secret, ownerId)))}_${ownerId}`;
  if (!TAGGED_KEY.test(key)) throw new Error("agentKeyFor: the secret must be 43 base62 characters and the account id [a-z0-9_]");
  return key;
}

/** The account a key names in clear, or null (a key from before keys named their account, or no key at all). Nothing verified. */
export function accountOfKey(key: string): string | null {
  return (TAGGED_KEY.exec(key)?.[3] ?? ROUTED_KEY.exec(key)?.[2]) || null;
}

/**
 * Where a key's account comes from: `{ownerId}` for a key whose tag verifies under KEY_SECRET or a
 * previous secret (its account is the one it names), `"lookup"` for a key from before tags (D1
 * knows its account, if any), null for anything else: not a key Lore made, refused without storage.
 */
export async function keyAccount(env: Env, key: string): Promise<{ ownerId: string } | "lookup" | null> {
  const m = TAGGED_KEY.exec(key);
  if (!m) return ROUTED_KEY.test(key) || /^lore_[0-9A-Za-z]{43}$/.test(key) ? "lookup" : null;
  const [, secret, tag, ownerId] = m as unknown as [string, string, string, string];
  for (const mac of await macCandidates(keySecrets(env), tagInput(secret, ownerId))) {
    if (sameText(tagText(mac), tag)) return { ownerId };
  }
  return null;
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
  if (!cred.token.startsWith(AGENT_KEY_PREFIX) || cred.token.length > 200)
    throw new ApiError("UNAUTHENTICATED", "The agent key is unknown or revoked");
  return cred.token;
}

/**
 * The one auth path for dashboard endpoints (agent endpoints: `agentKeyOf`, then the admission):
 * a live session token; an agent key is 403. Public endpoints need no caller and resolve none: a
 * credential sent to them is ignored unread, so they address no account object and read no session.
 */
export async function authenticate(env: Env, headers: Headers, access: "public" | "owner"): Promise<Principal | null> {
  if (access === "public") return null;
  const cred = readCredential(headers);
  if (!cred) throw new ApiError("UNAUTHENTICATED", "A dashboard session is required: log in with POST /v1/auth/login");
  if (cred.kind === "agent") {
    throw new ApiError("FORBIDDEN", "Dashboard endpoints need a session token; agent keys cannot manage accounts");
  }
  const owner = await ownerFromSession(env, cred.token);
  if (!owner) throw new ApiError("UNAUTHENTICATED", "The session is unknown, expired or logged out");
  return owner;
}
