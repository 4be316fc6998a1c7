import { z } from "zod";
import { defineOperation } from "../core/operation";
import { now } from "../core/clock";
import { METRICS, METRIC_LABELS, PLANS, PLAN_IDS, effectivePlan } from "./plans";
import { quotaStub } from "./quota.client";

const TAG = "usage";
const limitOrNull = z.number().int().nullable();

export const listPlans = defineOperation({
  id: "plans.list",
  summary: "The plan catalog: prices, daily limits (null = unlimited) and the per-minute rate",
  tag: TAG,
  method: "GET",
  path: "/plans",
  access: "public",
  metric: null,
  output: z.object({
    items: z.array(
      z.object({
        id: z.enum(PLAN_IDS),
        name: z.string(),
        priceUsdPerMonth: z.number(),
        perMinute: z.number().int(),
        daily: z.record(z.enum(METRICS), limitOrNull),
      }),
    ),
    total: z.number().int(),
  }),
  handler: async () => {
    const items = PLAN_IDS.map((id) => PLANS[id]);
    return { items, total: items.length };
  },
});

export const usageToday = defineOperation({
  id: "usage.today",
  summary: "Today's usage per metric, the plan, the per-minute rate and when the daily quotas reset",
  tag: TAG,
  method: "GET",
  path: "/usage/today",
  access: "agent",
  metric: null,
  // Always answered, even when API_CALLS or the per-minute rate is exhausted.
  uncounted: true,
  output: z.object({
    plan: z.enum(PLAN_IDS),
    perMinute: z.number().int(),
    resetsAt: z.string(),
    metrics: z.record(z.string(), z.object({ used: z.number().int(), limit: limitOrNull, label: z.string() })),
  }),
  handler: async (ctx) => {
    const plan = effectivePlan(ctx.caller.plan, ctx.caller.planPeriodEnd, now());
    const snap = await quotaStub(ctx.env, ctx.caller.ownerId).usage(plan);
    const metrics: Record<string, { used: number; limit: number | null; label: string }> = {};
    for (const m of METRICS) metrics[m] = { used: snap.used[m], limit: PLANS[plan].daily[m], label: METRIC_LABELS[m] };
    metrics.PER_MINUTE = {
      used: snap.window.limit - snap.window.remaining,
      limit: snap.window.limit,
      label: "Requests per minute (rolling 60 s)",
    };
    return { plan, perMinute: snap.perMinute, resetsAt: snap.resetsAt, metrics };
  },
  mcp: {
    tool: "service_usage",
    description:
      "Today's usage and limits for your account (free: does not count against any quota). Use it before a burst of actions.",
    readOnly: true,
    free: true,
  },
});

export const quotaOperations = [listPlans, usageToday];
