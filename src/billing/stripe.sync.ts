import type { StripeSubscription } from "./stripe.types";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { makeDb, type Db } from "../db/client";
import type { Env } from "../env";
import { billingNotices, stripeCustomers, stripeEvents } from "../db/billing";
import { now } from "../core/clock";
import { applySubscriptionState, type Subscription } from "./billing.service";
import { planForPrice, type PaidPlan, type StripeConfig } from "./billing.config";
import { cancelDuplicateSubscription, createCustomer, retrieveSubscription } from "./stripe.client";

/** The owner's Stripe customer and the mirror of the subscription their plan follows. */
export type Mirror = typeof stripeCustomers.$inferSelect;

/** Stripe statuses of a subscription that holds (or, unpaid, is still trying to hold) a plan. */
export const LIVE_STATUSES = new Set(["active", "trialing", "past_due", "unpaid", "paused"]);
/** Stripe statuses of a subscription whose latest payment failed: paid only up to its current period's start. */
export const UNPAID_STATUSES = new Set(["past_due", "unpaid", "paused"]);
/** Final statuses: Stripe never brings such a subscription back. */
const ENDED_STATUSES = new Set(["canceled", "incomplete_expired"]);

export const mirrorByOwner = (db: Db, ownerId: string) =>
  db.select().from(stripeCustomers).where(eq(stripeCustomers.ownerId, ownerId)).get();
export const mirrorByCustomer = (db: Db, customerId: string) =>
  db.select().from(stripeCustomers).where(eq(stripeCustomers.customerId, customerId)).get();

/**
 * The owner's Stripe customer, created once: the first call creates it in Stripe (with the owner
 * id in its metadata, under an idempotency key) and stores it; every later call reuses it.
 */
export async function ensureCustomer(db: Db, cfg: StripeConfig, owner: { ownerId: string; email: string }): Promise<Mirror> {
  const existing = await mirrorByOwner(db, owner.ownerId);
  if (existing) return existing;
  const customerId = await createCustomer(cfg, owner);
  const t = now();
  await db.insert(stripeCustomers).values({ ownerId: owner.ownerId, customerId, createdAt: t, updatedAt: t }).onConflictDoNothing();
  const row = await mirrorByOwner(db, owner.ownerId);
  if (!row) throw new Error("stripe customer row missing after insert");
  return row;
}

/**
 * Forgets the owner's stored open Checkout Session if it is still `sessionId` (it completed,
 * expired, or was expired by Lore). Conditional on the id, so it never clears a newer session.
 */
export const clearCheckoutSession = (db: Db, ownerId: string, sessionId: string) =>
  db
    .update(stripeCustomers)
    .set({ checkoutSessionId: null, checkoutPlan: null, checkoutExpiresAt: null, updatedAt: now() })
    .where(and(eq(stripeCustomers.ownerId, ownerId), eq(stripeCustomers.checkoutSessionId, sessionId)));

export interface PlanItem {
  plan: PaidPlan;
  itemId: string;
  priceId: string;
  /** ms since epoch */
  periodStart: number;
  periodEnd: number;
}

/** The subscription item that carries one of Lore's prices, with its current period. */
export function planItem(cfg: StripeConfig, sub: StripeSubscription): PlanItem | null {
  // Before API version 2025-03-31 the period sat on the subscription itself.
  const legacy = sub as unknown as { current_period_start?: number; current_period_end?: number };
  for (const item of sub.items?.data ?? []) {
    const plan = planForPrice(cfg, item.price?.id);
    const start = item.current_period_start ?? legacy.current_period_start;
    const end = item.current_period_end ?? legacy.current_period_end;
    if (plan && typeof start === "number" && typeof end === "number") {
      return { plan, itemId: item.id, priceId: item.price.id, periodStart: start * 1000, periodEnd: end * 1000 };
    }
  }
  return null;
}

const ms = (s: number | null | undefined) => (typeof s === "number" ? s * 1000 : null);

/**
 * The contract's subscription row, read from Stripe's subscription object. `periodEnd` is the end
 * of the last paid period: paid limits hold until it, then 3 more days of grace, then FREE.
 * - active or trialing: ACTIVE until the current period's end; set to cancel (at period end or at
 *   a date): CANCELED, ending then.
 * - past_due, unpaid, paused (a renewal was not paid): PAST_DUE, paid up to the current period's
 *   start, so the grace runs from the moment the unpaid period began.
 * - canceled: CANCELED, ending when the subscription ended (or, if it ended unpaid, when the unpaid
 *   period began).
 * - incomplete, incomplete_expired (the first payment never succeeded): nothing to grant (null).
 */
export function stateFor(sub: StripeSubscription, item: PlanItem, previous: Mirror | null | undefined): Subscription | null {
  const base = { plan: item.plan, anchor: ms(sub.billing_cycle_anchor) };
  switch (sub.status) {
    case "active":
    case "trialing": {
      const cancelAt = ms(sub.cancel_at);
      if (sub.cancel_at_period_end || cancelAt !== null) {
        return { ...base, status: "CANCELED", periodEnd: Math.min(item.periodEnd, cancelAt ?? item.periodEnd) };
      }
      return { ...base, status: "ACTIVE", periodEnd: item.periodEnd };
    }
    case "past_due":
    case "unpaid":
    case "paused":
      return { ...base, status: "PAST_DUE", periodEnd: item.periodStart };
    case "canceled": {
      const ended = ms(sub.ended_at) ?? ms(sub.canceled_at) ?? item.periodEnd;
      const endedUnpaid =
        sub.cancellation_details?.reason === "payment_failed" ||
        (previous?.subscriptionId === sub.id && UNPAID_STATUSES.has(previous.status ?? ""));
      return { ...base, status: "CANCELED", periodEnd: Math.min(endedUnpaid ? item.periodStart : item.periodEnd, ended) };
    }
    default:
      return null;
  }
}

export type Outcome = { outcome: "applied" | "stale" | "ignored" | "canceled_duplicate"; reason?: string; ownerId?: string };
export interface EventRef {
  id: string;
  type: string;
  /** Stripe's `created`, seconds. */
  created: number;
}

type Verdict =
  | { outcome: "apply"; item: PlanItem; mirror: Mirror }
  /** The owner already has another live, renewing subscription: a duplicate, resolved at Stripe. */
  | { outcome: "two-live"; item: PlanItem; mirror: Mirror & { subscriptionId: string } }
  | (Outcome & { outcome: "stale" | "ignored" });

/** Renews at its period end (not set to cancel at period end or at a date). */
const renews = (sub: StripeSubscription) => !sub.cancel_at_period_end && sub.cancel_at === null;

/**
 * Whether a subscription object should change the owner's state. Events arrive out of order and
 * more than once, so the subscription's own facts decide: an event older than the newest one
 * applied is stale; an ended subscription never comes back; of two subscriptions of one owner the
 * live one is followed. Two live ones that both renew bill the owner twice: that is a duplicate
 * ("two-live", resolved by resolveTwoLive). One set to end and one that renews are a predecessor
 * and its successor: the renewing one is followed. Of two that are neither, the newer one.
 * `replace` (after Stripe said the followed one is no longer live and renewing, but it could not
 * be applied) lets the incoming one take over.
 */
function judge(cfg: StripeConfig, sub: StripeSubscription, mirror: Mirror | undefined, eventAt: number | null, replace = false): Verdict {
  if (!mirror) return { outcome: "ignored", reason: "the customer is not one of Lore's" };
  const item = planItem(cfg, sub);
  if (!item) return { outcome: "ignored", reason: "no item of the subscription carries a Lore price", ownerId: mirror.ownerId };
  if (mirror.subscriptionId === sub.id) {
    if (eventAt !== null && eventAt < mirror.eventAt) {
      return { outcome: "stale", reason: "older than the state already applied", ownerId: mirror.ownerId };
    }
    if (ENDED_STATUSES.has(mirror.status ?? "") && !ENDED_STATUSES.has(sub.status)) {
      return { outcome: "stale", reason: "the subscription has already ended", ownerId: mirror.ownerId };
    }
  } else if (mirror.subscriptionId !== null && !replace) {
    const currentLive = LIVE_STATUSES.has(mirror.status ?? "");
    const incomingLive = LIVE_STATUSES.has(sub.status);
    const notFollowed = { outcome: "ignored", reason: "not the subscription the owner's plan follows", ownerId: mirror.ownerId } as const;
    if (incomingLive && currentLive) {
      const incomingRenews = renews(sub);
      const currentRenews = !mirror.cancelAtPeriodEnd;
      if (incomingRenews && currentRenews) return { outcome: "two-live", item, mirror: mirror as Mirror & { subscriptionId: string } };
      if (incomingRenews !== currentRenews) return incomingRenews ? { outcome: "apply", item, mirror } : notFollowed;
    }
    const newer = sub.created >= (mirror.subscriptionCreated ?? 0);
    if (!(incomingLive && !currentLive) && !(incomingLive === currentLive && newer)) return notFollowed;
  }
  return { outcome: "apply", item, mirror };
}

export const duplicateNoticeId = (subscriptionId: string) => `duplicate:${subscriptionId}`;

type TwoLive =
  /** This subscription was already canceled by Lore as a duplicate (a repeated or late event). */
  | { kind: "known-duplicate" }
  /** The followed one is no longer live and renewing at Stripe (the mirror was behind): not a duplicate. */
  | { kind: "followed-changed"; followed: StripeSubscription }
  /** The incoming one was the newer: canceled at Stripe; the followed one stays. */
  | { kind: "canceled-incoming"; kept: string }
  /** The followed one was the newer: canceled at Stripe (its canceled state is in `canceled`); the incoming one takes over. */
  | { kind: "canceled-followed"; canceled: StripeSubscription };

/**
 * Two live, renewing subscriptions for one owner (two Checkouts paid in two tabs, or one created
 * by hand in Stripe's Dashboard): both would be billed, and the owner can use only one plan. The
 * mirror may be behind Stripe, so the followed one is read from Stripe first: a paying
 * subscription is never canceled on a stale copy. If both are live and renewing, the newer one
 * is canceled at once with the unused time credited (cancelDuplicateSubscription), and the older
 * is kept: whichever of their events arrives first, and however many handlers race, the same one
 * is canceled. The cancellation is logged (ids only) and recorded as a notice for the owner
 * (GET /v1/billing `notices`).
 */
async function resolveTwoLive(
  db: Db,
  cfg: StripeConfig,
  incoming: StripeSubscription,
  mirror: Mirror & { subscriptionId: string },
): Promise<TwoLive> {
  const known = await db
    .select({ id: billingNotices.id })
    .from(billingNotices)
    .where(eq(billingNotices.id, duplicateNoticeId(incoming.id)))
    .get();
  if (known) return { kind: "known-duplicate" };
  const followed = await retrieveSubscription(cfg, mirror.subscriptionId);
  const followedItem = planItem(cfg, followed);
  if (!LIVE_STATUSES.has(followed.status) || !renews(followed) || !followedItem) return { kind: "followed-changed", followed };

  const incomingNewer = incoming.created > followed.created || (incoming.created === followed.created && incoming.id > followed.id);
  const [dup, kept] = incomingNewer ? [incoming, followed] : [followed, incoming];
  const dupPlan = planItem(cfg, dup)!.plan;
  const keptPlan = planItem(cfg, kept)!.plan;
  const canceled = await cancelDuplicateSubscription(
    cfg,
    dup.id,
    `Duplicate subscription: this customer already has ${kept.id} (${keptPlan}). Canceled by Lore; the unused time is credited.`,
  );
  const t = now();
  await db
    .insert(billingNotices)
    .values({
      id: duplicateNoticeId(dup.id),
      ownerId: mirror.ownerId,
      kind: "duplicate_subscription_canceled",
      subscriptionId: dup.id,
      keptSubscriptionId: kept.id,
      plan: dupPlan,
      message:
        `A second subscription (${dupPlan}, ${dup.id}) was started while your ${keptPlan} subscription (${kept.id}) was live, ` +
        `so you would have been billed twice. Lore canceled ${dup.id} at Stripe at once; its unused time is credited to your ` +
        `Stripe balance, which pays your next invoices. Your plan follows ${kept.id} (${keptPlan}).`,
      createdAt: t,
    })
    .onConflictDoNothing();
  console.warn(
    JSON.stringify({
      level: "warn",
      what: "stripe duplicate subscription canceled",
      owner: mirror.ownerId,
      customer: mirror.customerId,
      canceled: dup.id,
      canceledPlan: dupPlan,
      kept: kept.id,
      keptPlan,
      status: canceled.status,
    }),
  );
  return incomingNewer ? { kind: "canceled-incoming", kept: kept.id } : { kind: "canceled-followed", canceled };
}

/** Stores a verified event once (a second insert of the id fails: the caller answers "duplicate"). */
export function recordEvent(db: Db, event: EventRef, outcome: Outcome) {
  return db.insert(stripeEvents).values({
    id: event.id,
    type: event.type,
    created: event.created,
    ownerId: outcome.ownerId ?? null,
    outcome: outcome.reason ? `${outcome.outcome}: ${outcome.reason}` : outcome.outcome,
    receivedAt: now(),
  });
}

/**
 * Applies a Stripe subscription object to its owner: the mirror row, the owner's plan (through
 * applySubscriptionState) and, for a webhook, the event's record, in one atomic batch. The mirror
 * update is a compare-and-set on the apply token it read, and the other two statements run only if
 * that set won, so two webhooks racing for one owner never leave the older state behind: the loser
 * judges again against what the winner wrote.
 *
 * `eventAt` is Stripe's `created` (s) of the event that carried the object or prompted fetching it
 * (a fetched object is at least that new, so the stamp is conservative: it never makes a later
 * event look stale). For Stripe's answer to Lore's own API call it is null and the ordering stamp
 * does not move.
 */
export async function applyStripeSubscription(
  env: Env,
  cfg: StripeConfig,
  sub: StripeSubscription,
  eventAt: number | null,
  event?: EventRef,
): Promise<Outcome> {
  const db = makeDb(env.DB);
  const customerId = typeof sub.customer === "string" ? sub.customer : sub.customer?.id;
  let replace = false;
  for (let attempt = 0; attempt < 6; attempt++) {
    const found = customerId ? await mirrorByCustomer(db, customerId) : undefined;
    const verdict = judge(cfg, sub, found, eventAt, replace);
    if (verdict.outcome === "two-live") {
      const ownerId = verdict.mirror.ownerId;
      const r = await resolveTwoLive(db, cfg, sub, verdict.mirror);
      if (r.kind === "known-duplicate" || r.kind === "canceled-incoming") {
        const o: Outcome =
          r.kind === "known-duplicate"
            ? { outcome: "ignored", reason: "a duplicate subscription Lore has canceled", ownerId }
            : {
                outcome: "canceled_duplicate",
                reason: `a second live subscription beside ${r.kept}: canceled at Stripe, unused time credited`,
                ownerId,
              };
        if (event) await recordEvent(db, event, o);
        return o;
      }
      // The followed subscription's state as Stripe has it now goes first (Stripe's answer, so the
      // ordering stamp does not move); then this one is judged again against it.
      const first = await applyStripeSubscription(env, cfg, r.kind === "followed-changed" ? r.followed : r.canceled, null);
      if (first.outcome !== "applied") replace = true;
      continue;
    }
    if (verdict.outcome !== "apply") {
      if (event) await recordEvent(db, event, verdict);
      return verdict;
    }
    const { item, mirror } = verdict;
    const same = mirror.subscriptionId === sub.id;
    const stamp = eventAt === null ? (same ? mirror.eventAt : 0) : same ? Math.max(mirror.eventAt, eventAt) : eventAt;
    const token = crypto.randomUUID();
    const ownerId = mirror.ownerId;
    const setMirror = db
      .update(stripeCustomers)
      .set({
        subscriptionId: sub.id,
        subscriptionCreated: sub.created,
        status: sub.status,
        priceId: item.priceId,
        itemId: item.itemId,
        cancelAtPeriodEnd: sub.cancel_at_period_end || sub.cancel_at !== null,
        periodStart: item.periodStart,
        periodEnd: item.periodEnd,
        eventAt: stamp,
        applyToken: token,
        updatedAt: now(),
      })
      .where(
        and(
          eq(stripeCustomers.ownerId, ownerId),
          mirror.applyToken === null ? isNull(stripeCustomers.applyToken) : eq(stripeCustomers.applyToken, mirror.applyToken),
        ),
      )
      .returning({ ownerId: stripeCustomers.ownerId });
    const won = sql`exists (select 1 from ${stripeCustomers} where ${stripeCustomers.ownerId} = ${ownerId} and ${stripeCustomers.applyToken} = ${token})`;
    const done: Outcome = { outcome: "applied", ownerId };
    // The event is recorded only if this apply won (the row carries our token): a loser leaves no
    // record behind, so its retry is not mistaken for a duplicate.
    const record = event
      ? [
          db.insert(stripeEvents).select(
            db
              .select({
                id: sql<string>`${event.id}`.as("id"),
                type: sql<string>`${event.type}`.as("type"),
                created: sql<number>`${event.created}`.as("created"),
                ownerId: stripeCustomers.ownerId,
                outcome: sql<string>`'applied'`.as("outcome"),
                receivedAt: sql<number>`${now()}`.as("received_at"),
              })
              .from(stripeCustomers)
              .where(and(eq(stripeCustomers.ownerId, ownerId), eq(stripeCustomers.applyToken, token))),
          ),
        ]
      : [];
    const state = stateFor(sub, item, mirror);
    let results: unknown[];
    if (state) {
      results = (await applySubscriptionState(env, ownerId, state, { guard: won, before: [setMirror], after: record })).results;
    } else {
      // Never paid (incomplete): followed in the mirror, the owner's plan untouched.
      results = (await db.batch([setMirror, ...record])) as unknown[];
    }
    if ((results[0] as unknown[]).length > 0) return done;
  }
  throw new Error(`stripe subscription ${sub.id}: lost the apply race six times`);
}

/**
 * Stripe retries a delivery for up to 3 days; 90 days of event ids is far more than replays need.
 * An id pruned and then resent by hand is still judged by the mirror's ordering, so it cannot move
 * the state backwards (daily job, src/maintenance.ts).
 */
export const STRIPE_EVENT_RETENTION_MS = 90 * 86_400_000;
export const pruneStripeEvents = (db: Db, at: number) =>
  db.delete(stripeEvents).where(lt(stripeEvents.receivedAt, at - STRIPE_EVENT_RETENTION_MS));
