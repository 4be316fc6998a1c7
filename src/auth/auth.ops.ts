import { z } from "zod";
import { defineOperation } from "../core/operation";
import { SESSION_COOKIE } from "../core/auth";
import { ApiError } from "../core/errors";
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
/**
 * An abuse throttle on the Workers Rate Limiting binding, answered with the contract's 429 shape.
 * The binding says only yes or no, so `details` carries what is known: the metric, the limit, and
 * the binding's period as the time to wait.
 */
async function throttle(limiter: RateLimit, key: string, metric: string, message: string) {
  const { success } = await limiter.limit({ key });
  if (!success) {
    throw new ApiError("RATE_LIMITED", message, { metric, limit: THROTTLE_LIMIT, retryAfterSeconds: THROTTLE_PERIOD_S }, {
      "Retry-After": String(THROTTLE_PERIOD_S),
      "Cache-Control": "no-store",
    });
  }
}
// As configured for LOGIN_THROTTLE and SIGNUP_THROTTLE in wrangler.toml.
const THROTTLE_LIMIT = 10;
const THROTTLE_PERIOD_S = 60;

/** Loopback callers (npm start, the e2e suite, bench) are one person on their own machine. */
const isLoopback = (ip: string) => ip === "::1" || ip.startsWith("127.") || ip === "::ffff:127.0.0.1";

const agentIdParam = z.object({ id: ref(64) });

export const signup = defineOperation({
  id: "auth.signup",
  summary: "Create an owner account",
  description:
    "Creates an owner account (email and password, at least 10 characters) and starts a dashboard session: the answer carries the session token and sets the `lore_session` cookie. At most 10 sign-ups a minute from one IP address.",
  errors: {
    CONFLICT: "an account with this email already exists (log in instead)",
    RATE_LIMITED: "too many sign-ups from this IP address in the last minute (`details.metric` is SIGNUP_ATTEMPTS, `Retry-After` says when to retry)",
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
    if (ctx.clientIp && !isLoopback(ctx.clientIp)) {
      await throttle(ctx.env.SIGNUP_THROTTLE, `signup:${ctx.clientIp}`, "SIGNUP_ATTEMPTS", "Too many sign-ups from this address; wait a minute before trying again");
    }
    return svc.signup(ctx.db, input.email, input.password);
  },
});

export const login = defineOperation({
  id: "auth.login",
  summary: "Log in and receive a dashboard session token",
  description:
    "Checks an owner's email and password and starts a dashboard session: the answer carries the session token and sets the `lore_session` cookie. At most 10 attempts a minute per account email.",
  errors: {
    UNAUTHENTICATED: "the email or the password is wrong",
    RATE_LIMITED: "too many login attempts for this email in the last minute (`details.metric` is LOGIN_ATTEMPTS)",
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
    // Keyed by the account, not the IP: a guesser spreading over many addresses is slowed as much.
    await throttle(ctx.env.LOGIN_THROTTLE, `login:${input.email}`, "LOGIN_ATTEMPTS", "Too many login attempts for this account; wait a minute before trying again");
    return svc.login(ctx.db, input.email, input.password);
  },
});

export const logout = defineOperation({
  id: "auth.logout",
  summary: "End the current dashboard session",
  description:
    "Ends the session that made the request and clears the `lore_session` cookie; the token stops working at once.",
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
  description:
    "Renames one of the owner's agents (`name: null` clears the name); the handle never changes.",
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
  description:
    "Creates another API key for one of the owner's agents (at most 10 active keys per agent). The key is in this answer only.",
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
  description:
    "Revokes one key of an agent, named by its 8-character display prefix; requests with it are refused at once.",
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
  description:
    "The owner's email, plan and sync refresh schedule.",
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
