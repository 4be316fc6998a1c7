/// <reference types="vite/client" />
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { call, expectError, newAgent, signup, type TestAgent, type TestOwner } from "../helpers";
import { now, setClock } from "../../src/core/clock";
import {
  FakeStripe,
  PRICE,
  STRIPE_ENV,
  checkoutCompletedObject,
  deliver,
  invoiceObject,
  stripeEvent,
  stripeSignature,
  subscriptionObject,
} from "../stripe-fake";
import { setBillingProvider, type ChargeRequest } from "../../src/billing/billing.provider";
import { addMonths } from "../../src/core/clock";
import { runMaintenance } from "../../src/maintenance";
import { HANDLED_EVENTS } from "../../src/billing/stripe.webhook";
import { refreshAccount } from "../../src/quota/account";
import readme from "../../README.md?raw";
import type { Env } from "../../src/env";

const E = env as unknown as Env;
const DAY = 86_400_000;
const clone = <T>(x: T): T => structuredClone(x);
const LOCAL = { name: "local", checkout: false, portal: false, directSwitch: true };

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
    expect(await billing(a.owner)).toEqual({
      plan: "FREE",
      subscribedPlan: null,
      status: "NONE",
      periodEnd: null,
      graceEndsAt: null,
      provider: LOCAL,
    });
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
      provider: LOCAL,
      redirect: null,
    });
    expect(charges).toMatchObject([{ plan: "PRO", amountUsd: 30, reason: "subscribe" }]);
    const u = await planSeenBy(a.key);
    expect(u).toMatchObject({
      plan: "PRO",
      perMinute: 150,
      metrics: { QUESTIONS: { limit: 40 }, API_CALLS: { limit: 15000 }, PER_MINUTE: { limit: 150 } },
    });
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
    const thread = (i: number) => ({
      title: `Billing upgrade question number ${i}?`,
      bodyMd: "Body.",
      categorySlug: "general",
      stackTags: [],
    });
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
      provider: LOCAL,
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
    expect(await billing(a.owner)).toEqual({
      plan: "FREE",
      subscribedPlan: null,
      status: "NONE",
      periodEnd: null,
      graceEndsAt: null,
      provider: LOCAL,
    });
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
    expect(await billing(a.owner)).toMatchObject({
      plan: "PRO",
      status: "GRACE",
      periodEnd: "2031-08-01T00:00:00.000Z",
      graceEndsAt: "2031-08-04T00:00:00.000Z",
    });
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

// ---------------------------------------------------------------------------------------------
// Stripe: Checkout, the Customer Portal and signed webhooks, against recorded responses.
// ---------------------------------------------------------------------------------------------

const sc = (method: string, path: string, opts: Parameters<typeof call>[2] = {}) => call(method, path, { ...opts, env: STRIPE_ENV });
const stripeBilling = async (o: TestOwner) => {
  const r = await sc("GET", "/v1/billing", { token: (await fresh(o)).token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};
/** What an agent of the account is admitted under on its next request. */
const limitsSeen = async (key: string) => {
  const r = await sc("GET", "/v1/usage/today", { key });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return {
    plan: r.body.plan,
    perMinute: r.body.perMinute,
    questions: r.body.metrics.QUESTIONS.limit,
    apiCalls: r.body.metrics.API_CALLS.limit,
  };
};
const LIMITS = {
  FREE: { plan: "FREE", perMinute: 20, questions: 3, apiCalls: 300 },
  STARTER: { plan: "STARTER", perMinute: 60, questions: 10, apiCalls: 3000 },
  PRO: { plan: "PRO", perMinute: 150, questions: 40, apiCalls: 15000 },
  EXPERT: { plan: "EXPERT", perMinute: 300, questions: 150, apiCalls: 100000 },
};
const mirror = (ownerId: string) => E.DB.prepare("SELECT * FROM stripe_customers WHERE owner_id = ?").bind(ownerId).first<any>();
const eventRow = (id: string) => E.DB.prepare("SELECT * FROM stripe_events WHERE id = ?").bind(id).first<any>();
const eventCount = async () => (await E.DB.prepare("SELECT COUNT(*) AS n FROM stripe_events").first<{ n: number }>())!.n;
const iso = (ms: number) => new Date(ms).toISOString();
const applied = (r: { status: number; body: any }, outcome = "applied") => {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body).toMatchObject({ received: true, outcome });
  return r.body;
};

describe("billing with Stripe", () => {
  let fake: FakeStripe;
  beforeEach(() => {
    fake = new FakeStripe();
    // The webhook route logs one info line per event; keep the test output to failures.
    vi.spyOn(console, "log").mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
    expect(fake.unexpected).toEqual([]);
  });

  /** Subscribe through Checkout and let Stripe confirm: checkout.session.completed, then subscription.created. */
  async function subscribeViaCheckout(a: TestAgent, plan: "STARTER" | "PRO" | "EXPERT", start: number, end: number) {
    const r = await sc("POST", "/v1/billing/subscribe", { token: (await fresh(a.owner)).token, body: { plan } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.redirect).toMatchObject({ kind: "checkout", url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//) });
    const { customer_id: customer, checkout_session_id: session } = await mirror(a.owner.ownerId);
    const sub = fake.addSubscription({ customer, price: PRICE[plan], start, end, metadata: { owner_id: a.owner.ownerId, plan } });
    fake.completeSession(session, sub.id);
    applied(
      await deliver(
        stripeEvent(
          "checkout.session.completed",
          checkoutCompletedObject({ customer, ownerId: a.owner.ownerId, subscription: sub.id, session }),
          start,
        ),
      ),
    );
    applied(await deliver(stripeEvent("customer.subscription.created", sub, start)));
    // Paid: the session is no longer the owner's open one.
    expect(await mirror(a.owner.ownerId)).toMatchObject({ checkout_session_id: null, checkout_plan: null, checkout_expires_at: null });
    return sub;
  }

  it("without the STRIPE_* configuration the local provider stays; a partial configuration is an error, never free plans", async () => {
    const a = await newAgent();
    expect((await billing(a.owner)).provider).toEqual(LOCAL);
    // The webhook route does not exist without Stripe.
    expectError(await call("POST", "/v1/billing/webhooks/stripe", { body: {} }), 404, "NOT_FOUND");
    expectError(await call("POST", "/v1/billing/portal", { token: a.owner.token }), 409, "CONFLICT");
    // The README's setup registers exactly the events the webhook acts on.
    const setup = readme.slice(readme.indexOf("## Payments with Stripe"));
    for (const type of HANDLED_EVENTS) expect(setup).toContain(`enabled_events[]=${type}`);
    expect(setup.match(/enabled_events\[\]=/g)).toHaveLength(HANDLED_EVENTS.length);
    // Price ids alone (wrangler.toml [vars]) do not switch the provider.
    const prices = { STRIPE_PRICE_STARTER: PRICE.STARTER, STRIPE_PRICE_PRO: PRICE.PRO, STRIPE_PRICE_EXPERT: PRICE.EXPERT };
    expect((await call("GET", "/v1/billing", { token: a.owner.token, env: prices })).body.provider).toEqual(LOCAL);

    const partial = { STRIPE_SECRET_KEY: STRIPE_ENV.STRIPE_SECRET_KEY, STRIPE_PRICE_PRO: STRIPE_ENV.STRIPE_PRICE_PRO };
    const logs = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const [method, path, body] of [
      ["GET", "/v1/billing"],
      ["POST", "/v1/billing/subscribe", { plan: "PRO" }],
      ["POST", "/v1/billing/cancel"],
    ] as const) {
      const r = await call(method, path, { token: a.owner.token, body, env: partial });
      const e = expectError(r, 500, "INTERNAL");
      expect(JSON.stringify(e)).not.toContain("sk_test");
    }
    expect(JSON.stringify(logs.mock.calls)).toContain("STRIPE_WEBHOOK_SECRET");
    expect(JSON.stringify(logs.mock.calls)).not.toContain(STRIPE_ENV.STRIPE_SECRET_KEY);
    expect(await stored(a.owner.ownerId)).toEqual({ plan: "FREE", status: "NONE", periodEnd: null });
    expect(fake.requests).toEqual([]);
  });

  it("a deployment configured with neither Stripe nor BILLING_PROVIDER=local refuses paid plans (409, nothing charged or stored) and renews nothing", async () => {
    const deployed = { BILLING_PROVIDER: "" };
    const a = await newAgent();
    const logs = vi.spyOn(console, "error").mockImplementation(() => {});
    const none = { name: "none", checkout: false, portal: false, directSwitch: false };
    expect((await call("GET", "/v1/billing", { token: a.owner.token, env: deployed })).body.provider).toEqual(none);
    for (const plan of ["STARTER", "PRO", "EXPERT"]) {
      const r = expectError(
        await call("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan }, env: deployed }),
        409,
        "CONFLICT",
      );
      expect(r.error.message).toMatch(/not available on this server.*billing/);
      expect(r.error.details).toEqual({ reason: "BILLING_NOT_CONFIGURED" });
    }
    expectError(await call("POST", "/v1/billing/portal", { token: a.owner.token, body: {}, env: deployed }), 409, "CONFLICT");
    expectError(await call("POST", "/v1/billing/webhooks/stripe", { body: {}, env: deployed }), 404, "NOT_FOUND");
    // The operator's log says what to set.
    expect(JSON.stringify(logs.mock.calls)).toContain("STRIPE_SECRET_KEY");
    expect(await stored(a.owner.ownerId)).toEqual({ plan: "FREE", status: "NONE", periodEnd: null });
    expect((await call("GET", "/v1/usage/today", { key: a.key, env: deployed })).body.plan).toBe("FREE");
    // Any other value is not the local provider either; `local` (what npm start and the tests set) is.
    expect((await call("GET", "/v1/billing", { token: a.owner.token, env: { BILLING_PROVIDER: "yes" } })).body.provider.name).toBe("none");
    expect((await call("GET", "/v1/billing", { token: a.owner.token, env: { BILLING_PROVIDER: "local" } })).body.provider).toEqual(LOCAL);
    // The dashboard offers no paid plan there.
    const page = await call("GET", "/dashboard/billing", {
      headers: { cookie: `lore_session=${a.owner.token}`, accept: "text/html" },
      env: deployed,
    });
    expect(page.body).toContain("Paid plans are not available on this server");
    expect(page.body).not.toMatch(/<button[^>]*>\s*Subscribe/);
    // A plan granted before (say under the local provider) is never renewed for free: it runs out through its grace.
    const ended = now() - 86_400_000;
    await E.DB.prepare("UPDATE owners SET plan = 'PRO', plan_status = 'ACTIVE', plan_period_end = ? WHERE id = ?")
      .bind(ended, a.owner.ownerId)
      .run();
    await refreshAccount(E, a.owner.ownerId);
    expect((await call("GET", "/v1/usage/today", { key: a.key, env: deployed })).body.plan).toBe("PRO");
    expect((await call("GET", "/v1/billing", { token: a.owner.token, env: deployed })).body).toMatchObject({
      plan: "PRO",
      status: "GRACE",
    });
    expect(await stored(a.owner.ownerId)).toEqual({ plan: "PRO", status: "ACTIVE", periodEnd: ended });
  });

  it("subscribe answers with a Checkout URL and changes nothing; the plan changes when Stripe's signed events say so", async () => {
    const t0 = Date.parse("2031-02-01T10:00:00.000Z");
    clockAt(iso(t0));
    const a = await newAgent();
    const o = a.owner;
    // Each step is also written to a transcript (printed with LORE_TRANSCRIPT=1).
    const T = fake.transcript;
    const owner = async (method: string, path: string, body?: unknown) => {
      T.push(`owner → Lore   ${method} ${path}${body ? ` ${JSON.stringify(body)}` : ""}`);
      const r = await sc(method, path, { token: (await fresh(o)).token, body });
      T.push(`Lore → owner   ${r.status} ${JSON.stringify(r.body)}`);
      return r;
    };
    const hook = async (ev: ReturnType<typeof stripeEvent>) => {
      T.push(`Stripe → Lore  POST /v1/billing/webhooks/stripe  ${ev.type} (${ev.id}, created ${iso(ev.created * 1000)}), signed`);
      const r = await deliver(ev);
      T.push(`Lore → Stripe  ${r.status} ${JSON.stringify(r.body)}`);
      return r;
    };
    const agent = async () => {
      const l = await limitsSeen(a.key);
      T.push(`agent → Lore   GET /v1/usage/today → ${JSON.stringify(l)}`);
      return l;
    };

    expect((await owner("GET", "/v1/billing")).body).toEqual({
      plan: "FREE",
      subscribedPlan: null,
      status: "NONE",
      periodEnd: null,
      graceEndsAt: null,
      provider: { name: "stripe", checkout: true, portal: false, directSwitch: false },
    });
    expect(await agent()).toEqual(LIMITS.FREE);

    const r = await owner("POST", "/v1/billing/subscribe", { plan: "PRO", returnPath: "/billing" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ plan: "FREE", status: "NONE", provider: { portal: true }, redirect: { kind: "checkout" } });
    expect(r.body.redirect.url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    // One customer for the owner, created once under an idempotency key, then the session.
    const [cust] = fake.sent("POST", "/v1/customers");
    expect(cust!.headers.get("authorization")).toBe(`Bearer ${STRIPE_ENV.STRIPE_SECRET_KEY}`);
    expect(cust!.headers.get("stripe-version")).toBe("2026-10-28.endive");
    expect(cust!.headers.get("idempotency-key")).toBe(`lore-customer-${o.ownerId}`);
    expect(Object.fromEntries(cust!.params)).toEqual({ email: o.email, "metadata[owner_id]": o.ownerId });
    const customer = (await mirror(o.ownerId)).customer_id;
    expect(customer).toMatch(/^cus_/);
    const [session] = fake.sent("POST", "/v1/checkout/sessions");
    // Open for 60 to 70 minutes (Stripe allows 30 minutes to 24 hours), under a key of the owner, the plan and the generation.
    const expiresAt = Number(session!.params.get("expires_at"));
    expect(expiresAt * 1000 - t0).toBeGreaterThanOrEqual(60 * 60_000);
    expect(expiresAt * 1000 - t0).toBeLessThan(70 * 60_000);
    expect(session!.headers.get("idempotency-key")).toMatch(new RegExp(`^lore-checkout-${o.ownerId}-PRO-g0-[0-9a-f]{16}$`));
    expect(Object.fromEntries(session!.params)).toEqual({
      expires_at: String(expiresAt),
      mode: "subscription",
      customer,
      client_reference_id: o.ownerId,
      "line_items[0][price]": PRICE.PRO,
      "line_items[0][quantity]": "1",
      success_url: "http://localhost/billing?checkout=success",
      cancel_url: "http://localhost/billing?checkout=canceled",
      "metadata[owner_id]": o.ownerId,
      "metadata[plan]": "PRO",
      "subscription_data[metadata][owner_id]": o.ownerId,
      "subscription_data[metadata][plan]": "PRO",
    });
    // Nothing is granted before Stripe confirms; a second subscribe reuses the customer and hands
    // out the same open session (Stripe is asked whether it is still open), never a second one.
    expect(await agent()).toEqual(LIMITS.FREE);
    const again = await owner("POST", "/v1/billing/subscribe", { plan: "PRO" });
    expect(again.status).toBe(200);
    expect(again.body.redirect).toEqual(r.body.redirect);
    expect(fake.sent("POST", "/v1/customers")).toHaveLength(1);
    expect(fake.sent("POST", "/v1/checkout/sessions")).toHaveLength(1);
    const sessionId = (await mirror(o.ownerId)).checkout_session_id;
    expect(fake.sent("GET", `/v1/checkout/sessions/${sessionId}`)).toHaveLength(1);

    // The owner pays: Stripe creates the subscription and sends its events.
    T.push("(the owner pays on Stripe Checkout; Stripe creates the subscription)");
    const end = Date.parse("2031-03-01T10:00:00.000Z");
    const sub = fake.addSubscription({ customer, price: PRICE.PRO, start: t0, end, metadata: { owner_id: o.ownerId, plan: "PRO" } });
    fake.completeSession(sessionId, sub.id);
    const done = stripeEvent(
      "checkout.session.completed",
      checkoutCompletedObject({ customer, ownerId: o.ownerId, subscription: sub.id, session: sessionId }),
    );
    const w = await hook(done);
    expect(w.body).toEqual({ received: true, id: done.id, type: "checkout.session.completed", outcome: "applied" });
    expect(fake.sent("GET", `/v1/subscriptions/${sub.id}`)).toHaveLength(1);
    // The very next agent request is admitted under PRO.
    expect(await agent()).toEqual(LIMITS.PRO);
    expect((await owner("GET", "/v1/billing")).body).toEqual({
      plan: "PRO",
      subscribedPlan: "PRO",
      status: "ACTIVE",
      periodEnd: iso(end),
      graceEndsAt: iso(end + 3 * DAY),
      provider: { name: "stripe", checkout: true, portal: true, directSwitch: false },
    });
    expect(await mirror(o.ownerId)).toMatchObject({
      subscription_id: sub.id,
      status: "active",
      price_id: PRICE.PRO,
      item_id: sub.items.data[0].id,
      event_at: Math.floor(t0 / 1000),
    });
    expect(await eventRow(done.id)).toMatchObject({ type: "checkout.session.completed", owner_id: o.ownerId, outcome: "applied" });
    applied(await hook(stripeEvent("customer.subscription.created", sub, t0)));
    applied(await hook(stripeEvent("invoice.paid", invoiceObject(sub, { paid: true, start: t0, end }), t0)));
    expect(await agent()).toEqual(LIMITS.PRO);
    // The same plan again is a conflict; the portal opens for this customer.
    expectError(await owner("POST", "/v1/billing/subscribe", { plan: "PRO" }), 409, "CONFLICT");
    const portal = await owner("POST", "/v1/billing/portal", { returnPath: "/billing" });
    expect(portal.status).toBe(200);
    expect(portal.body.url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
    expect(Object.fromEntries(fake.sent("POST", "/v1/billing_portal/sessions")[0]!.params)).toEqual({
      customer,
      return_url: "http://localhost/billing",
    });

    // Renewal: Stripe moves the period and charges; Lore never renews by itself under Stripe.
    const end2 = Date.parse("2031-04-01T10:00:00.000Z");
    clockAt(iso(end + 60_000));
    T.push(`(clock: ${iso(end + 60_000)}, one minute after the period end)`);
    expect(await agent()).toEqual(LIMITS.PRO); // period ended, renewal not yet reported: the grace
    expect(fake.requests.filter((x) => x.method === "POST" && x.path.startsWith("/v1/subscriptions"))).toHaveLength(0);
    Object.assign(sub.items.data[0], { current_period_start: end / 1000, current_period_end: end2 / 1000 });
    applied(await hook(stripeEvent("customer.subscription.updated", sub)));
    applied(await hook(stripeEvent("invoice.paid", invoiceObject(sub, { paid: true, start: end, end: end2 }))));
    expect((await owner("GET", "/v1/billing")).body).toMatchObject({ plan: "PRO", status: "ACTIVE", periodEnd: iso(end2) });

    if (env.LORE_TRANSCRIPT === "1") console.info(["Stripe flow against the recorded responses:", ...T].join("\n"));
  });

  it("a bad signature, an old timestamp or a body changed after signing is a 400 and changes nothing; credentials are not trusted", async () => {
    clockAt("2031-05-01T00:00:00.000Z");
    const a = await newAgent();
    await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "EXPERT" } });
    const customer = (await mirror(a.owner.ownerId)).customer_id;
    const sub = fake.addSubscription({ customer, price: PRICE.EXPERT, start: now(), end: now() + 30 * DAY });
    const ev = stripeEvent("customer.subscription.created", sub);
    const before = await eventCount();

    const refused = async (r: { status: number; body: any; headers: Headers }, why: RegExp) => {
      const e = expectError(r, 400, "VALIDATION_FAILED");
      expect(e.error.message).toMatch(why);
      expect(e.error.details.issues[0].path).toBe("header.stripe-signature");
    };
    await refused(await deliver(ev, { secret: "whsec_NotTheRightSecret" }), /No signatures found matching/);
    await refused(await deliver(ev, { tamper: (b) => b.replace(PRICE.EXPERT, PRICE.STARTER) }), /No signatures found matching/);
    await refused(await deliver(ev, { signedAtMs: now() - 301_000 }), /Timestamp outside the tolerance zone/);
    await refused(
      await sc("POST", "/v1/billing/webhooks/stripe", { raw: JSON.stringify(ev), headers: { "content-type": "application/json" } }),
      /No stripe-signature header/,
    );
    await refused(
      await sc("POST", "/v1/billing/webhooks/stripe", { raw: JSON.stringify(ev), headers: { "stripe-signature": "t=abc,v1=zz" } }),
      /Unable to extract timestamp|No signatures/,
    );
    // A session or an agent key does not stand in for the signature.
    await refused(
      await sc("POST", "/v1/billing/webhooks/stripe", { raw: JSON.stringify(ev), token: a.owner.token }),
      /No stripe-signature header/,
    );
    await refused(await sc("POST", "/v1/billing/webhooks/stripe", { raw: JSON.stringify(ev), key: a.key }), /No stripe-signature header/);
    // Correctly signed but not JSON.
    const header = await stripeSignature("not json", STRIPE_ENV.STRIPE_WEBHOOK_SECRET, Math.floor(now() / 1000));
    await refused(
      await sc("POST", "/v1/billing/webhooks/stripe", { raw: "not json", headers: { "stripe-signature": header } }),
      /not a Stripe event/,
    );
    const get = expectError(await sc("GET", "/v1/billing/webhooks/stripe"), 405, "METHOD_NOT_ALLOWED");
    expect(get.error.details.allow).toEqual(["POST"]);

    expect(await eventCount()).toBe(before);
    expect(await limitsSeen(a.key)).toEqual(LIMITS.FREE);
    // 299 s old is inside Stripe's 5-minute tolerance.
    applied(await deliver(ev, { signedAtMs: now() - 299_000 }));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.EXPERT);
  });

  it("a replayed event changes nothing, and two deliveries of one event at once apply it once", async () => {
    const t0 = Date.parse("2031-06-01T00:00:00.000Z");
    const clock = clockAt(iso(t0));
    const a = await newAgent();
    const sub = await subscribeViaCheckout(a, "STARTER", t0, Date.parse("2031-07-01T00:00:00.000Z"));
    clock.set(t0 + 60_000);
    const canceling = stripeEvent("customer.subscription.updated", {
      ...clone(sub),
      cancel_at_period_end: true,
      cancel_at: sub.items.data[0].current_period_end,
    });
    applied(await deliver(canceling));
    expect((await stripeBilling(a.owner)).status).toBe("CANCELED");
    clock.set(t0 + 120_000);
    applied(await deliver(stripeEvent("customer.subscription.updated", sub)));
    expect((await stripeBilling(a.owner)).status).toBe("ACTIVE");
    // Stripe delivers the first event again (its retry, or a manual resend): nothing moves.
    const replay = await deliver(canceling);
    expect(replay.body).toEqual({ received: true, id: canceling.id, type: canceling.type, outcome: "duplicate" });
    expect((await stripeBilling(a.owner)).status).toBe("ACTIVE");
    expect(await limitsSeen(a.key)).toEqual(LIMITS.STARTER);
    expect((await E.DB.prepare("SELECT COUNT(*) AS n FROM stripe_events WHERE id = ?").bind(canceling.id).first<{ n: number }>())!.n).toBe(
      1,
    );

    clock.set(t0 + 180_000);
    const upgrade = stripeEvent(
      "customer.subscription.updated",
      subscriptionObject({ id: sub.id, customer: sub.customer, price: PRICE.PRO, start: t0, end: Date.parse("2031-07-01T00:00:00.000Z") }),
    );
    const both = await Promise.all([deliver(upgrade), deliver(upgrade)]);
    expect(both.map((r) => r.body.outcome).sort()).toEqual(["applied", "duplicate"]);
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);
  });

  it("events out of order: the subscription's own timestamps and final states decide", async () => {
    const t0 = Date.parse("2031-07-01T00:00:00.000Z");
    const end = Date.parse("2031-08-01T00:00:00.000Z");
    const clock = clockAt(iso(t0));
    const a = await newAgent();
    await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } });
    const customer = (await mirror(a.owner.ownerId)).customer_id;
    const active = fake.addSubscription({ customer, price: PRICE.PRO, start: t0, end });
    const canceling = { ...clone(active), cancel_at_period_end: true, cancel_at: end / 1000, canceled_at: (t0 + 20_000) / 1000 };

    // The cancellation (t0+20 s) arrives before the creation (t0).
    clock.set(t0 + 30_000);
    applied(await deliver(stripeEvent("customer.subscription.updated", canceling, t0 + 20_000)));
    expect(await stripeBilling(a.owner)).toMatchObject({ plan: "PRO", status: "CANCELED", periodEnd: iso(end) });
    const late = await deliver(stripeEvent("customer.subscription.created", active, t0));
    expect(applied(late, "stale").reason).toBe("older than the state already applied");
    expect((await stripeBilling(a.owner)).status).toBe("CANCELED");
    // An invoice event older than the applied state is stale without asking Stripe.
    const gets = fake.sent("GET", /^\/v1\/subscriptions\//).length;
    applied(await deliver(stripeEvent("invoice.paid", invoiceObject(active, { paid: true, start: t0, end }), t0 + 1_000)), "stale");
    expect(fake.sent("GET", /^\/v1\/subscriptions\//)).toHaveLength(gets);
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);

    // It ends at its period end; an update delivered after that, even stamped later, cannot revive it.
    clock.set(end + 60_000);
    const ended = { ...clone(canceling), status: "canceled", ended_at: end / 1000 };
    applied(await deliver(stripeEvent("customer.subscription.deleted", ended, end)));
    const revive = await deliver(stripeEvent("customer.subscription.updated", active, end + 30_000));
    expect(applied(revive, "stale").reason).toBe("the subscription has already ended");
    expect(await stripeBilling(a.owner)).toMatchObject({
      plan: "PRO",
      status: "GRACE",
      periodEnd: iso(end),
      graceEndsAt: iso(end + 3 * DAY),
    });

    // Two updates racing for one owner: whatever order they land in, the newer one stands.
    const b = await newAgent();
    const t1 = end + DAY;
    clock.set(t1);
    const subB = await subscribeViaCheckout(b, "STARTER", t1, t1 + 30 * DAY);
    const older = stripeEvent(
      "customer.subscription.updated",
      { ...clone(subB), cancel_at_period_end: true, cancel_at: subB.items.data[0].current_period_end },
      t1 + 5_000,
    );
    const newer = stripeEvent(
      "customer.subscription.updated",
      subscriptionObject({ id: subB.id, customer: subB.customer, price: PRICE.EXPERT, start: t1, end: t1 + 30 * DAY }),
      t1 + 9_000,
    );
    clock.set(t1 + 10_000);
    const raced = await Promise.all([deliver(newer), deliver(older)]);
    expect(raced.map((r) => r.status)).toEqual([200, 200]);
    expect(await stripeBilling(b.owner)).toMatchObject({ plan: "EXPERT", status: "ACTIVE" });
    expect(await limitsSeen(b.key)).toEqual(LIMITS.EXPERT);
  });

  it("a failed payment enters the 3-day grace, its end drops the plan to FREE, and a later payment restores it", async () => {
    const p0 = Date.parse("2031-08-10T09:00:00.000Z");
    const p1 = Date.parse("2031-09-10T09:00:00.000Z");
    const p2 = Date.parse("2031-10-10T09:00:00.000Z");
    const clock = clockAt(iso(p0));
    const a = await newAgent();
    const sub = await subscribeViaCheckout(a, "PRO", p0, p1);
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);

    // At p1 Stripe opens the next period and the card is declined: past_due, invoice.payment_failed.
    clock.set(p1 + 3_600_000);
    Object.assign(sub, { status: "past_due" });
    Object.assign(sub.items.data[0], { current_period_start: p1 / 1000, current_period_end: p2 / 1000 });
    applied(await deliver(stripeEvent("invoice.payment_failed", invoiceObject(sub, { paid: false, start: p1, end: p2 }))));
    expect(await stripeBilling(a.owner)).toEqual({
      plan: "PRO",
      subscribedPlan: "PRO",
      status: "GRACE",
      periodEnd: iso(p1),
      graceEndsAt: iso(p1 + 3 * DAY),
      provider: { name: "stripe", checkout: true, portal: true, directSwitch: false },
    });
    expect(await stored(a.owner.ownerId)).toMatchObject({ plan: "PRO", status: "PAST_DUE", periodEnd: p1 });
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);
    applied(await deliver(stripeEvent("customer.subscription.updated", sub)));
    // Subscribing meanwhile sends the owner to the portal to fix the card, not to a second Checkout.
    const fix = await sc("POST", "/v1/billing/subscribe", { token: (await fresh(a.owner)).token, body: { plan: "PRO" } });
    expect(fix.body.redirect).toMatchObject({ kind: "portal" });
    expect(fake.sent("POST", "/v1/billing_portal/sessions").at(-1)!.params.get("flow_data[type]")).toBe("payment_method_update");

    clock.set(p1 + 3 * DAY - 1);
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);
    clock.set(p1 + 3 * DAY);
    expect(await limitsSeen(a.key)).toEqual(LIMITS.FREE);
    expect(await stripeBilling(a.owner)).toMatchObject({ plan: "FREE", subscribedPlan: null, status: "NONE", periodEnd: null });
    expect(await stored(a.owner.ownerId)).toEqual({ plan: "FREE", status: "NONE", periodEnd: null });

    // Stripe's retry succeeds on day 5: paid through p2 again.
    clock.set(p1 + 5 * DAY);
    Object.assign(sub, { status: "active" });
    applied(await deliver(stripeEvent("invoice.paid", invoiceObject(sub, { paid: true, start: p1, end: p2 }))));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);
    expect(await stripeBilling(a.owner)).toMatchObject({ plan: "PRO", status: "ACTIVE", periodEnd: iso(p2) });

    // Retries exhausted another time: Stripe cancels it, paid only up to the unpaid period's start.
    clock.set(p2 + 10 * DAY);
    const p3 = Date.parse("2031-11-10T09:00:00.000Z");
    Object.assign(sub, { status: "canceled", ended_at: (p2 + 10 * DAY) / 1000, canceled_at: (p2 + 10 * DAY) / 1000 });
    sub.cancellation_details.reason = "payment_failed";
    Object.assign(sub.items.data[0], { current_period_start: p2 / 1000, current_period_end: p3 / 1000 });
    applied(await deliver(stripeEvent("customer.subscription.deleted", sub)));
    expect(await stored(a.owner.ownerId)).toMatchObject({ plan: "PRO", status: "CANCELED", periodEnd: p2 });
    expect(await limitsSeen(a.key)).toEqual(LIMITS.FREE);
  });

  it("cancel sets the subscription to cancel at period end through Stripe; the plan holds, then grace, then FREE; resume works", async () => {
    const p0 = Date.parse("2031-09-01T00:00:00.000Z");
    const p1 = Date.parse("2031-10-01T00:00:00.000Z");
    const clock = clockAt(iso(p0));
    const a = await newAgent();
    const sub = await subscribeViaCheckout(a, "STARTER", p0, p1);

    clock.set(p0 + DAY);
    const c = await sc("POST", "/v1/billing/cancel", { token: (await fresh(a.owner)).token });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({ plan: "STARTER", status: "CANCELED", periodEnd: iso(p1), graceEndsAt: iso(p1 + 3 * DAY) });
    const [update] = fake.sent("POST", `/v1/subscriptions/${sub.id}`);
    expect(Object.fromEntries(update!.params)).toEqual({ cancel_at_period_end: "true" });
    // Canceling again asks Stripe nothing.
    expect((await sc("POST", "/v1/billing/cancel", { token: a.owner.token })).body.status).toBe("CANCELED");
    expect(fake.sent("POST", `/v1/subscriptions/${sub.id}`)).toHaveLength(1);
    applied(await deliver(stripeEvent("customer.subscription.updated", fake.subscriptions.get(sub.id))));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.STARTER);

    // Resuming before the end is one call; Stripe's answer is the new state.
    const resumed = await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "STARTER" } });
    expect(resumed.body).toMatchObject({ status: "ACTIVE", periodEnd: iso(p1), redirect: null });
    expect(fake.sent("POST", `/v1/subscriptions/${sub.id}`).at(-1)!.params.get("cancel_at_period_end")).toBe("false");
    expect((await sc("POST", "/v1/billing/cancel", { token: a.owner.token })).body.status).toBe("CANCELED");

    // At the period end Stripe ends it: 3 days of grace with STARTER's limits, then FREE.
    clock.set(p1 + 5_000);
    const ended = { ...clone(fake.subscriptions.get(sub.id)), status: "canceled", ended_at: p1 / 1000 };
    fake.subscriptions.set(sub.id, ended);
    applied(await deliver(stripeEvent("customer.subscription.deleted", ended)));
    expect(await stripeBilling(a.owner)).toMatchObject({
      plan: "STARTER",
      status: "GRACE",
      periodEnd: iso(p1),
      graceEndsAt: iso(p1 + 3 * DAY),
    });
    expect(await limitsSeen(a.key)).toEqual(LIMITS.STARTER);
    clock.set(p1 + 3 * DAY);
    expect(await limitsSeen(a.key)).toEqual(LIMITS.FREE);
    expect((await stripeBilling(a.owner)).status).toBe("NONE");
    expectError(await sc("POST", "/v1/billing/cancel", { token: a.owner.token }), 409, "CONFLICT");
    // Subscribing again starts a new Checkout for the same customer.
    const again = await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } });
    expect(again.body.redirect.kind).toBe("checkout");
    expect(fake.sent("POST", "/v1/customers")).toHaveLength(1);
  });

  it("switching plans goes through the portal, and the quota follows the webhook on the next request", async () => {
    const p0 = Date.parse("2031-10-05T00:00:00.000Z");
    clockAt(iso(p0));
    const a = await newAgent();
    const sub = await subscribeViaCheckout(a, "STARTER", p0, p0 + 31 * DAY);
    const thread = (i: number) => ({ title: `Stripe plan switch question ${i}?`, bodyMd: "Body.", categorySlug: "general", stackTags: [] });
    for (let i = 0; i < 10; i++) expect((await sc("POST", "/v1/threads", { key: a.key, body: thread(i) })).status).toBe(201);
    expectError(await sc("POST", "/v1/threads", { key: a.key, body: thread(10) }), 429, "RATE_LIMITED");

    const r = await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO", returnPath: "/billing?tab=plan" } });
    expect(r.body).toMatchObject({
      plan: "STARTER",
      status: "ACTIVE",
      redirect: { kind: "portal", url: expect.stringMatching(/^https:\/\/billing\.stripe\.com\//) },
    });
    expect(Object.fromEntries(fake.sent("POST", "/v1/billing_portal/sessions")[0]!.params)).toEqual({
      customer: sub.customer,
      return_url: "http://localhost/billing?tab=plan",
      "flow_data[type]": "subscription_update_confirm",
      "flow_data[subscription_update_confirm][subscription]": sub.id,
      "flow_data[subscription_update_confirm][items][0][id]": sub.items.data[0].id,
      "flow_data[subscription_update_confirm][items][0][price]": PRICE.PRO,
      "flow_data[subscription_update_confirm][items][0][quantity]": "1",
      "flow_data[after_completion][type]": "redirect",
      "flow_data[after_completion][redirect][return_url]": "http://localhost/billing?tab=plan",
    });
    // Nothing changes until Stripe says so.
    expectError(await sc("POST", "/v1/threads", { key: a.key, body: thread(10) }), 429, "RATE_LIMITED");
    const upgraded = subscriptionObject({ id: sub.id, customer: sub.customer, price: PRICE.PRO, start: p0, end: p0 + 31 * DAY });
    applied(await deliver(stripeEvent("customer.subscription.updated", upgraded)));
    expect((await sc("POST", "/v1/threads", { key: a.key, body: thread(10) })).status).toBe(201);
    expect((await sc("GET", "/v1/usage/today", { key: a.key })).body.metrics.QUESTIONS).toMatchObject({ used: 11, limit: 40 });

    // The return path must stay on this site.
    for (const returnPath of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "billing"]) {
      expectError(await sc("POST", "/v1/billing/portal", { token: a.owner.token, body: { returnPath } }), 400, "VALIDATION_FAILED");
    }
    expectError(await sc("POST", "/v1/billing/portal", { key: a.key }), 403, "FORBIDDEN");
  });

  it("plans come only from Stripe's objects: unknown customers, foreign prices, mismatched checkouts and client metadata change nothing", async () => {
    const t0 = Date.parse("2031-11-01T00:00:00.000Z");
    clockAt(iso(t0));
    const a = await newAgent();
    const other = await newAgent();
    await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "STARTER" } });
    await sc("POST", "/v1/billing/subscribe", { token: other.owner.token, body: { plan: "STARTER" } });
    const customer = (await mirror(a.owner.ownerId)).customer_id;

    const stranger = fake.addSubscription({ customer: "cus_NotLoresCustomer", price: PRICE.EXPERT, start: t0, end: t0 + 30 * DAY });
    expect(applied(await deliver(stripeEvent("customer.subscription.created", stranger)), "ignored").reason).toBe(
      "the customer is not one of Lore's",
    );
    const foreign = fake.addSubscription({ customer, price: "price_SomethingElseSold", start: t0, end: t0 + 30 * DAY });
    expect(applied(await deliver(stripeEvent("customer.subscription.created", foreign)), "ignored").reason).toBe(
      "no item of the subscription carries a Lore price",
    );
    // A checkout whose client_reference_id names another owner than its customer: not acted on.
    const sub = fake.addSubscription({ customer, price: PRICE.EXPERT, start: t0, end: t0 + 30 * DAY });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const mismatched = await deliver(
      stripeEvent("checkout.session.completed", checkoutCompletedObject({ customer, ownerId: other.owner.ownerId, subscription: sub.id })),
    );
    expect(applied(mismatched, "ignored").reason).toMatch(/do not name one Lore owner/);
    expect(warn).toHaveBeenCalled();
    expect(fake.sent("GET", /^\/v1\/subscriptions\//)).toHaveLength(0);
    expect(await limitsSeen(a.key)).toEqual(LIMITS.FREE);
    expect(await limitsSeen(other.key)).toEqual(LIMITS.FREE);
    // Metadata claiming EXPERT on a STARTER price: the price decides.
    const starter = fake.addSubscription({
      customer,
      price: PRICE.STARTER,
      start: t0,
      end: t0 + 30 * DAY,
      metadata: { owner_id: other.owner.ownerId, plan: "EXPERT" },
    });
    applied(await deliver(stripeEvent("customer.subscription.created", starter)));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.STARTER);
    expect(await limitsSeen(other.key)).toEqual(LIMITS.FREE);
    // Unhandled types are acknowledged and stored, so Stripe stops sending them.
    applied(await deliver(stripeEvent("customer.updated", { id: customer, object: "customer" })), "ignored");
  });

  it("a subscription whose first payment is pending grants nothing until it is active; a successor of one set to end takes over", async () => {
    const t0 = Date.parse("2031-11-15T00:00:00.000Z");
    const clock = clockAt(iso(t0));
    const a = await newAgent();
    await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } });
    const customer = (await mirror(a.owner.ownerId)).customer_id;
    const sub = fake.addSubscription({ customer, price: PRICE.PRO, start: t0, end: t0 + 30 * DAY, status: "incomplete" });
    applied(await deliver(stripeEvent("customer.subscription.created", sub)));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.FREE);
    expect(await mirror(a.owner.ownerId)).toMatchObject({ subscription_id: sub.id, status: "incomplete" });
    // Still no live subscription: subscribing again opens Checkout, not the portal.
    expect((await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } })).body.redirect.kind).toBe(
      "checkout",
    );
    clock.set(t0 + 60_000);
    sub.status = "active";
    applied(await deliver(stripeEvent("customer.subscription.updated", clone(sub))));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);

    // The owner sets it to end; a new subscription made by hand in Stripe's Dashboard is its
    // successor, not a duplicate: it is followed, nothing is canceled, and the end of the older
    // one does not take the plan away. (Two that both renew: the next test.)
    clock.set(t0 + DAY);
    expect((await sc("POST", "/v1/billing/cancel", { token: a.owner.token })).body.status).toBe("CANCELED");
    applied(await deliver(stripeEvent("customer.subscription.updated", clone(fake.subscriptions.get(sub.id)))));
    const second = fake.addSubscription({ customer, price: PRICE.EXPERT, start: t0 + DAY, end: t0 + 31 * DAY });
    applied(await deliver(stripeEvent("customer.subscription.created", second)));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.EXPERT);
    clock.set(t0 + 30 * DAY);
    const oldEnded = await deliver(
      stripeEvent("customer.subscription.deleted", {
        ...clone(fake.subscriptions.get(sub.id)),
        status: "canceled",
        ended_at: (t0 + 30 * DAY) / 1000,
      }),
    );
    expect(applied(oldEnded, "ignored").reason).toBe("not the subscription the owner's plan follows");
    expect(await limitsSeen(a.key)).toEqual(LIMITS.EXPERT);
    expect(fake.sent("DELETE", /^\/v1\/subscriptions\//)).toHaveLength(0);
    expect((await stripeBilling(a.owner)).notices).toBeUndefined();
  });

  /** The steps of a flow, as owner, agent, Stripe's API and Stripe's webhooks see them (printed with LORE_TRANSCRIPT=1). */
  function narrate(a: TestAgent) {
    const T = fake.transcript;
    const owner = async (method: string, path: string, body?: unknown) => {
      T.push(`owner → Lore   ${method} ${path}${body ? ` ${JSON.stringify(body)}` : ""}`);
      const r = await sc(method, path, { token: (await fresh(a.owner)).token, body });
      T.push(`Lore → owner   ${r.status} ${JSON.stringify(r.body)}`);
      return r;
    };
    const hook = async (ev: ReturnType<typeof stripeEvent>) => {
      T.push(
        `Stripe → Lore  POST /v1/billing/webhooks/stripe  ${ev.type} (${ev.id}, ${(ev.data.object as any).id}, created ${iso(ev.created * 1000)}), signed`,
      );
      const r = await deliver(ev);
      T.push(`Lore → Stripe  ${r.status} ${JSON.stringify(r.body)}`);
      return r;
    };
    const agent = async () => {
      const l = await limitsSeen(a.key);
      T.push(`agent → Lore   GET /v1/usage/today → ${JSON.stringify(l)}`);
      return l;
    };
    // Bound now: a test may silence the console later to read its log lines.
    const info = console.info.bind(console);
    const print = (title: string) => {
      if (env.LORE_TRANSCRIPT === "1") info([title, ...T].join("\n"));
    };
    return { T, owner, hook, agent, print };
  }

  /** Checkout Sessions Stripe would still let someone pay, for one customer. */
  const openSessions = (customer: string) =>
    [...fake.sessions.values()].filter((x) => x.customer === customer && x.status === "open" && now() < x.expires_at * 1000);

  it("two Subscribe clicks before the first webhook get one Checkout Session: reused while open, expired before another plan's, never reused once expired or paid", async () => {
    const t0 = Date.parse("2032-02-01T10:00:00.000Z");
    const clock = clockAt(iso(t0));
    const a = await newAgent();
    const o = a.owner;
    const { T, owner, hook, agent, print } = narrate(a);

    T.push("(two tabs: the owner clicks Subscribe PRO in both before either answer is back)");
    const [r1, r2] = await Promise.all([
      owner("POST", "/v1/billing/subscribe", { plan: "PRO" }),
      owner("POST", "/v1/billing/subscribe", { plan: "PRO" }),
    ]);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect(r1.body.redirect).toMatchObject({ kind: "checkout", url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//) });
    expect(r2.body.redirect).toEqual(r1.body.redirect);
    // Both asked Stripe under one idempotency key with the same parameters: one customer, one session.
    const m1 = await mirror(o.ownerId);
    const customer = m1.customer_id;
    expect(new Set(fake.sent("POST", "/v1/checkout/sessions").map((x) => x.headers.get("idempotency-key"))).size).toBe(1);
    expect([...fake.sessions.values()]).toHaveLength(1);
    const [pro] = [...fake.sessions.values()];
    expect(r1.body.redirect.url).toBe(pro.url);
    expect(m1).toMatchObject({
      checkout_session_id: pro.id,
      checkout_plan: "PRO",
      checkout_expires_at: pro.expires_at * 1000,
      checkout_generation: 1,
    });

    T.push("(the back button: Subscribe PRO again a minute later)");
    clock.set(t0 + 60_000);
    const r3 = await owner("POST", "/v1/billing/subscribe", { plan: "PRO" });
    expect(r3.body.redirect).toEqual(r1.body.redirect);
    expect(fake.sent("GET", `/v1/checkout/sessions/${pro.id}`)).toHaveLength(1);
    expect(fake.sent("POST", "/v1/checkout/sessions").length).toBeLessThanOrEqual(2);
    expect(fake.sessions.size).toBe(1);
    expect(await agent()).toEqual(LIMITS.FREE);

    T.push("(the owner changes their mind: Subscribe EXPERT; the PRO session is expired first, so it can no longer be paid)");
    const r4 = await owner("POST", "/v1/billing/subscribe", { plan: "EXPERT" });
    expect(r4.body.redirect.kind).toBe("checkout");
    expect(r4.body.redirect.url).not.toBe(r1.body.redirect.url);
    expect(fake.sent("POST", `/v1/checkout/sessions/${pro.id}/expire`)).toHaveLength(1);
    expect(fake.sessions.get(pro.id)).toMatchObject({ status: "expired", url: null });
    const expert = openSessions(customer);
    expect(expert).toHaveLength(1);
    expect(fake.sent("POST", "/v1/checkout/sessions").at(-1)!.params.get("line_items[0][price]")).toBe(PRICE.EXPERT);
    expect(fake.sent("POST", "/v1/checkout/sessions").at(-1)!.headers.get("idempotency-key")).toMatch(
      new RegExp(`^lore-checkout-${o.ownerId}-EXPERT-g1-`),
    );
    expect(await mirror(o.ownerId)).toMatchObject({ checkout_session_id: expert[0].id, checkout_plan: "EXPERT", checkout_generation: 2 });

    T.push("(10 minutes before that session expires: not handed out again, replaced)");
    clock.set(expert[0].expires_at * 1000 - 10 * 60_000);
    const r5 = await owner("POST", "/v1/billing/subscribe", { plan: "EXPERT" });
    expect(r5.body.redirect.url).not.toBe(r4.body.redirect.url);
    expect(fake.sent("POST", `/v1/checkout/sessions/${expert[0].id}/expire`)).toHaveLength(1);
    const replaced = openSessions(customer);
    expect(replaced.map((x) => x.url)).toEqual([r5.body.redirect.url]);

    T.push("(two hours later, long expired; two tabs with different return pages click at once)");
    clock.set(replaced[0].expires_at * 1000 + 2 * 3_600_000);
    const expires = fake.sent("POST", /\/expire$/).length;
    const [r6, r7] = await Promise.all([
      owner("POST", "/v1/billing/subscribe", { plan: "EXPERT", returnPath: "/dashboard/billing" }),
      owner("POST", "/v1/billing/subscribe", { plan: "EXPERT", returnPath: "/welcome" }),
    ]);
    // Different parameters, so Stripe made two sessions; one was stored and handed to both, the
    // other expired before anyone saw it. Nothing was asked to expire the long-expired one.
    expect(r6.body.redirect.url).toBe(r7.body.redirect.url);
    const live = openSessions(customer);
    expect(live.map((x) => x.url)).toEqual([r6.body.redirect.url]);
    expect(fake.sent("POST", /\/expire$/).length - expires).toBeLessThanOrEqual(1);
    expect(fake.sent("POST", `/v1/checkout/sessions/${replaced[0].id}/expire`)).toHaveLength(0);
    expect((await mirror(o.ownerId)).checkout_session_id).toBe(live[0].id);
    // The customer's live subscriptions were asked for before each new session (none yet).
    expect(
      fake.sent("GET", "/v1/subscriptions").every((x) => x.params.get("customer") === customer && x.params.get("limit") === "100"),
    ).toBe(true);
    expect(fake.sent("GET", "/v1/subscriptions").length).toBeGreaterThanOrEqual(3);

    T.push("(the owner pays that session; they click Subscribe EXPERT again before Stripe's webhook arrives)");
    const paidAt = now();
    const sub = fake.addSubscription({ customer, price: PRICE.EXPERT, start: paidAt, end: paidAt + 31 * DAY });
    fake.completeSession(live[0].id, sub.id);
    const again = await owner("POST", "/v1/billing/subscribe", { plan: "EXPERT" });
    // The completed session is not handed out: Stripe's list shows the subscription, which the
    // mirror takes at once, and the answer is the one for an existing subscription.
    const e = expectError(again, 409, "CONFLICT");
    expect(e.error.message).toMatch(/Already subscribed to EXPERT/);
    expect(await mirror(o.ownerId)).toMatchObject({ subscription_id: sub.id, status: "active", checkout_session_id: null, event_at: 0 });
    expect(await agent()).toEqual(LIMITS.EXPERT);

    T.push("(Stripe's webhooks arrive)");
    applied(
      await hook(
        stripeEvent(
          "checkout.session.completed",
          checkoutCompletedObject({ customer, ownerId: o.ownerId, subscription: sub.id, session: live[0].id }),
          paidAt,
        ),
      ),
    );
    applied(await hook(stripeEvent("customer.subscription.created", sub, paidAt)));
    expect(await agent()).toEqual(LIMITS.EXPERT);
    const sw = await owner("POST", "/v1/billing/subscribe", { plan: "PRO" });
    expect(sw.body.redirect.kind).toBe("portal");
    // One subscription at Stripe, nothing canceled, no session left open.
    expect([...fake.subscriptions.values()].filter((x) => x.customer === customer)).toHaveLength(1);
    expect(fake.sent("DELETE", /^\/v1\/subscriptions\//)).toHaveLength(0);
    expect(openSessions(customer)).toHaveLength(0);
    print("Double click against the recorded responses:");
  });

  it("before a Checkout Lore asks Stripe for the customer's live subscriptions: one the webhooks have not brought is answered as existing", async () => {
    const t0 = Date.parse("2032-03-01T00:00:00.000Z");
    const clock = clockAt(iso(t0));
    const a = await newAgent();
    await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } });
    const customer = (await mirror(a.owner.ownerId)).customer_id;
    // The first session expires; a subscription appears at Stripe whose webhooks are lost (an
    // endpoint outage, or made by hand in Stripe's Dashboard). Also an ended and an incomplete one.
    clock.set(t0 + 3 * 3_600_000);
    fake.addSubscription({
      customer,
      price: PRICE.STARTER,
      start: t0 - 60 * DAY,
      end: t0 - 30 * DAY,
      status: "canceled",
      endedAt: t0 - 30 * DAY,
    });
    fake.addSubscription({ customer, price: PRICE.PRO, start: t0, end: t0 + 30 * DAY, status: "incomplete_expired" });
    const sub = fake.addSubscription({ customer, price: PRICE.PRO, start: t0 + 3_600_000, end: t0 + 30 * DAY });
    const sessions = fake.sent("POST", "/v1/checkout/sessions").length;
    expectError(await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } }), 409, "CONFLICT");
    const [list] = fake.sent("GET", "/v1/subscriptions");
    expect(Object.fromEntries(list!.params)).toEqual({ customer, limit: "100" });
    expect(fake.sent("POST", "/v1/checkout/sessions")).toHaveLength(sessions);
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);
    expect(await mirror(a.owner.ownerId)).toMatchObject({ subscription_id: sub.id, status: "active", checkout_session_id: null });
    // Another plan: the portal's switch for that subscription.
    const sw = await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "EXPERT" } });
    expect(sw.body.redirect.kind).toBe("portal");
    expect(
      fake.sent("POST", "/v1/billing_portal/sessions").at(-1)!.params.get("flow_data[subscription_update_confirm][subscription]"),
    ).toBe(sub.id);
    // Its webhook, late, applies as usual.
    applied(await deliver(stripeEvent("customer.subscription.created", sub, t0 + 3_600_000)));

    // Past due at Stripe: the portal's card update, not a second Checkout.
    const b = await newAgent();
    await sc("POST", "/v1/billing/subscribe", { token: b.owner.token, body: { plan: "STARTER" } });
    const customerB = (await mirror(b.owner.ownerId)).customer_id;
    clock.set(t0 + 6 * 3_600_000);
    fake.addSubscription({ customer: customerB, price: PRICE.STARTER, start: t0 - 30 * DAY, end: t0, status: "past_due" });
    const fix = await sc("POST", "/v1/billing/subscribe", { token: b.owner.token, body: { plan: "STARTER" } });
    expect(fix.body.redirect.kind).toBe("portal");
    expect(fake.sent("POST", "/v1/billing_portal/sessions").at(-1)!.params.get("flow_data[type]")).toBe("payment_method_update");

    // Two live ones at Stripe (from before this check existed): the older is kept, the newer
    // canceled as a duplicate, and the owner is answered for the one kept.
    const c = await newAgent();
    await sc("POST", "/v1/billing/subscribe", { token: c.owner.token, body: { plan: "STARTER" } });
    const customerC = (await mirror(c.owner.ownerId)).customer_id;
    clock.set(t0 + 9 * 3_600_000);
    const older = fake.addSubscription({ customer: customerC, price: PRICE.PRO, start: t0 + 7 * 3_600_000, end: t0 + 31 * DAY });
    const newer = fake.addSubscription({ customer: customerC, price: PRICE.EXPERT, start: t0 + 8 * 3_600_000, end: t0 + 31 * DAY });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const r = await sc("POST", "/v1/billing/subscribe", { token: c.owner.token, body: { plan: "STARTER" } });
    expect(r.body).toMatchObject({ plan: "PRO", status: "ACTIVE", redirect: { kind: "portal" } });
    expect(fake.sent("DELETE", `/v1/subscriptions/${newer.id}`)).toHaveLength(1);
    expect(fake.subscriptions.get(newer.id).status).toBe("canceled");
    expect(fake.subscriptions.get(older.id).status).toBe("active");
    expect(await limitsSeen(c.key)).toEqual(LIMITS.PRO);
    expect((await stripeBilling(c.owner)).notices).toMatchObject([
      { kind: "duplicate_subscription_canceled", subscriptionId: newer.id, keptSubscriptionId: older.id, plan: "EXPERT" },
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("a second live subscription is canceled at Stripe with its unused time credited, logged with its ids and shown to the owner; its later events change nothing", async () => {
    const t0 = Date.parse("2032-04-01T00:00:00.000Z");
    const clock = clockAt(iso(t0));
    const a = await newAgent();
    const o = a.owner;
    const { T, owner, hook, agent, print } = narrate(a);
    const lines: string[] = [];
    for (const level of ["log", "info", "warn", "error"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    }
    T.push("(the owner subscribes to PRO through Checkout and pays; Stripe's events arrive)");
    const first = await subscribeViaCheckout(a, "PRO", t0, t0 + 30 * DAY);
    const customer = first.customer;
    expect(await agent()).toEqual(LIMITS.PRO);

    T.push(
      "(a second subscription, EXPERT, is paid for the same customer: a Checkout opened before this fix in another tab, or one made by hand in Stripe's Dashboard)",
    );
    clock.set(t0 + 2 * 3_600_000);
    const second = fake.addSubscription({
      customer,
      price: PRICE.EXPERT,
      start: now(),
      end: now() + 30 * DAY,
      metadata: { owner_id: o.ownerId, plan: "EXPERT" },
    });
    const secondAsPaid = clone(second);
    const created = stripeEvent("customer.subscription.created", secondAsPaid);
    const reads = fake.sent("GET", `/v1/subscriptions/${first.id}`).length;
    const w = await hook(created);
    expect(w.body).toEqual({
      received: true,
      id: created.id,
      type: "customer.subscription.created",
      outcome: "canceled_duplicate",
      reason: `a second live subscription beside ${first.id}: canceled at Stripe, unused time credited`,
    });
    // Lore read the kept one from Stripe before canceling anything, then canceled the newer one at once.
    expect(fake.sent("GET", `/v1/subscriptions/${first.id}`)).toHaveLength(reads + 1);
    const dels = fake.sent("DELETE", `/v1/subscriptions/${second.id}`);
    expect(dels).toHaveLength(1);
    expect(dels[0]!.headers.get("idempotency-key")).toBe(`lore-duplicate-cancel-${second.id}`);
    expect(Object.fromEntries(dels[0]!.params)).toEqual({
      prorate: "true",
      invoice_now: "true",
      "cancellation_details[comment]": `Duplicate subscription: this customer already has ${first.id} (PRO). Canceled by Lore; the unused time is credited.`,
    });
    expect(fake.subscriptions.get(second.id)).toMatchObject({
      status: "canceled",
      cancellation_details: { reason: "cancellation_requested" },
    });
    expect(fake.subscriptions.get(first.id).status).toBe("active");
    // The plan follows the first one, untouched.
    expect(await agent()).toEqual(LIMITS.PRO);
    expect(await mirror(o.ownerId)).toMatchObject({ subscription_id: first.id, status: "active", price_id: PRICE.PRO });
    expect(await eventRow(created.id)).toMatchObject({ owner_id: o.ownerId, outcome: expect.stringMatching(/^canceled_duplicate: /) });
    // Logged with the ids (never a secret) …
    const logged = lines.filter((l) => l.includes("stripe duplicate subscription canceled"));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toEqual({
      level: "warn",
      what: "stripe duplicate subscription canceled",
      owner: o.ownerId,
      customer,
      canceled: second.id,
      canceledPlan: "EXPERT",
      kept: first.id,
      keptPlan: "PRO",
      status: "canceled",
    });
    // … and shown to the owner.
    const b = await owner("GET", "/v1/billing");
    expect(b.body).toMatchObject({ plan: "PRO", subscribedPlan: "PRO", status: "ACTIVE", periodEnd: iso(t0 + 30 * DAY) });
    expect(b.body.notices).toEqual([
      {
        kind: "duplicate_subscription_canceled",
        at: iso(now()),
        subscriptionId: second.id,
        keptSubscriptionId: first.id,
        plan: "EXPERT",
        message: expect.stringMatching(
          new RegExp(`canceled ${second.id} at Stripe at once; its unused time is credited to your Stripe balance`),
        ),
      },
    ]);

    T.push("(the duplicate's other events: a replay, its checkout, its invoice, a late copy still saying active, its deletion)");
    expect((await hook(created)).body.outcome).toBe("duplicate");
    const session = `cs_test_Tsecond${Date.now()}`;
    expect(
      applied(
        await hook(
          stripeEvent(
            "checkout.session.completed",
            checkoutCompletedObject({ customer, ownerId: o.ownerId, subscription: second.id, session }),
          ),
        ),
        "ignored",
      ).reason,
    ).toBe("not the subscription the owner's plan follows");
    expect(
      applied(
        await hook(stripeEvent("invoice.paid", invoiceObject(secondAsPaid, { paid: true, start: now(), end: now() + 30 * DAY }))),
        "ignored",
      ).reason,
    ).toBe("not the subscription the owner's plan follows");
    expect(applied(await hook(stripeEvent("customer.subscription.updated", secondAsPaid)), "ignored").reason).toBe(
      "a duplicate subscription Lore has canceled",
    );
    applied(await hook(stripeEvent("customer.subscription.deleted", clone(fake.subscriptions.get(second.id)))), "ignored");
    expect(fake.sent("DELETE", /^\/v1\/subscriptions\//)).toHaveLength(1);
    expect(await agent()).toEqual(LIMITS.PRO);
    expect((await stripeBilling(o)).notices).toHaveLength(1);
    expect(lines.join("\n")).not.toContain(STRIPE_ENV.STRIPE_SECRET_KEY);
    expect(lines.join("\n")).not.toContain(STRIPE_ENV.STRIPE_WEBHOOK_SECRET);
    print("Duplicate subscription against the recorded responses:");
  });

  it("duplicates whatever the order: the older subscription is kept, the mirror is checked against Stripe first, and racing events cancel once", async () => {
    const t0 = Date.parse("2032-05-01T00:00:00.000Z");
    const clock = clockAt(iso(t0));
    vi.spyOn(console, "warn").mockImplementation(() => {});

    // The newer one's event arrives first and is followed; the older one's then displaces it.
    const a = await newAgent();
    await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "STARTER" } });
    const customer = (await mirror(a.owner.ownerId)).customer_id;
    const older = fake.addSubscription({ customer, price: PRICE.STARTER, start: t0 + 60_000, end: t0 + 31 * DAY });
    const newer = fake.addSubscription({ customer, price: PRICE.PRO, start: t0 + 120_000, end: t0 + 31 * DAY });
    clock.set(t0 + 180_000);
    applied(await deliver(stripeEvent("customer.subscription.created", newer, t0 + 120_000)));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);
    applied(await deliver(stripeEvent("customer.subscription.created", older, t0 + 60_000)));
    expect(fake.sent("DELETE", `/v1/subscriptions/${newer.id}`)).toHaveLength(1);
    expect(fake.sent("DELETE", `/v1/subscriptions/${older.id}`)).toHaveLength(0);
    expect(await mirror(a.owner.ownerId)).toMatchObject({ subscription_id: older.id, status: "active" });
    expect(await limitsSeen(a.key)).toEqual(LIMITS.STARTER);
    expect((await stripeBilling(a.owner)).notices).toMatchObject([{ subscriptionId: newer.id, keptSubscriptionId: older.id, plan: "PRO" }]);
    // The canceled one's own events are about a subscription the plan does not follow.
    applied(await deliver(stripeEvent("customer.subscription.deleted", clone(fake.subscriptions.get(newer.id)))), "ignored");
    applied(await deliver(stripeEvent("customer.subscription.updated", older, t0 + 60_000)));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.STARTER);

    // The mirror is behind: the followed subscription ended at Stripe, its webhook not yet in.
    // A new one is its successor, not a duplicate: nothing is canceled.
    const b = await newAgent();
    const subB = await subscribeViaCheckout(b, "PRO", t0, t0 + 30 * DAY);
    clock.set(t0 + 3 * DAY);
    Object.assign(fake.subscriptions.get(subB.id), {
      status: "canceled",
      ended_at: (t0 + 3 * DAY) / 1000,
      canceled_at: (t0 + 3 * DAY) / 1000,
    });
    const nextB = fake.addSubscription({ customer: subB.customer, price: PRICE.EXPERT, start: t0 + 3 * DAY, end: t0 + 33 * DAY });
    applied(await deliver(stripeEvent("customer.subscription.created", nextB)));
    expect(fake.sent("GET", `/v1/subscriptions/${subB.id}`).length).toBeGreaterThanOrEqual(1);
    expect(fake.sent("DELETE", /^\/v1\/subscriptions\//)).toHaveLength(1); // only a's
    expect(await mirror(b.owner.ownerId)).toMatchObject({ subscription_id: nextB.id, status: "active" });
    expect(await limitsSeen(b.key)).toEqual(LIMITS.EXPERT);
    expect((await stripeBilling(b.owner)).notices).toBeUndefined();

    // Two events of one duplicate handled at the same moment: Stripe cancels it once (one
    // idempotency key), one notice, the plan untouched.
    const c = await newAgent();
    const subC = await subscribeViaCheckout(c, "STARTER", t0 + 3 * DAY, t0 + 33 * DAY);
    clock.set(t0 + 4 * DAY);
    const dup = fake.addSubscription({ customer: subC.customer, price: PRICE.STARTER, start: now(), end: now() + 30 * DAY });
    const raced = await Promise.all([
      deliver(stripeEvent("customer.subscription.created", dup)),
      deliver(stripeEvent("invoice.paid", invoiceObject(dup, { paid: true, start: now(), end: now() + 30 * DAY }))),
    ]);
    expect(raced.map((r) => r.status)).toEqual([200, 200]);
    expect(raced.map((r) => r.body.outcome)).toContain("canceled_duplicate");
    const dels = fake.sent("DELETE", `/v1/subscriptions/${dup.id}`);
    expect(dels.length).toBeGreaterThanOrEqual(1);
    expect(new Set(dels.map((x) => x.headers.get("idempotency-key")))).toEqual(new Set([`lore-duplicate-cancel-${dup.id}`]));
    expect(fake.subscriptions.get(dup.id).status).toBe("canceled");
    expect(fake.subscriptions.get(subC.id).status).toBe("active");
    expect((await stripeBilling(c.owner)).notices).toHaveLength(1);
    expect(await limitsSeen(c.key)).toEqual(LIMITS.STARTER);
  });

  it("Stripe failing while expiring a session or canceling a duplicate is a 500 that changes nothing; the retry completes it", async () => {
    const t0 = Date.parse("2032-06-01T00:00:00.000Z");
    const clock = clockAt(iso(t0));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const a = await newAgent();
    const r = await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } });
    const before = await mirror(a.owner.ownerId);
    fake.outage();
    const failed = expectError(
      await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "EXPERT" } }),
      500,
      "INTERNAL",
    );
    expect(failed.error.message).toMatch(/nothing was changed/);
    expect(JSON.stringify(errors.mock.calls)).toContain("checkout.sessions.expire");
    // The PRO session is still the open one, still open at Stripe, and still handed out.
    expect(await mirror(a.owner.ownerId)).toEqual(before);
    expect((await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } })).body.redirect).toEqual(
      r.body.redirect,
    );
    expect(fake.sent("POST", "/v1/checkout/sessions")).toHaveLength(1);
    const sw = await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "EXPERT" } });
    expect(sw.body.redirect.kind).toBe("checkout");
    expect(openSessions(before.customer_id).map((x) => x.url)).toEqual([sw.body.redirect.url]);

    // A duplicate whose cancel fails: the event is not stored, so Stripe's retry cancels it.
    const sub = fake.addSubscription({ customer: before.customer_id, price: PRICE.EXPERT, start: t0, end: t0 + 30 * DAY });
    applied(await deliver(stripeEvent("customer.subscription.created", sub)));
    clock.set(t0 + 3_600_000);
    const dup = fake.addSubscription({ customer: before.customer_id, price: PRICE.PRO, start: now(), end: now() + 30 * DAY });
    const ev = stripeEvent("customer.subscription.created", dup);
    fake.outage(); // the read of the kept subscription fails
    expectError(await deliver(ev), 500, "INTERNAL");
    expect(await eventRow(ev.id)).toBeNull();
    expect(fake.subscriptions.get(dup.id).status).toBe("active");
    expect((await stripeBilling(a.owner)).notices).toBeUndefined();
    applied(await deliver(ev), "canceled_duplicate");
    expect(fake.subscriptions.get(dup.id).status).toBe("canceled");
    expect(await limitsSeen(a.key)).toEqual(LIMITS.EXPERT);
  });

  it("the daily job forgets event ids after 90 days", async () => {
    const t = Date.parse("2032-01-01T00:00:00.000Z");
    const insert = (id: string, receivedAt: number) =>
      E.DB.prepare("INSERT INTO stripe_events (id, type, created, outcome, received_at) VALUES (?, 'invoice.paid', 0, 'applied', ?)")
        .bind(id, receivedAt)
        .run();
    await insert("evt_prune_old", t - 91 * DAY);
    await insert("evt_prune_kept", t - 89 * DAY);
    const logs = vi.spyOn(console, "log").mockImplementation(() => {});
    expect((await runMaintenance(E, t)).stripeEvents).toBeGreaterThanOrEqual(1);
    expect(logs).toHaveBeenCalled();
    expect(await eventRow("evt_prune_old")).toBeNull();
    expect(await eventRow("evt_prune_kept")).not.toBeNull();
  });

  it("the secret key never reaches a response or a log; a Stripe outage during a webhook is a 500 that Stripe's retry recovers", async () => {
    const t0 = Date.parse("2031-12-01T00:00:00.000Z");
    clockAt(iso(t0));
    const a = await newAgent();
    const lines: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    }
    fake.invalidKey();
    const r = await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } });
    const e = expectError(r, 500, "INTERNAL");
    expect(e.error.message).toMatch(/nothing was changed/);
    expect(JSON.stringify(r.body) + [...r.headers].join()).not.toContain(STRIPE_ENV.STRIPE_SECRET_KEY);
    expect(lines.join("\n")).toContain("api_key_expired");
    expect(lines.join("\n")).not.toContain(STRIPE_ENV.STRIPE_SECRET_KEY);
    expect(await mirror(a.owner.ownerId)).toBeNull();

    // Stripe is down while a checkout completes: 500, the event is not stored, the retry applies it.
    await sc("POST", "/v1/billing/subscribe", { token: a.owner.token, body: { plan: "PRO" } });
    const customer = (await mirror(a.owner.ownerId)).customer_id;
    const sub = fake.addSubscription({ customer, price: PRICE.PRO, start: t0, end: t0 + 31 * DAY });
    const done = stripeEvent(
      "checkout.session.completed",
      checkoutCompletedObject({ customer, ownerId: a.owner.ownerId, subscription: sub.id }),
    );
    fake.outage();
    expectError(await deliver(done), 500, "INTERNAL");
    expect(await eventRow(done.id)).toBeNull();
    expect(await limitsSeen(a.key)).toEqual(LIMITS.FREE);
    applied(await deliver(done));
    expect(await limitsSeen(a.key)).toEqual(LIMITS.PRO);
    const all = lines.join("\n");
    expect(all).not.toContain(STRIPE_ENV.STRIPE_SECRET_KEY);
    expect(all).not.toContain(STRIPE_ENV.STRIPE_WEBHOOK_SECRET);
  });
});
