import type { Admission, Admitted, Gate } from "./admission";
import { type ActivitySink, recordActivity } from "./activity";
import { openSession, type RequestD1 } from "./d1";
import { ApiError, asApiError } from "./errors";
import { type ContextParts, makeOpContext } from "./op-context";
import type { AnyOperation, OpContext } from "./operation";
import type { OwnerPrincipal } from "./principal";

/**
 * The one rule of what is free: an operation marked `uncounted` (only GET /usage/today, MCP
 * `service_usage`) takes no per-minute slot and no API call on any transport, is answered even when
 * those are exhausted, and sends no RateLimit headers. Its own metric, if it ever had one, is still
 * reserved and refunded like any other.
 */
export const isFree = (op: Pick<AnyOperation, "uncounted">): boolean => op.uncounted === true;

/** What one run needs from the transport that carries it, besides the operation and its input. */
export interface RunRequest extends Omit<ContextParts, "caller" | "d1" | "admission" | "gate" | "activity"> {
  /** The admission step; needed by agent operations and metered owner actions. */
  gate?: Gate;
  /** Where a successful agent call's activity goes (the owner's feed); null: nowhere. */
  activity: ActivitySink | null;
  /** An agent operation: the key as sent, verified by the admission. */
  key?: string;
  /** Any other operation: the caller the transport authenticated (a session owner, a public caller or null). */
  caller?: OpContext["caller"];
  /** Any other operation: the D1 session it reads through; none: the primary. */
  d1?: RequestD1 | null;
  /**
   * Told the agent admission as soon as it is made, before the action runs: the REST adapter puts
   * the RateLimit headers on the answer from it, failed answers included (they used a slot).
   */
  onAdmitted?(admitted: Admitted): void;
}

export interface Ran<O = unknown> {
  result: O;
  /** The input the handler ran with (an MCP tool's arguments mapped to the operation's). */
  input: object;
  /** The account's quota right after this call (agent calls and metered owner actions). */
  admission?: Admission;
}

/**
 * Runs one operation for any transport (REST route, MCP tool call, dashboard page or any
 * in-process caller), so none can count, refund, record or log differently from the others. The
 * input is already valid (validation needs no storage, so a malformed request never reaches the
 * account's object). Then:
 *
 * 1. admission: an agent operation, one round trip to the account's object (the key, then
 *    per-minute → API_CALLS → its own metric, unless the operation is free); a metered owner action,
 *    its metric charged to the owner;
 * 2. the D1 session: an agent's starts at its last write's bookmark;
 * 3. `input` (a function: an MCP tool's arguments mapped to the operation's input, which may look
 *    things up) and the handler;
 * 4. failure: the reserved metric given back before the answer (unless the error `keepsQuota`),
 *    an unexpected error logged once and turned into the contract's INTERNAL error;
 * 5. success: the D1 bookmark of a write remembered for the account, the activity recorded.
 *
 * Throws ApiError only (UNAUTHENTICATED and RATE_LIMITED from the admission included).
 */
export async function runOperation<O = unknown>(
  op: AnyOperation,
  req: RunRequest,
  input: object | ((ctx: OpContext) => Promise<object> | object),
): Promise<Ran<O>> {
  const { gate, activity, key, onAdmitted, ...parts } = req;
  let caller = req.caller ?? null;
  let d1 = req.d1 ?? null;
  let admitted: Admitted | undefined;
  let charged: Admission | undefined;
  try {
    if (!gate && (op.access === "agent" || (op.access === "owner" && op.metric))) {
      throw new Error(`${op.id} is counted: running it needs the gate (app.ts hands it to every adapter)`);
    }
    if (op.access === "agent") {
      if (key === undefined) throw new ApiError("UNAUTHENTICATED", "An agent key is required");
      admitted = await gate!.admit(req.env, key, { metric: op.metric, counted: !isFree(op) });
      onAdmitted?.(admitted);
      caller = admitted.caller;
      d1 = openSession(req.env.DB, admitted.bookmark ?? "first-unconstrained");
    } else if (op.access === "owner") {
      if (caller?.kind !== "owner") throw new ApiError("UNAUTHENTICATED", "A dashboard session is required");
      if (op.metric) charged = await gate!.charge(req.env, caller.ownerId, op.metric);
    }
  } catch (err) {
    throw asApiError(err, { requestId: req.requestId, op: op.id, via: req.via, what: "admission" });
  }
  const admission = admitted?.admission ?? charged;
  const ctx = makeOpContext({ ...parts, caller, d1, admission, gate, activity: activity ?? undefined });
  let ran: object;
  let result: O;
  try {
    ran = typeof input === "function" ? await input(ctx) : input;
    result = (await op.handler(ctx, ran)) as O;
  } catch (err) {
    // Awaited, not waitUntil: a client retrying at once after a failure must find its quota back.
    if (!(err instanceof ApiError && err.keepsQuota)) {
      if (admitted) await gate!.refund(req.env, admitted, op.metric).catch(() => {});
      else if (charged && op.metric) {
        await gate!.uncharge(req.env, (caller as OwnerPrincipal).ownerId, charged, op.metric).catch(() => {});
      }
    }
    throw asApiError(err, { requestId: req.requestId, op: op.id, via: req.via });
  }
  if (admitted && d1?.wrote) {
    const bookmark = d1.bookmark();
    if (bookmark) {
      await gate!
        .remember(req.env, admitted, bookmark)
        .catch((err) =>
          console.error(JSON.stringify({ level: "error", requestId: req.requestId, what: "remember D1 bookmark", error: String(err) })),
        );
    }
  }
  recordActivity(activity, op, ctx, ran, result);
  return { result, input: ran, ...(admission ? { admission } : {}) };
}
