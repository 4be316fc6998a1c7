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
  /** s since epoch: when Stripe expires the session (30 min to 24 h after creation). */
  expiresAt: number;
  /**
   * Two requests with the same key get the same session from Stripe instead of two (Stripe answers
   * a repeated key with the first answer, for 24 hours, if the parameters are the same).
   */
  idempotencyKey: string;
}

export interface CheckoutSession {
  id: string;
  /** open, complete or expired */
  status: string;
  url: string | null;
  /** ms since epoch */
  expiresAt: number;
}

const sessionOf = (s: Stripe.Checkout.Session): CheckoutSession => ({
  id: s.id,
  status: s.status ?? "open",
  url: s.url,
  expiresAt: s.expires_at * 1000,
});

/** A Checkout Session in subscription mode for the plan's configured price. */
export function createCheckoutSession(cfg: StripeConfig, req: CheckoutRequest): Promise<CheckoutSession & { url: string }> {
  return call(cfg, "checkout.sessions.create", async (s) => {
    const session = await s.checkout.sessions.create(
      {
        mode: "subscription",
        customer: req.customerId,
        client_reference_id: req.ownerId,
        line_items: [{ price: cfg.prices[req.plan], quantity: 1 }],
        success_url: req.successUrl,
        cancel_url: req.cancelUrl,
        expires_at: req.expiresAt,
        metadata: { owner_id: req.ownerId, plan: req.plan },
        subscription_data: { metadata: { owner_id: req.ownerId, plan: req.plan } },
      },
      { idempotencyKey: req.idempotencyKey },
    );
    if (!session.url) throw new Error(`checkout session ${session.id} has no url`);
    return { ...sessionOf(session), url: session.url };
  });
}

/** A Checkout Session as Stripe has it now (open, complete or expired). */
export function retrieveCheckoutSession(cfg: StripeConfig, id: string): Promise<CheckoutSession> {
  return call(cfg, "checkout.sessions.retrieve", async (s) => sessionOf(await s.checkout.sessions.retrieve(id)));
}

const isInvalidRequest = (err: unknown) => (err as { type?: string })?.type === "StripeInvalidRequestError";

/**
 * Expires an open Checkout Session, so that nobody can pay it any more. Stripe refuses to expire
 * a session that is not open (already expired, or complete: paid): then its status as Stripe has
 * it is the answer, so the caller knows whether a payment happened. Any other failure is a 500.
 */
export function expireCheckoutSession(cfg: StripeConfig, id: string): Promise<CheckoutSession> {
  return call(cfg, "checkout.sessions.expire", async (s) => {
    try {
      return sessionOf(await s.checkout.sessions.expire(id));
    } catch (err) {
      if (!isInvalidRequest(err)) throw err;
      const now = sessionOf(await s.checkout.sessions.retrieve(id));
      if (now.status === "open") throw err;
      return now;
    }
  });
}

/**
 * The customer's subscriptions that have not been canceled (Stripe's default for this list, so a
 * long history of canceled ones cannot push a live one off the page), newest first. 100 is
 * Stripe's page maximum; an owner has one, two in the rare duplicate.
 */
export function listSubscriptions(cfg: StripeConfig, customerId: string): Promise<Stripe.Subscription[]> {
  return call(cfg, "subscriptions.list", async (s) => (await s.subscriptions.list({ customer: customerId, limit: 100 })).data);
}

/**
 * Cancels a duplicate subscription at once. `prorate` credits the unused time of the current
 * period and `invoice_now` settles it on a final invoice now: its negative total goes to the
 * customer's Stripe balance, which pays their next invoices. The comment is shown in Stripe's
 * Dashboard. The idempotency key makes a repeated webhook get Stripe's first answer; a
 * subscription already canceled (Stripe answers 404 for it) is read back instead.
 */
export function cancelDuplicateSubscription(cfg: StripeConfig, id: string, comment: string): Promise<Stripe.Subscription> {
  return call(cfg, "subscriptions.cancel", async (s) => {
    try {
      return await s.subscriptions.cancel(
        id,
        { prorate: true, invoice_now: true, cancellation_details: { comment } },
        { idempotencyKey: `lore-duplicate-cancel-${id}` },
      );
    } catch (err) {
      if (!isInvalidRequest(err)) throw err;
      const now = await s.subscriptions.retrieve(id);
      if (now.status !== "canceled" && now.status !== "incomplete_expired") throw err;
      return now;
    }
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
