import type { Env } from "../env";
import type { Metric } from "./metrics";
import type { AgentPrincipal } from "./principal";

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

/** The account's quota right after one admission: what the RateLimit headers, the MCP quota meta and GET /usage/today report. */
export interface Admission {
  /** The UTC day the request was counted on: a refund gives back to that day. */
  day: string;
  /** The plan whose limits applied. */
  plan: string;
  resetsAt: string;
  window: RateWindow;
  /** API_CALLS (always) and, when the action has one, its own metric, after this request. */
  metrics: Partial<Record<Metric, MetricState>>;
  /** Every daily counter of the day, after this request. */
  used: Record<Metric, number>;
}

/** Who is calling (a verified key), and where their D1 reads start. */
export interface Verified {
  caller: AgentPrincipal;
  /**
   * The newest D1 bookmark of the account's writes (null: none recorded). The request's D1 session
   * starts there, so an agent reads its own writes even when a replica serves it.
   */
  bookmark: string | null;
}

/** What one admission answers: the verified caller and their quota right after this request. */
export interface Admitted extends Verified {
  admission: Admission;
}

/**
 * What a request consumes besides its own metric: `true`, a per-minute slot and an API call (every
 * agent REST request and MCP tool call); `"minute"`, a per-minute slot only (MCP messages that call
 * no tool: initialize, ping, tools/list, notifications); `false`, nothing (GET /usage/today and
 * service_usage, answered even when every quota is spent).
 */
export type Counting = boolean | "minute";

export interface AdmitRequest {
  /** The action's own metric, reserved now and refunded if the action fails; null: API_CALLS only. */
  metric: Metric | null;
  counted: Counting;
}

/**
 * The one admission step of every agent request, REST route or MCP tool call alike. Core declares
 * it and the adapters call it; the quota area implements it (src/quota/quota.client.ts) and app.ts
 * hands that implementation to the adapters, so core never depends on an area.
 *
 * `admit` is one round trip to the account's AccountQuota object, which verifies the key, checks
 * per-minute → API_CALLS → the action's metric and consumes them, and answers the principal.
 * Input is validated before it (validation needs no storage), so a malformed request never
 * reaches the object.
 */
export interface Gate {
  /**
   * The account a key names and the key's SHA-256, without asking any object (a tagged key is
   * checked by its tag; one from before tags costs a D1 read per isolate), or null for a key no
   * account has. Says nothing about whether the key still works: only admit and verify decide.
   */
  route(env: Env, key: string): Promise<{ ownerId: string; keyHash: string } | null>;
  /** Throws UNAUTHENTICATED (unknown or revoked key) or RATE_LIMITED (the contract's 429). */
  admit(env: Env, key: string, want: AdmitRequest): Promise<Admitted>;
  /**
   * The same round trip for requests that need the caller but no quota (a public operation called
   * with a key): the key only. Throws UNAUTHENTICATED.
   */
  verify(env: Env, key: string): Promise<Verified>;
  /**
   * Counts the action's metric for an owner's own request (a dashboard session, not a key: a skill
   * publish), in the same account object, against the plan's daily limit, without the agent limits
   * (per-minute, API_CALLS). Throws RATE_LIMITED (the contract's 429); answers the quota after it.
   */
  charge(env: Env, ownerId: string, metric: Metric): Promise<Admission>;
  /** Gives a charge back after the owner's action failed; awaited before the answer. */
  uncharge(env: Env, ownerId: string, charged: Admission, metric: Metric): Promise<void>;
  /** Gives the action's metric back after the action failed; awaited before the answer. */
  refund(env: Env, admitted: Admitted, metric: Metric | null): Promise<void>;
  /** Records the D1 bookmark of a write made for the account, so its next requests read it. */
  remember(env: Env, admitted: Admitted, bookmark: string): Promise<void>;
  /** `RateLimit-Policy` and `RateLimit` for a counted response. */
  headers(admission: Admission): Record<string, string>;
}
