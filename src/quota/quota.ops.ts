import { z } from "zod";
import { defineOperation } from "../core/operation";
import { METRICS, METRIC_LABELS, PLANS, PLAN_IDS } from "./plans";
import { planFor, quotaStub } from "./quota.client";

const TAG = "usage";
const limitOrNull = z.number().int().nullable();

export const listPlans = defineOperation({
  id: "plans.list",
  summary: "The plan catalog: prices, daily limits (null = unlimited) and the per-minute rate",
  description:
    "The plan catalog: each plan's monthly price, daily limit per metric (null means unlimited) and per-minute rate.",
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
  description:
    "Today's usage of every daily metric with its limit, the per-minute window (`PER_MINUTE`), the plan and when the daily quotas reset (00:00 UTC). Answered even when every quota is exhausted.",
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
    const plan = await planFor(ctx.env, ctx.caller);
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

const metricDay = z.object({ used: z.number().int(), limit: limitOrNull });

export const usageHistory = defineOperation({
  id: "usage.history",
  summary: "Daily usage of every metric for the last `days` UTC days (1–90, default 30), newest first, today included",
  description:
    "The account's usage of every metric per UTC day for the last `days` days (1–90, default 30), newest first, today included, with each day's plan limits.",
  tag: TAG,
  method: "GET",
  path: "/usage/history",
  access: "agent",
  // An ordinary API call: counts against API_CALLS and the per-minute rate.
  metric: null,
  query: z.object({ days: z.number().int().min(1).max(90).default(30) }),
  output: z.object({
    plan: z.enum(PLAN_IDS),
    days: z.array(
      z.object({
        date: z.string(),
        plan: z.enum(PLAN_IDS),
        metrics: z.record(z.enum(METRICS), metricDay),
      }),
    ),
    total: z.number().int(),
  }),
  handler: async (ctx, input) => {
    const plan = await planFor(ctx.env, ctx.caller);
    const rows = await quotaStub(ctx.env, ctx.caller.ownerId).history(input.days);
    const days = rows.map((r) => {
      // A day without use has no recorded plan: today's limits are shown for it.
      const dayPlan = r.plan ?? plan;
      const metrics = Object.fromEntries(
        METRICS.map((m) => [m, { used: r.metrics[m], limit: PLANS[dayPlan].daily[m] }]),
      ) as Record<(typeof METRICS)[number], { used: number; limit: number | null }>;
      return { date: r.date, plan: dayPlan, metrics };
    });
    return { plan, days, total: days.length };
  },
  mcp: {
    tool: "service_usage_history",
    description: "Your account's daily usage per metric for the last `days` days (1–90, default 30), newest first. Counts as an API call.",
    readOnly: true,
  },
});

export const quotaOperations = [listPlans, usageToday, usageHistory];
