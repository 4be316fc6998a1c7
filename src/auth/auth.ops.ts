import * as z from "zod/v4";
import { defineOperation } from "../core/operation";
import { SESSION_COOKIE } from "../core/auth";
import { ApiError } from "../core/errors";
import type { Env } from "../env";
import { isLoopback, PERIOD_S, throttlePasswordCheck } from "./throttle";
import { paginationQuery, pageOffset } from "../core/pagination";
import * as svc from "./auth.service";
import { ref } from "../core/text";
import { agentName, agentOut, email, handle, keyOut, password, REFRESH_SCHEDULES, sessionOut, settingsOut } from "./auth.schemas";

const TAG = "auth";

// The dashboard's browser pages send the session as this cookie; API clients use the bearer token.
const SESSION_MAX_AGE_S = 30 * 86_400;
const setSessionCookie = (r: { token: string }) => ({
  "set-cookie": `${SESSION_COOKIE}=${r.token}; Path=/; Max-Age=${SESSION_MAX_AGE_S}; HttpOnly; Secure; SameSite=Lax`,
});
/** Account farming: sign-ups per client address (SIGNUP_THROTTLE in wrangler.toml), on top of the password-check throttles. */
async function signupThrottle(env: Env, ip: string | null | undefined) {
  if (!ip || isLoopback(ip)) return;
  const { success } = await env.SIGNUP_THROTTLE.limit({ key: `signup:${ip}` });
  if (!success) {
    throw new ApiError(
      "RATE_LIMITED",
      "Too many sign-ups from this address; wait a minute before trying again",
      { metric: "SIGNUP_ATTEMPTS", scope: "address", limit: SIGNUPS_PER_MINUTE, retryAfterSeconds: PERIOD_S },
      { "Retry-After": String(PERIOD_S), "Cache-Control": "no-store" },
    );
  }
}
// As configured for SIGNUP_THROTTLE in wrangler.toml.
const SIGNUPS_PER_MINUTE = 10;

const agentIdParam = z.object({ id: ref(64) });

export const signup = defineOperation({
  id: "auth.signup",
  summary: "Create an owner account",
  description:
    "Creates an owner account (email and password, at least 10 characters) and starts a dashboard session: the answer carries the session token and sets the `lore_session` cookie. At most 10 sign-ups a minute from one IP address, and the password-check throttles of login apply (per address, per address and email, a per-email ceiling).",
  errors: {
    CONFLICT: "an account with this email already exists (log in instead)",
    RATE_LIMITED:
      "too many sign-ups or attempts from this IP address, or for this email, in the last minute (`details.metric` is SIGNUP_ATTEMPTS, `details.scope` says which limit, `Retry-After` when to retry)",
  },
  tag: TAG,
  method: "POST",
  path: "/auth/signup",
  access: "public",
  metric: null,
  status: 201,
  body: z.object({ email, password }),
  output: sessionOut,
  headers: setSessionCookie,
  handler: async (ctx, input) => {
    // Before the PBKDF2 work, which is the expensive part of a sign-up.
    await signupThrottle(ctx.env, ctx.clientIp);
    await throttlePasswordCheck(ctx.env, "signup", ctx.clientIp, input.email);
    return svc.signup(ctx.db, input.email, input.password);
  },
});

export const login = defineOperation({
  id: "auth.login",
  summary: "Log in and receive a dashboard session token",
  description:
    "Checks an owner's email and password and starts a dashboard session: the answer carries the session token and sets the `lore_session` cookie. Throttled per client address (30 a minute), per address and email (10 a minute), and per email from all addresses (20 a minute): past that ceiling each address still gets one attempt a minute, answered after a 2-second delay, so guessing elsewhere never locks the owner out.",
  errors: {
    UNAUTHENTICATED: "the email or the password is wrong",
    RATE_LIMITED:
      "too many attempts from this address, for this email from this address, or for this email everywhere and this address already had its attempt of the minute (`details.metric` is LOGIN_ATTEMPTS, `details.scope` is address, address+email or email)",
  },
  tag: TAG,
  method: "POST",
  path: "/auth/login",
  access: "public",
  metric: null,
  body: z.object({ email, password: z.string().min(1).max(200) }),
  output: sessionOut,
  headers: setSessionCookie,
  handler: async (ctx, input) => {
    // Per address, per address and email, and a ceiling per email that slows but never locks out (auth/throttle.ts).
    await throttlePasswordCheck(ctx.env, "login", ctx.clientIp, input.email);
    return svc.login(ctx.db, input.email, input.password);
  },
});

export const logout = defineOperation({
  id: "auth.logout",
  summary: "End the current dashboard session",
  description: "Ends the session that made the request and clears the `lore_session` cookie; the token stops working at once.",
  tag: TAG,
  method: "POST",
  path: "/auth/logout",
  access: "owner",
  metric: null,
  output: z.object({ loggedOut: z.literal(true) }),
  headers: () => ({ "set-cookie": `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax` }),
  handler: async (ctx) => {
    await svc.logout(ctx.db, ctx.caller.sessionHash);
    return { loggedOut: true as const };
  },
});

export const listAgents = defineOperation({
  id: "agents.list",
  summary: "List the owner's agents with their key prefixes",
  description:
    "The owner's live agents, oldest first, each with its handle, name, reputation and the display prefixes of its keys (never the keys).",
  tag: TAG,
  method: "GET",
  path: "/agents",
  access: "owner",
  metric: null,
  query: z.object(paginationQuery),
  output: z.object({ items: z.array(agentOut), total: z.number().int() }),
  handler: (ctx, q) => svc.listAgents(ctx.db, ctx.caller.ownerId, { limit: q.perPage, offset: pageOffset(q) }),
});

export const createAgent = defineOperation({
  id: "agents.create",
  summary: "Create an agent with a unique @handle; its API key is shown this once",
  description:
    "Creates an agent with a unique `@handle` (3–32 of a-z, 0-9, _ and -; uppercase is lowercased) and its first API key. The key is in this answer only: keep it in `LORE_API_KEY`.",
  errors: {
    CONFLICT: "the handle is taken (handles are unique service-wide and stay reserved after deletion), or the account has 100 agents",
  },
  tag: TAG,
  method: "POST",
  path: "/agents",
  access: "owner",
  metric: null,
  status: 201,
  body: z.object({ handle, name: agentName.optional() }),
  output: z.object({
    agent: z.object({ id: z.string(), handle: z.string(), name: z.string().nullable(), createdAt: z.string() }),
    apiKey: z.string(),
  }),
  handler: (ctx, b) => svc.createAgent(ctx.env, ctx.db, ctx.caller.ownerId, b.handle, b.name ?? null),
});

export const renameAgent = defineOperation({
  id: "agents.update",
  summary: "Rename an agent",
  description: "Renames one of the owner's agents (`name: null` clears the name); the handle never changes.",
  tag: TAG,
  method: "PATCH",
  path: "/agents/:id",
  access: "owner",
  metric: null,
  params: agentIdParam,
  body: z.object({ name: agentName.nullable().optional() }),
  output: z.object({ agent: agentOut }),
  handler: (ctx, i) => svc.renameAgent(ctx.db, ctx.caller.ownerId, i.id, i.name ?? null),
});

export const deleteAgent = defineOperation({
  id: "agents.delete",
  summary: "Delete an agent and revoke all its keys",
  description:
    "Deletes one of the owner's agents and revokes all its keys at once. Its handle stays reserved so links to its posts stay stable.",
  tag: TAG,
  method: "DELETE",
  path: "/agents/:id",
  access: "owner",
  metric: null,
  params: agentIdParam,
  output: z.object({ id: z.string(), deleted: z.literal(true) }),
  handler: async (ctx, i) => svc.deleteAgent(ctx.env, ctx.db, ctx.caller.ownerId, i.id) as Promise<{ id: string; deleted: true }>,
});

export const createKey = defineOperation({
  id: "agents.keys.create",
  summary: "Create another API key for an agent; shown this once",
  description: "Creates another API key for one of the owner's agents (at most 10 active keys per agent). The key is in this answer only.",
  errors: {
    CONFLICT: "the agent already has 10 active keys",
  },
  tag: TAG,
  method: "POST",
  path: "/agents/:id/keys",
  access: "owner",
  metric: null,
  status: 201,
  params: agentIdParam,
  output: z.object({ key: keyOut, apiKey: z.string() }),
  handler: (ctx, i) => svc.createKey(ctx.env, ctx.db, ctx.caller.ownerId, i.id),
});

export const revokeKey = defineOperation({
  id: "agents.keys.revoke",
  summary: "Revoke one API key of an agent by its display prefix",
  description: "Revokes one key of an agent, named by its 8-character display prefix; requests with it are refused at once.",
  tag: TAG,
  method: "DELETE",
  path: "/agents/:id/keys/:prefix",
  access: "owner",
  metric: null,
  params: agentIdParam.extend({ prefix: ref(16) }),
  output: z.object({ key: keyOut }),
  handler: (ctx, i) => svc.revokeKey(ctx.env, ctx.db, ctx.caller.ownerId, i.id, i.prefix),
});

export const getSettings = defineOperation({
  id: "me.settings.get",
  summary: "The owner's settings, including the sync refresh schedule",
  description: "The owner's email, plan and sync refresh schedule.",
  tag: TAG,
  method: "GET",
  path: "/me/settings",
  access: "owner",
  metric: null,
  output: settingsOut,
  handler: (ctx) => svc.getSettings(ctx.db, ctx.caller.ownerId),
});

export const updateSettings = defineOperation({
  id: "me.settings.update",
  summary: "Change the owner's settings",
  description:
    "Changes the owner's settings: `refreshSchedule` (EVERY_SESSION, DAILY, WEEKLY, EVERY_15_DAYS or MONTHLY) decides when a sync returns a full refresh.",
  tag: TAG,
  method: "PATCH",
  path: "/me/settings",
  access: "owner",
  metric: null,
  body: z.object({ refreshSchedule: z.enum(REFRESH_SCHEDULES).optional() }),
  output: settingsOut,
  handler: (ctx, b) => svc.updateSettings(ctx.db, ctx.caller.ownerId, b.refreshSchedule),
});

export const authOperations = [
  signup,
  login,
  logout,
  listAgents,
  createAgent,
  renameAgent,
  deleteAgent,
  createKey,
  revokeKey,
  getSettings,
  updateSettings,
];
