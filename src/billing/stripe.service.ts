import type { StripeSubscription } from "./stripe.types";
import { and, desc, eq, gte, sql } from "drizzle-orm";
import { makeDb, type Db } from "../db/client";
import type { Env } from "../env";
import { owners } from "../db/identity";
import { billingNotices, stripeCustomers } from "../db/billing";
import { iso, now } from "../core/clock";
import { conflict, notFound } from "../core/errors";
import { settle, statusOf, view, type BillingNotice, type BillingView, type ProviderView, type Subscription } from "./billing.service";
import type { PlanId } from "../quota";
import { planForPrice, type PaidPlan, type StripeConfig } from "./billing.config";
import {
  createCheckoutSession,
  createPortalSession,
  expireCheckoutSession,
  listSubscriptions,
  retrieveCheckoutSession,
  setCancelAtPeriodEnd,
  type CheckoutSession,
} from "./stripe.client";
import {
  applyStripeSubscription,
  clearCheckoutSession,
  ensureCustomer,
  LIVE_STATUSES,
  mirrorByOwner,
  planItem,
  UNPAID_STATUSES,
  type Mirror,
} from "./stripe.sync";

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

/** Notices are shown for this long (the table keeps them). */
export const NOTICE_WINDOW_MS = 90 * 86_400_000;
const MAX_NOTICES = 10;

export async function getStripeBilling(env: Env, ownerId: string): Promise<BillingView> {
  const db = makeDb(env.DB);
  const at = now();
  const [[row], [mirror], notices] = await db.batch([
    db
      .select({ plan: owners.plan, status: owners.planStatus, periodEnd: owners.planPeriodEnd, anchor: owners.planAnchor })
      .from(owners)
      .where(eq(owners.id, ownerId)),
    db.select().from(stripeCustomers).where(eq(stripeCustomers.ownerId, ownerId)),
    db
      .select()
      .from(billingNotices)
      .where(and(eq(billingNotices.ownerId, ownerId), gte(billingNotices.createdAt, at - NOTICE_WINDOW_MS)))
      .orderBy(desc(billingNotices.createdAt), desc(billingNotices.id))
      .limit(MAX_NOTICES),
  ]);
  if (!row) throw notFound("Account");
  const out = view(await settle(env, ownerId, at, { renew: false, sub: row }), at, providerView(mirror));
  if (notices.length === 0) return out;
  return {
    ...out,
    notices: notices.map((n) => ({
      kind: n.kind as BillingNotice["kind"],
      at: iso(n.createdAt)!,
      message: n.message,
      subscriptionId: n.subscriptionId,
      keptSubscriptionId: n.keptSubscriptionId,
      plan: (n.plan as PlanId | null) ?? null,
    })),
  };
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

/** How long a Checkout Session stays open (Stripe allows 30 minutes to 24 hours). */
export const CHECKOUT_TTL_MS = 60 * 60_000;
/**
 * Its end is rounded up to the next 10 minutes, so that two requests a moment apart send Stripe
 * the very same parameters under the same idempotency key and get the very same session.
 */
const CHECKOUT_ROUND_MS = 10 * 60_000;
/** An open session with less time left than this is not handed out again: it is expired and replaced. */
export const CHECKOUT_REUSE_MIN_MS = 15 * 60_000;
/**
 * A stored session is expired at Stripe (not only forgotten) until this long after its
 * `expires_at`, in case Stripe's clock or its expiry job runs behind Lore's.
 */
const EXPIRY_SLACK_MS = 10 * 60_000;

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * The idempotency key of a new Checkout Session: the owner, the plan and the open-session
 * generation (the compare-and-set below moves it on every session stored, so a key is never
 * reused for a later session), plus a digest of the other parameters: requests that differ in
 * them (another return page, or either side of a 10-minute boundary) would be refused by Stripe
 * under one key, so they get their own session, and the compare-and-set keeps one.
 */
async function checkoutKey(ownerId: string, plan: PaidPlan, generation: number, params: unknown): Promise<string> {
  const digest = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(params)))).slice(0, 16);
  return `lore-checkout-${ownerId}-${plan}-g${generation}-${digest}`;
}

/** Stores a new open session if nobody stored one since `generation` was read (compare-and-set). */
async function storeCheckoutSession(
  db: Db,
  ownerId: string,
  generation: number,
  plan: PaidPlan,
  session: CheckoutSession,
): Promise<boolean> {
  const won = await db
    .update(stripeCustomers)
    .set({
      checkoutSessionId: session.id,
      checkoutPlan: plan,
      checkoutExpiresAt: session.expiresAt,
      checkoutGeneration: sql`${stripeCustomers.checkoutGeneration} + 1`,
      updatedAt: now(),
    })
    .where(and(eq(stripeCustomers.ownerId, ownerId), eq(stripeCustomers.checkoutGeneration, generation)))
    .returning({ ownerId: stripeCustomers.ownerId });
  return won.length > 0;
}

const checkoutRedirect = (url: string): Redirect => ({ kind: "checkout", url });

/**
 * The live subscriptions carrying a Lore price that Stripe has for the customer, oldest first.
 * The mirror learns of a subscription only by webhook, seconds (or, when deliveries fail, hours)
 * after it is paid; Stripe's list is the truth before a Checkout is opened.
 */
async function liveAtStripe(cfg: StripeConfig, customerId: string): Promise<StripeSubscription[]> {
  const subs = await listSubscriptions(cfg, customerId);
  return subs
    .filter((s) => LIVE_STATUSES.has(s.status) && planItem(cfg, s) !== null)
    .sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
}

/**
 * Without a live subscription: Stripe Checkout, with at most one open session per owner.
 * - An open session for the same plan (stored with its expiry) is handed out again while Stripe
 *   says it is open and has 15 minutes left; one for another plan, or about to expire, is expired
 *   at Stripe first, so it can no longer be paid. A completed or expired one is never reused.
 * - Before a session is created, Stripe is asked for the customer's live subscriptions: one the
 *   webhooks have not brought yet is applied to the mirror, and the owner is answered as for an
 *   existing subscription (no second Checkout).
 * - The session is created under an idempotency key of the owner, plan and open-session
 *   generation, and stored by a compare-and-set on that generation: of two requests racing, one
 *   stores its session; the other hands out the same session (same key, same parameters: Stripe
 *   answered both with it), or expires its own unused one and starts over.
 * With a live subscription on another plan: a portal link that confirms the switch (Stripe
 * prorates as the portal is configured). On the same plan: 409 if it renews, resumed at once if it
 * was set to cancel. Unpaid: the portal's card update.
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
  let { sub, mirror } = await read(db, owner.ownerId);
  let cur = await settle(env, owner.ownerId, at, { renew: false, sub });
  let live = liveSubscription(mirror);

  if (!live) {
    const created = !mirror;
    let m = mirror ?? (await ensureCustomer(db, cfg, owner));
    const answer = (url: string) => ({ ...view(cur, at, providerView(m)), redirect: checkoutRedirect(url) });
    for (let attempt = 0; attempt < 3; attempt++) {
      // 1. The open session: handed out again, or expired before another is made.
      if (m.checkoutSessionId) {
        const id = m.checkoutSessionId;
        const fresh = (m.checkoutExpiresAt ?? 0) - at >= CHECKOUT_REUSE_MIN_MS;
        if (m.checkoutPlan === plan && fresh) {
          const s = await retrieveCheckoutSession(cfg, id);
          if (s.status === "open" && s.url && s.expiresAt - at >= CHECKOUT_REUSE_MIN_MS) return answer(s.url);
          // Completed (paid: step 2 finds its subscription) or expired: not reused.
          if (s.status === "open") await expireCheckoutSession(cfg, id);
        } else if ((m.checkoutExpiresAt ?? 0) + EXPIRY_SLACK_MS > at) {
          await expireCheckoutSession(cfg, id);
        }
        await clearCheckoutSession(db, owner.ownerId, id);
      }
      // 2. A live subscription Stripe has and the mirror does not (yet): no second Checkout.
      if (!created) {
        const found = await liveAtStripe(cfg, m.customerId);
        if (found.length > 0) {
          // Oldest first: the one kept if there are two (the others are canceled as duplicates).
          for (const s of found) await applyStripeSubscription(env, cfg, s, null);
          ({ sub, mirror } = await read(db, owner.ownerId));
          cur = await settle(env, owner.ownerId, at, { renew: false, sub });
          live = liveSubscription(mirror);
          if (!live) throw conflict("Stripe shows a subscription for this account that is still being set up; try again in a minute");
          break;
        }
      }
      // 3. A new session, stored by compare-and-set on the generation read.
      const generation = m.checkoutGeneration;
      const params = {
        successUrl: withQuery(urls.returnUrl, "checkout", "success"),
        cancelUrl: withQuery(urls.returnUrl, "checkout", "canceled"),
        expiresAt: Math.ceil((at + CHECKOUT_TTL_MS) / CHECKOUT_ROUND_MS) * (CHECKOUT_ROUND_MS / 1000),
      };
      const session = await createCheckoutSession(cfg, {
        ownerId: owner.ownerId,
        customerId: m.customerId,
        plan,
        ...params,
        idempotencyKey: await checkoutKey(owner.ownerId, plan, generation, params),
      });
      if (await storeCheckoutSession(db, owner.ownerId, generation, plan, session)) return answer(session.url);
      // Another request stored a session first. The same one (Stripe answered both requests with
      // it): hand it out. Another one: ours was never handed out; expire it and start over.
      m = (await mirrorByOwner(db, owner.ownerId))!;
      if (m.checkoutSessionId === session.id) return answer(session.url);
      await expireCheckoutSession(cfg, session.id);
    }
    if (!live) throw conflict("Another request for this account is changing its checkout at the same time; try again");
  }

  const pv = providerView(mirror);
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
