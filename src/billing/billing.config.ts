import type { Env } from "../env";
import { ApiError } from "../core/errors";
import type { PlanId } from "../quota";

export const PAID_PLANS = ["STARTER", "PRO", "EXPERT"] as const satisfies readonly PlanId[];
export type PaidPlan = (typeof PAID_PLANS)[number];

export interface StripeConfig {
  provider: "stripe";
  secretKey: string;
  webhookSecret: string;
  /** The Stripe price id of each paid plan: what Checkout sells and how webhooks name the plan. */
  prices: Record<PaidPlan, string>;
}

/**
 * `none`: neither Stripe nor the local provider is configured (a deployment that has not set up
 * billing): paid plans are refused with a 409 that says so, and nothing renews by itself.
 */
export type BillingConfig = { provider: "local" } | { provider: "none" } | StripeConfig | { provider: "misconfigured"; missing: string[] };

const PRICE_VARS = {
  STARTER: "STRIPE_PRICE_STARTER",
  PRO: "STRIPE_PRICE_PRO",
  EXPERT: "STRIPE_PRICE_EXPERT",
} as const satisfies Record<PaidPlan, keyof Env>;

const STRIPE_VARS = ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", ...Object.values(PRICE_VARS)] as const;

const value = (env: Env, name: (typeof STRIPE_VARS)[number]) => {
  const v = env[name];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
};

/**
 * The provider, chosen by configuration: with either Stripe secret, Stripe, which then needs every
 * variable (a secret without the rest is an error, never a fallback). Without them, the local
 * provider only when `BILLING_PROVIDER` says `local` (npm start and the tests set it; a private
 * deployment may): it grants paid plans without charging, so it never serves a deployment by
 * default. Otherwise `none`: paid plans are refused. Price ids alone (say in wrangler.toml's
 * [vars]) change nothing.
 */
export function billingConfig(env: Env): BillingConfig {
  if (value(env, "STRIPE_SECRET_KEY") === null && value(env, "STRIPE_WEBHOOK_SECRET") === null) {
    return env.BILLING_PROVIDER?.trim().toLowerCase() === "local" ? { provider: "local" } : { provider: "none" };
  }
  const missing = STRIPE_VARS.filter((n) => value(env, n) === null);
  if (missing.length > 0) return { provider: "misconfigured", missing };
  return {
    provider: "stripe",
    secretKey: value(env, "STRIPE_SECRET_KEY")!,
    webhookSecret: value(env, "STRIPE_WEBHOOK_SECRET")!,
    prices: {
      STARTER: value(env, PRICE_VARS.STARTER)!,
      PRO: value(env, PRICE_VARS.PRO)!,
      EXPERT: value(env, PRICE_VARS.EXPERT)!,
    },
  };
}

/** The configuration, or a 500 that names no secret (the missing variable names go to the log). */
export function requireBillingConfig(env: Env): { provider: "local" } | { provider: "none" } | StripeConfig {
  const cfg = billingConfig(env);
  if (cfg.provider !== "misconfigured") return cfg;
  console.error(JSON.stringify({ level: "error", what: "billing configuration", missing: cfg.missing }));
  throw new ApiError(
    "INTERNAL",
    "Billing is not configured correctly on this server; nothing was changed. The operator can see why in the logs.",
  );
}

/** The plan a Stripe price id stands for, or null when the price is not one of Lore's. */
export function planForPrice(cfg: StripeConfig, priceId: string | null | undefined): PaidPlan | null {
  if (!priceId) return null;
  return PAID_PLANS.find((p) => cfg.prices[p] === priceId) ?? null;
}

/** Subscribing on a server without billing: a 409 for the owner, and what to set in the operator's log. */
export function billingNotConfigured(): ApiError {
  console.error(
    JSON.stringify({
      level: "error",
      what: "billing configuration",
      detail:
        "paid plans refused: set STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_* (or BILLING_PROVIDER=local to grant plans without charging)",
    }),
  );
  return new ApiError(
    "CONFLICT",
    "Paid plans are not available on this server: its operator has not set up billing (Stripe). Your account stays on its current plan; nothing was charged or changed.",
    { reason: "BILLING_NOT_CONFIGURED" },
  );
}
