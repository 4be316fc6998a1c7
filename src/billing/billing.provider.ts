import type { PlanId } from "../quota";

export interface ChargeRequest {
  ownerId: string;
  plan: PlanId;
  amountUsd: number;
  periodStart: number;
  periodEnd: number;
  /** Why the charge happens: a new subscription, or a renewal at period end. */
  reason: "subscribe" | "renew";
}

export type ChargeResult = { ok: true; reference: string } | { ok: false; reason: string };

/**
 * The payment side of billing. Lore keeps the subscription state (plan, status, period end) in
 * D1; a provider only takes money. A real card provider plugs in here without touching quota code.
 */
export interface BillingProvider {
  readonly name: string;
  charge(req: ChargeRequest): Promise<ChargeResult>;
}

/** No card network is reachable here: every charge succeeds at once, so plans activate immediately. */
export class LocalBillingProvider implements BillingProvider {
  readonly name = "local";

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    return { ok: true, reference: `local_${req.reason}_${req.ownerId}_${req.periodStart}` };
  }
}

let provider: BillingProvider = new LocalBillingProvider();

export const billingProvider = (): BillingProvider => provider;

/** Test hook: a provider that declines, to prove a failed renewal falls into grace. */
export function setBillingProvider(p?: BillingProvider): void {
  provider = p ?? new LocalBillingProvider();
}
