import type * as z from "zod";
import { ApiError, validationError } from "./errors";
import type { Access, OpContext, Operation } from "./operation";
import { fromStrings } from "./args";
import type { OwnerPrincipal } from "./principal";

export interface InvokeInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/**
 * Runs an operation in-process, as its REST route would but without HTTP: each part of the input
 * is validated with the operation's own schemas (a failure is the same `VALIDATION_FAILED`
 * ApiError with `details.issues`, paths prefixed `param.`, `query.`, `body.`), then its handler
 * runs with the given context. The dashboard pages (src/web) use it so that a form and an API
 * call can never disagree about what is valid.
 *
 * Only public and owner operations: agent operations consume quota, which only the REST and MCP
 * adapters admit. A metered owner operation is counted here as on its REST route.
 */
export async function invoke<O>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  op: Operation<Access, any, any, any, O, any>,
  ctx: OpContext,
  input: InvokeInput = {},
): Promise<O> {
  if (op.access === "agent")
    throw new Error(`invoke: ${op.id} is an agent operation; its quota is admitted only by the REST and MCP adapters`);
  if (op.access === "owner" && ctx.caller?.kind !== "owner") {
    throw new ApiError("UNAUTHENTICATED", "A dashboard session is required");
  }
  const parts: [string, z.ZodType | undefined, unknown][] = [
    // Form fields and URL parts are strings, as on the REST route: coerced the same way.
    ["param", op.params && fromStrings(op.params), input.params ?? {}],
    ["query", op.query && fromStrings(op.query), input.query ?? {}],
    ["body", op.body, input.body ?? {}],
  ];
  const parsed: Record<string, unknown> = {};
  const issues: { path: PropertyKey[]; message: string }[] = [];
  for (const [where, schema, value] of parts) {
    if (!schema) continue;
    const r = await schema.safeParseAsync(value);
    // Every part is checked before failing, so a form shows all its field errors at once.
    if (!r.success) issues.push(...r.error.issues.map((i) => ({ path: [where, ...i.path], message: i.message })));
    else Object.assign(parsed, r.data);
  }
  if (issues.length) throw validationError(issues);
  if (op.access !== "owner" || !op.metric) return op.handler(ctx as never, parsed as never);
  // A metered owner action (a skill publish from the dashboard): counted as on its REST route.
  const gate = ctx.gate;
  if (!gate) throw new Error(`invoke: ${op.id} is metered; its context needs the gate (opContext gives it)`);
  const ownerId = (ctx.caller as OwnerPrincipal).ownerId;
  const charged = await gate.charge(ctx.env, ownerId, op.metric);
  ctx.admission = charged;
  try {
    return await op.handler(ctx as never, parsed as never);
  } catch (err) {
    if (!(err instanceof ApiError && err.keepsQuota)) await gate.uncharge(ctx.env, ownerId, charged, op.metric).catch(() => {});
    throw err;
  }
}

/** `details.issues` of a VALIDATION_FAILED error as field → message (first message per field; `body.` etc. dropped). */
export function fieldErrors(err: ApiError): Record<string, string> {
  const out: Record<string, string> = {};
  const issues = (err.details?.issues ?? []) as { path: string; message: string }[];
  for (const i of issues) {
    const field = i.path.replace(/^(body|query|param)\.?/, "") || "_form";
    out[field] ??= i.message;
  }
  // Some state errors name their field (a taken handle: `{field: "handle"}`).
  if (typeof err.details?.field === "string") out[err.details.field] ??= err.message;
  return out;
}
