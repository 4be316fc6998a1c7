import { spawnSync } from "node:child_process";
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { ROOT, WRANGLER } from "../../scripts/lib.mjs";

/**
 * The Stripe provider in the real runtime: `wrangler dev` runs the bundle `wrangler deploy` would
 * upload (Lore's own fetch client and Web Crypto verifier), with the Stripe configuration as variables.
 * Stripe's API cannot be reached here, so this drives only what needs no call to it: the signed
 * webhook (SubtleCrypto verification, idempotency) and the plan it grants. The account and its
 * Stripe customer are written to the local D1 before the server starts.
 */
const VARS = {
  STRIPE_SECRET_KEY: "sk_test_LoreE2eSecretKey0001",
  STRIPE_WEBHOOK_SECRET: "whsec_LoreE2eWebhookSecret0001",
  STRIPE_PRICE_STARTER: "price_E2eStarter",
  STRIPE_PRICE_PRO: "price_E2ePro",
  STRIPE_PRICE_EXPERT: "price_E2eExpert",
};
const OWNER = "own_e2estripe0000000001";
const EMAIL = "stripe-e2e@example.com";
const PASSWORD = "correct horse battery";
// The key format of issue 13 (`lore_<secret>_<account>`): the account's AccountQuota object, new to
// this state, builds its copy of the keys from these D1 rows on first use.
const KEY = `lore_${randomBytes(32).toString("base64url").replace(/[-_]/g, "a").slice(0, 43)}_${OWNER}`;
const CUSTOMER = "cus_E2eCustomer0001";

function seedAccount(persistTo: string) {
  const salt = randomBytes(16).toString("hex");
  const hash = pbkdf2Sync(PASSWORD, Buffer.from(salt, "hex"), 100_000, 32, "sha256").toString("hex");
  const t = Date.now();
  const sql = [
    `INSERT INTO owners (id, email, password_hash, password_salt, password_iterations, created_at) VALUES ('${OWNER}', '${EMAIL}', '${hash}', '${salt}', 100000, ${t})`,
    `INSERT INTO agents (id, owner_id, handle, created_at) VALUES ('agt_e2estripe01', '${OWNER}', 'stripe-e2e', ${t})`,
    `INSERT INTO api_keys (key_hash, prefix, agent_id, owner_id, created_at) VALUES ('${createHash("sha256").update(KEY).digest("hex")}', '${KEY.slice(0, 8)}', 'agt_e2estripe01', '${OWNER}', ${t})`,
    `INSERT INTO stripe_customers (owner_id, customer_id, created_at, updated_at) VALUES ('${OWNER}', '${CUSTOMER}', ${t}, ${t})`,
  ].join("; ");
  const r = spawnSync(WRANGLER, ["d1", "execute", "DB", "--local", "--persist-to", persistTo, "--command", sql], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  if (r.status !== 0) throw new Error(`seeding the account failed: ${r.stderr}`);
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ seed: false, vars: VARS, beforeStart: seedAccount });
});
afterAll(async () => {
  await server?.stop();
});

function subscriptionCreated(id: string) {
  const now = Math.floor(Date.now() / 1000);
  const sub = {
    id: "sub_E2e0001",
    object: "subscription",
    customer: CUSTOMER,
    status: "active",
    created: now,
    billing_cycle_anchor: now,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    ended_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    items: {
      object: "list",
      data: [
        {
          id: "si_E2e0001",
          object: "subscription_item",
          current_period_start: now,
          current_period_end: now + 30 * 86_400,
          price: { id: VARS.STRIPE_PRICE_PRO, object: "price" },
        },
      ],
      has_more: false,
    },
    metadata: {},
  };
  return {
    id,
    object: "event",
    api_version: "2026-10-28.endive",
    created: now,
    data: { object: sub },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: "customer.subscription.created",
  };
}

async function deliver(event: unknown, secret = VARS.STRIPE_WEBHOOK_SECRET) {
  const payload = JSON.stringify(event);
  // Signed as Stripe signs, with Node's own HMAC: independent of the Worker's verifier.
  const t = Math.floor(Date.now() / 1000);
  const signature = `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${payload}`).digest("hex")}`;
  const r = await fetch(`${server.origin}/v1/billing/webhooks/stripe`, {
    method: "POST",
    body: payload,
    headers: { "stripe-signature": signature, "content-type": "application/json" },
  });
  return { status: r.status, body: (await r.json()) as any };
}

describe("Stripe in wrangler dev", () => {
  it("verifies signed webhooks with Web Crypto, applies the plan once, and the next agent request sees it", async () => {
    const usage = async () => {
      const r = await fetch(`${server.origin}/v1/usage/today`, { headers: { authorization: `Bearer ${KEY}` } });
      const body = (await r.json()) as any;
      // The whole answer in the failure message: a missing plan says nothing about why.
      if (typeof body?.plan !== "string") throw new Error(`usage/today answered ${r.status}: ${JSON.stringify(body)}`);
      return body.plan;
    };
    expect(await usage()).toBe("FREE");

    const login = await fetch(`${server.origin}/v1/auth/login`, {
      method: "POST",
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      headers: { "content-type": "application/json" },
    });
    const token = ((await login.json()) as any).token;
    const billing = await fetch(`${server.origin}/v1/billing`, { headers: { authorization: `Bearer ${token}` } });
    expect(await billing.json()).toMatchObject({
      plan: "FREE",
      provider: { name: "stripe", checkout: true, portal: true, directSwitch: false },
    });

    const event = subscriptionCreated("evt_E2e0001");
    const bad = await deliver(event, "whsec_wrong");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_FAILED");
    expect(await usage()).toBe("FREE");

    expect(await deliver(event)).toEqual({
      status: 200,
      body: { received: true, id: "evt_E2e0001", type: "customer.subscription.created", outcome: "applied" },
    });
    expect(await usage()).toBe("PRO");
    expect((await deliver(event)).body.outcome).toBe("duplicate");

    const get = await fetch(`${server.origin}/v1/billing/webhooks/stripe`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });
});
