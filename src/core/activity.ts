/**
 * The owner's activity feed (GET /v1/me/activity): an operation says what a successful call adds
 * to it (`activity` on its definition), the REST and MCP adapters report it here, and the area that
 * keeps the feed (sync) stores it, wired in by app.ts. Recording runs after the response
 * (waitUntil) and never fails the action it describes.
 */
import type { AgentPrincipal } from "./principal";
import type { Env } from "../env";
import type { ActivityEntry, AnyOperation, OpContext } from "./operation";
import { envOutsideSession } from "./op-context";

export type { ActivityEntry } from "./operation";

export type ActivitySink = (env: Env, caller: AgentPrincipal, entry: ActivityEntry, via: OpContext["via"]) => Promise<void>;

let sink: ActivitySink | null = null;

/** app.ts wires the store in (core imports no area). */
export function setActivitySink(s: ActivitySink | null): void {
  sink = s;
}

/** After a successful agent call: what it adds to the owner's feed, stored in the background. */
export function recordActivity(op: AnyOperation, ctx: OpContext, input: unknown, result: unknown): void {
  if (!op.activity || !sink || ctx.caller?.kind !== "agent") return;
  let entry: ActivityEntry | null;
  try {
    entry = op.activity(input, result);
  } catch {
    return;
  }
  if (!entry) return;
  const caller = ctx.caller;
  ctx.waitUntil(
    // Not through the request's D1 session: the feed is read by the owner from the primary.
    sink(envOutsideSession(ctx), caller, entry, ctx.via).catch((err) =>
      console.error(JSON.stringify({ level: "error", what: "activity", requestId: ctx.requestId, op: op.id, error: String(err) })),
    ),
  );
}
