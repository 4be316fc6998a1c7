import type { Hono, MiddlewareHandler } from "hono";
import { zValidator } from "@hono/zod-validator";
import type * as z from "zod/v4";
import type { AppContext, AppEnv } from "./context";
import type { AnyOperation, OpContext } from "./operation";
import type { Gate } from "./admission";
import { agentKeyOf, assertFromThisOrigin, authenticate, checkCookieOrigin } from "./auth";
import { ApiError, validationError } from "./errors";
import { isFree, runOperation } from "./run-operation";
import type { ActivitySink } from "./activity";
import { readBodyLimited } from "./body";
import { fromStrings } from "./args";
import { corsClassOf, corsResponseHeaders } from "./cors";
import { openSession } from "./d1";
import { makeOpContext } from "./op-context";

/**
 * Who may call, before anything is read: agent operations need an agent key (present and well
 * formed; the account's object verifies it when it admits the request, after validation), dashboard
 * operations a live session, public ones resolve whatever credential is present.
 */
const callerFor =
  (op: AnyOperation): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (op.access === "agent") {
      c.set("key", agentKeyOf(c.req.raw.headers));
      return next();
    }
    if (op.access === "owner") checkCookieOrigin(c.req.raw);
    // Public writes (sign-up and login set the session cookie): a page of another site may not
    // send them (login CSRF, accounts opened from visitors' addresses); they get no CORS either.
    if (op.access === "public") assertFromThisOrigin(c.req.raw);
    c.set("caller", await authenticate(c.env, c.req.raw.headers, op.access));
    await next();
  };

/**
 * The RateLimit headers of a counted agent request, on its answer whether the action succeeded or
 * not (a failed request used a per-minute slot and an API call too). The admission itself is made
 * by runOperation, which hands it over here through the context.
 */
const rateHeadersFor =
  (gate: Gate): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    await next();
    const admitted = c.get("admitted");
    if (!admitted) return;
    // On the answer's own headers: `c.header` after the answer is made copies the whole Response
    // (a 50-name package check's, once per header). Every answer here is built by this Worker
    // (the operation's, or onError's), so its headers can be set.
    const headers = c.res.headers;
    for (const [k, v] of Object.entries(gate.headers(admitted.admission))) headers.set(k, v);
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

/** A body sent to an operation that takes none: read up to the limit (413 past it) and ignored. */
const refuseBody =
  (limit = MAX_BODY_BYTES): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (c.req.raw.body) await readBodyLimited(c.req.raw, limit);
    await next();
  };

/** The context for an operation run by this request (REST routes and dashboard pages). */
export function opContext(c: AppContext, caller: OpContext["caller"], via: OpContext["via"] = "rest"): OpContext {
  return makeOpContext({
    env: c.env,
    caller,
    requestId: c.get("requestId"),
    origin: new URL(c.req.url).origin,
    via,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
    clientIp: c.req.header("cf-connecting-ip") ?? null,
    gate: c.get("gate"),
    activity: c.get("activity") ?? undefined,
  });
}

/** The operation's CORS class on its responses, errors included (a browser must read those too). */
const corsFor =
  (op: AnyOperation): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    await next();
    const cls = corsClassOf(op);
    if (cls) for (const [k, v] of Object.entries(corsResponseHeaders(cls))) c.res.headers.set(k, v);
  };

/**
 * Mounts each operation as a REST route (preflights: app.ts). Agent operations: CORS → the key's
 * presence → validation → runOperation (the admission, the one round trip that verifies the key and
 * counts, then the handler). Others: CORS → session or public caller → validation → runOperation.
 * Validation needs no storage, so a malformed request is answered 400 before anything is read or
 * counted. What is left here is HTTP: parsing, status, headers.
 */
export function mountOperations(app: Hono<AppEnv>, ops: readonly AnyOperation[], gate: Gate, activity: ActivitySink | null): void {
  for (const op of ops) {
    const chain: MiddlewareHandler<AppEnv>[] = [corsFor(op), callerFor(op)];
    if (op.access === "agent" && !isFree(op)) chain.push(rateHeadersFor(gate));
    // Path segments and query values are strings: coerced to what the strict schema expects.
    if (op.params) chain.push(validate("param", fromStrings(op.params)));
    if (op.query) chain.push(validate("query", fromStrings(op.query)));
    if (op.body) chain.push(validateBody(op.body, op.maxBodyBytes));
    // An operation without a body still refuses one over its limit, however it is sent.
    else chain.push(refuseBody(op.maxBodyBytes));
    app.on(op.method, [op.path], ...chain, async (c) => {
      const input = {
        ...(op.params ? (c.req.valid as (t: string) => object)("param") : {}),
        ...(op.query ? (c.req.valid as (t: string) => object)("query") : {}),
        ...(op.body ? (c.req.valid as (t: string) => object)("json") : {}),
      };
      const { result } = await runOperation(
        op,
        {
          gate,
          activity,
          env: c.env,
          requestId: c.get("requestId"),
          origin: new URL(c.req.url).origin,
          via: "rest",
          waitUntil: (p) => c.executionCtx.waitUntil(p),
          clientIp: c.req.header("cf-connecting-ip") ?? null,
          ...(op.access === "agent"
            ? { key: c.get("key")!, onAdmitted: (admitted) => c.set("admitted", admitted) }
            : // Public reads may be served by any replica; dashboard requests read the primary.
              { caller: c.get("caller"), d1: op.access === "public" ? openSession(c.env.DB, "first-unconstrained") : null }),
        },
        input,
      );
      if (op.headers) for (const [k, v] of Object.entries(op.headers(result))) c.header(k, v);
      if (op.contentType) return c.body(result as string, op.status ?? 200, { "content-type": op.contentType });
      if (op.json) return c.body(op.json(result), op.status ?? 200, { "content-type": "application/json" });
      return c.json(result as object, op.status ?? 200);
    });
  }
}
