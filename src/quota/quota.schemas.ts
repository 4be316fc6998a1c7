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
  /** Seconds until the oldest admitted request leaves the 60-second window (0 when it is empty). */
  resetSeconds: number;
}

export type AdmitResult =
  | {
      ok: true;
      /** The UTC day the request was counted on: a refund gives back to that day. */
      day: string;
      plan: PlanId;
      resetsAt: string;
      window: RateWindow;
      /** API_CALLS (always) and, when the action has one, its own metric, after this request. */
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
      /** API_CALLS after this (refused) request, for the daily RateLimit policy. */
      metrics: Partial<Record<Metric, MetricState>>;
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
  /** The plan whose limits applied that day (the last one seen), null on days without use. */
  plan: PlanId | null;
  metrics: Record<Metric, number>;
}
