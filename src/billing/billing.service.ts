import { and, eq, isNull, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { makeDb, type Db } from "../db/client";
import type { Env } from "../env";
import { owners } from "../db/identity";
import { addMonths, iso, now } from "../core/clock";
import { badRequest, conflict, notFound } from "../core/errors";
import { GRACE_MS, PLANS, effectivePlan, type PlanId } from "../quota";
import { billingProvider, type ChargeRequest } from "./billing.provider";
import { refreshAccount } from "../quota";

export const BILLING_STATUSES = ["ACTIVE", "CANCELED", "GRACE", "NONE"] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

/**
 * The stored subscription (owners.plan, plan_status, plan_period_end). Stored status values:
 * NONE (free), ACTIVE (renews at period end), CANCELED (runs to period end, then lapses),
 * PAST_DUE (a renewal charge was declined: it lapses like CANCELED).
 */
export interface Subscription {
  plan: string;
  status: string;
  periodEnd: number | null;
  /** Start of the first period; null on free accounts (and on rows from before anchors existed). */
  anchor: number | null;
}

/** Which provider is active and what a page can do with it (GET /v1/billing, README "Billing"). */
export interface ProviderView {
  /** `none`: billing is not set up on this server, paid plans are refused. */
  name: "local" | "stripe" | "none";
  /** POST /v1/billing/subscribe answers with a URL to send the browser to (Stripe Checkout, or the portal to switch plans). */
  checkout: boolean;
  /** POST /v1/billing/portal answers with a Stripe Customer Portal URL (cards, invoices, cancelling). */
  portal: boolean;
  /** subscribe changes the plan at once, without leaving the page. */
  directSwitch: boolean;
}

export const LOCAL_PROVIDER: ProviderView = { name: "local", checkout: false, portal: false, directSwitch: true };
export const NO_PROVIDER: ProviderView = { name: "none", checkout: false, portal: false, directSwitch: false };

/** Something Lore did to the owner's billing without being asked (GET /v1/billing `notices`). */
export interface BillingNotice {
  kind: "duplicate_subscription_canceled";
  /** When it happened (ISO 8601). */
  at: string;
  message: string;
  /** The Stripe subscription it is about (the canceled duplicate). */
  subscriptionId: string | null;
  /** The Stripe subscription the plan follows (kept). */
  keptSubscriptionId: string | null;
  /** The canceled duplicate's plan. */
  plan: PlanId | null;
}

export interface BillingView {
  plan: PlanId;
  subscribedPlan: PlanId | null;
  status: BillingStatus;
  periodEnd: string | null;
  graceEndsAt: string | null;
  provider: ProviderView;
  /** GET /v1/billing only, and only when there is something to tell: newest first. */
  notices?: BillingNotice[];
}

async function load(db: Db, ownerId: string): Promise<Subscription> {
  const row = await db
    .select({ plan: owners.plan, status: owners.planStatus, periodEnd: owners.planPeriodEnd, anchor: owners.planAnchor })
    .from(owners)
    .where(eq(owners.id, ownerId))
    .get();
  if (!row) throw notFound("Account");
  return row;
}

/** Matches the row only if nobody changed the subscription since `sub` was read (D1 has no transactions). */
const unchanged = (ownerId: string, sub: Subscription) =>
  and(
    eq(owners.id, ownerId),
    eq(owners.plan, sub.plan),
    eq(owners.planStatus, sub.status),
    sub.periodEnd === null ? isNull(owners.planPeriodEnd) : eq(owners.planPeriodEnd, sub.periodEnd),
  );

export interface ApplyOptions {
  /** Compare-and-set: change the row only if it still holds this state. */
  expect?: Subscription;
  /** A further condition the write needs (the Stripe mirror's apply token). */
  guard?: SQL;
  /** Statements run in the same atomic batch, before and after the owner's row. */
  before?: BatchItem<"sqlite">[];
  after?: BatchItem<"sqlite">[];
}

/**
 * Every change of an owner's plan goes through here: the local provider's subscribe, cancel,
 * renewals and lapses, and Stripe's webhooks and API answers. The owner's row in D1 is the record;
 * the account's AccountQuota object holds the copy agents are admitted under, so a change that
 * applied tells the object before it returns, and the very next request is admitted under the new
 * limits. Returns whether the owner's row changed, and the results of the companion statements,
 * which commit or fail together with it (one D1 batch).
 */
export async function applySubscriptionState(
  env: Env,
  ownerId: string,
  to: Subscription,
  opts: ApplyOptions = {},
): Promise<{ applied: boolean; results: unknown[] }> {
  const db = makeDb(env.DB);
  const where = and(opts.expect ? unchanged(ownerId, opts.expect) : eq(owners.id, ownerId), opts.guard);
  const update = db
    .update(owners)
    .set({ plan: to.plan, planStatus: to.status, planPeriodEnd: to.periodEnd, planAnchor: to.anchor })
    .where(where)
    .returning({ id: owners.id });
  const before = opts.before ?? [];
  const items = [...before, update, ...(opts.after ?? [])] as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
  const results = (await db.batch(items)) as unknown[];
  const own = results[before.length] as { id: string }[];
  if (own.length > 0) await refreshAccount(env, ownerId);
  return { applied: own.length > 0, results };
}

async function write(env: Env, ownerId: string, from: Subscription, to: Subscription): Promise<boolean> {
  return (await applySubscriptionState(env, ownerId, to, { expect: from })).applied;
}

/**
 * Charges for a period already written (writing first is what makes the winner of a race the only
 * one that charges). A provider that throws (network, timeout) took no money as far as we know:
 * the write is undone so that no period is granted unpaid, and a later request tries again.
 */
async function chargeOrUndo(env: Env, ownerId: string, written: Subscription, before: Subscription, req: ChargeRequest) {
  try {
    return await billingProvider().charge(req);
  } catch (err) {
    await write(env, ownerId, written, before);
    throw err;
  }
}

const isPaid = (sub: Subscription) => sub.plan !== "FREE" && sub.plan in PLANS;

/**
 * Brings the stored subscription up to `at`, lazily (there is no billing cron): with `renew` (the
 * local provider) an ACTIVE paid plan whose period ended is renewed for as many months as passed
 * (the provider charges), so ACTIVE plans never lapse; a CANCELED or PAST_DUE plan past its grace
 * is retired to FREE. Under Stripe (`renew: false`) Stripe renews and says so by webhook; until it
 * does, an ended period runs out through its grace like any other. Safe to call concurrently:
 * every write is conditional on the row being unchanged, and the one writer that wins is the one
 * that charges.
 */
export async function settle(env: Env, ownerId: string, at: number, opts: { renew: boolean; sub?: Subscription }): Promise<Subscription> {
  const db = makeDb(env.DB);
  let cur = opts.sub ?? (await load(db, ownerId));
  for (let attempt = 0; attempt < 3; attempt++) {
    if (!isPaid(cur) || cur.periodEnd === null || at < cur.periodEnd) return cur;
    let next: Subscription;
    if (cur.status === "ACTIVE" && opts.renew) {
      // Period ends are counted from the anchor, not chained from the last end, so a clamped
      // short month (Feb 28) does not pull every later renewal to the 28th.
      const anchor = cur.anchor ?? cur.periodEnd;
      let current = 0;
      while (addMonths(anchor, current) < cur.periodEnd) current++;
      let k = current;
      while (addMonths(anchor, k) <= at) k++;
      const end = addMonths(anchor, k);
      const periods = k - current;
      next = { ...cur, periodEnd: end, anchor };
      if (await write(env, ownerId, cur, next)) {
        const plan = cur.plan as PlanId;
        const charged = await chargeOrUndo(env, ownerId, next, cur, {
          ownerId,
          plan,
          amountUsd: PLANS[plan].priceUsdPerMonth * periods,
          periodStart: cur.periodEnd,
          periodEnd: end,
          reason: "renew",
        });
        if (charged.ok) return next;
        // Declined: the old period stands and the plan runs out through its grace.
        const pastDue = { ...cur, status: "PAST_DUE" };
        if (await write(env, ownerId, next, pastDue)) return pastDue;
      }
    } else if (at >= cur.periodEnd + GRACE_MS) {
      next = { plan: "FREE", status: "NONE", periodEnd: null, anchor: null };
      if (await write(env, ownerId, cur, next)) return next;
    } else {
      return cur; // in grace: nothing to store
    }
    cur = await load(db, ownerId);
  }
  return cur;
}

export function statusOf(sub: Subscription, at: number): BillingStatus {
  if (effectivePlan(sub.plan, sub.periodEnd, at) === "FREE") return "NONE";
  if (sub.periodEnd !== null && at >= sub.periodEnd) return "GRACE";
  return sub.status === "CANCELED" ? "CANCELED" : "ACTIVE";
}

export function view(sub: Subscription, at: number, provider: ProviderView = LOCAL_PROVIDER): BillingView {
  const status = statusOf(sub, at);
  const paid = status !== "NONE";
  return {
    plan: effectivePlan(sub.plan, sub.periodEnd, at),
    subscribedPlan: paid ? (sub.plan as PlanId) : null,
    status,
    periodEnd: paid ? iso(sub.periodEnd) : null,
    graceEndsAt: paid && sub.periodEnd !== null ? iso(sub.periodEnd + GRACE_MS) : null,
    provider,
  };
}

/** The stored subscription, settled (renewed only by the local provider; `none` renews nothing), as the page shows it. */
export async function getBilling(env: Env, ownerId: string, provider: ProviderView = LOCAL_PROVIDER): Promise<BillingView> {
  const at = now();
  return view(await settle(env, ownerId, at, { renew: provider.name === "local" }), at, provider);
}

/**
 * Subscribes to a paid plan, active at once for one calendar month. The same plan while ACTIVE is
 * a 409; the same plan while CANCELED (before its period ends) resumes it without a charge; any
 * other change (another plan, or out of a grace period) starts a new month from now at full
 * price (no proration).
 */
export async function subscribe(env: Env, ownerId: string, plan: PlanId): Promise<BillingView> {
  if (plan === "FREE") {
    throw badRequest("FREE is not a subscription: to leave a paid plan use POST /v1/billing/cancel", ["body", "plan"]);
  }
  const at = now();
  const cur = await settle(env, ownerId, at, { renew: true });
  const status = statusOf(cur, at);
  if (cur.plan === plan && status === "ACTIVE") {
    throw conflict(`Already subscribed to ${plan}; it renews on ${iso(cur.periodEnd)}`, { plan, periodEnd: iso(cur.periodEnd) });
  }
  if (cur.plan === plan && status === "CANCELED") {
    const resumed = { ...cur, status: "ACTIVE" };
    if (!(await write(env, ownerId, cur, resumed))) throw concurrentChange();
    return view(resumed, at);
  }
  const next: Subscription = { plan, status: "ACTIVE", periodEnd: addMonths(at, 1), anchor: at };
  if (!(await write(env, ownerId, cur, next))) throw concurrentChange();
  const charged = await chargeOrUndo(env, ownerId, next, cur, {
    ownerId,
    plan,
    amountUsd: PLANS[plan].priceUsdPerMonth,
    periodStart: at,
    periodEnd: next.periodEnd!,
    reason: "subscribe",
  });
  if (!charged.ok) {
    await write(env, ownerId, next, cur);
    throw conflict(`The payment was declined: ${charged.reason}`);
  }
  return view(next, at);
}

/** Stops renewal: the paid plan holds until its period ends (then 3 days of grace), then FREE. */
export async function cancel(env: Env, ownerId: string): Promise<BillingView> {
  const at = now();
  const cur = await settle(env, ownerId, at, { renew: true });
  const status = statusOf(cur, at);
  if (status === "NONE") throw conflict("There is no paid subscription to cancel");
  if (cur.status !== "ACTIVE") return view(cur, at); // already canceled or past due: nothing renews
  const canceled = { ...cur, status: "CANCELED", periodEnd: cur.periodEnd ?? at };
  if (!(await write(env, ownerId, cur, canceled))) throw concurrentChange();
  return view(canceled, at);
}

const concurrentChange = () => conflict("The subscription was changed by another request at the same time; read it and retry");
