import * as z from "zod/v4";
import { defineOperation } from "../core/operation";
import { METRICS, METRIC_LABELS, PLANS, PLAN_IDS } from "./plans";
import { planForOwner } from "./quota.client";
import { accountStub } from "./account";
import type { Env } from "../env";
import type { Metric, PlanId } from "./plans";
import type { Admission } from "../core/admission";
import type { OpContext } from "../core/operation";
import type { UsageSnapshot } from "./quota.schemas";

const TAG = "usage";
const limitOrNull = z.number().int().nullable();

export const listPlans = defineOperation({
  id: "plans.list",
  summary: "The plan catalog: prices, daily limits (null = unlimited) and the per-minute rate",
  description:
    "The plan catalog: each plan's monthly price, daily limit per metric (null means unlimited), per-minute rate and skill storage. " +
    "SCANS (skill publishes and MCP server scans) is Lore's addition to the contract's metrics.",
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
        storageBytes: z
          .number()
          .int()
          .describe("The most bytes of published skill files an account keeps (every version's files and artifact)"),
      }),
    ),
    total: z.number().int(),
  }),
  handler: async () => {
    const items = PLAN_IDS.map((id) => PLANS[id]);
    return { items, total: items.length };
  },
});

const usageTodayOut = z.object({
  plan: z.enum(PLAN_IDS),
  perMinute: z.number().int(),
  resetsAt: z.string(),
  metrics: z.record(z.string(), z.object({ used: z.number().int(), limit: limitOrNull, label: z.string() })),
});

const metricDay = z.object({ used: z.number().int(), limit: limitOrNull });
const usageHistoryOut = z.object({
  plan: z.enum(PLAN_IDS),
  days: z.array(
    z.object({
      date: z.string(),
      plan: z.enum(PLAN_IDS),
      metrics: z.record(z.enum(METRICS), metricDay),
    }),
  ),
  total: z.number().int(),
});
const historyQuery = z.object({ days: z.number().int().min(1).max(90).default(30) });

/** Today's usage as the admission of this very request saw it: no further call. */
const fromAdmission = (a: Admission): UsageSnapshot => ({
  day: a.day,
  plan: a.plan as PlanId,
  perMinute: a.window.limit,
  resetsAt: a.resetsAt,
  window: a.window,
  used: a.used as Record<Metric, number>,
});

/** Today's usage of an account: the admission's answer for agents, one read of its AccountQuota object for the owner. */
function todayReport(snap: UsageSnapshot): z.output<typeof usageTodayOut> {
  const plan = snap.plan;
  const metrics: Record<string, { used: number; limit: number | null; label: string }> = {};
  for (const m of METRICS) metrics[m] = { used: snap.used[m], limit: PLANS[plan].daily[m], label: METRIC_LABELS[m] };
  metrics.PER_MINUTE = {
    used: snap.window.limit - snap.window.remaining,
    limit: snap.window.limit,
    label: "Requests per minute (rolling 60 s)",
  };
  return { plan, perMinute: snap.perMinute, resetsAt: snap.resetsAt, metrics };
}

/** The last `days` UTC days of an account, newest first. */
async function historyReport(env: Env, ownerId: string, plan: PlanId, n: number): Promise<z.output<typeof usageHistoryOut>> {
  const rows = await accountStub(env, ownerId).history(n);
  const days = rows.map((r) => {
    // A day without use has no recorded plan: today's limits are shown for it.
    const dayPlan = r.plan ?? plan;
    const metrics = Object.fromEntries(METRICS.map((m) => [m, { used: r.metrics[m], limit: PLANS[dayPlan].daily[m] }])) as Record<
      (typeof METRICS)[number],
      { used: number; limit: number | null }
    >;
    return { date: r.date, plan: dayPlan, metrics };
  });
  return { plan, days, total: days.length };
}

/** Agent operations are admitted before their handler runs, which leaves the quota on the context. */
function admissionOf(ctx: OpContext): Admission {
  if (!ctx.admission) throw new Error("usage operations run only through the REST and MCP adapters, which admit them");
  return ctx.admission;
}

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
  output: usageTodayOut,
  handler: async (ctx) => todayReport(fromAdmission(admissionOf(ctx))),
  mcp: {
    tool: "service_usage",
    title: "Usage today",
    description: "Your usage and limits today. Use before a burst of calls.",
    readOnly: true,
  },
});

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
  query: historyQuery,
  output: usageHistoryOut,
  handler: async (ctx, input) => historyReport(ctx.env, ctx.caller.ownerId, admissionOf(ctx).plan as PlanId, input.days),
  mcp: {
    tool: "service_usage_history",
    title: "Usage history",
    description: "Daily usage per metric for the last `days` days, newest first.",
    readOnly: true,
  },
});

// The owner's view of the same numbers (the dashboard's usage page): a session, not an agent key,
// and never counted, since looking at the quota must not spend it.
export const ownerUsageToday = defineOperation({
  id: "me.usage.today",
  summary: "The account's usage today (as GET /usage/today), for the dashboard: session token, never counted",
  description:
    "Same shape as GET /v1/usage/today, for the account owner's dashboard session instead of an agent key. " +
    "Counts against no quota. Dashboard only (session token); agent keys get 403.",
  tag: TAG,
  method: "GET",
  path: "/me/usage/today",
  access: "owner",
  metric: null,
  output: usageTodayOut,
  handler: async (ctx) =>
    todayReport(await accountStub(ctx.env, ctx.caller.ownerId).usage(await planForOwner(ctx.env, ctx.caller.ownerId))),
});

export const ownerUsageHistory = defineOperation({
  id: "me.usage.history",
  summary: "The account's daily usage for the last `days` UTC days (as GET /usage/history), for the dashboard",
  description:
    "Same shape as GET /v1/usage/history (days 1–90, default 30, newest first), for the account owner's dashboard " +
    "session. Counts against no quota. Dashboard only (session token); agent keys get 403.",
  tag: TAG,
  method: "GET",
  path: "/me/usage/history",
  access: "owner",
  metric: null,
  query: historyQuery,
  output: usageHistoryOut,
  handler: async (ctx, input) => historyReport(ctx.env, ctx.caller.ownerId, await planForOwner(ctx.env, ctx.caller.ownerId), input.days),
});

export const quotaOperations = [listPlans, usageToday, usageHistory, ownerUsageToday, ownerUsageHistory];
