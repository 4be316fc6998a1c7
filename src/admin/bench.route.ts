import { Hono } from "hono";
import type { AppEnv } from "../core/context";
import { ApiError } from "../core/errors";
import { accountStub } from "../quota";
import { replayStorage } from "../core/bench-replay";

/**
 * The floors `npm run bench` measures every scenario against (scripts/bench.mjs): a Worker route
 * that does nothing but the storage round trips a request of that kind cannot avoid — none, one
 * D1 `SELECT 1`, one Durable Object RPC, or both — so a ratio says what the project adds on top.
 *
 * They exist only where the `BENCH_ROUTES` variable is "1", which only the bench's own
 * `wrangler dev` sets (`--var BENCH_ROUTES:1`); anywhere else, production included, they are the
 * plain 404 of an unknown path.
 */
export const benchRoute = new Hono<AppEnv>();

benchRoute.use("*", async (c, next) => {
  if (c.env.BENCH_ROUTES !== "1") throw new ApiError("NOT_FOUND", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
  await next();
});

/** One AccountQuota object per `n` (the bench spreads over as many as it has accounts), as real requests do. */
const quota = (c: { env: AppEnv["Bindings"]; req: { query(k: string): string | undefined } }, salt = "") =>
  accountStub(c.env, `bench-floor-${salt}${c.req.query("n") ?? "0"}`);

const selectOne = (c: { env: AppEnv["Bindings"] }) => c.env.DB.prepare("SELECT 1 AS one").first<number>("one");

benchRoute.get("/bare", (c) => c.json({ ok: true }));
benchRoute.get("/d1", async (c) => c.json({ ok: (await selectOne(c)) === 1 }));
benchRoute.get("/do", async (c) => c.json({ ok: (await quota(c).ping()) === 1 }));
benchRoute.get("/do-d1", async (c) => {
  const a = await quota(c).ping();
  return c.json({ ok: a === 1 && (await selectOne(c)) === 1 });
});
benchRoute.get("/do2", async (c) => {
  const a = await quota(c).ping();
  return c.json({ ok: a === 1 && (await quota(c, "b").ping()) === 1 });
});
// A scenario's own storage work (core/bench-replay.ts): the D1 batches its request in this slot
// sent, after the Durable Object calls it makes (`do=1` or `2`), its writes too with `writes=1`,
// answered with `bytes` bytes when given (the scenario's answer size, at most 4 MiB): the runtime
// writing them out is not the isolate's work either.
benchRoute.get("/replay", async (c) => {
  // `do`: how many Durable Object calls the scenario's admission and reads make (0 to 2).
  const calls = Math.min(2, Math.max(0, Number(c.req.query("do") ?? 0) || 0));
  let a = 1;
  for (let k = 0; k < calls; k++) a = a === 1 ? await quota(c, k ? "b" : "").ping() : a;
  const n = await replayStorage(c.env.DB, c.req.query("slot") ?? "", { writes: c.req.query("writes") === "1" });
  const bytes = Number(c.req.query("bytes") ?? 0);
  if (a === 1 && n >= 0 && bytes > 0) {
    return new Response(new Uint8Array(Math.min(bytes, 4 << 20)).fill(32), { headers: { "content-type": "application/json" } });
  }
  return c.json({ ok: a === 1 && n >= 0, statements: n });
});
