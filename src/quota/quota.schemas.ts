import type { Metric, PlanId } from "./plans";

/** What the Worker asks the AccountQuota object for one request. */
export interface AdmitRequest {
  plan: PlanId;
  /** The action's own metric, reserved now and refunded if the action fails. */
  metric: Metric | null;
  /** false for free MCP tools (service_usage) and GET /usage/today. */
  counted: boolean;
}

export interface MetricState {
  used: number;
  limit: number | null;
}

export interface RateWindow {
  limit: number;
  remaining: number;
  /** Seconds until the oldest admitted request leaves the 60-second window. */
  resetSeconds: number;
}

export type AdmitResult =
  | {
      ok: true;
      day: string;
      plan: PlanId;
      window: RateWindow;
      /** API_CALLS and, when the action has one, its own metric, after this request. */
      metrics: Partial<Record<Metric, MetricState>>;
    }
  | {
      ok: false;
      plan: PlanId;
      metric: Metric | "PER_MINUTE";
      limit: number;
      retryAfterSeconds: number;
      resetsAt: string;
      window: RateWindow;
    };

export interface UsageSnapshot {
  day: string;
  plan: PlanId;
  perMinute: number;
  resetsAt: string;
  window: RateWindow;
  used: Record<Metric, number>;
}

export interface HistoryDay {
  date: string;
  metrics: Record<Metric, number>;
}
