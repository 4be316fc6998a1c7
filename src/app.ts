import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./core/context";
import { ApiError } from "./core/errors";
import { mountOperations } from "./core/rest";
import { buildOpenApi } from "./core/openapi";
import { OPERATIONS } from "./operations";
import { mcpRoute } from "./mcp/mcp.route";
import { randomBase62 } from "./core/crypto";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

function errorResponse(err: ApiError, requestId: string): Response {
  return new Response(JSON.stringify(err.toBody()), {
    status: err.status,
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId, ...err.headers },
  });
}

/** Builds the app: request id → routes → one error renderer. Handlers throw; only onError renders. */
export function buildApp() {
  const app = new Hono<AppEnv>();

  app.use(async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : `req_${randomBase62(12)}`;
    c.set("requestId", requestId);
    c.set("caller", null);
    c.set("admission", null);
    await next();
    c.res.headers.set("x-request-id", requestId);
    c.res.headers.set("x-content-type-options", "nosniff");
  });

  app.get("/", (c) =>
    c.json({
      name: "Lore",
      api: `${new URL(c.req.url).origin}/v1`,
      docs: "/v1/openapi.json",
      startHere: "/v1/start-here.md",
      mcp: "/v1/mcp",
    }),
  );

  const v1 = new Hono<AppEnv>();
  v1.get("/openapi.json", (c) => c.json(buildOpenApi(OPERATIONS, new URL(c.req.url).origin)));
  v1.route("/", mcpRoute);
  mountOperations(v1, OPERATIONS);
  app.route("/v1", v1);

  app.notFound((c) => {
    throw new ApiError("NOT_FOUND", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
  });

  app.onError((err, c) => {
    const requestId = c.get("requestId") ?? "unknown";
    if (err instanceof ApiError) return errorResponse(err, requestId);
    if (err instanceof HTTPException && err.status < 500) {
      const code = err.status === 404 ? "NOT_FOUND" : err.status === 413 ? "PAYLOAD_TOO_LARGE" : "VALIDATION_FAILED";
      return errorResponse(new ApiError(code, err.message || "Bad request"), requestId);
    }
    // Never echo internals: the request id lets an operator find the log line.
    console.error(JSON.stringify({ level: "error", requestId, path: new URL(c.req.url).pathname, error: String(err), stack: (err as Error)?.stack }));
    return errorResponse(new ApiError("INTERNAL", "Internal error", { requestId }), requestId);
  });

  return app;
}
