import { Hono } from "hono";
import { eq } from "drizzle-orm";
import type { AppEnv } from "../core/context";
import { ApiError } from "../core/errors";
import { readBodyLimited } from "../core/body";
import { now } from "../core/clock";
import { makeDb, type Db } from "../db/client";
import type { Env } from "../env";
import { stripeEvents } from "../db/billing";
import { billingConfig, requireBillingConfig, type StripeConfig } from "./billing.config";
import { retrieveSubscription, verifyWebhook } from "./stripe.client";
import type { StripeCheckoutSession, StripeEvent, StripeInvoice, StripeSubscription } from "./stripe.types";
import { applyStripeSubscription, clearCheckoutSession, mirrorByCustomer, recordEvent, type EventRef, type Outcome } from "./stripe.sync";

export const STRIPE_WEBHOOK_PATH = "/billing/webhooks/stripe";
/** Stripe's event payloads are far smaller; anything larger is not one. */
const MAX_WEBHOOK_BYTES = 1024 * 1024;

/** The event types Lore acts on (register exactly these for the endpoint, README "Payments with Stripe"). */
export const HANDLED_EVENTS = [
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "customer.subscription.paused",
  "customer.subscription.resumed",
  "invoice.paid",
  "invoice.payment_failed",
] as const;

export type WebhookResult = { outcome: Outcome["outcome"] | "duplicate"; reason?: string };

const seen = async (db: Db, id: string) =>
  (await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, id)).get()) !== undefined;

const idOf = (x: string | { id: string } | null | undefined) => (typeof x === "string" ? x : (x?.id ?? null));

/** The subscription an invoice bills (API 2025-03-31 and later: `parent.subscription_details`). */
function invoiceSubscription(inv: StripeInvoice): string | null {
  const legacy = (inv as unknown as { subscription?: string | { id: string } | null }).subscription;
  return idOf(inv.parent?.subscription_details?.subscription) ?? idOf(legacy);
}

async function ignore(db: Db, ref: EventRef, reason: string, ownerId?: string): Promise<Outcome> {
  const o: Outcome = { outcome: "ignored", reason, ...(ownerId ? { ownerId } : {}) };
  await recordEvent(db, ref, o);
  return o;
}

/**
 * Acts on one verified event, once. Subscription events carry the subscription itself; checkout
 * and invoice events name it, so Lore fetches it (its state now is at least as new as the event)
 * unless the mirror already holds a newer state of it. Plans come only from the subscription's own
 * price ids; nothing in the event that a client could have chosen (metadata, amounts) sets a plan.
 */
export async function handleStripeEvent(env: Env, cfg: StripeConfig, event: StripeEvent): Promise<WebhookResult> {
  const db = makeDb(env.DB);
  if (await seen(db, event.id)) return { outcome: "duplicate" };
  const ref: EventRef = { id: event.id, type: event.type, created: event.created };
  try {
    const { outcome, reason } = await dispatch(env, db, cfg, event, ref);
    return reason ? { outcome, reason } : { outcome };
  } catch (err) {
    // Two deliveries of one event at once: the loser's batch fails on the event's primary key.
    if (await seen(db, event.id)) return { outcome: "duplicate" };
    throw err;
  }
}

async function dispatch(env: Env, db: Db, cfg: StripeConfig, event: StripeEvent, ref: EventRef): Promise<Outcome> {
  switch (event.type) {
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
    case "customer.subscription.paused":
    case "customer.subscription.resumed":
      return applyStripeSubscription(env, cfg, event.data.object as StripeSubscription, event.created, ref);

    case "checkout.session.completed": {
      const session = event.data.object as StripeCheckoutSession;
      const subId = idOf(session.subscription);
      if (session.mode !== "subscription" || !subId) return ignore(db, ref, "not a subscription checkout");
      const customerId = idOf(session.customer);
      const mirror = customerId ? await mirrorByCustomer(db, customerId) : undefined;
      // The session names the owner twice (our customer, and client_reference_id): both must agree.
      if (!mirror || mirror.ownerId !== session.client_reference_id) {
        console.warn(JSON.stringify({ level: "warn", what: "stripe checkout for an unknown owner", event: event.id, session: session.id }));
        return ignore(db, ref, "the customer and client_reference_id do not name one Lore owner");
      }
      // Paid: the owner's open session is no longer one to hand out again.
      await clearCheckoutSession(db, mirror.ownerId, session.id);
      if (mirror.subscriptionId === subId && mirror.eventAt > event.created) {
        return recordStale(db, ref, mirror.ownerId);
      }
      return applyStripeSubscription(env, cfg, await retrieveSubscription(cfg, subId), event.created, ref);
    }

    case "invoice.paid":
    case "invoice.payment_failed": {
      const invoice = event.data.object as StripeInvoice;
      const subId = invoiceSubscription(invoice);
      if (!subId) return ignore(db, ref, "not a subscription invoice");
      const customerId = idOf(invoice.customer);
      const mirror = customerId ? await mirrorByCustomer(db, customerId) : undefined;
      if (!mirror) return ignore(db, ref, "the customer is not one of Lore's");
      if (mirror.subscriptionId === subId && mirror.eventAt > event.created) return recordStale(db, ref, mirror.ownerId);
      return applyStripeSubscription(env, cfg, await retrieveSubscription(cfg, subId), event.created, ref);
    }

    default:
      return ignore(db, ref, "event type not handled");
  }
}

async function recordStale(db: Db, ref: EventRef, ownerId: string): Promise<Outcome> {
  const o: Outcome = { outcome: "stale", reason: "older than the state already applied", ownerId };
  await recordEvent(db, ref, o);
  return o;
}

/**
 * `POST /v1/billing/webhooks/stripe`: Stripe's signed events. It takes no session or key and
 * trusts nothing but the signature over the raw body. It exists only where Stripe is configured
 * (elsewhere a plain 404). Answers 200 once the event is stored (applied, stale, ignored,
 * canceled_duplicate or a duplicate), 400 for a bad or old signature, and 500 when the event could not be handled, so that
 * Stripe delivers it again.
 */
export const stripeWebhookRoute = new Hono<AppEnv>();

stripeWebhookRoute.all(STRIPE_WEBHOOK_PATH, async (c) => {
  const cfg = billingConfig(c.env);
  if (cfg.provider === "local" || cfg.provider === "none" || (cfg.provider === "misconfigured" && !c.env.STRIPE_WEBHOOK_SECRET)) {
    throw new ApiError("NOT_FOUND", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
  }
  if (c.req.method !== "POST") {
    throw new ApiError(
      "METHOD_NOT_ALLOWED",
      `${new URL(c.req.url).pathname} does not accept ${c.req.method}; use POST`,
      { allow: ["POST"] },
      { allow: "POST" },
    );
  }
  const stripe = requireBillingConfig(c.env) as StripeConfig;
  const body = await readBodyLimited(c.req.raw, MAX_WEBHOOK_BYTES, "Webhook body");
  const event = await verifyWebhook(stripe, body, c.req.header("stripe-signature") ?? null, now());
  const result = await handleStripeEvent(c.env, stripe, event);
  console.log(JSON.stringify({ level: "info", what: "stripe webhook", event: event.id, type: event.type, ...result }));
  return c.json({ received: true, id: event.id, type: event.type, ...result });
});
