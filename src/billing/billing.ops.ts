import { z } from "zod";
import { defineOperation } from "../core/operation";
import { PLAN_IDS } from "../quota/plans";
import { BILLING_STATUSES, cancel, getBilling, subscribe } from "./billing.service";

const TAG = "billing";

const billingOut = z.object({
  /** The plan whose limits apply now (a lapsed plan keeps its limits through the grace period). */
  plan: z.enum(PLAN_IDS),
  subscribedPlan: z.enum(PLAN_IDS).nullable(),
  status: z.enum(BILLING_STATUSES),
  periodEnd: z.string().nullable(),
  graceEndsAt: z.string().nullable(),
});

export const getBillingOp = defineOperation({
  id: "billing.get",
  summary: "The account's subscription: effective plan, subscribed plan, status, period end and grace end",
  description:
    "The account's subscription: the plan whose limits apply now, the subscribed plan, its status, the end of the paid period and the end of the grace.",
  tag: TAG,
  method: "GET",
  path: "/billing",
  access: "owner",
  metric: null,
  output: billingOut,
  handler: (ctx) => getBilling(ctx.db, ctx.caller.ownerId),
});

export const subscribeOp = defineOperation({
  id: "billing.subscribe",
  summary: "Subscribe to a paid plan (active at once, for one calendar month, renewing until canceled)",
  description:
    "Subscribes to a paid plan (STARTER, PRO or EXPERT); it applies at once for one calendar month and renews until canceled.",
  errors: {
    CONFLICT: "already subscribed to this plan, the payment was declined, or another request changed the subscription at the same time",
  },
  tag: TAG,
  method: "POST",
  path: "/billing/subscribe",
  access: "owner",
  metric: null,
  body: z.object({ plan: z.enum(PLAN_IDS) }),
  output: billingOut,
  handler: (ctx, input) => subscribe(ctx.db, ctx.caller.ownerId, input.plan),
});

export const cancelOp = defineOperation({
  id: "billing.cancel",
  summary: "Cancel renewal: the paid plan holds until its period ends, then 3 days of grace, then FREE",
  description:
    "Stops the renewal: the paid plan holds until its period ends, then for 3 days of grace, then the account is on FREE.",
  errors: {
    CONFLICT: "there is no paid subscription to cancel, or another request changed it at the same time",
  },
  tag: TAG,
  method: "POST",
  path: "/billing/cancel",
  access: "owner",
  metric: null,
  output: billingOut,
  handler: (ctx) => cancel(ctx.db, ctx.caller.ownerId),
});

export const billingOperations = [getBillingOp, subscribeOp, cancelOp];
