import { afterEach, describe, expect, it, vi } from "vitest";
import recorded from "../fixtures/stripe/webhook_signature.json";
import { constantTimeEqual, parseSignatureHeader, signPayload, verifySignature } from "../../src/billing/stripe.signature";
import {
  STRIPE_API_VERSION,
  cancelDuplicateSubscription,
  createCheckoutSession,
  createCustomer,
  createPortalSession,
  expireCheckoutSession,
  formEncode,
  listSubscriptions,
  setCancelAtPeriodEnd,
  verifyWebhook,
} from "../../src/billing/stripe.client";
import type { StripeConfig } from "../../src/billing/billing.config";
import { ApiError } from "../../src/core/errors";

const enc = (s: string) => new TextEncoder().encode(s);
const SECRET = recorded.secret;
const T = recorded.timestamp;
const at = (s: number) => s * 1000;

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("not refused");
}

describe("the webhook signature verifier", () => {
  it("accepts the header the official SDK made for this payload and secret (recorded), and refuses it for anything else", async () => {
    await expect(verifySignature(enc(recorded.payload), recorded.header, SECRET, 300, at(T))).resolves.toBeUndefined();
    // Our signer writes the same signature as the SDK: tests that sign with it sign as Stripe does.
    expect(`t=${T},v1=${await signPayload(recorded.payload, SECRET, T)}`).toBe(recorded.header);
    expect(await refusal(verifySignature(enc(recorded.payload), recorded.headerWithOtherSecret, SECRET, 300, at(T)))).toMatch(
      /No signatures found matching/,
    );
    expect(await refusal(verifySignature(enc(`${recorded.payload} `), recorded.header, SECRET, 300, at(T)))).toMatch(
      /No signatures found matching/,
    );
    expect(await refusal(verifySignature(enc(recorded.payload), recorded.header, "whsec_other", 300, at(T)))).toMatch(
      /No signatures found matching/,
    );
    // The timestamp is signed too: moving it breaks the signature.
    const moved = recorded.header.replace(`t=${T}`, `t=${T + 1}`);
    expect(await refusal(verifySignature(enc(recorded.payload), moved, SECRET, 300, at(T)))).toMatch(/No signatures found matching/);
  });

  it("one matching v1 among several is enough (a secret being rolled); v0 alone is not accepted", async () => {
    const good = recorded.header.split("v1=")[1]!;
    const other = recorded.headerWithOtherSecret.split("v1=")[1]!;
    await expect(verifySignature(enc(recorded.payload), `t=${T},v1=${other},v1=${good}`, SECRET, 300, at(T))).resolves.toBeUndefined();
    await expect(verifySignature(enc(recorded.payload), `t=${T},v0=${other},v1=${good}`, SECRET, 300, at(T))).resolves.toBeUndefined();
    await expect(verifySignature(enc(recorded.payload), `v1=${good}, t=${T}`, SECRET, 300, at(T))).resolves.toBeUndefined();
    expect(await refusal(verifySignature(enc(recorded.payload), `t=${T},v0=${good}`, SECRET, 300, at(T)))).toMatch(
      /No signatures found with expected scheme/,
    );
    expect(await refusal(verifySignature(enc(recorded.payload), `t=${T},v1=${other},v1=${good.slice(0, -1)}`, SECRET, 300, at(T)))).toMatch(
      /No signatures found matching/,
    );
  });

  it("refuses a signature older than the tolerance (300 s here), not one 299 s old or from a clock ahead", async () => {
    await expect(verifySignature(enc(recorded.payload), recorded.header, SECRET, 300, at(T + 299))).resolves.toBeUndefined();
    await expect(verifySignature(enc(recorded.payload), recorded.header, SECRET, 300, at(T + 300))).resolves.toBeUndefined();
    expect(await refusal(verifySignature(enc(recorded.payload), recorded.header, SECRET, 300, at(T + 301)))).toMatch(
      /Timestamp outside the tolerance zone/,
    );
    await expect(verifySignature(enc(recorded.payload), recorded.header, SECRET, 300, at(T - 600))).resolves.toBeUndefined();
  });

  it("a missing or malformed header, an empty body or no secret is refused before any signature is computed", async () => {
    expect(await refusal(verifySignature(enc(recorded.payload), null, SECRET, 300, at(T)))).toMatch(/No stripe-signature header/);
    expect(await refusal(verifySignature(enc(recorded.payload), "", SECRET, 300, at(T)))).toMatch(/No stripe-signature header/);
    expect(await refusal(verifySignature(enc(recorded.payload), "v1=abc", SECRET, 300, at(T)))).toMatch(/Unable to extract timestamp/);
    expect(await refusal(verifySignature(enc(recorded.payload), "t=abc,v1=zz", SECRET, 300, at(T)))).toMatch(/Unable to extract timestamp/);
    expect(await refusal(verifySignature(enc(recorded.payload), "garbage", SECRET, 300, at(T)))).toMatch(/Unable to extract timestamp/);
    expect(await refusal(verifySignature(enc(""), recorded.header, SECRET, 300, at(T)))).toMatch(/No webhook payload/);
    expect(await refusal(verifySignature(enc(recorded.payload), recorded.header, "", 300, at(T)))).toMatch(/No webhook secret/);
    expect(parseSignatureHeader("t=12,v1=a,v1=b,v0=c,x")).toEqual({ timestamp: 12, signatures: ["a", "b"] });
  });

  it("compares without an early exit; strings of other lengths never match", () => {
    expect(constantTimeEqual("abcd", "abcd")).toBe(true);
    expect(constantTimeEqual("abcd", "abce")).toBe(false);
    expect(constantTimeEqual("abcd", "xbcd")).toBe(false);
    expect(constantTimeEqual("abcd", "abc")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });

  it("verifyWebhook: a signed body that is not an event is a 400 naming the header; a good one is the event", async () => {
    const cfg = { webhookSecret: SECRET, secretKey: "sk_test_x" } as StripeConfig;
    const event = await verifyWebhook(cfg, enc(recorded.payload), recorded.header, at(T));
    expect(event).toMatchObject({ id: "evt_1RecordedSig", type: "customer.subscription.updated", created: 1900000000 });
    for (const body of ["not json", "{}", "[1]", '{"id":"evt_1","type":"x","created":1,"data":null}']) {
      const header = `t=${T},v1=${await signPayload(body, SECRET, T)}`;
      const err = await verifyWebhook(cfg, enc(body), header, at(T)).catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err.code).toBe("VALIDATION_FAILED");
      expect(err.message).toMatch(/not a Stripe event/);
    }
    const err = await verifyWebhook(cfg, enc(recorded.payload), recorded.header, at(T + 301)).catch((e) => e);
    expect(err).toMatchObject({
      code: "VALIDATION_FAILED",
      details: { issues: [{ path: "header.stripe-signature", message: "Timestamp outside the tolerance zone" }] },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The API client: what goes over the wire, compared with what the official SDK sent for the same
// calls (recorded from stripe 23.1.0's fetch client before it was replaced).
// ---------------------------------------------------------------------------------------------

const CFG: StripeConfig = {
  provider: "stripe",
  secretKey: "sk_test_ClientTestKey0001",
  webhookSecret: "whsec_x",
  prices: { STARTER: "price_S", PRO: "price_P", EXPERT: "price_E" },
} as StripeConfig;

type Sent = { method: string; url: string; body: string | null; headers: Headers };

function answer(replies: Array<{ status: number; body: unknown; headers?: Record<string, string> } | Error>) {
  const sent: Sent[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input as any, init);
    sent.push({
      method: req.method,
      url: req.url,
      body: req.method === "POST" ? new TextDecoder().decode(await req.arrayBuffer()) : null,
      headers: req.headers,
    });
    const r = replies.length > 1 ? replies.shift()! : replies[0]!;
    if (r instanceof Error) throw r;
    return new Response(JSON.stringify(r.body), {
      status: r.status,
      headers: { "content-type": "application/json", "request-id": "req_1", ...r.headers },
    });
  });
  return sent;
}

afterEach(() => vi.restoreAllMocks());

describe("the Stripe API client", () => {
  it("encodes parameters exactly as the SDK did (nested keys, arrays by index, RFC 3986 escapes)", () => {
    expect(formEncode({ email: "a+b@example.com", metadata: { owner_id: "own_1" } })).toBe(
      "email=a%2Bb%40example.com&metadata[owner_id]=own_1",
    );
    expect(
      formEncode({
        prorate: true,
        invoice_now: true,
        cancellation_details: { comment: "Duplicate subscription: x (PRO). Canceled; credited." },
      }),
    ).toBe(
      "prorate=true&invoice_now=true&cancellation_details[comment]=Duplicate%20subscription%3A%20x%20%28PRO%29.%20Canceled%3B%20credited.",
    );
    expect(formEncode({ a: null, b: undefined, c: false, d: 0 })).toBe("c=false&d=0");
  });

  it("sends the SDK's requests: bodies, query strings, the API version, the key and idempotency keys", async () => {
    const sent = answer([
      { status: 200, body: { id: "cus_1", object: "customer", url: "https://x/u", status: "open", expires_at: 1900003600, data: [] } },
    ]);
    await createCustomer(CFG, { ownerId: "own_1", email: "a+b@example.com" });
    await createCheckoutSession(CFG, {
      ownerId: "own_1",
      customerId: "cus_1",
      plan: "PRO",
      successUrl: "https://lore.example/dashboard/billing?done=stripe&checkout=success",
      cancelUrl: "https://lore.example/x?checkout=canceled",
      expiresAt: 1900003600,
      idempotencyKey: "k1",
    });
    await listSubscriptions(CFG, "cus_1");
    await cancelDuplicateSubscription(CFG, "sub_1", "Duplicate subscription: x (PRO). Canceled; credited.");
    await createPortalSession(CFG, "cus_1", "https://lore.example/r", {
      type: "switch",
      subscriptionId: "sub_1",
      itemId: "si_1",
      plan: "EXPERT",
    });
    await setCancelAtPeriodEnd(CFG, "sub_1", false);
    expect(sent.map((s) => [s.method, s.url, s.body])).toEqual([
      ["POST", "https://api.stripe.com/v1/customers", "email=a%2Bb%40example.com&metadata[owner_id]=own_1"],
      [
        "POST",
        "https://api.stripe.com/v1/checkout/sessions",
        "mode=subscription&customer=cus_1&client_reference_id=own_1&line_items[0][price]=price_P&line_items[0][quantity]=1&success_url=https%3A%2F%2Flore.example%2Fdashboard%2Fbilling%3Fdone%3Dstripe%26checkout%3Dsuccess&cancel_url=https%3A%2F%2Flore.example%2Fx%3Fcheckout%3Dcanceled&expires_at=1900003600&metadata[owner_id]=own_1&metadata[plan]=PRO&subscription_data[metadata][owner_id]=own_1&subscription_data[metadata][plan]=PRO",
      ],
      ["GET", "https://api.stripe.com/v1/subscriptions?customer=cus_1&limit=100", null],
      [
        "DELETE",
        "https://api.stripe.com/v1/subscriptions/sub_1?prorate=true&invoice_now=true&cancellation_details[comment]=Duplicate%20subscription%3A%20x%20%28PRO%29.%20Canceled%3B%20credited.",
        null,
      ],
      [
        "POST",
        "https://api.stripe.com/v1/billing_portal/sessions",
        "customer=cus_1&return_url=https%3A%2F%2Flore.example%2Fr&flow_data[type]=subscription_update_confirm&flow_data[subscription_update_confirm][subscription]=sub_1&flow_data[subscription_update_confirm][items][0][id]=si_1&flow_data[subscription_update_confirm][items][0][price]=price_E&flow_data[subscription_update_confirm][items][0][quantity]=1&flow_data[after_completion][type]=redirect&flow_data[after_completion][redirect][return_url]=https%3A%2F%2Flore.example%2Fr",
      ],
      ["POST", "https://api.stripe.com/v1/subscriptions/sub_1", "cancel_at_period_end=false"],
    ]);
    for (const s of sent) {
      expect(s.headers.get("authorization")).toBe(`Bearer ${CFG.secretKey}`);
      expect(s.headers.get("stripe-version")).toBe(STRIPE_API_VERSION);
    }
    expect(sent.map((s) => s.headers.get("idempotency-key"))).toEqual([
      "lore-customer-own_1",
      "k1",
      null,
      "lore-duplicate-cancel-sub_1",
      expect.stringMatching(/^retry-[0-9a-f-]{36}$/),
      expect.stringMatching(/^retry-[0-9a-f-]{36}$/),
    ]);
    expect(sent[0]!.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
  });

  it("retries a 409 or an unanswered request with the same idempotency key; not a 5xx Stripe says not to retry; at most twice", async () => {
    let sent = answer([
      { status: 409, body: { error: { type: "api_error", message: "lock" } } },
      { status: 200, body: { id: "cus_9" } },
    ]);
    expect(await createCustomer(CFG, { ownerId: "own_9", email: "x@example.com" })).toBe("cus_9");
    expect(sent.map((s) => s.headers.get("idempotency-key"))).toEqual(["lore-customer-own_9", "lore-customer-own_9"]);
    vi.restoreAllMocks();

    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    sent = answer([
      {
        status: 500,
        body: { error: { type: "api_error", message: "An unknown error occurred" } },
        headers: { "stripe-should-retry": "false" },
      },
    ]);
    expect(await refusal(setCancelAtPeriodEnd(CFG, "sub_1", true))).toMatch(/nothing was changed/);
    expect(sent).toHaveLength(1);
    vi.restoreAllMocks();

    vi.spyOn(console, "error").mockImplementation(() => {});
    sent = answer([new TypeError("network down")]);
    expect(await refusal(setCancelAtPeriodEnd(CFG, "sub_1", true))).toMatch(/nothing was changed/);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((s) => s.headers.get("idempotency-key"))).size).toBe(1);
    expect(JSON.stringify(errors.mock.calls)).toContain("api_error");
  });

  it("errors become a 500 that says nothing changed, logged with Stripe's type, code and request id and no secret", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void lines.push(a.map(String).join(" ")));
    answer([
      {
        status: 401,
        body: { error: { type: "invalid_request_error", code: "api_key_expired", message: `Expired API Key provided: ${CFG.secretKey}` } },
      },
    ]);
    const err = await createCustomer(CFG, { ownerId: "own_2", email: "x@example.com" }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("INTERNAL");
    const log = JSON.parse(lines[0]!);
    expect(log).toMatchObject({
      what: "stripe customers.create",
      type: "invalid_request_error",
      code: "api_key_expired",
      statusCode: 401,
      stripeRequestId: "req_1",
    });
    expect(lines.join("\n")).not.toContain(CFG.secretKey);
  });

  it("expiring a session Stripe no longer has open answers its status (a 400 is about the request); a 401 is not taken for that", async () => {
    answer([
      { status: 400, body: { error: { type: "invalid_request_error", message: "This Checkout Session is not in an expirable state" } } },
      { status: 200, body: { id: "cs_1", status: "complete", url: null, expires_at: 1900003600 } },
    ]);
    expect(await expireCheckoutSession(CFG, "cs_1")).toEqual({ id: "cs_1", status: "complete", url: null, expiresAt: 1900003600_000 });
    vi.restoreAllMocks();
    vi.spyOn(console, "error").mockImplementation(() => {});
    const sent = answer([{ status: 401, body: { error: { type: "invalid_request_error", message: "bad key" } } }]);
    expect(await refusal(expireCheckoutSession(CFG, "cs_1"))).toMatch(/nothing was changed/);
    expect(sent).toHaveLength(1);
  });
});
