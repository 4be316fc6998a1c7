import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./core/context";
import { ApiError, asApiError, ERROR_STATUS, errorResponse, type ErrorCode } from "./core/errors";
import type { AnyOperation } from "./core/operation";
import { mountOperations } from "./core/rest";
import { buildOpenApi } from "./core/openapi";
import { corsClassOf, isPreflight, preflightResponse, publicReadCors, type CorsClass } from "./core/cors";
import { OPERATIONS, TAGS } from "./operations";
import { mcpRoute } from "./mcp/mcp.route";
import { adminRoute } from "./admin/admin.route";
import { benchRoute } from "./admin/bench.route";
import { stripeWebhookRoute } from "./billing";
import { mountWeb, prefersHtml } from "./web/web.route";
import { discoveryRoute } from "./skills";
import { storeActivity } from "./sync";
import { quotaGate, setRenewal } from "./quota";
import { settle } from "./billing";
import { billingConfig } from "./billing";
import { discardRest } from "./core/body";
import { LruCache } from "./core/cache";
import { BENCH_SLOT_HEADER, recordingEnv } from "./core/bench-replay";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * The methods each /v1 path answers (operations, the MCP endpoint, the OpenAPI document) and the
 * CORS class of each, for the 405 and OPTIONS answers of a known path called with another method,
 * and for CORS preflights (core/cors.ts).
 */
function routeTable(ops: readonly AnyOperation[]) {
  const routes = [
    ...ops.map((o) => ({ method: o.method as string, path: o.path, cors: corsClassOf(o) })),
    { method: "GET", path: "/openapi.json", cors: "public" as CorsClass },
  ].map((r) => ({ ...r, re: new RegExp(`^/v1${r.path.replace(/:[A-Za-z0-9_]+/g, "[^/]+")}$`) }));
  const withHead = (methods: Iterable<string>) => {
    const set = new Set(methods);
    if (set.has("GET")) set.add("HEAD");
    return [...set];
  };
  return {
    allowed: (pathname: string): string[] => withHead(routes.filter((r) => r.re.test(pathname)).map((r) => r.method)),
    /** The preflight answer: the class of the route the browser asks about, as the router would pick it. */
    preflight: (req: Request, pathname: string): Response => {
      const here = routes.filter((r) => r.re.test(pathname));
      const asked = (req.headers.get("access-control-request-method") ?? "").toUpperCase();
      const target = here.find((r) => r.method === asked || (asked === "HEAD" && r.method === "GET"));
      const cls = isPreflight(req) ? (target?.cors ?? null) : null;
      const corsMethods = cls ? withHead(here.filter((r) => r.cors === cls).map((r) => r.method)) : [];
      return preflightResponse(cls, withHead(here.map((r) => r.method)), corsMethods);
    },
  };
}

/**
 * The OpenAPI document depends only on the origin (its `servers`), and building it walks every
 * operation's schemas (tens of ms of CPU), so each origin's serialised document is kept per
 * isolate. The Host header is the client's: the memo is bounded so varying it grows nothing.
 */
const openApiMemo = new LruCache<string, string>({ maxEntries: 8 });
const openApiJson = (origin: string): string => openApiMemo.getOrSet(origin, () => JSON.stringify(buildOpenApi(OPERATIONS, origin, TAGS)));

/** Builds the app: request id → routes → one error renderer. Handlers throw; only onError renders. */
export function buildApp() {
  const app = new Hono<AppEnv>();
  // A paid period that ended is settled by billing when the gate next sees the account.
  setRenewal({
    renewsLocally: (env) => billingConfig(env).provider === "local",
    settle: (env, ownerId, at) => settle(env, ownerId, at, { renew: true }),
  });

  app.use(async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : `req_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    c.set("requestId", requestId);
    c.set("caller", null);
    c.set("gate", quotaGate);
    c.set("activity", storeActivity);
    // Only the bench's own server: a request naming a slot records its storage work for its floor.
    if (c.env.BENCH_ROUTES === "1") {
      const slot = c.req.header(BENCH_SLOT_HEADER);
      if (slot) c.env = recordingEnv(slot, c.env);
    }
    await next();
    // Before the answer goes out: what is left of the body, thrown away (bounded, core/body.ts).
    await discardRest(c.req.raw);
    c.res.headers.set("x-request-id", requestId);
    c.res.headers.set("x-content-type-options", "nosniff");
  });

  // `/` is the landing page for a browser and this JSON index for every other client.
  app.get("/", (c, next) => {
    c.header("vary", "Accept");
    if (prefersHtml(c.req.header("accept"))) return next();
    return c.json({
      name: "Lore",
      api: `${new URL(c.req.url).origin}/v1`,
      docs: "/v1/openapi.json",
      startHere: "/v1/start-here.md",
      mcp: "/v1/mcp",
      dashboard: "/dashboard",
    });
  });
  mountWeb(app);

  const v1 = new Hono<AppEnv>();
  v1.use("/openapi.json", publicReadCors);
  v1.get("/openapi.json", (c) => c.body(openApiJson(new URL(c.req.url).origin), 200, { "content-type": "application/json" }));
  v1.route("/", mcpRoute(quotaGate, storeActivity));
  // Stripe's signed events: no session or key, the raw body is verified (src/billing/stripe.webhook.ts).
  v1.route("/", stripeWebhookRoute);
  // The one admission step of agent requests: core declares it, the quota area implements it; with
  // it travels the store of the owner's activity feed (GET /v1/me/activity), which sync keeps.
  mountOperations(v1, OPERATIONS, quotaGate, storeActivity);
  app.route("/v1", v1);
  // Before the operator routes: the bench's floors must not pay for the admin token check.
  app.route("/internal/bench", benchRoute);
  app.route("/internal", adminRoute);
  // The skills discovery indexes and files (Agent Skills Discovery RFC), at the root as the RFC places them.
  app.route("/.well-known", discoveryRoute);

  // Rendered here rather than thrown, so the request-id middleware still adds its headers.
  const table = routeTable(OPERATIONS);
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const allow = table.allowed(path);
    if (allow.length === 0) return errorResponse(new ApiError("NOT_FOUND", `No route for ${c.req.method} ${path}`), c.get("requestId"));
    // A known path with another method: say which methods it takes (RFC 9110 §15.5.6).
    if (c.req.method === "OPTIONS") return table.preflight(c.req.raw, path);
    const err = new ApiError(
      "METHOD_NOT_ALLOWED",
      `${path} does not accept ${c.req.method}; use ${allow.join(", ")}`,
      { allow },
      { allow: allow.join(", ") },
    );
    return errorResponse(err, c.get("requestId"));
  });

  app.onError((err, c) => {
    const requestId = c.get("requestId") ?? "unknown";
    if (err instanceof ApiError) return errorResponse(err, requestId);
    if (err instanceof HTTPException && err.status < 500) {
      const code = (Object.entries(ERROR_STATUS).find(([, s]) => s === err.status)?.[0] ?? "VALIDATION_FAILED") as ErrorCode;
      return errorResponse(new ApiError(code, err.message || "Bad request"), requestId);
    }
    return errorResponse(asApiError(err, { requestId, path: new URL(c.req.url).pathname }), requestId);
  });

  return app;
}
