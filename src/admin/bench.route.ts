import { Hono } from "hono";
import type { AppEnv } from "../core/context";
import { ApiError } from "../core/errors";
import { accountStub } from "../quota";
import { type RecordedCall, recordedCalls, replayStorage } from "../core/bench-replay";

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
  // A floor is sent the scenario's own request (method, headers, body) and reads its body whole, as
  // every route that takes one must: receiving it is the runtime's work, not the scenario's own.
  if (c.req.method !== "GET") await c.req.raw.arrayBuffer();
  await next();
});

/** A floor answers its scenario's method: GET, or the POST or PATCH a write is sent as. */
const FLOOR_METHODS = ["GET", "POST", "PATCH"];

/** One AccountQuota object per `n` (the bench spreads over as many as it has accounts), as real requests do. */
const quota = (c: { env: AppEnv["Bindings"]; req: { query(k: string): string | undefined } }, salt = "") =>
  accountStub(c.env, `bench-floor-${salt}${c.req.query("n") ?? "0"}`);

const selectOne = (c: { env: AppEnv["Bindings"] }) => c.env.DB.prepare("SELECT 1 AS one").first<number>("one");

/**
 * The floors' answer of a scenario's size (`bytes`, at most 4 MiB) and type (`type=html` for a
 * page: the dev server's proxy does more for HTML than for JSON), or null when no size is asked.
 */
function sizedAnswer(c: { req: { query(k: string): string | undefined } }): Response | null {
  const bytes = Number(c.req.query("bytes") ?? 0);
  if (!(bytes > 0)) return null;
  const type = c.req.query("type") === "html" ? "text/html; charset=UTF-8" : "application/json";
  return new Response(new Uint8Array(Math.min(bytes, 4 << 20)).fill(32), { headers: { "content-type": type } });
}

benchRoute.on(FLOOR_METHODS, "/bare", (c) => sizedAnswer(c) ?? c.json({ ok: true }));
benchRoute.on(FLOOR_METHODS, "/d1", async (c) => c.json({ ok: (await selectOne(c)) === 1 }));
benchRoute.on(FLOOR_METHODS, "/do", async (c) => c.json({ ok: (await quota(c).ping()) === 1 }));
benchRoute.on(FLOOR_METHODS, "/do-d1", async (c) => {
  const a = await quota(c).ping();
  return c.json({ ok: a === 1 && (await selectOne(c)) === 1 });
});
benchRoute.on(FLOOR_METHODS, "/do2", async (c) => {
  const a = await quota(c).ping();
  return c.json({ ok: a === 1 && (await quota(c, "b").ping()) === 1 });
});
/**
 * A recorded object call, sent again doing the same storage work. The account's object: an
 * admission (or an owner's charge) as the same counting transaction on the floor's own object (a
 * counter no real request reads), a key check or a plan read (memory only) as a round trip to it,
 * its other calls (today's usage, the history, a refund, a bookmark) on it as they were. Any other
 * object's call (a chat room's post or read, a push to an account's MCP sessions) on the same
 * object with the same arguments (an MCP session's request as the object recorded it: `benchTouch`,
 * its session read and write). A `fetch` no object said more of is one round trip to the floor's object.
 * A scan is asked of the scanner Worker again (its CPU is another Worker's when deployed). An R2 read
 * is read again, whole: its bytes are the floor's answer.
 */
async function replayCall(c: { env: AppEnv["Bindings"]; req: { query(k: string): string | undefined } }, call: RecordedCall) {
  if (call.binding === "ACCOUNT_QUOTA" || call.method === "fetch") {
    const floor = quota(c);
    type Admit = { metric: Parameters<typeof floor.benchAdmit>[0]; counted?: Parameters<typeof floor.benchAdmit>[1] };
    if (call.method === "admit" || call.method === "charge") {
      const req = call.args[0] as Admit;
      return floor.benchAdmit(req.metric, req.counted ?? false);
    }
    // A fetch no object said more of (core/bench-replay.ts, recordingInside): a round trip.
    if (call.method === "fetch" || call.method === "verify" || call.method === "plan" || call.method === "refresh") return floor.ping();
    return (floor as unknown as Record<string, (...a: unknown[]) => unknown>)[call.method]!(...call.args);
  }
  if (call.binding === "SCANNER")
    return (c.env.SCANNER as unknown as Record<string, (...a: unknown[]) => unknown>)[call.method]!(...call.args);
  if (call.binding === "SKILLS") {
    if (call.method === "head") return c.env.SKILLS.head(String(call.args[0]));
    const o = await c.env.SKILLS.get(String(call.args[0]));
    return o ? new Uint8Array(await o.arrayBuffer()) : null;
  }
  const ns = c.env[call.binding as keyof AppEnv["Bindings"]] as DurableObjectNamespace;
  const stub = ns.get(ns.idFromString(call.id)) as unknown as Record<string, (...a: unknown[]) => unknown>;
  return stub[call.method]!(...call.args);
}

// A scenario's own storage work (core/bench-replay.ts): the object calls and the D1 batches its
// request in this slot made, its writes too with `writes=1`, then `do` more round trips to the
// floor's object (calls made from inside an object, which the Worker does not see), answered with
// `bytes` bytes of its type when given (sizedAnswer): the runtime writing them
// out is not the isolate's work either.
benchRoute.on(FLOOR_METHODS, "/replay", async (c) => {
  const slot = c.req.query("slot") ?? "";
  const recorded = recordedCalls(slot);
  // The bytes an R2 read gave are the floor's answer (a skill file is served as read).
  let read: Uint8Array | null = null;
  for (const call of recorded) {
    const r = await replayCall(c, call);
    if (r instanceof Uint8Array) read = r;
  }
  const calls = Math.min(2, Math.max(0, Number(c.req.query("do") ?? 0) || 0));
  let a = 1;
  for (let k = 0; k < calls; k++) a = a === 1 ? await quota(c, k ? "b" : "").ping() : a;
  const n = await replayStorage(c.env.DB, slot, { writes: c.req.query("writes") === "1" });
  if (read) return new Response(read, { headers: { "content-type": "application/octet-stream" } });
  const sized = a === 1 && n >= 0 ? sizedAnswer(c) : null;
  if (sized) return sized;
  return c.json({ ok: a === 1 && n >= 0, statements: n, calls: recorded.map((r) => `${r.binding}.${r.method}`) });
});
