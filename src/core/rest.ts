import { Hono, type MiddlewareHandler } from "hono";
import { zValidator } from "@hono/zod-validator";
import type { z } from "zod";
import type { AppEnv } from "./context";
import type { AnyOperation, OpContext } from "./operation";
import { assertFromThisOrigin, authenticate, checkCookieOrigin } from "./auth";
import { ApiError, validationError } from "./errors";
import { readBodyLimited } from "./body";
import { fromStrings } from "./args";
import { corsClassOf, corsResponseHeaders } from "./cors";
import { admit, refund, admissionHeaders } from "../quota/quota.client";
import { makeDb } from "../db/client";
import { recordActivity } from "./activity";
import type { AgentPrincipal } from "./principal";

/** Resolves the caller the operation's access level asks for (the one auth path). */
const authFor =
  (op: AnyOperation): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (op.access === "owner") checkCookieOrigin(c.req.raw);
    // Public writes (sign-up and login set the session cookie): a page of another site may not
    // send them (login CSRF, accounts opened from visitors' addresses); they get no CORS either.
    if (op.access === "public") assertFromThisOrigin(c.req.raw);
    c.set("caller", await authenticate(c.env, c.req.raw.headers, op.access));
    await next();
  };

/**
 * Quota for agent requests: per-minute → API_CALLS → the action's own metric, all in one call to
 * the account's AccountQuota object. The own metric is reserved up front (so parallel requests
 * cannot overshoot) and given back when validation or the action fails.
 */
const quotaFor =
  (op: AnyOperation): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const caller = c.get("caller");
    if (op.access !== "agent" || caller?.kind !== "agent") return next();
    // Free and without a metric of its own (GET /usage/today): nothing to check or consume.
    if (op.uncounted && !op.metric) return next();
    const admission = await admit(c.env, caller, op.metric, !op.uncounted);
    c.set("admission", admission);
    await next();
    // Awaited, not waitUntil: a client retrying at once after a 400 must find its quota back.
    if (c.error || c.res.status >= 400) await refund(c.env, caller, admission, op.metric).catch(() => {});
    // A failed request still used a per-minute slot and an API call, so it reports them too.
    if (!op.uncounted) for (const [k, v] of Object.entries(admissionHeaders(admission))) c.header(k, v);
  };

const validate = (target: "param" | "query", schema: z.ZodType): MiddlewareHandler<AppEnv> =>
  zValidator(target, schema, (result) => {
    if (!result.success) throw validationError(result.error.issues, target);
  }) as unknown as MiddlewareHandler<AppEnv>;

export const MAX_BODY_BYTES = 256 * 1024;

/**
 * JSON bodies. Unlike hono's json validator this does not ignore a body sent without
 * `Content-Type: application/json` (a common agent mistake): any body is parsed as JSON,
 * malformed JSON is a 400, and an oversized body a 413, never a 500.
 */
const validateBody =
  (schema: z.ZodType, limit = MAX_BODY_BYTES): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const bytes = await readBodyLimited(c.req.raw, limit);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      throw new ApiError("VALIDATION_FAILED", "Request body is not valid UTF-8", {
        issues: [{ path: "body", message: "not valid UTF-8" }],
      });
    }
    let value: unknown = {};
    if (text.trim() !== "") {
      try {
        value = JSON.parse(text);
      } catch {
        throw new ApiError("VALIDATION_FAILED", "Malformed JSON in request body", {
          issues: [{ path: "body", message: "not valid JSON" }],
        });
      }
    }
    const result = await schema.safeParseAsync(value);
    if (!result.success) throw validationError(result.error.issues, "body");
    c.req.addValidatedData("json", result.data as object);
    await next();
  };

export function opContext(c: import("./context").AppContext, caller: OpContext["caller"], via: OpContext["via"] = "rest"): OpContext {
  return {
    env: c.env,
    db: makeDb(c.env.DB),
    caller,
    requestId: c.get("requestId"),
    origin: new URL(c.req.url).origin,
    via,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
    clientIp: c.req.header("cf-connecting-ip") ?? null,
  };
}

/** The operation's CORS class on its responses, errors included (a browser must read those too). */
const corsFor =
  (op: AnyOperation): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    await next();
    const cls = corsClassOf(op);
    if (cls) for (const [k, v] of Object.entries(corsResponseHeaders(cls))) c.res.headers.set(k, v);
  };

/** Mounts each operation as a REST route: CORS → auth → quota → validation → handler (preflights: app.ts). */
export function mountOperations(app: Hono<AppEnv>, ops: readonly AnyOperation[]): void {
  for (const op of ops) {
    const chain: MiddlewareHandler<AppEnv>[] = [corsFor(op), authFor(op), quotaFor(op)];
    // Path segments and query values are strings: coerced to what the strict schema expects.
    if (op.params) chain.push(validate("param", fromStrings(op.params)));
    if (op.query) chain.push(validate("query", fromStrings(op.query)));
    if (op.body) chain.push(validateBody(op.body, op.maxBodyBytes));
    app.on(op.method, [op.path], ...chain, async (c) => {
      const input = {
        ...(op.params ? (c.req.valid as (t: string) => object)("param") : {}),
        ...(op.query ? (c.req.valid as (t: string) => object)("query") : {}),
        ...(op.body ? (c.req.valid as (t: string) => object)("json") : {}),
      };
      const ctx = opContext(c, c.get("caller") as AgentPrincipal);
      const result = await op.handler(ctx, input);
      recordActivity(op, ctx, input, result);
      if (op.headers) for (const [k, v] of Object.entries(op.headers(result))) c.header(k, v);
      if (op.contentType) return c.body(result as string, op.status ?? 200, { "content-type": op.contentType });
      return c.json(result as object, op.status ?? 200);
    });
  }
}
