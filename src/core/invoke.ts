import type * as z from "zod/v4";
import { ApiError, validationError } from "./errors";
import type { Access, OpContext, Operation } from "./operation";
import { fromStrings } from "./args";
import { envOutsideSession } from "./op-context";
import { runOperation } from "./run-operation";

export interface InvokeInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** An agent operation: the agent key, admitted and counted as on its REST route and MCP tool. */
  key?: string;
}

/**
 * Runs an operation in-process, as its REST route would but without HTTP: each part of the input
 * is validated with the operation's own schemas (a failure is the same `VALIDATION_FAILED`
 * ApiError with `details.issues`, paths prefixed `param.`, `query.`, `body.`), then it runs through
 * core/run-operation.ts, the path of every transport: admitted, counted, refunded and recorded as
 * on its REST route. The dashboard pages (src/web) use it so that a form and an API call can never
 * disagree about what is valid or what it costs. The context gives the caller (a dashboard
 * session), the gate and the activity sink (opContext gives them).
 */
export async function invoke<O>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  op: Operation<Access, any, any, any, O, any>,
  ctx: OpContext,
  input: InvokeInput = {},
): Promise<O> {
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
  // An owner operation refuses a caller without a session before saying anything about its input.
  if (op.access === "owner" && ctx.caller?.kind !== "owner") throw new ApiError("UNAUTHENTICATED", "A dashboard session is required");
  if (issues.length) throw validationError(issues);
  const { result } = await runOperation<O>(
    op,
    {
      gate: ctx.gate,
      activity: ctx.activity ?? null,
      // The plain binding: an agent call opens its own D1 session from its bookmark.
      env: envOutsideSession(ctx),
      requestId: ctx.requestId,
      origin: ctx.origin,
      via: ctx.via,
      waitUntil: ctx.waitUntil,
      clientIp: ctx.clientIp,
      ...(op.access === "agent" ? { key: input.key } : { caller: ctx.caller, d1: null }),
    },
    parsed,
  );
  return result;
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
