import { ApiError } from "../core/errors";
import type { PaidPlan, StripeConfig } from "./billing.config";
import { SignatureError, verifySignature } from "./stripe.signature";
import type { StripeCheckoutSession, StripeEvent, StripeList, StripeSubscription } from "./stripe.types";

/**
 * The one client for Stripe: every call Lore makes to Stripe's API, and the webhook signature
 * check, go through here. It is a few fetch calls with Stripe's form encoding, idempotency keys,
 * the pinned API version and the SDK's retry rules, instead of the official SDK: the SDK was
 * about 800 KiB of the Worker's bundle (over 100 KiB gzipped) for nine endpoints, parsed by
 * every cold isolate.
 */

/**
 * The API version the code reads objects in (`items.data[].current_period_end`,
 * `invoice.parent.subscription_details`). Webhook endpoints must be registered with this version
 * too (README, "Payments with Stripe"); stripe.types.ts describes the fields read in this version.
 */
export const STRIPE_API_VERSION = "2026-10-28.endive" as const;

/** Webhook signatures older than this (seconds) are refused, as Stripe recommends. */
export const WEBHOOK_TOLERANCE_S = 300;

const API = "https://api.stripe.com";
const MAX_NETWORK_RETRIES = 2;
const TIMEOUT_MS = 10_000;

/** A failed call, with what Stripe said (its error body and request id) and nothing else. */
export class StripeApiError extends Error {
  constructor(
    message: string,
    /** Stripe's error type (`invalid_request_error`, `api_error`, …); `connection_error` when no answer came. */
    readonly type: string,
    readonly statusCode?: number,
    readonly code?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/**
 * A 400 or 404 that is about the request itself (what the SDK calls StripeInvalidRequestError):
 * not a reused idempotency key and not rate limiting.
 */
const isInvalidRequest = (err: unknown) =>
  err instanceof StripeApiError &&
  (err.statusCode === 400 || err.statusCode === 404) &&
  err.type !== "idempotency_error" &&
  err.code !== "rate_limit";

type Params = { [k: string]: string | number | boolean | null | undefined | Params | Params[] };

// Stripe reads `application/x-www-form-urlencoded` with nested keys (`a[b][0][c]=…`): the
// encoding its SDK sends (RFC 3986: `!'()*` escaped too, brackets left as they are).
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Stripe's form encoding of (nested) parameters, in the order given. */
export function formEncode(params: Params, prefix = ""): string {
  const out: string[] = [];
  const walk = (value: unknown, key: string) => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value))
      value.forEach((v, i) => {
        walk(v, `${key}[${i}]`);
      });
    else if (typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, key ? `${key}[${enc(k)}]` : enc(k));
    else out.push(`${key}=${enc(String(value))}`);
  };
  walk(params, prefix);
  return out.join("&");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** As the SDK: 0.5 s doubling per retry, at most 5 s, with jitter down to half (never under 0.5 s). */
const backoffMs = (retry: number) => Math.max(500, Math.min(500 * 2 ** (retry - 1), 5000) * 0.5 * (1 + Math.random()));

/**
 * One request to Stripe's API. POSTs always carry an idempotency key (the caller's, or a fresh
 * one), so that retrying a request whose answer was lost never makes a second object. Retried,
 * as the SDK does, up to twice: when no answer came, on 409 and 5xx, and whenever Stripe says
 * `Stripe-Should-Retry: true`, never when it says `false`.
 */
async function request<T>(
  cfg: StripeConfig,
  method: "GET" | "POST" | "DELETE",
  path: string,
  params: Params = {},
  idempotencyKey?: string,
): Promise<T> {
  const body = formEncode(params);
  const url = method === "POST" || !body ? `${API}${path}` : `${API}${path}?${body}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${cfg.secretKey}`,
    "stripe-version": STRIPE_API_VERSION,
    accept: "application/json",
    "user-agent": "Lore (fetch client)",
  };
  if (method === "POST") {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers["idempotency-key"] = idempotencyKey ?? `retry-${crypto.randomUUID()}`;
  } else if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;

  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      // Called as a plain function at call time: tests replace the global, and workerd refuses
      // a detached `fetch` method.
      res = await fetch(url, { method, headers, body: method === "POST" ? body : undefined, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      if (attempt < MAX_NETWORK_RETRIES) {
        await sleep(backoffMs(attempt + 1));
        continue;
      }
      throw new StripeApiError(`no answer from Stripe: ${(err as Error)?.message ?? String(err)}`, "connection_error");
    }
    const requestId = res.headers.get("request-id") ?? undefined;
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.ok && json && typeof json === "object") return json as T;
    const should = res.headers.get("stripe-should-retry");
    const retry = should === "true" || (should !== "false" && (res.status === 409 || res.status >= 500));
    if (retry && attempt < MAX_NETWORK_RETRIES) {
      await sleep(backoffMs(attempt + 1));
      continue;
    }
    const e = (json as { error?: { type?: string; code?: string; message?: string } } | undefined)?.error;
    throw new StripeApiError(
      e?.message ?? `Stripe answered ${res.status} without an error body`,
      e?.type ?? "api_error",
      res.status,
      e?.code,
      requestId,
    );
  }
}

/** Removes anything that looks like a Stripe secret from text bound for a log. */
export function redact(text: string, cfg?: Pick<StripeConfig, "secretKey" | "webhookSecret">): string {
  let out = text;
  for (const secret of [cfg?.secretKey, cfg?.webhookSecret]) if (secret) out = out.split(secret).join("[redacted]");
  return out.replace(/\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]+/g, "[redacted]").replace(/\bwhsec_[A-Za-z0-9]+/g, "[redacted]");
}

/**
 * Runs one Stripe call. A failure is logged with Stripe's error type, code, status and request id
 * (the message redacted) and becomes a 500 that says nothing was changed; Stripe's raw body and
 * headers never reach a response or a log.
 */
async function call<T>(cfg: StripeConfig, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = err as Partial<StripeApiError>;
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
    throw new ApiError(
      "INTERNAL",
      "The payment provider (Stripe) could not complete the request; nothing was changed. Try again in a minute.",
    );
  }
}

const seg = encodeURIComponent;

export function createCustomer(cfg: StripeConfig, owner: { ownerId: string; email: string }): Promise<string> {
  return call(cfg, "customers.create", async () => {
    // The key makes a retry after a lost answer (or two racing requests) return the same customer.
    const c = await request<{ id: string }>(
      cfg,
      "POST",
      "/v1/customers",
      { email: owner.email, metadata: { owner_id: owner.ownerId } },
      `lore-customer-${owner.ownerId}`,
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

const sessionOf = (s: StripeCheckoutSession): CheckoutSession => ({
  id: s.id,
  status: s.status ?? "open",
  url: s.url,
  expiresAt: s.expires_at * 1000,
});

/** A Checkout Session in subscription mode for the plan's configured price. */
export function createCheckoutSession(cfg: StripeConfig, req: CheckoutRequest): Promise<CheckoutSession & { url: string }> {
  return call(cfg, "checkout.sessions.create", async () => {
    const session = await request<StripeCheckoutSession>(
      cfg,
      "POST",
      "/v1/checkout/sessions",
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
      req.idempotencyKey,
    );
    if (!session.url) throw new Error(`checkout session ${session.id} has no url`);
    return { ...sessionOf(session), url: session.url };
  });
}

const getSession = (cfg: StripeConfig, id: string) => request<StripeCheckoutSession>(cfg, "GET", `/v1/checkout/sessions/${seg(id)}`);

/** A Checkout Session as Stripe has it now (open, complete or expired). */
export function retrieveCheckoutSession(cfg: StripeConfig, id: string): Promise<CheckoutSession> {
  return call(cfg, "checkout.sessions.retrieve", async () => sessionOf(await getSession(cfg, id)));
}

/**
 * Expires an open Checkout Session, so that nobody can pay it any more. Stripe refuses to expire
 * a session that is not open (already expired, or complete: paid): then its status as Stripe has
 * it is the answer, so the caller knows whether a payment happened. Any other failure is a 500.
 */
export function expireCheckoutSession(cfg: StripeConfig, id: string): Promise<CheckoutSession> {
  return call(cfg, "checkout.sessions.expire", async () => {
    try {
      return sessionOf(await request<StripeCheckoutSession>(cfg, "POST", `/v1/checkout/sessions/${seg(id)}/expire`));
    } catch (err) {
      if (!isInvalidRequest(err)) throw err;
      const now = sessionOf(await getSession(cfg, id));
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
export function listSubscriptions(cfg: StripeConfig, customerId: string): Promise<StripeSubscription[]> {
  return call(
    cfg,
    "subscriptions.list",
    async () => (await request<StripeList<StripeSubscription>>(cfg, "GET", "/v1/subscriptions", { customer: customerId, limit: 100 })).data,
  );
}

const getSubscription = (cfg: StripeConfig, id: string) => request<StripeSubscription>(cfg, "GET", `/v1/subscriptions/${seg(id)}`);

/**
 * Cancels a duplicate subscription at once. `prorate` credits the unused time of the current
 * period and `invoice_now` settles it on a final invoice now: its negative total goes to the
 * customer's Stripe balance, which pays their next invoices. The comment is shown in Stripe's
 * Dashboard. The idempotency key makes a repeated webhook get Stripe's first answer; a
 * subscription already canceled (Stripe answers 404 for it) is read back instead.
 */
export function cancelDuplicateSubscription(cfg: StripeConfig, id: string, comment: string): Promise<StripeSubscription> {
  return call(cfg, "subscriptions.cancel", async () => {
    try {
      return await request<StripeSubscription>(
        cfg,
        "DELETE",
        `/v1/subscriptions/${seg(id)}`,
        { prorate: true, invoice_now: true, cancellation_details: { comment } },
        `lore-duplicate-cancel-${id}`,
      );
    } catch (err) {
      if (!isInvalidRequest(err)) throw err;
      const now = await getSubscription(cfg, id);
      if (now.status !== "canceled" && now.status !== "incomplete_expired") throw err;
      return now;
    }
  });
}

export type PortalFlow = { type: "switch"; subscriptionId: string; itemId: string; plan: PaidPlan } | { type: "payment_method" };

/** A Customer Portal session: cards, invoices, cancelling; with a flow, a deep link to one task. */
export function createPortalSession(cfg: StripeConfig, customerId: string, returnUrl: string, flow?: PortalFlow): Promise<string> {
  return call(cfg, "billingPortal.sessions.create", async () => {
    const params: Params = { customer: customerId, return_url: returnUrl };
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
    return (await request<{ url: string }>(cfg, "POST", "/v1/billing_portal/sessions", params)).url;
  });
}

export function retrieveSubscription(cfg: StripeConfig, id: string): Promise<StripeSubscription> {
  return call(cfg, "subscriptions.retrieve", () => getSubscription(cfg, id));
}

/** Sets or clears cancel-at-period-end; Stripe's answer is the subscription as it now stands. */
export function setCancelAtPeriodEnd(cfg: StripeConfig, id: string, cancel: boolean): Promise<StripeSubscription> {
  return call(cfg, "subscriptions.update", () =>
    request<StripeSubscription>(cfg, "POST", `/v1/subscriptions/${seg(id)}`, { cancel_at_period_end: cancel }),
  );
}

/**
 * Verifies a webhook's `Stripe-Signature` over the raw body (Web Crypto, stripe.signature.ts) and
 * returns the event. A missing, malformed or wrong signature, or one older than
 * WEBHOOK_TOLERANCE_S at `receivedAtMs` (Lore's clock), is a 400; so is a signed body that is not
 * an event.
 */
export async function verifyWebhook(
  cfg: StripeConfig,
  rawBody: Uint8Array,
  signature: string | null,
  receivedAtMs: number,
): Promise<StripeEvent> {
  const refuse = (why: string) =>
    new ApiError("VALIDATION_FAILED", `Stripe webhook refused: ${why}`, {
      issues: [{ path: "header.stripe-signature", message: why }],
    });
  try {
    await verifySignature(rawBody, signature, cfg.webhookSecret, WEBHOOK_TOLERANCE_S, receivedAtMs);
  } catch (err) {
    if (err instanceof SignatureError) throw refuse(redact(err.message, cfg));
    throw err;
  }
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(rawBody));
  } catch {
    throw refuse("the body is not a Stripe event");
  }
  const e = event as Partial<StripeEvent> | null;
  if (
    !e ||
    typeof e !== "object" ||
    typeof e.id !== "string" ||
    typeof e.type !== "string" ||
    typeof e.created !== "number" ||
    typeof e.data?.object !== "object" ||
    e.data.object === null
  ) {
    throw refuse("the body is not a Stripe event");
  }
  return e as StripeEvent;
}
