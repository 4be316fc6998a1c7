import type { Admission, Counting, MetricState, RateWindow } from "../core/admission";
import type { AgentPrincipal } from "../core/principal";
import type { Metric, PlanId } from "./plans";

export type { MetricState, RateWindow };

/** What the Worker asks the account's AccountQuota object for one agent request. */
export interface AccountAdmit {
  /** The account the key names (or, for a key from before routed keys, the one D1 names). */
  ownerId: string;
  /** SHA-256 hex of the key: the key itself never leaves the Worker. */
  keyHash: string;
  /** The action's own metric, reserved now and refunded if the action fails. */
  metric: Metric | null;
  /** true: a per-minute slot and an API call; "minute": the slot only (MCP messages that call no tool); false: nothing. */
  counted: Counting;
  /** The local billing provider renews lazily: an ACTIVE plan past its period end is settled first. */
  renewDue: boolean;
}

/** Why a request was refused a quota: the contract's 429 details, and the headers' window. */
export interface Refusal {
  plan: PlanId;
  metric: Metric | "PER_MINUTE";
  limit: number;
  retryAfterSeconds: number;
  resetsAt: string;
  window: RateWindow;
  /** API_CALLS after this (refused) request, for the daily RateLimit policy. */
  metrics: Partial<Record<Metric, MetricState>>;
}

export type AccountAdmitResult =
  | { ok: true; caller: AgentPrincipal; admission: Admission; bookmark: string | null }
  | { ok: false; reason: "unauthenticated" }
  | { ok: false; reason: "settle" }
  | { ok: false; reason: "limited"; refusal: Refusal };

export type AccountChargeResult =
  | { ok: true; admission: Admission }
  | { ok: false; reason: "unknown" }
  | { ok: false; reason: "settle" }
  | { ok: false; reason: "limited"; refusal: Refusal };

export type AccountVerifyResult = { ok: true; caller: AgentPrincipal; bookmark: string | null } | { ok: false };

export type AccountPlanResult = { ok: true; plan: PlanId } | { ok: false; reason: "unknown" | "settle" };

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
