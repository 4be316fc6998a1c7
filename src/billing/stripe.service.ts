import { eq } from "drizzle-orm";
import { makeDb, type Db } from "../db/client";
import type { Env } from "../env";
import { owners } from "../db/identity";
import { stripeCustomers } from "../db/billing";
import { iso, now } from "../core/clock";
import { conflict, notFound } from "../core/errors";
import { settle, statusOf, view, type BillingView, type ProviderView, type Subscription } from "./billing.service";
import { planForPrice, type PaidPlan, type StripeConfig } from "./billing.config";
import { createCheckoutSession, createPortalSession, setCancelAtPeriodEnd } from "./stripe.client";
import { applyStripeSubscription, ensureCustomer, LIVE_STATUSES, UNPAID_STATUSES, type Mirror } from "./stripe.sync";

/**
 * Billing under Stripe. The owner's plan changes only when Stripe says so: by a signed webhook, or
 * by Stripe's own answer to a change Lore asked for (cancel, resume). Subscribing sends the owner
 * to Stripe Checkout; switching plans, cards and invoices go through the Customer Portal.
 */

export type Redirect = { kind: "checkout" | "portal"; url: string } | null;

const providerView = (mirror: Mirror | undefined): ProviderView => ({
  name: "stripe",
  checkout: true,
  portal: mirror !== undefined,
  directSwitch: false,
});

/** The owner's stored subscription and Stripe mirror, in one round trip. */
async function read(db: Db, ownerId: string): Promise<{ sub: Subscription; mirror: Mirror | undefined }> {
  const [[row], [mirror]] = await db.batch([
    db
      .select({ plan: owners.plan, status: owners.planStatus, periodEnd: owners.planPeriodEnd, anchor: owners.planAnchor })
      .from(owners)
      .where(eq(owners.id, ownerId)),
    db.select().from(stripeCustomers).where(eq(stripeCustomers.ownerId, ownerId)),
  ]);
  if (!row) throw notFound("Account");
  return { sub: row, mirror };
}

const liveSubscription = (m: Mirror | undefined): (Mirror & { subscriptionId: string }) | null =>
  m?.subscriptionId && LIVE_STATUSES.has(m.status ?? "") ? (m as Mirror & { subscriptionId: string }) : null;

export async function getStripeBilling(env: Env, ownerId: string): Promise<BillingView> {
  const at = now();
  const { sub, mirror } = await read(makeDb(env.DB), ownerId);
  return view(await settle(env, ownerId, at, { renew: false, sub }), at, providerView(mirror));
}

export interface ReturnUrls {
  /** Absolute URL on this origin the owner comes back to. */
  returnUrl: string;
}

const withQuery = (url: string, key: string, value: string) => {
  const u = new URL(url);
  u.searchParams.set(key, value);
  return u.toString();
};

/**
 * Without a live subscription: a Checkout Session for the plan's price (the owner's customer,
 * created once; the owner id as `client_reference_id`). With one on another plan: a portal link
 * that confirms the switch (Stripe prorates as the portal is configured). On the same plan: 409 if
 * it renews, resumed at once if it was set to cancel. Unpaid: the portal's card update.
 */
export async function stripeSubscribe(
  env: Env,
  cfg: StripeConfig,
  owner: { ownerId: string; email: string },
  plan: PaidPlan,
  urls: ReturnUrls,
): Promise<BillingView & { redirect: Redirect }> {
  const at = now();
  const db = makeDb(env.DB);
  const { sub, mirror } = await read(db, owner.ownerId);
  const cur = await settle(env, owner.ownerId, at, { renew: false, sub });
  const live = liveSubscription(mirror);

  if (!live) {
    const customer = mirror ?? (await ensureCustomer(db, cfg, owner));
    const session = await createCheckoutSession(cfg, {
      ownerId: owner.ownerId,
      customerId: customer.customerId,
      plan,
      successUrl: withQuery(urls.returnUrl, "checkout", "success"),
      cancelUrl: withQuery(urls.returnUrl, "checkout", "canceled"),
    });
    return { ...view(cur, at, providerView(customer)), redirect: { kind: "checkout", url: session.url } };
  }

  const pv = providerView(live);
  if (UNPAID_STATUSES.has(live.status ?? "")) {
    const url = await createPortalSession(cfg, live.customerId, urls.returnUrl, { type: "payment_method" });
    return { ...view(cur, at, pv), redirect: { kind: "portal", url } };
  }
  if (planForPrice(cfg, live.priceId) === plan) {
    if (!live.cancelAtPeriodEnd) {
      throw conflict(`Already subscribed to ${plan}; it renews on ${iso(live.periodEnd)}`, { plan, periodEnd: iso(live.periodEnd) });
    }
    // Set to cancel: resuming is one API call, and Stripe's answer is the new state.
    await applyStripeSubscription(env, cfg, await setCancelAtPeriodEnd(cfg, live.subscriptionId, false), null);
    const after = await read(db, owner.ownerId);
    return { ...view(after.sub, at, providerView(after.mirror)), redirect: null };
  }
  if (!live.itemId) throw conflict("The subscription is still being set up by Stripe; try again in a minute");
  const url = await createPortalSession(cfg, live.customerId, urls.returnUrl, {
    type: "switch",
    subscriptionId: live.subscriptionId,
    itemId: live.itemId,
    plan,
  });
  return { ...view(cur, at, pv), redirect: { kind: "portal", url } };
}

/** Cancel at period end through Stripe's API; the plan holds to the period end, then the grace. */
export async function stripeCancel(env: Env, cfg: StripeConfig, ownerId: string): Promise<BillingView> {
  const at = now();
  const db = makeDb(env.DB);
  const { sub, mirror } = await read(db, ownerId);
  const cur = await settle(env, ownerId, at, { renew: false, sub });
  if (statusOf(cur, at) === "NONE") throw conflict("There is no paid subscription to cancel");
  const live = liveSubscription(mirror);
  // Already set to cancel, or nothing renews (ended, or a plan from before Stripe): a no-op.
  if (!live || live.cancelAtPeriodEnd) return view(cur, at, providerView(mirror));
  await applyStripeSubscription(env, cfg, await setCancelAtPeriodEnd(cfg, live.subscriptionId, true), null);
  const after = await read(db, ownerId);
  return view(after.sub, at, providerView(after.mirror));
}

/** A Customer Portal session for the owner's Stripe customer (cards, invoices, cancelling). */
export async function stripePortal(db: Db, cfg: StripeConfig, ownerId: string, urls: ReturnUrls): Promise<{ url: string }> {
  const { mirror } = await read(db, ownerId);
  if (!mirror) throw conflict("This account has no Stripe customer yet: subscribe first (POST /v1/billing/subscribe)");
  return { url: await createPortalSession(cfg, mirror.customerId, urls.returnUrl) };
}
