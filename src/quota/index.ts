/**
 * What the quota area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { accountStub, refreshAccount } from "./account";
export { GRACE_MS, METRICS, METRIC_LABELS, PLANS, PLAN_IDS, SKILL_VERSIONS_PER_DAY, effectivePlan } from "./plans";
export type { Metric, Plan, PlanId } from "./plans";
export { quotaGate, setRenewal } from "./quota.client";
export { AccountQuota } from "./quota.do";
export { listPlans, ownerUsageHistory, ownerUsageToday, quotaOperations } from "./quota.ops";
