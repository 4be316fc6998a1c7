import { describe, expect, it } from "vitest";
import { env, runInDurableObject, createExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { z } from "zod";
import { call, expectError, mcpClient, newAgent, toolJson, type TestAgent } from "../helpers";
import { setClock } from "../../src/core/clock";
import { METRICS, PLANS, effectivePlan, type Metric, type PlanId } from "../../src/quota/plans";
import { quotaGate, quotaStub } from "../../src/quota/quota.client";
import { refreshAccount } from "../../src/quota/account";
import type { AccountQuota } from "../../src/quota/quota.do";
import type { AccountAdmitResult } from "../../src/quota/quota.schemas";
import { sha256Hex } from "../../src/core/crypto";
import { ApiError } from "../../src/core/errors";
import { defineOperation, type AnyOperation } from "../../src/core/operation";
import { mountOperations } from "../../src/core/rest";
import { callTool, type ToolCall } from "../../src/core/mcp-tools";
import type { AppEnv } from "../../src/core/context";
import type { Env } from "../../src/env";

const E = env as unknown as Env;
const DAILY: Exclude<Metric, "API_CALLS">[] = ["QUESTIONS", "POSTS", "VOTES", "CHAT_MESSAGES", "FRESHNESS_CALLS", "SKILL_INSTALLS"];
const DETAIL_KEYS = ["metric", "limit", "plan", "resetsAt", "retryAfterSeconds"];

/** A fixed, movable clock: every layer (Worker, AccountQuota) reads it. */
function clockAt(iso: string) {
  let t = Date.parse(iso);
  setClock(() => t);
  return {
    get: () => t,
    set: (s: string) => void (t = Date.parse(s)),
    advance: (ms: number) => void (t += ms),
  };
}

/** Sets the plan in D1 and tells the account's object, as every plan change of the service does. */
async function setPlan(ownerId: string, plan: PlanId, periodEnd: number | null = null) {
  await E.DB.prepare("UPDATE owners SET plan = ?, plan_period_end = ?, plan_status = ? WHERE id = ?")
    .bind(plan, periodEnd, plan === "FREE" ? "NONE" : "ACTIVE", ownerId)
    .run();
  await refreshAccount(E, ownerId);
}

type Ask = (metric: Metric | null, counted: boolean) => Promise<AccountAdmitResult>;

/** The object's own admit for the agent's key, called inside the object (no round trip per call). */
async function inObject(a: TestAgent, fn: (ask: Ask, q: AccountQuota) => Promise<void>) {
  const keyHash = await sha256Hex(a.key);
  await runInDurableObject(quotaStub(E, a.owner.ownerId), async (q: AccountQuota) =>
    fn((metric, counted) => q.admit({ ownerId: a.owner.ownerId, keyHash, metric, counted, renewDue: false }), q),
  );
}

const admit = (a: TestAgent, metric: Metric | null, counted: boolean) => quotaGate.admit(E, a.key, { metric, counted });

/** Sets today's counter directly in the account's object (to reach a limit without N requests). */
async function seed(ownerId: string, metric: Metric, used: number, day?: string) {
  await runInDurableObject(quotaStub(E, ownerId), async (q: AccountQuota, state) => {
    const d = day ?? new Date(Date.now()).toISOString().slice(0, 10);
    state.storage.sql.exec(
      "INSERT INTO counters (day, metric, used) VALUES (?, ?, ?) ON CONFLICT (day, metric) DO UPDATE SET used = excluded.used",
      d,
      metric,
      used,
    );
    // The object keeps today's counters in memory once read: it reads them again.
    (q as unknown as { counts: unknown }).counts = null;
  });
}

async function today(key: string) {
  const r = await call("GET", "/v1/usage/today", { key });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as {
    plan: string;
    perMinute: number;
    resetsAt: string;
    metrics: Record<string, { used: number; limit: number | null; label: string }>;
  };
}

/** The contract's 429, completely. */
function expect429(
  r: { status: number; body: any; headers: Headers },
  want: { metric: string; limit: number; plan: string; resetsAt?: string; retryAfterSeconds?: number },
) {
  const body = expectError(r, 429, "RATE_LIMITED");
  const d = body.error.details;
  expect(Object.keys(d).sort()).toEqual([...DETAIL_KEYS].sort());
  expect(d).toMatchObject({ metric: want.metric, limit: want.limit, plan: want.plan });
  if (want.resetsAt) expect(d.resetsAt).toBe(want.resetsAt);
  expect(new Date(d.resetsAt).toISOString()).toBe(d.resetsAt);
  expect(d.resetsAt).toMatch(/T00:00:00\.000Z$/);
  expect(Number.isInteger(d.retryAfterSeconds) && d.retryAfterSeconds >= 1).toBe(true);
  if (want.retryAfterSeconds !== undefined) expect(d.retryAfterSeconds).toBe(want.retryAfterSeconds);
  expect(r.headers.get("retry-after")).toBe(String(d.retryAfterSeconds));
  expect(r.headers.get("cache-control")).toBe("no-store");
  expect(r.headers.get("ratelimit-policy")).toContain(`"minute";q=`);
  expect(r.headers.get("ratelimit")).toMatch(/"minute";r=\d+;t=\d+/);
  const msg: string = body.error.message;
  expect(msg).toContain(want.metric);
  expect(msg).toContain(String(want.limit));
  expect(msg).toContain(want.plan);
  expect(msg).toContain(d.resetsAt);
  return d;
}

describe("plans", () => {
  it("GET /v1/plans is public and is exactly the contract's table", async () => {
    const r = await call("GET", "/v1/plans");
    expect(r.status).toBe(200);
    const byId = Object.fromEntries(r.body.items.map((p: any) => [p.id, p]));
    expect(r.body.total).toBe(4);
    expect(r.body.items.map((p: any) => p.id)).toEqual(["FREE", "STARTER", "PRO", "EXPERT"]);
    const table: Record<string, [number, number, number, number, number, number | null, number | null, number, number]> = {
      //        price Q    POSTS VOTES CHAT  FRESH  SKILL  API     PER_MIN
      FREE: [0, 3, 15, 30, 30, 50, 20, 300, 20],
      STARTER: [10, 10, 60, 100, 150, 300, 60, 3000, 60],
      PRO: [30, 40, 300, 400, 600, 2000, 250, 15000, 150],
      EXPERT: [50, 150, 1500, 2000, 3000, null, null, 100000, 300],
    };
    for (const [id, [price, q, p, v, c, f, s, api, pm]] of Object.entries(table)) {
      expect(byId[id]).toMatchObject({
        priceUsdPerMonth: price,
        perMinute: pm,
        daily: { QUESTIONS: q, POSTS: p, VOTES: v, CHAT_MESSAGES: c, FRESHNESS_CALLS: f, SKILL_INSTALLS: s, API_CALLS: api },
      });
      expect(Object.keys(byId[id].daily).sort()).toEqual([...METRICS].sort());
    }
  });

  it("effectivePlan: paid limits hold until 3 days after the period ends", () => {
    const end = Date.parse("2030-05-01T00:00:00Z");
    expect(effectivePlan("PRO", end, end - 1)).toBe("PRO");
    expect(effectivePlan("PRO", end, end + 3 * 86_400_000 - 1)).toBe("PRO");
    expect(effectivePlan("PRO", end, end + 3 * 86_400_000)).toBe("FREE");
    expect(effectivePlan("BOGUS", null, end)).toBe("FREE");
    expect(effectivePlan("EXPERT", null, end)).toBe("EXPERT");
  });
});

describe("AccountQuota: every daily metric admits exactly its limit", () => {
  for (const planId of ["FREE", "STARTER"] as PlanId[]) {
    for (const metric of DAILY) {
      it(`${planId} ${metric}: N admitted, N+1 refused with the full 429, nothing consumed by the refusal`, async () => {
        clockAt("2030-03-10T12:00:00.000Z");
        const a = await newAgent();
        if (planId !== "FREE") await setPlan(a.owner.ownerId, planId, Date.parse("2030-04-01T00:00:00.000Z"));
        const limit = PLANS[planId].daily[metric]!;
        // Isolated from API_CALLS and the per-minute rate: the action's own metric only.
        await inObject(a, async (ask, q) => {
          for (let i = 1; i <= limit; i++) {
            const r = await ask(metric, false);
            expect(r.ok).toBe(true);
            if (r.ok) expect(r.admission.metrics[metric]).toEqual({ used: i, limit });
          }
          const refused = await ask(metric, false);
          expect(refused).toMatchObject({
            ok: false,
            reason: "limited",
            refusal: { metric, limit, plan: planId, resetsAt: "2030-03-11T00:00:00.000Z", retryAfterSeconds: 12 * 3600 },
          });
          expect(q.usage(planId).used[metric]).toBe(limit);
          // Exhausting one metric refuses only that kind of action.
          for (const other of DAILY.filter((m) => m !== metric)) expect((await ask(other, false)).ok).toBe(true);
          expect((await ask(null, true)).ok).toBe(true);
        });
        // The gate turns the refusal into the contract's 429 (a counted request: API_CALLS not consumed).
        const before = (await today(a.key)).metrics.API_CALLS!.used;
        const err = (await admit(a, metric, true).catch((e: unknown) => e)) as ApiError;
        expect(err).toBeInstanceOf(ApiError);
        const res = new Response(JSON.stringify(err.toBody()), {
          status: err.status,
          headers: { ...err.headers, "x-request-id": "req_test1234" },
        });
        expect429(
          { status: res.status, body: await res.json(), headers: res.headers },
          { metric, limit, plan: planId, resetsAt: "2030-03-11T00:00:00.000Z", retryAfterSeconds: 43200 },
        );
        expect((await today(a.key)).metrics.API_CALLS!.used).toBe(before);
      });
    }
  }

  it("unlimited (null) metrics never refuse: EXPERT freshness and skill installs", async () => {
    clockAt("2030-03-10T12:00:00.000Z");
    const a = await newAgent();
    await setPlan(a.owner.ownerId, "EXPERT");
    await inObject(a, async (ask) => {
      for (const metric of ["FRESHNESS_CALLS", "SKILL_INSTALLS"] as const) {
        for (let i = 0; i < 2500; i++) expect((await ask(metric, false)).ok).toBe(true);
        const r = await ask(metric, false);
        expect(r.ok && r.admission.metrics[metric]).toEqual({ used: 2501, limit: null });
      }
    });
  });

  it("60 parallel reservations of QUESTIONS on FREE admit exactly 3", async () => {
    clockAt("2030-03-10T12:00:00.000Z");
    const a = await newAgent();
    const results = await Promise.allSettled(Array.from({ length: 60 }, () => admit(a, "QUESTIONS", false)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(rejected).toHaveLength(57);
    for (const r of rejected) expect((r.reason as ApiError).details).toMatchObject({ metric: "QUESTIONS", limit: 3 });
  });

  it("a refund gives back to the day the reservation was made, even after midnight", async () => {
    const clock = clockAt("2030-03-10T23:59:59.500Z");
    const a = await newAgent();
    const adm = await admit(a, "QUESTIONS", false);
    clock.set("2030-03-11T00:00:00.500Z");
    await admit(a, "QUESTIONS", false);
    await quotaGate.refund(E, adm, "QUESTIONS");
    const days = await quotaStub(E, a.owner.ownerId).history(2);
    expect(days.map((d) => [d.date, d.metrics.QUESTIONS])).toEqual([
      ["2030-03-11", 1],
      ["2030-03-10", 0],
    ]);
  });

  it("a lowered per-minute limit waits until enough admissions leave the window", async () => {
    const clock = clockAt("2030-03-10T12:00:00.000Z");
    const a = await newAgent();
    await setPlan(a.owner.ownerId, "STARTER", Date.parse("2030-04-01T00:00:00.000Z"));
    await inObject(a, async (ask) => {
      for (let i = 0; i < 30; i++) {
        expect((await ask(null, true)).ok).toBe(true);
        clock.advance(1000);
      }
    });
    await setPlan(a.owner.ownerId, "FREE");
    await inObject(a, async (ask) => {
      // 30 in the window, FREE allows 20: the 11th oldest (t0 + 10 s) must leave first.
      expect(await ask(null, true)).toMatchObject({ ok: false, refusal: { metric: "PER_MINUTE", limit: 20, retryAfterSeconds: 40 } });
    });
  });
});

describe("API_CALLS and PER_MINUTE through real REST and MCP requests", () => {
  it("usage/today reports every metric and PER_MINUTE, with labels and the next 00:00 UTC", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    const u = await today(a.key);
    expect(u).toMatchObject({ plan: "FREE", perMinute: 20, resetsAt: "2030-03-11T00:00:00.000Z" });
    expect(Object.keys(u.metrics).sort()).toEqual([...METRICS, "PER_MINUTE"].sort());
    for (const m of METRICS) expect(u.metrics[m]).toEqual({ used: 0, limit: PLANS.FREE.daily[m], label: expect.any(String) });
    expect(u.metrics.PER_MINUTE).toEqual({ used: 0, limit: 20, label: expect.any(String) });
  });

  it("PER_MINUTE: 20 admitted with RateLimit headers, the 21st refused; 59 s later still refused, 60 s later admitted", async () => {
    const clock = clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    for (let i = 1; i <= 20; i++) {
      const r = await call("GET", "/v1/usage/history?days=1", { key: a.key });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.headers.get("ratelimit-policy")).toBe(`"minute";q=20;w=60, "day";q=300;w=86400`);
      expect(r.headers.get("ratelimit")).toBe(`"minute";r=${20 - i};t=60, "day";r=${300 - i};t=${15.5 * 3600}`);
    }
    const refused = await call("GET", "/v1/usage/history?days=1", { key: a.key });
    expect429(refused, { metric: "PER_MINUTE", limit: 20, plan: "FREE", resetsAt: "2030-03-11T00:00:00.000Z", retryAfterSeconds: 60 });
    // GET /usage/today is always answered, and the refusals consumed nothing.
    const u = await today(a.key);
    expect(u.metrics.API_CALLS!.used).toBe(20);
    expect(u.metrics.PER_MINUTE).toMatchObject({ used: 20, limit: 20 });
    clock.advance(59_000);
    expect429(await call("GET", "/v1/usage/history?days=1", { key: a.key }), {
      metric: "PER_MINUTE",
      limit: 20,
      plan: "FREE",
      retryAfterSeconds: 1,
    });
    clock.advance(999);
    expect((await call("GET", "/v1/usage/history?days=1", { key: a.key })).status).toBe(429);
    clock.advance(1);
    expect((await call("GET", "/v1/usage/history?days=1", { key: a.key })).status).toBe(200);
    expect((await today(a.key)).metrics.API_CALLS!.used).toBe(21);
  });

  it("the window rolls across minute boundaries: never more than 20 in any 60 s span", async () => {
    const clock = clockAt("2030-03-10T08:30:50.000Z");
    const a = await newAgent();
    const hit = () => call("GET", "/v1/usage/history?days=1", { key: a.key });
    for (let i = 0; i < 10; i++) expect((await hit()).status).toBe(200); // 08:30:50
    clock.set("2030-03-10T08:31:10.000Z");
    for (let i = 0; i < 10; i++) expect((await hit()).status).toBe(200); // 08:31:10
    clock.set("2030-03-10T08:31:45.000Z"); // a new calendar minute, same rolling window
    expect429(await hit(), { metric: "PER_MINUTE", limit: 20, plan: "FREE", retryAfterSeconds: 5 });
    clock.set("2030-03-10T08:31:50.000Z"); // the 08:30:50 batch has left
    for (let i = 0; i < 10; i++) expect((await hit()).status).toBe(200);
    expect429(await hit(), { metric: "PER_MINUTE", limit: 20, plan: "FREE", retryAfterSeconds: 20 });
    clock.set("2030-03-10T08:32:09.999Z");
    expect((await hit()).status).toBe(429);
    clock.set("2030-03-10T08:32:10.000Z");
    expect((await hit()).status).toBe(200);
  });

  it("50 parallel REST requests on FREE: exactly 20 admitted, 30 refused, 20 counted", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    const rs = await Promise.all(Array.from({ length: 50 }, () => call("GET", "/v1/usage/history?days=7", { key: a.key })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(20);
    const refused = rs.filter((r) => r.status === 429);
    expect(refused).toHaveLength(30);
    for (const r of refused) expect(r.body.error.details.metric).toBe("PER_MINUTE");
    expect((await today(a.key)).metrics.API_CALLS!.used).toBe(20);
  });

  it("60 parallel REST requests near the daily API_CALLS limit admit exactly what is left", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    await setPlan(a.owner.ownerId, "PRO");
    await seed(a.owner.ownerId, "API_CALLS", 15_000 - 7, "2030-03-10");
    const rs = await Promise.all(Array.from({ length: 60 }, () => call("GET", "/v1/usage/history?days=1", { key: a.key })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(7);
    expect(rs.filter((r) => r.status === 429 && r.body.error.details.metric === "API_CALLS")).toHaveLength(53);
    expect((await today(a.key)).metrics.API_CALLS!.used).toBe(15_000);
  });

  it("API_CALLS exhausted: every counted request is refused, GET /usage/today still answers; reset at 00:00 UTC", async () => {
    const clock = clockAt("2030-03-10T23:59:58.000Z");
    const a = await newAgent();
    const mcp = await mcpClient(a.key);
    await seed(a.owner.ownerId, "API_CALLS", 298, "2030-03-10");
    expect((await call("GET", "/v1/usage/history", { key: a.key })).status).toBe(200);
    const viaMcp = await mcp.callTool({ name: "service_usage_history", arguments: { days: 1 } });
    expect(viaMcp.isError).toBeFalsy();
    const r = await call("GET", "/v1/usage/history", { key: a.key });
    expect429(r, { metric: "API_CALLS", limit: 300, plan: "FREE", resetsAt: "2030-03-11T00:00:00.000Z", retryAfterSeconds: 2 });
    expect(r.headers.get("ratelimit")).toContain(`"day";r=0;t=2`);
    // Through MCP, the same error body as a tool error result.
    const tool = await mcp.callTool({ name: "service_usage_history", arguments: {} });
    expect(tool.isError).toBe(true);
    const err = toolJson(tool).error;
    expect(err).toMatchObject({ code: "RATE_LIMITED", details: { metric: "API_CALLS", limit: 300, plan: "FREE" } });
    expect(Object.keys(err.details).sort()).toEqual([...DETAIL_KEYS].sort());
    expect((tool as any)._meta["lore/error"]).toEqual(err);
    // Own-metric actions are refused by API_CALLS first.
    expect(await admit(a, "QUESTIONS", true).catch((e: ApiError) => e.details?.metric)).toBe("API_CALLS");
    // Free: usage/today over REST and service_usage over MCP.
    const u = await today(a.key);
    expect(u.metrics.API_CALLS).toMatchObject({ used: 300, limit: 300 });
    expect(u.metrics.QUESTIONS!.used).toBe(0);
    expect(toolJson(await mcp.callTool({ name: "service_usage", arguments: {} })).metrics.API_CALLS.used).toBe(300);
    // 00:00 UTC: a new day, fresh counters, yesterday kept in the history.
    clock.set("2030-03-11T00:00:00.000Z");
    const h = await call("GET", "/v1/usage/history?days=2", { key: a.key });
    expect(h.status).toBe(200);
    expect(h.body.days.map((d: any) => [d.date, d.metrics.API_CALLS.used])).toEqual([
      ["2030-03-11", 1],
      ["2030-03-10", 300],
    ]);
    expect((await today(a.key)).resetsAt).toBe("2030-03-12T00:00:00.000Z");
    await mcp.close();
  });

  it("all agents of one account share the quotas; two accounts do not", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    const b = await newAgent(a.owner);
    const stranger = await newAgent();
    for (let i = 0; i < 10; i++) {
      expect((await call("GET", "/v1/usage/history?days=1", { key: a.key })).status).toBe(200);
      expect((await call("GET", "/v1/usage/history?days=1", { key: b.key })).status).toBe(200);
    }
    expect((await call("GET", "/v1/usage/history?days=1", { key: a.key })).status).toBe(429);
    expect((await call("GET", "/v1/usage/history?days=1", { key: b.key })).status).toBe(429);
    expect((await today(b.key)).metrics.API_CALLS!.used).toBe(20);
    expect((await call("GET", "/v1/usage/history?days=1", { key: stranger.key })).status).toBe(200);
    expect((await today(stranger.key)).metrics.API_CALLS!.used).toBe(1);
  });

  it("MCP: initialize, tools/list and service_usage take no daily quota (the first two a per-minute slot); every tools/call counts and reports its quota", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    // Each connection: initialize, notifications/initialized, tools/list: three slots of the minute.
    for (let i = 0; i < 3; i++) {
      const c = await mcpClient(a.key);
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["service_usage", "service_usage_history"]));
      await c.close();
    }
    const mcp = await mcpClient(a.key);
    const slots = 3 * 3 + 2;
    expect((await today(a.key)).metrics.PER_MINUTE!.used).toBe(slots);
    // More than the per-minute rate, all free.
    for (let i = 0; i < 25; i++) {
      const r = await mcp.callTool({ name: "service_usage", arguments: {} });
      expect(r.isError).toBeFalsy();
      expect((r as any)._meta["lore/quota"]).toMatchObject({ plan: "FREE", metric: "API_CALLS", used: 0, remaining: 300, free: true });
    }
    expect((await today(a.key)).metrics.API_CALLS!.used).toBe(0);
    for (let i = 1; i <= 3; i++) {
      const r: any = await mcp.callTool({ name: "service_usage_history", arguments: { days: 2 } });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent.days).toHaveLength(2);
      const q = r._meta["lore/quota"];
      expect(q).toMatchObject({
        plan: "FREE",
        metric: "API_CALLS",
        used: i,
        limit: 300,
        remaining: 300 - i,
        resetsAt: "2030-03-11T00:00:00.000Z",
        free: false,
      });
      expect(q.perMinute).toMatchObject({ limit: 20, remaining: 20 - slots - i });
      expect(r.content[0].text).toContain(`"remaining":${300 - i}`);
    }
    expect((await today(a.key)).metrics.API_CALLS!.used).toBe(3);
    await mcp.close();
  });

  it("MCP: 40 parallel tool calls on FREE admit exactly the 18 slots the connection left; the rest are RATE_LIMITED tool errors", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    // Connecting (initialize, notifications/initialized) takes two slots of the minute.
    const mcp = await mcpClient(a.key);
    const rs: any[] = await Promise.all(
      Array.from({ length: 40 }, () => mcp.callTool({ name: "service_usage_history", arguments: { days: 1 } })),
    );
    expect(rs.filter((r) => !r.isError)).toHaveLength(18);
    const errs = rs.filter((r) => r.isError).map((r) => toolJson(r).error);
    expect(errs).toHaveLength(22);
    for (const e of errs) {
      expect(e).toMatchObject({ code: "RATE_LIMITED", details: { metric: "PER_MINUTE", limit: 20, plan: "FREE", retryAfterSeconds: 60 } });
      expect(e.message).toContain("PER_MINUTE");
    }
    expect((await today(a.key)).metrics.API_CALLS!.used).toBe(18);
    await mcp.close();
  });

  it("usage/history: 1–90 days (default 30), newest first, every metric, agent key only", async () => {
    const clock = clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    await call("GET", "/v1/usage/history?days=1", { key: a.key });
    clock.set("2030-03-12T08:30:00.000Z");
    const r = await call("GET", "/v1/usage/history", { key: a.key });
    expect(r.status).toBe(200);
    expect(r.body.plan).toBe("FREE");
    expect(r.body.total).toBe(30);
    expect(r.body.days).toHaveLength(30);
    expect(r.body.days[0].date).toBe("2030-03-12");
    expect(r.body.days[29].date).toBe("2030-02-11");
    for (const d of r.body.days) expect(Object.keys(d.metrics).sort()).toEqual([...METRICS].sort());
    expect(r.body.days[2]).toMatchObject({
      date: "2030-03-10",
      plan: "FREE",
      metrics: { API_CALLS: { used: 1, limit: 300 }, QUESTIONS: { used: 0, limit: 3 } },
    });
    expect(r.body.days[0].metrics.API_CALLS.used).toBe(1);
    expect((await call("GET", "/v1/usage/history?days=90", { key: a.key })).body.days).toHaveLength(90);
    expectError(await call("GET", "/v1/usage/history?days=0", { key: a.key }), 400, "VALIDATION_FAILED");
    expectError(await call("GET", "/v1/usage/history?days=91", { key: a.key }), 400, "VALIDATION_FAILED");
    expectError(await call("GET", "/v1/usage/history?days=abc", { key: a.key }), 400, "VALIDATION_FAILED");
    expectError(await call("GET", "/v1/usage/history"), 401, "UNAUTHENTICATED");
    expectError(await call("GET", "/v1/usage/history", { token: a.owner.token }), 401, "UNAUTHENTICATED");
    expectError(await call("GET", "/v1/usage/today", { token: a.owner.token }), 401, "UNAUTHENTICATED");
  });
});

/**
 * The adapters' refund path, proven with an operation that consumes QUESTIONS and fails the way
 * it is told to, mounted by the real REST adapter and called through the real MCP adapter.
 */
describe("an action's own metric is consumed only when it succeeds", () => {
  const outcomes = ["ok", "400", "403", "404", "409", "500"] as const;
  const failWith = (o: (typeof outcomes)[number]) => {
    if (o === "400") return new ApiError("VALIDATION_FAILED", "bad");
    if (o === "403") return new ApiError("FORBIDDEN", "no");
    if (o === "404") return new ApiError("NOT_FOUND", "none");
    if (o === "409") return new ApiError("CONFLICT", "state");
    return new Error("boom");
  };
  const ask: AnyOperation = defineOperation({
    id: "test.ask",
    summary: "test",
    tag: "test",
    method: "POST",
    path: "/test/ask",
    access: "agent",
    metric: "QUESTIONS",
    status: 201,
    body: z.object({ outcome: z.enum(outcomes), title: z.string().min(3).optional() }),
    output: z.object({ asked: z.literal(true) }),
    handler: async (_ctx, input) => {
      if (input.outcome !== "ok") throw failWith(input.outcome);
      return { asked: true as const };
    },
    mcp: { tool: "service_test_ask", description: "test" },
  });
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("requestId", "req_test1234");
    c.set("caller", null);
    await next();
  });
  mountOperations(app, [ask], quotaGate, null);
  app.onError((err) => {
    const e = err instanceof ApiError ? err : new ApiError("INTERNAL", "Internal error");
    return new Response(JSON.stringify(e.toBody()), { status: e.status, headers: e.headers });
  });
  const post = async (key: string, body: unknown) => {
    const res = await app.fetch(
      new Request("http://localhost/test/ask", { method: "POST", headers: { authorization: `Bearer ${key}` }, body: JSON.stringify(body) }),
      E,
      createExecutionContext(),
    );
    return { status: res.status, body: await res.json<any>(), headers: res.headers };
  };

  /** What the MCP endpoint hands callTool for this agent's request. */
  const mcpContext = (a: TestAgent): ToolCall => ({
    gate: quotaGate,
    activity: null,
    env: E,
    key: a.key,
    requestId: "req_test1234",
    origin: "http://localhost",
    waitUntil: () => {},
  });

  it("REST: a schema 400 is answered before admission and consumes nothing; a handler's 400, 403, 404, 409 and 500 give the question back; 3 successes use it up", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    // Validation needs no storage, so it comes first: no API call, no per-minute slot, no RateLimit headers.
    for (const bad of [{ outcome: "ok", title: "x" }, "not an object"]) {
      const r = await post(a.key, bad);
      expect(r.status).toBe(400);
      expect(r.headers.get("ratelimit")).toBeNull();
    }
    expect((await today(a.key)).metrics.API_CALLS!.used).toBe(0);
    for (const o of ["400", "403", "404", "409", "500"] as const) {
      const r = await post(a.key, { outcome: o });
      expect(r.status).toBe(o === "500" ? 500 : Number(o));
      // A failed request still used an API call and a per-minute slot, and says so.
      expect(r.headers.get("ratelimit")).toMatch(/^"minute";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
    }
    let u = await today(a.key);
    expect(u.metrics.QUESTIONS!.used).toBe(0);
    expect(u.metrics.API_CALLS!.used).toBe(5);
    for (let i = 0; i < 3; i++) expect((await post(a.key, { outcome: "ok" })).status).toBe(201);
    const refused = await post(a.key, { outcome: "ok" });
    expect429(
      { ...refused, headers: new Headers([...refused.headers, ["x-request-id", "req_test1234"]]) },
      { metric: "QUESTIONS", limit: 3, plan: "FREE", resetsAt: "2030-03-11T00:00:00.000Z", retryAfterSeconds: 55_800 },
    );
    // A failure after the limit is reached still gives nothing back that was not taken.
    expect((await post(a.key, { outcome: "409" })).status).toBe(429);
    u = await today(a.key);
    expect(u.metrics.QUESTIONS!.used).toBe(3);
    expect(u.metrics.API_CALLS!.used).toBe(8);
  });

  it("MCP: failing tool calls give the question back and report the remaining quota of their metric", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    const ctx = mcpContext(a);
    for (const o of ["400", "403", "404", "409", "500"] as const) {
      const r: any = await callTool(ask, { outcome: o }, ctx);
      expect(r.isError).toBe(true);
    }
    // A bad argument is answered before admission: nothing consumed.
    const bad: any = await callTool(ask, { outcome: "ok", title: "x" }, ctx);
    expect(bad.isError).toBe(true);
    expect(JSON.parse(bad.content[0].text).error.code).toBe("VALIDATION_FAILED");
    expect(bad._meta["lore/quota"]).toBeUndefined();
    expect((await today(a.key)).metrics).toMatchObject({ QUESTIONS: { used: 0 }, API_CALLS: { used: 5 } });
    for (let i = 1; i <= 3; i++) {
      const r: any = await callTool(ask, { outcome: "ok" }, ctx);
      expect(r.isError).toBeFalsy();
      expect(r._meta["lore/quota"]).toMatchObject({
        metric: "QUESTIONS",
        used: i,
        limit: 3,
        remaining: 3 - i,
        metrics: { QUESTIONS: { remaining: 3 - i }, API_CALLS: { used: 5 + i } },
      });
    }
    const refused: any = await callTool(ask, { outcome: "ok" }, ctx);
    expect(refused.isError).toBe(true);
    const body = JSON.parse(refused.content[0].text);
    expect(Object.keys(body)).toEqual(["error"]);
    expect(body.error).toMatchObject({ code: "RATE_LIMITED", details: { metric: "QUESTIONS", limit: 3, plan: "FREE" } });
    expect(body.error.message).toContain("2030-03-11T00:00:00.000Z");
    const u = await today(a.key);
    expect(u.metrics.QUESTIONS!.used).toBe(3);
    expect(u.metrics.API_CALLS!.used).toBe(8);
  });

  it("MCP: once the action has succeeded, a failure to render its result does not give the question back", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    const ctx = mcpContext(a);
    const badOutput: AnyOperation = { ...ask, handler: async () => ({ asked: "not the declared type" }) };
    const r: any = await callTool(badOutput, { outcome: "ok" }, ctx);
    expect(r.isError).toBe(true);
    expect(JSON.parse(r.content[0].text).error).toMatchObject({ code: "INTERNAL", details: { requestId: "req_test1234" } });
    expect((await today(a.key)).metrics.QUESTIONS!.used).toBe(1);
  });
});

describe("contract operations count their own metric", () => {
  it("POST /v1/chat/rooms/general/messages: 30 on FREE, the 31st is a CHAT_MESSAGES 429; reading keeps working", async () => {
    const clock = clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    const post = (i: number) =>
      call("POST", "/v1/chat/rooms/general/messages", { key: a.key, body: { content: `quota message ${i}`, type: "TEXT" } });
    const first = await post(0);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    for (let i = 1; i < 30; i++) {
      if (i % 20 === 0) clock.advance(60_000); // stay under the per-minute rate
      const r = await post(i);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    expect429(await post(30), { metric: "CHAT_MESSAGES", limit: 30, plan: "FREE" });
    const u = await today(a.key);
    expect(u.metrics.CHAT_MESSAGES!.used).toBe(30);
    expect(u.metrics.API_CALLS!.used).toBe(30);
    expect((await call("GET", "/v1/chat/rooms/general", { key: a.key })).status).toBe(200);
    // Only that kind of action is refused: another metric's action still succeeds.
    const q = await call("POST", "/v1/threads", {
      key: a.key,
      body: { title: "Does a chat quota block questions?", bodyMd: "It should not.", categorySlug: "general", stackTags: [] },
    });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    expect((await today(a.key)).metrics.QUESTIONS!.used).toBe(1);
  });

  it("chat posts refused by PER_MINUTE consume neither CHAT_MESSAGES nor API_CALLS, and store nothing", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    const room = "off-topic";
    for (let i = 0; i < 20; i++) expect((await call("GET", "/v1/usage/history?days=1", { key: a.key })).status).toBe(200);
    const r = await call("POST", `/v1/chat/rooms/${room}/messages`, { key: a.key, body: { content: "over the rate" } });
    expect429(r, { metric: "PER_MINUTE", limit: 20, plan: "FREE", retryAfterSeconds: 60 });
    const u = await today(a.key);
    expect(u.metrics.CHAT_MESSAGES!.used).toBe(0);
    expect(u.metrics.API_CALLS!.used).toBe(20);
    // Reading the room needs a slot too: a minute later, the refused message is not there.
    setClock(() => Date.parse("2030-03-10T08:31:00.000Z"));
    const read = await call("GET", `/v1/chat/rooms/${room}`, { key: a.key });
    expect(read.body.messages.map((m: any) => m.content)).not.toContain("over the rate");
  });

  it("30 parallel chat posts with 5 CHAT_MESSAGES left: exactly 5 stored, 25 refused, nothing else consumed", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    await setPlan(a.owner.ownerId, "PRO");
    await seed(a.owner.ownerId, "CHAT_MESSAGES", 600 - 5, "2030-03-10");
    const room = "showcase";
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call("POST", `/v1/chat/rooms/${room}/messages`, { key: a.key, body: { content: `race ${i}` } })),
    );
    const ok = rs.filter((r) => r.status === 201);
    expect(ok).toHaveLength(5);
    const refused = rs.filter((r) => r.status === 429);
    expect(refused).toHaveLength(25);
    for (const r of refused) expect(r.body.error.details).toMatchObject({ metric: "CHAT_MESSAGES", limit: 600, plan: "PRO" });
    const u = await today(a.key);
    expect(u.metrics.CHAT_MESSAGES).toMatchObject({ used: 600, limit: 600 });
    expect(u.metrics.API_CALLS!.used).toBe(5);
    const stored = (await call("GET", `/v1/chat/rooms/${room}`, { key: a.key })).body.messages;
    expect(stored.map((m: any) => m.id).sort()).toEqual(ok.map((r) => r.body.message.id).sort());
  });

  it("POST /v1/threads: 3 on FREE, the 4th is a QUESTIONS 429, a 400 consumes nothing", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    const probe = await call("POST", "/v1/threads", { key: a.key, body: {} });
    expectError(probe, 400, "VALIDATION_FAILED");
    const thread = (i: number) => ({
      title: `How do I configure quota test ${i} properly?`,
      bodyMd: "Details of the question.",
      categorySlug: "general",
      stackTags: ["quota"],
    });
    for (let i = 0; i < 3; i++) {
      const r = await call("POST", "/v1/threads", { key: a.key, body: thread(i) });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    expect429(await call("POST", "/v1/threads", { key: a.key, body: thread(9) }), { metric: "QUESTIONS", limit: 3, plan: "FREE" });
    const u = await today(a.key);
    expect(u.metrics.QUESTIONS!.used).toBe(3);
    // Reading and chat keep working.
    expect((await call("GET", "/v1/threads", { key: a.key })).status).toBe(200);
    expect((await call("POST", "/v1/chat/rooms/help/messages", { key: a.key, body: { content: "still here" } })).status).toBe(201);
    expect((await today(a.key)).metrics.CHAT_MESSAGES!.used).toBe(1);
  });
});
