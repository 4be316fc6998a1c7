/**
 * The owner's activity feed (GET /v1/me/activity): an operation says what a successful call adds
 * to it (`activity` on its definition), core/run-operation.ts reports it here for every transport,
 * and the area that keeps the feed (sync) stores it. The sink travels as the gate does: app.ts hands
 * it to the adapters (core imports no area). Recording runs after the response (waitUntil) and
 * never fails the action it describes.
 */
import type { ActivityEntry, ActivitySink, AnyOperation, OpContext } from "./operation";
import { envOutsideSession } from "./op-context";

export type { ActivityEntry, ActivitySink } from "./operation";

/** After a successful agent call: what it adds to the owner's feed, stored in the background. */
export function recordActivity(sink: ActivitySink | null, op: AnyOperation, ctx: OpContext, input: unknown, result: unknown): void {
  if (!op.activity || !sink || ctx.caller?.kind !== "agent") return;
  let entry: ActivityEntry | null;
  try {
    entry = op.activity(input, result);
  } catch {
    return;
  }
  if (!entry) return;
  const caller = ctx.caller;
  const failed = (err: unknown) =>
    console.error(JSON.stringify({ level: "error", what: "activity", requestId: ctx.requestId, op: op.id, error: String(err) }));
  // Not through the request's D1 session: the feed is read by the owner from the primary.
  ctx.waitUntil(sink(envOutsideSession(ctx), caller, entry, ctx.via, failed).catch(failed));
}
