import type { Env } from "../env";
import type { ActivitySink, OpContext } from "./operation";
import type { Admission, Gate } from "./admission";
import type { RequestD1 } from "./d1";
import { makeDb, type Db } from "../db/client";

export interface ContextParts {
  env: Env;
  caller: OpContext["caller"];
  requestId: string;
  origin: string;
  via: OpContext["via"];
  waitUntil(p: Promise<unknown>): void;
  clientIp?: string | null;
  /** The request's D1 session (core/d1.ts); none: the primary, as for dashboard requests. */
  d1?: RequestD1 | null;
  admission?: Admission;
  gate?: Gate;
  activity?: ActivitySink;
  progress?: OpContext["progress"];
}

/**
 * An operation's context. `ctx.env.DB` and `ctx.db` are the request's D1 session when it has one,
 * so every area reads through it by using `ctx`; the drizzle client is made on first use only.
 */
export function makeOpContext(p: ContextParts): OpContext {
  const env = p.d1 ? { ...p.env, DB: p.d1.binding } : p.env;
  let db: Db | undefined;
  const ctx: OpContext = {
    env,
    get db() {
      return (db ??= makeDb(env.DB));
    },
    caller: p.caller,
    requestId: p.requestId,
    origin: p.origin,
    via: p.via,
    waitUntil: p.waitUntil,
    clientIp: p.clientIp ?? null,
    ...(p.admission ? { admission: p.admission } : {}),
    ...(p.gate ? { gate: p.gate } : {}),
    ...(p.activity ? { activity: p.activity } : {}),
    ...(p.progress ? { progress: p.progress } : {}),
  };
  if (p.d1) outsideSession.set(ctx, p.env);
  return ctx;
}

const outsideSession = new WeakMap<OpContext, Env>();

/**
 * The environment with the plain D1 binding, for background work a request starts but that is not
 * part of its answer (the activity feed, written after the response): such a write neither counts
 * as the request's write (it would cost a bookmark round trip to the account's object on reads
 * that record activity, such as a chat post) nor waits on the session.
 */
export function envOutsideSession(ctx: OpContext): Env {
  return outsideSession.get(ctx) ?? ctx.env;
}
