import { sqliteTable, text, integer, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { owners } from "./identity";

/**
 * Stripe's side of an owner's subscription (migration 0009). The owner's effective plan stays in
 * `owners`; this row is the Stripe customer (created once) and a mirror of the subscription the
 * plan follows, with the ordering facts that make webhook handling idempotent and order-proof.
 */
export const stripeCustomers = sqliteTable(
  "stripe_customers",
  {
    ownerId: text("owner_id")
      .primaryKey()
      .references(() => owners.id),
    customerId: text("customer_id").notNull(),
    subscriptionId: text("subscription_id"),
    /** The subscription's `created` (s): of two live subscriptions, the newer one is followed. */
    subscriptionCreated: integer("subscription_created"),
    /** Stripe's own status string (active, trialing, past_due, unpaid, paused, canceled, incomplete…). */
    status: text("status"),
    priceId: text("price_id"),
    /** The subscription item carrying the plan's price (the portal's plan-switch link needs it). */
    itemId: text("item_id"),
    cancelAtPeriodEnd: integer("cancel_at_period_end", { mode: "boolean" }).notNull().default(false),
    /** ms since epoch. */
    periodStart: integer("period_start"),
    periodEnd: integer("period_end"),
    /** Stripe's `created` (s) of the newest event applied; older events are stale. */
    eventAt: integer("event_at").notNull().default(0),
    /** Random per apply: the compare-and-set that lets only one of two racing applies win. */
    applyToken: text("apply_token"),
    /**
     * The owner's open Checkout Session (migration 0014): handed out again while open for the same
     * plan, expired before a session for another plan is created.
     */
    checkoutSessionId: text("checkout_session_id"),
    checkoutPlan: text("checkout_plan"),
    /** ms since epoch (Stripe's `expires_at`). */
    checkoutExpiresAt: integer("checkout_expires_at"),
    /** Sessions stored so far: the idempotency key of the next creation and the compare-and-set that stores it. */
    checkoutGeneration: integer("checkout_generation").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("stripe_customers_customer_uq").on(t.customerId)],
);

/** Every verified webhook event, once: a replay of the same id changes nothing. */
export const stripeEvents = sqliteTable(
  "stripe_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    /** Stripe's `created` (s). */
    created: integer("created").notNull(),
    ownerId: text("owner_id"),
    /** applied | stale | ignored (with why, see src/billing/stripe.webhook.ts). */
    outcome: text("outcome").notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [index("stripe_events_received_idx").on(t.receivedAt)],
);

/**
 * What Lore did to an owner's billing without being asked (migration 0014), shown in GET
 * /v1/billing `notices`: a duplicate subscription canceled at Stripe. The id names what it is
 * about (`duplicate:<subscription id>`), so a repeated webhook records it once.
 */
export const billingNotices = sqliteTable(
  "billing_notices",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => owners.id),
    /** duplicate_subscription_canceled */
    kind: text("kind").notNull(),
    /** The subscription the notice is about (the canceled duplicate). */
    subscriptionId: text("subscription_id"),
    /** The subscription the owner's plan follows and that was kept. */
    keptSubscriptionId: text("kept_subscription_id"),
    plan: text("plan"),
    message: text("message").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("billing_notices_owner_idx").on(t.ownerId, t.createdAt)],
);
