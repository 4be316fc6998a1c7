import type { Env } from "../env";
import { ApiError } from "../core/errors";
import { now } from "../core/clock";
import type { AgentPrincipal } from "../core/principal";
import { makeDb, type Db } from "../db/client";
import { settle } from "../billing/billing.service";
import { billingConfig } from "../billing/billing.config";
import { effectivePlan, type Metric, type PlanId } from "./plans";
import type { AdmitResult, MetricState, RateWindow } from "./quota.schemas";

/** The typed way into an account's AccountQuota object; routes never build stubs themselves. */
export function quotaStub(env: Env, ownerId: string) {
  return env.ACCOUNT_QUOTA.get(env.ACCOUNT_QUOTA.idFromName(ownerId));
}

export type Admission = AdmitResult & { ok: true };

/**
 * The plan whose limits apply to the caller now. The principal carries the stored plan and period
 * end; only once that period has ended is the subscription settled (renewed if ACTIVE, retired
 * after the grace if not), so the usual request costs no extra query.
 */
export async function planFor(env: Env, caller: AgentPrincipal): Promise<PlanId> {
  const at = now();
  // Only an ACTIVE plan past its period end needs a write (the renewal). A canceled or past-due
  // plan runs out through its grace by the stored dates alone, so agent requests cost no query.
  // Under Stripe, Lore never renews: Stripe does, and its webhook moves the period end, so until
  // then the stored dates decide here too.
  if (
    caller.planStatus === "ACTIVE" &&
    caller.plan !== "FREE" &&
    caller.planPeriodEnd !== null &&
    at >= caller.planPeriodEnd &&
    billingConfig(env).provider === "local"
  ) {
    // A billing failure (provider down) must not fail the agent's request: the stored period
    // still decides (paid through the grace, FREE after), and the next request settles again.
    const sub = await settle(makeDb(env.DB), caller.ownerId, at, { renew: true }).catch((err) => {
      console.error(JSON.stringify({ level: "error", what: "billing settle", ownerId: caller.ownerId, error: String(err) }));
      return { plan: caller.plan, periodEnd: caller.planPeriodEnd };
    });
    return effectivePlan(sub.plan, sub.periodEnd, at);
  }
  return effectivePlan(caller.plan, caller.planPeriodEnd, at);
}

/** The plan whose limits apply to an account now, for the owner's own reads (settles a lapsed or due subscription first). */
export async function planForOwner(env: Env, db: Db, ownerId: string): Promise<PlanId> {
  const at = now();
  // As for agents: Lore renews only under the local provider; under Stripe the webhook does.
  const sub = await settle(db, ownerId, at, { renew: billingConfig(env).provider === "local" });
  return effectivePlan(sub.plan, sub.periodEnd, at);
}

/** Admits one request or throws the contract's 429. */
export async function admit(env: Env, caller: AgentPrincipal, metric: Metric | null, counted: boolean): Promise<Admission> {
  const plan = await planFor(env, caller);
  const result = await quotaStub(env, caller.ownerId).admit({ plan, metric, counted });
  if (!result.ok) throw rateLimited(result);
  return result;
}

/**
 * Gives back the action metric reserved by `admit` when the action did not succeed. Awaited by the
 * adapters before they answer, so a client that retries at once after a 400 finds its quota back.
 */
export async function refund(env: Env, caller: AgentPrincipal, admission: Admission, metric: Metric | null) {
  if (!metric || metric === "API_CALLS") return;
  await quotaStub(env, caller.ownerId).refund(admission.day, metric);
}

function rateLimited(r: AdmitResult & { ok: false }): ApiError {
  const message =
    r.metric === "PER_MINUTE"
      ? `Rate limit reached: PER_MINUTE limit of ${r.limit} requests per rolling minute on plan ${r.plan}. ` +
        `Retry after ${r.retryAfterSeconds} s; daily quotas reset at ${r.resetsAt}. Do not retry in a loop.`
      : `Daily quota reached: ${r.metric} limit of ${r.limit} per day on plan ${r.plan}. It resets at ${r.resetsAt} ` +
        `(00:00 UTC, in ${r.retryAfterSeconds} s); stop this kind of action until then. Other actions keep working` +
        (r.metric === "API_CALLS" ? " only for GET /v1/usage/today." : ".");
  return new ApiError(
    "RATE_LIMITED",
    message,
    { metric: r.metric, limit: r.limit, plan: r.plan, resetsAt: r.resetsAt, retryAfterSeconds: r.retryAfterSeconds },
    {
      "Retry-After": String(r.retryAfterSeconds),
      "Cache-Control": "no-store",
      ...rateLimitHeaders(r.window, r.metrics.API_CALLS, r.resetsAt),
    },
  );
}

/**
 * IETF draft-ietf-httpapi-ratelimit-headers (structured-field form): the rolling per-minute window
 * and, when it is limited, the daily API_CALLS quota (`t` = seconds until 00:00 UTC).
 */
export function rateLimitHeaders(w: RateWindow, api?: MetricState, resetsAt?: string) {
  const policy = [`"minute";q=${w.limit};w=60`];
  const state = [`"minute";r=${w.remaining};t=${w.resetSeconds}`];
  if (api && api.limit !== null && resetsAt) {
    const t = Math.max(0, Math.ceil((Date.parse(resetsAt) - now()) / 1000));
    policy.push(`"day";q=${api.limit};w=86400`);
    state.push(`"day";r=${Math.max(0, api.limit - api.used)};t=${t}`);
  }
  return { "RateLimit-Policy": policy.join(", "), RateLimit: state.join(", ") };
}

export const admissionHeaders = (a: Admission) => rateLimitHeaders(a.window, a.metrics.API_CALLS, a.resetsAt);
