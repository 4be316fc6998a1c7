import { afterEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { call, expectError, newAgent, signup, type TestOwner } from "./helpers";
import { setClock } from "../src/core/clock";
import { setBillingProvider, type ChargeRequest } from "../src/billing/billing.provider";
import { addMonths } from "../src/billing/billing.service";
import type { Env } from "../src/env";

const E = env as unknown as Env;
const DAY = 86_400_000;

function clockAt(iso: string) {
  let t = Date.parse(iso);
  setClock(() => t);
  return { set: (s: string | number) => void (t = typeof s === "number" ? s : Date.parse(s)) };
}

/** Records every charge the provider is asked for; declines when told to. */
function recordingProvider(decline = false) {
  const charges: ChargeRequest[] = [];
  setBillingProvider({
    name: "test",
    charge: async (req) => {
      charges.push(req);
      return decline ? { ok: false, reason: "card declined" } : { ok: true, reference: `t${charges.length}` };
    },
  });
  return charges;
}

afterEach(() => setBillingProvider());

/** Sessions last 30 days: after moving the clock by months the owner logs in again. */
async function fresh(o: TestOwner): Promise<TestOwner> {
  const r = await call("POST", "/v1/auth/login", { body: { email: o.email, password: "correct horse battery" } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  o.token = r.body.token;
  return o;
}

const billing = async (o: TestOwner) => {
  const r = await call("GET", "/v1/billing", { token: (await fresh(o)).token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};
const subscribe = async (o: TestOwner, plan: string) =>
  call("POST", "/v1/billing/subscribe", { token: (await fresh(o)).token, body: { plan } });
const cancel = async (o: TestOwner) => call("POST", "/v1/billing/cancel", { token: (await fresh(o)).token });
const planSeenBy = async (key: string) => (await call("GET", "/v1/usage/today", { key })).body;
const stored = (ownerId: string) =>
  E.DB.prepare("SELECT plan, plan_status AS status, plan_period_end AS periodEnd FROM owners WHERE id = ?").bind(ownerId).first();

describe("billing with the local provider", () => {
  it("a new account is FREE with no subscription; owner session only", async () => {
    const a = await newAgent();
    expect(await billing(a.owner)).toEqual({ plan: "FREE", subscribedPlan: null, status: "NONE", periodEnd: null, graceEndsAt: null });
    expectError(await call("GET", "/v1/billing"), 401, "UNAUTHENTICATED");
    expectError(await call("GET", "/v1/billing", { key: a.key }), 403, "FORBIDDEN");
    expectError(await call("POST", "/v1/billing/subscribe", { key: a.key, body: { plan: "PRO" } }), 403, "FORBIDDEN");
    expectError(await cancel(a.owner), 409, "CONFLICT");
  });

  it("subscribe validates the plan: FREE is a 400 pointing to cancel, unknown plans are 400", async () => {
    const o = await signup();
    const free = expectError(await subscribe(o, "FREE"), 400, "VALIDATION_FAILED");
    expect(free.error.message).toContain("/v1/billing/cancel");
    expectError(await subscribe(o, "PLATINUM"), 400, "VALIDATION_FAILED");
    expectError(await call("POST", "/v1/billing/subscribe", { token: o.token, body: {} }), 400, "VALIDATION_FAILED");
    expect((await billing(o)).status).toBe("NONE");
  });

  it("subscribing activates at once for one calendar month and the agents get the plan's limits", async () => {
    clockAt("2031-01-31T10:00:00.000Z");
    const charges = recordingProvider();
    const a = await newAgent();
    const r = await subscribe(a.owner, "PRO");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({
      plan: "PRO",
      subscribedPlan: "PRO",
      status: "ACTIVE",
      periodEnd: "2031-02-28T10:00:00.000Z", // one calendar month, clamped to February's end
      graceEndsAt: "2031-03-03T10:00:00.000Z",
    });
    expect(charges).toMatchObject([{ plan: "PRO", amountUsd: 30, reason: "subscribe" }]);
    const u = await planSeenBy(a.key);
    expect(u).toMatchObject({ plan: "PRO", perMinute: 150, metrics: { QUESTIONS: { limit: 40 }, API_CALLS: { limit: 15000 }, PER_MINUTE: { limit: 150 } } });
    // The same plan again is a conflict; another plan starts a new month at once.
    expectError(await subscribe(a.owner, "PRO"), 409, "CONFLICT");
    const up = await subscribe(a.owner, "EXPERT");
    expect(up.body).toMatchObject({ plan: "EXPERT", status: "ACTIVE", periodEnd: "2031-02-28T10:00:00.000Z" });
    expect((await planSeenBy(a.key)).plan).toBe("EXPERT");
    expect(charges).toHaveLength(2);
  });

  it("a plan change applies to today's counters at once: more questions after upgrading", async () => {
    clockAt("2031-01-10T10:00:00.000Z");
    const a = await newAgent();
    const thread = (i: number) => ({ title: `Billing upgrade question number ${i}?`, bodyMd: "Body.", categorySlug: "general", stackTags: [] });
    for (let i = 0; i < 3; i++) expect((await call("POST", "/v1/threads", { key: a.key, body: thread(i) })).status).toBe(201);
    expect((await call("POST", "/v1/threads", { key: a.key, body: thread(3) })).status).toBe(429);
    await subscribe(a.owner, "STARTER");
    expect((await call("POST", "/v1/threads", { key: a.key, body: thread(4) })).status).toBe(201);
    expect((await planSeenBy(a.key)).metrics.QUESTIONS).toMatchObject({ used: 4, limit: 10 });
  });

  it("cancel keeps the plan to the period end, then 3 days of grace, then FREE", async () => {
    const clock = clockAt("2031-03-15T12:00:00.000Z");
    const a = await newAgent();
    await subscribe(a.owner, "STARTER");
    const c = await cancel(a.owner);
    expect(c.status).toBe(200);
    expect(c.body).toEqual({
      plan: "STARTER",
      subscribedPlan: "STARTER",
      status: "CANCELED",
      periodEnd: "2031-04-15T12:00:00.000Z",
      graceEndsAt: "2031-04-18T12:00:00.000Z",
    });
    expect((await cancel(a.owner)).body.status).toBe("CANCELED"); // idempotent
    const end = Date.parse("2031-04-15T12:00:00.000Z");
    clock.set(end - 1);
    expect((await billing(a.owner)).status).toBe("CANCELED");
    expect((await planSeenBy(a.key)).plan).toBe("STARTER");
    clock.set(end);
    expect(await billing(a.owner)).toMatchObject({ plan: "STARTER", status: "GRACE", subscribedPlan: "STARTER" });
    expect((await planSeenBy(a.key)).plan).toBe("STARTER");
    clock.set(end + 3 * DAY - 1);
    expect((await planSeenBy(a.key)).plan).toBe("STARTER");
    expect((await billing(a.owner)).status).toBe("GRACE");
    clock.set(end + 3 * DAY);
    // Agents fall to FREE by the stored dates alone (no write on their hot path)…
    expect((await planSeenBy(a.key)).plan).toBe("FREE");
    expect((await stored(a.owner.ownerId))?.plan).toBe("STARTER");
    // …and the owner's billing read settles the row.
    expect(await billing(a.owner)).toEqual({ plan: "FREE", subscribedPlan: null, status: "NONE", periodEnd: null, graceEndsAt: null });
    expect(await stored(a.owner.ownerId)).toEqual({ plan: "FREE", status: "NONE", periodEnd: null });
    expectError(await cancel(a.owner), 409, "CONFLICT");
  });

  it("a grace period gives the paid per-minute rate: 60 parallel requests on STARTER in grace admit exactly 60", async () => {
    const clock = clockAt("2031-03-15T12:00:00.000Z");
    const a = await newAgent();
    await subscribe(a.owner, "STARTER");
    await cancel(a.owner);
    clock.set(Date.parse("2031-04-16T12:00:00.000Z"));
    const rs = await Promise.all(Array.from({ length: 70 }, () => call("GET", "/v1/usage/history?days=1", { key: a.key })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(60);
    expect(rs.filter((r) => r.status === 429 && r.body.error.details.plan === "STARTER")).toHaveLength(10);
  });

  it("subscribing again to a canceled plan resumes it without a charge", async () => {
    clockAt("2031-05-01T00:00:00.000Z");
    const charges = recordingProvider();
    const o = await signup();
    await subscribe(o, "PRO");
    await cancel(o);
    const r = await subscribe(o, "PRO");
    expect(r.body).toMatchObject({ status: "ACTIVE", periodEnd: "2031-06-01T00:00:00.000Z" });
    expect(charges).toHaveLength(1);
  });

  it("an ACTIVE subscription renews when its period ends and never lapses", async () => {
    const clock = clockAt("2031-01-31T10:00:00.000Z");
    const charges = recordingProvider();
    const a = await newAgent();
    await subscribe(a.owner, "STARTER");
    // Nobody calls for three months and a bit: the first request renews for every period that passed.
    clock.set("2031-05-02T00:00:00.000Z");
    expect((await planSeenBy(a.key)).plan).toBe("STARTER");
    const b = await billing(a.owner);
    // Periods count from the Jan 31 anchor: Feb 28, Mar 31, Apr 30, May 31 (no drift to the 28th).
    expect(b).toMatchObject({ plan: "STARTER", status: "ACTIVE", periodEnd: "2031-05-31T10:00:00.000Z" });
    expect(charges.map((c) => [c.reason, c.amountUsd])).toEqual([
      ["subscribe", 10],
      ["renew", 30],
    ]);
    // Concurrent first requests after the period end charge once.
    clock.set("2031-05-31T10:00:00.000Z");
    await Promise.all([billing(a.owner), planSeenBy(a.key), planSeenBy(a.key), billing(a.owner)]);
    expect(charges).toHaveLength(3);
    expect((await billing(a.owner)).periodEnd).toBe("2031-06-30T10:00:00.000Z");
    clock.set("2031-06-30T10:00:00.000Z");
    expect((await billing(a.owner)).periodEnd).toBe("2031-07-31T10:00:00.000Z");
  });

  it("a declined renewal falls into grace, then FREE", async () => {
    const clock = clockAt("2031-07-01T00:00:00.000Z");
    const a = await newAgent();
    await subscribe(a.owner, "PRO");
    recordingProvider(true);
    clock.set("2031-08-01T00:00:00.000Z");
    expect(await billing(a.owner)).toMatchObject({ plan: "PRO", status: "GRACE", periodEnd: "2031-08-01T00:00:00.000Z", graceEndsAt: "2031-08-04T00:00:00.000Z" });
    clock.set("2031-08-04T00:00:00.000Z");
    expect((await planSeenBy(a.key)).plan).toBe("FREE");
    // Subscribing again works (the local provider is back).
    setBillingProvider();
    expect((await subscribe(a.owner, "PRO")).body).toMatchObject({ status: "ACTIVE", periodEnd: "2031-09-04T00:00:00.000Z" });
  });

  it("a provider that throws grants no unpaid period: subscribe is undone, renewal retried, agents keep working", async () => {
    const clock = clockAt("2031-09-10T00:00:00.000Z");
    const failing = () =>
      setBillingProvider({
        name: "down",
        charge: async () => {
          throw new Error("provider unreachable");
        },
      });
    const a = await newAgent();
    failing();
    const r = await subscribe(a.owner, "PRO");
    expectError(r, 500, "INTERNAL");
    expect(await stored(a.owner.ownerId)).toEqual({ plan: "FREE", status: "NONE", periodEnd: null });
    expect((await planSeenBy(a.key)).plan).toBe("FREE");

    const charges = recordingProvider();
    expect((await subscribe(a.owner, "PRO")).status).toBe(200);
    const end = Date.parse("2031-10-10T00:00:00.000Z");
    failing();
    clock.set(end + DAY);
    // The renewal fails: the agent is answered on the stored period (in grace: still PRO).
    const seen = await call("GET", "/v1/usage/today", { key: a.key });
    expect(seen.status).toBe(200);
    expect(seen.body.plan).toBe("PRO");
    expect(await stored(a.owner.ownerId)).toEqual({ plan: "PRO", status: "ACTIVE", periodEnd: end });
    // Once the provider is back, the next request renews, charging once.
    setBillingProvider({ name: "back", charge: async (req) => (charges.push(req), { ok: true, reference: "r" }) });
    expect((await planSeenBy(a.key)).plan).toBe("PRO");
    expect(await stored(a.owner.ownerId)).toEqual({ plan: "PRO", status: "ACTIVE", periodEnd: Date.parse("2031-11-10T00:00:00.000Z") });
    expect(charges.map((c) => c.reason)).toEqual(["subscribe", "renew"]);
  });

  it("one account's subscription does not change another's limits", async () => {
    const a = await newAgent();
    const other = await newAgent();
    await subscribe(a.owner, "EXPERT");
    expect((await planSeenBy(a.key)).plan).toBe("EXPERT");
    expect((await planSeenBy(other.key)).plan).toBe("FREE");
    expect((await billing(other.owner)).status).toBe("NONE");
  });

  it("addMonths keeps the time of day and clamps to the month's last day", () => {
    expect(new Date(addMonths(Date.parse("2032-01-31T23:59:59.000Z"), 1)).toISOString()).toBe("2032-02-29T23:59:59.000Z");
    expect(new Date(addMonths(Date.parse("2031-12-15T08:00:00.000Z"), 1)).toISOString()).toBe("2032-01-15T08:00:00.000Z");
    expect(new Date(addMonths(Date.parse("2031-03-31T00:00:00.000Z"), 1)).toISOString()).toBe("2031-04-30T00:00:00.000Z");
  });
});
