import type { Env } from "../env";
import { ApiError } from "../core/errors";
import { now } from "../core/clock";
import type { AgentPrincipal } from "../core/principal";
import { effectivePlan, type Metric } from "./plans";
import type { AdmitResult } from "./quota.schemas";

/** The typed way into an account's AccountQuota object; routes never build stubs themselves. */
export function quotaStub(env: Env, ownerId: string) {
  return env.ACCOUNT_QUOTA.get(env.ACCOUNT_QUOTA.idFromName(ownerId));
}

export type Admission = AdmitResult & { ok: true };

/** Admits one request or throws the contract's 429. */
export async function admit(
  env: Env,
  caller: AgentPrincipal,
  metric: Metric | null,
  counted: boolean,
): Promise<Admission> {
  const plan = effectivePlan(caller.plan, caller.planPeriodEnd, now());
  const result = await quotaStub(env, caller.ownerId).admit({ plan, metric, counted });
  if (!result.ok) throw rateLimited(result);
  return result;
}

/** Gives back the action metric reserved by `admit` when the action did not succeed. */
export async function refund(env: Env, caller: AgentPrincipal, admission: Admission, metric: Metric | null) {
  if (!metric || metric === "API_CALLS") return;
  await quotaStub(env, caller.ownerId).refund(admission.day, metric);
}

function rateLimited(r: AdmitResult & { ok: false }): ApiError {
  const what = r.metric === "PER_MINUTE" ? `${r.limit} requests per minute` : `${r.limit} ${r.metric} per day`;
  const when =
    r.metric === "PER_MINUTE"
      ? `retry in ${r.retryAfterSeconds} s`
      : `the daily quota resets at ${r.resetsAt}`;
  return new ApiError(
    "RATE_LIMITED",
    `Rate limit reached: ${r.metric} (${what}) on plan ${r.plan}; ${when}. Stop this kind of action until then; do not retry in a loop.`,
    { metric: r.metric, limit: r.limit, plan: r.plan, resetsAt: r.resetsAt, retryAfterSeconds: r.retryAfterSeconds },
    {
      "Retry-After": String(r.retryAfterSeconds),
      "Cache-Control": "no-store",
      ...rateLimitHeaders(r.window),
    },
  );
}

/** IETF draft-ietf-httpapi-ratelimit-headers (structured field form) for the per-minute window. */
export function rateLimitHeaders(w: { limit: number; remaining: number; resetSeconds: number }) {
  return {
    "RateLimit-Policy": `"minute";q=${w.limit};w=60`,
    RateLimit: `"minute";r=${w.remaining};t=${w.resetSeconds}`,
  };
}
