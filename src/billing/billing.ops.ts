import * as z from "zod/v4";
import { defineOperation, type OpContext } from "../core/operation";
import { badRequest, conflict } from "../core/errors";
import { PLAN_IDS } from "../quota";
import { BILLING_STATUSES, LOCAL_PROVIDER, NO_PROVIDER, cancel, getBilling, subscribe } from "./billing.service";
import { billingNotConfigured, requireBillingConfig, type PaidPlan } from "./billing.config";
import { getStripeBilling, stripeCancel, stripePortal, stripeSubscribe } from "./stripe.service";

const TAG = "billing";

const providerOut = z.object({
  /** `local` (plans change at once, no card), `stripe` (Checkout, Customer Portal, webhooks) or `none` (billing not set up: paid plans refused). */
  name: z.enum(["local", "stripe", "none"]),
  /** subscribe answers with `redirect`: a URL to send the browser to. */
  checkout: z.boolean(),
  /** POST /v1/billing/portal gives a Customer Portal URL. */
  portal: z.boolean(),
  /** subscribe changes the plan at once. */
  directSwitch: z.boolean(),
});

const noticeOut = z.object({
  /** `duplicate_subscription_canceled`: a second live subscription was canceled at Stripe, its unused time credited. */
  kind: z.enum(["duplicate_subscription_canceled"]),
  at: z.string().describe("When it happened (ISO 8601)"),
  message: z.string().describe("What happened and what it means for the owner, in a sentence or three"),
  subscriptionId: z.string().nullable().describe("The Stripe subscription it is about (the canceled duplicate)"),
  keptSubscriptionId: z.string().nullable().describe("The Stripe subscription the plan follows"),
  plan: z.enum(PLAN_IDS).nullable().describe("The canceled duplicate's plan"),
});

const billingOut = z.object({
  /** The plan whose limits apply now (a lapsed plan keeps its limits through the grace period). */
  plan: z.enum(PLAN_IDS),
  subscribedPlan: z.enum(PLAN_IDS).nullable(),
  status: z.enum(BILLING_STATUSES),
  periodEnd: z.string().nullable(),
  graceEndsAt: z.string().nullable(),
  provider: providerOut,
  notices: z
    .array(noticeOut)
    .optional()
    .describe(
      "GET /v1/billing under Stripe, present only when there is something to tell: what Lore did to the billing without being asked " +
        "(a duplicate subscription canceled at Stripe), newest first, the last 90 days, at most 10",
    ),
});

const redirectOut = z
  .object({ kind: z.enum(["checkout", "portal"]), url: z.string() })
  .nullable()
  .describe("Where to send the browser (Stripe); null when the change is already done");

/** A path on this origin the owner is sent back to from Stripe (default `/`). */
const returnPath = z
  .string()
  .max(512)
  .regex(/^\/(?![/\\])[^\s\\]*$/, "a path on this site, starting with a single /")
  .optional();

const returnUrl = (ctx: OpContext, path: string | undefined) => {
  const url = new URL(path ?? "/", ctx.origin);
  if (url.origin !== ctx.origin) throw badRequest("returnPath must stay on this site", ["body", "returnPath"]);
  return url.toString();
};

export const getBillingOp = defineOperation({
  id: "billing.get",
  summary: "The account's subscription: effective plan, subscribed plan, status, period end, grace end and the billing provider",
  description:
    "Reads the owner's subscription (a plan past its grace is retired to FREE here). `provider` tells a page what it can do: " +
    "with `local`, subscribe and cancel change the plan at once; with `stripe`, subscribe answers with a Checkout or portal URL " +
    `and POST /v1/billing/portal opens the Customer Portal.`,
  tag: TAG,
  method: "GET",
  path: "/billing",
  access: "owner",
  metric: null,
  output: billingOut,
  handler: (ctx) => {
    const cfg = requireBillingConfig(ctx.env);
    if (cfg.provider === "stripe") return getStripeBilling(ctx.env, ctx.caller.ownerId);
    return getBilling(ctx.env, ctx.caller.ownerId, cfg.provider === "local" ? LOCAL_PROVIDER : NO_PROVIDER);
  },
});

export const subscribeOp = defineOperation({
  id: "billing.subscribe",
  summary: "Subscribe to a paid plan, or switch to another one",
  description:
    "Local provider: active at once for one calendar month, renewing until canceled (`redirect` is null). Stripe: answers " +
    "with `redirect` = a Checkout URL (no subscription yet; the owner's open session for the same plan is handed out again, one for " +
    "another plan is expired first) or a Customer Portal URL that confirms the switch (another plan) " +
    "or updates the card (payment past due); the plan changes only when Stripe confirms by webhook. The same plan again is " +
    `409, or resumes a plan set to cancel. \`returnPath\` (default /) is where Stripe sends the owner back.`,
  errors: {
    CONFLICT:
      "already subscribed to this plan (also when Stripe lists a subscription its webhooks have not brought yet), the payment was declined, " +
      "or another request changed the subscription or the checkout at the same time; or billing is not set up on this server " +
      "(`details.reason` BILLING_NOT_CONFIGURED: neither Stripe nor the local provider is configured)",
  },
  tag: TAG,
  method: "POST",
  path: "/billing/subscribe",
  access: "owner",
  metric: null,
  body: z.object({ plan: z.enum(PLAN_IDS), returnPath }),
  output: billingOut.extend({ redirect: redirectOut }),
  handler: async (ctx, input) => {
    const cfg = requireBillingConfig(ctx.env);
    if (input.plan === "FREE") {
      throw badRequest("FREE is not a subscription: to leave a paid plan use POST /v1/billing/cancel", ["body", "plan"]);
    }
    if (cfg.provider === "none") throw billingNotConfigured();
    if (cfg.provider === "local") return { ...(await subscribe(ctx.env, ctx.caller.ownerId, input.plan)), redirect: null };
    return stripeSubscribe(ctx.env, cfg, ctx.caller, input.plan as PaidPlan, { returnUrl: returnUrl(ctx, input.returnPath) });
  },
});

export const cancelOp = defineOperation({
  id: "billing.cancel",
  summary: "Cancel renewal: the paid plan holds until its period ends, then 3 days of grace, then FREE",
  description: `Under Stripe the subscription is set to cancel at period end through Stripe's API. Canceling again is a no-op; with no paid plan, 409.`,
  errors: {
    CONFLICT: "there is no paid subscription to cancel, or another request changed it at the same time",
  },
  tag: TAG,
  method: "POST",
  path: "/billing/cancel",
  access: "owner",
  metric: null,
  output: billingOut,
  handler: (ctx) => {
    const cfg = requireBillingConfig(ctx.env);
    return cfg.provider === "stripe" ? stripeCancel(ctx.env, cfg, ctx.caller.ownerId) : cancel(ctx.env, ctx.caller.ownerId);
  },
});

export const portalOp = defineOperation({
  id: "billing.portal",
  summary: "A Stripe Customer Portal URL for cards, invoices and cancelling",
  description:
    "Stripe only: a short-lived portal session for the owner's Stripe customer; `returnPath` (default /) is where the portal's " +
    `back link goes. 409 under the local provider (it has no portal) and before the first subscription.`,
  errors: {
    CONFLICT: "the local provider has no customer portal, there is no Stripe customer yet, or billing is not set up on this server",
  },
  tag: TAG,
  method: "POST",
  path: "/billing/portal",
  access: "owner",
  metric: null,
  body: z.object({ returnPath }),
  output: z.object({ url: z.string() }),
  handler: (ctx, input) => {
    const cfg = requireBillingConfig(ctx.env);
    if (cfg.provider === "none") throw billingNotConfigured();
    if (cfg.provider === "local") {
      throw conflict(
        "The local billing provider has no customer portal: change plans with POST /v1/billing/subscribe and /v1/billing/cancel",
      );
    }
    return stripePortal(ctx.db, cfg, ctx.caller.ownerId, { returnUrl: returnUrl(ctx, input.returnPath) });
  },
});

export const billingOperations = [getBillingOp, subscribeOp, cancelOp, portalOp];
