import type Stripe from "stripe";
import { ApiError } from "../core/errors";
import type { PaidPlan, StripeConfig } from "./billing.config";

/**
 * The one client for Stripe: every call Lore makes to Stripe's API, and the webhook signature
 * check, go through here. The official SDK runs with its fetch HTTP client and the Web Crypto
 * (SubtleCrypto) provider, so nothing needs Node's `http` or `crypto`. It is imported lazily: a
 * deployment without Stripe never evaluates it, which keeps the Worker's start-up light.
 */

/**
 * The API version the code reads objects in (`items.data[].current_period_end`,
 * `invoice.parent.subscription_details`). Webhook endpoints must be registered with this version
 * too (README, "Payments with Stripe"); the SDK's types describe exactly this version.
 */
export const STRIPE_API_VERSION = "2026-10-28.endive" as const;

/** Webhook signatures older than this (seconds) are refused, as Stripe recommends. */
export const WEBHOOK_TOLERANCE_S = 300;

let sdk: Promise<typeof Stripe> | null = null;
const loadSdk = () => (sdk ??= import("stripe").then((m) => m.default));

let cached: { key: string; client: Stripe } | null = null;

async function client(cfg: StripeConfig): Promise<Stripe> {
  if (cached?.key === cfg.secretKey) return cached.client;
  const StripeSdk = await loadSdk();
  const stripe = new StripeSdk(cfg.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    // Late-bound so that the fetch in force at call time is used (tests replace it with recorded
    // responses), and called as a plain function (workerd refuses a detached `fetch` method).
    httpClient: StripeSdk.createFetchHttpClient((url, init) => fetch(url, init)),
    // The SDK retries network failures and 409/429/5xx with an idempotency key, so a retried POST
    // never creates a second customer or session.
    maxNetworkRetries: 2,
    timeout: 10_000,
    appInfo: { name: "Lore" },
  });
  cached = { key: cfg.secretKey, client: stripe };
  return stripe;
}

/** Removes anything that looks like a Stripe secret from text bound for a log. */
export function redact(text: string, cfg?: Pick<StripeConfig, "secretKey" | "webhookSecret">): string {
  let out = text;
  for (const secret of [cfg?.secretKey, cfg?.webhookSecret]) if (secret) out = out.split(secret).join("[redacted]");
  return out.replace(/\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]+/g, "[redacted]").replace(/\bwhsec_[A-Za-z0-9]+/g, "[redacted]");
}

/**
 * Runs one Stripe call. A failure is logged with Stripe's error type, code, status and request id
 * (the message redacted) and becomes a 500 that says nothing was changed; the SDK's error, its raw
 * body and headers never reach a response or a log.
 */
async function call<T>(cfg: StripeConfig, what: string, fn: (stripe: Stripe) => Promise<T>): Promise<T> {
  const stripe = await client(cfg);
  try {
    return await fn(stripe);
  } catch (err) {
    const e = err as { type?: string; code?: string; statusCode?: number; requestId?: string; message?: string };
    console.error(
      JSON.stringify({
        level: "error",
        what: `stripe ${what}`,
        type: e?.type,
        code: e?.code,
        statusCode: e?.statusCode,
        stripeRequestId: e?.requestId,
        message: redact(String(e?.message ?? err), cfg),
      }),
    );
    throw new ApiError("INTERNAL", "The payment provider (Stripe) could not complete the request; nothing was changed. Try again in a minute.");
  }
}

export function createCustomer(cfg: StripeConfig, owner: { ownerId: string; email: string }): Promise<string> {
  return call(cfg, "customers.create", async (s) => {
    // The key makes a retry after a lost answer (or two racing requests) return the same customer.
    const c = await s.customers.create(
      { email: owner.email, metadata: { owner_id: owner.ownerId } },
      { idempotencyKey: `lore-customer-${owner.ownerId}` },
    );
    return c.id;
  });
}

export interface CheckoutRequest {
  ownerId: string;
  customerId: string;
  plan: PaidPlan;
  successUrl: string;
  cancelUrl: string;
}

/** A Checkout Session in subscription mode for the plan's configured price. */
export function createCheckoutSession(cfg: StripeConfig, req: CheckoutRequest): Promise<{ id: string; url: string; expiresAt: number }> {
  return call(cfg, "checkout.sessions.create", async (s) => {
    const session = await s.checkout.sessions.create({
      mode: "subscription",
      customer: req.customerId,
      client_reference_id: req.ownerId,
      line_items: [{ price: cfg.prices[req.plan], quantity: 1 }],
      success_url: req.successUrl,
      cancel_url: req.cancelUrl,
      metadata: { owner_id: req.ownerId, plan: req.plan },
      subscription_data: { metadata: { owner_id: req.ownerId, plan: req.plan } },
    });
    if (!session.url) throw new Error(`checkout session ${session.id} has no url`);
    return { id: session.id, url: session.url, expiresAt: session.expires_at };
  });
}

export type PortalFlow =
  | { type: "switch"; subscriptionId: string; itemId: string; plan: PaidPlan }
  | { type: "payment_method" };

/** A Customer Portal session: cards, invoices, cancelling; with a flow, a deep link to one task. */
export function createPortalSession(cfg: StripeConfig, customerId: string, returnUrl: string, flow?: PortalFlow): Promise<string> {
  return call(cfg, "billingPortal.sessions.create", async (s) => {
    const params: Stripe.BillingPortal.SessionCreateParams = { customer: customerId, return_url: returnUrl };
    if (flow?.type === "switch") {
      params.flow_data = {
        type: "subscription_update_confirm",
        subscription_update_confirm: {
          subscription: flow.subscriptionId,
          items: [{ id: flow.itemId, price: cfg.prices[flow.plan], quantity: 1 }],
        },
        after_completion: { type: "redirect", redirect: { return_url: returnUrl } },
      };
    } else if (flow?.type === "payment_method") {
      params.flow_data = { type: "payment_method_update", after_completion: { type: "redirect", redirect: { return_url: returnUrl } } };
    }
    return (await s.billingPortal.sessions.create(params)).url;
  });
}

export function retrieveSubscription(cfg: StripeConfig, id: string): Promise<Stripe.Subscription> {
  return call(cfg, "subscriptions.retrieve", (s) => s.subscriptions.retrieve(id));
}

/** Sets or clears cancel-at-period-end; Stripe's answer is the subscription as it now stands. */
export function setCancelAtPeriodEnd(cfg: StripeConfig, id: string, cancel: boolean): Promise<Stripe.Subscription> {
  return call(cfg, "subscriptions.update", (s) =>
    s.subscriptions.update(id, { cancel_at_period_end: cancel }),
  );
}

/**
 * Verifies a webhook's `Stripe-Signature` over the raw body with the SDK's async verifier (Web
 * Crypto) and returns the event. A missing, malformed or wrong signature, or one older than
 * WEBHOOK_TOLERANCE_S at `receivedAtMs` (Lore's clock), is a 400.
 */
export async function verifyWebhook(cfg: StripeConfig, rawBody: Uint8Array, signature: string | null, receivedAtMs: number): Promise<Stripe.Event> {
  const StripeSdk = await loadSdk();
  try {
    return await StripeSdk.webhooks.constructEventAsync(
      rawBody,
      signature ?? "",
      cfg.webhookSecret,
      WEBHOOK_TOLERANCE_S,
      StripeSdk.createSubtleCryptoProvider(),
      receivedAtMs,
    );
  } catch (err) {
    const why = err instanceof StripeSdk.errors.StripeSignatureVerificationError ? redact(err.message, cfg).split("\n")[0]! : "the body is not a Stripe event";
    throw new ApiError("VALIDATION_FAILED", `Stripe webhook refused: ${why}`, {
      issues: [{ path: "header.stripe-signature", message: why }],
    });
  }
}
