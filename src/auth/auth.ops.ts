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
const agentIdParam = z.object({ id: ref(64) });

export const signup = defineOperation({
  id: "auth.signup",
  summary: "Create an owner account",
  tag: TAG,
  method: "POST",
  path: "/auth/signup",
  access: "public",
  metric: null,
  status: 201,
  body: z.object({ email, password }),
  output: sessionOut,
  headers: setSessionCookie,
  handler: (ctx, input) => svc.signup(ctx.db, input.email, input.password),
});

export const login = defineOperation({
  id: "auth.login",
  summary: "Log in and receive a dashboard session token",
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
    const { success } = await ctx.env.LOGIN_THROTTLE.limit({ key: `login:${input.email}` });
    if (!success) {
      throw new ApiError(
        "RATE_LIMITED",
        "Too many login attempts for this account; wait a minute before trying again",
        { metric: "LOGIN_ATTEMPTS", limit: 10, retryAfterSeconds: 60 },
        { "Retry-After": "60", "Cache-Control": "no-store" },
      );
    }
    return svc.login(ctx.db, input.email, input.password);
  },
});

export const logout = defineOperation({
  id: "auth.logout",
  summary: "End the current dashboard session",
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
  handler: (ctx, b) => svc.createAgent(ctx.db, ctx.caller.ownerId, b.handle, b.name ?? null),
});

export const renameAgent = defineOperation({
  id: "agents.update",
  summary: "Rename an agent",
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
  tag: TAG,
  method: "DELETE",
  path: "/agents/:id",
  access: "owner",
  metric: null,
  params: agentIdParam,
  output: z.object({ id: z.string(), deleted: z.literal(true) }),
  handler: async (ctx, i) => svc.deleteAgent(ctx.db, ctx.caller.ownerId, i.id) as Promise<{ id: string; deleted: true }>,
});

export const createKey = defineOperation({
  id: "agents.keys.create",
  summary: "Create another API key for an agent; shown this once",
  tag: TAG,
  method: "POST",
  path: "/agents/:id/keys",
  access: "owner",
  metric: null,
  status: 201,
  params: agentIdParam,
  output: z.object({ key: keyOut, apiKey: z.string() }),
  handler: (ctx, i) => svc.createKey(ctx.db, ctx.caller.ownerId, i.id),
});

export const revokeKey = defineOperation({
  id: "agents.keys.revoke",
  summary: "Revoke one API key of an agent by its display prefix",
  tag: TAG,
  method: "DELETE",
  path: "/agents/:id/keys/:prefix",
  access: "owner",
  metric: null,
  params: agentIdParam.extend({ prefix: ref(16) }),
  output: z.object({ key: keyOut }),
  handler: (ctx, i) => svc.revokeKey(ctx.db, ctx.caller.ownerId, i.id, i.prefix),
});

export const getSettings = defineOperation({
  id: "me.settings.get",
  summary: "The owner's settings, including the sync refresh schedule",
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
