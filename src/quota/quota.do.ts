import { DurableObject } from "cloudflare:workers";
import { now, nextUtcMidnight, utcDay, DAY_MS } from "../core/clock";
import { METRICS, PLANS, PLAN_IDS, type Metric, type PlanId } from "./plans";
import type { AdmitRequest, AdmitResult, HistoryDay, MetricState, RateWindow, UsageSnapshot } from "./quota.schemas";

export const WINDOW_MS = 60_000;
/** Longest history kept; GET /usage/history reads at most 90 days. */
const HISTORY_DAYS = 400;

/**
 * One per account (shared by all its agents). Every check-and-consume runs inside one synchronous
 * storage transaction with no outside I/O in between, and a Durable Object runs one such call at a
 * time, so parallel requests can never admit more than a limit.
 *
 * Storage:
 * - `counters(day, metric, used)`: per UTC day; today's rows are the quota, older rows the history.
 * - `days(day, plan)`: the plan whose limits applied that day (for the history).
 * - `admitted(ts)`: timestamps of requests admitted in the last 60 s (the rolling window). A
 *   rolling log, not a fixed or approximated window: it is the only form that guarantees no
 *   60-second span ever holds more than perMinute admissions, and it is at most perMinute rows.
 */
export class AccountQuota extends DurableObject {
  private readonly sql: SqlStorage;
  private prunedDay: string | null = null;
  /** `day|plan` last written to `days`, so the hot path skips a write that would change nothing. */
  private recordedPlan: string | null = null;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS counters (
      day TEXT NOT NULL, metric TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (day, metric))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS days (day TEXT PRIMARY KEY, plan TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS admitted (id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL)`);
  }

  /**
   * Checks per-minute → API_CALLS → the action's own metric and, only when all pass, consumes
   * them: a refused request consumes nothing. The own metric is a reservation that `refund`
   * returns when the action fails.
   */
  admit(req: AdmitRequest): AdmitResult {
    return this.ctx.storage.transactionSync((): AdmitResult => {
      const t = now();
      const day = utcDay(t);
      const plan = PLANS[req.plan];
      const resetsAt = new Date(nextUtcMidnight(t)).toISOString();
      this.expire(t);
      const api = (): MetricState => ({ used: this.used(day, "API_CALLS"), limit: plan.daily.API_CALLS });
      const untilMidnight = Math.max(1, Math.ceil((nextUtcMidnight(t) - t) / 1000));
      const refuse = (metric: Metric | "PER_MINUTE", limit: number, retryAfterSeconds: number): AdmitResult => ({
        ok: false,
        plan: req.plan,
        metric,
        limit,
        retryAfterSeconds,
        resetsAt,
        window: this.window(plan.perMinute, t),
        metrics: { API_CALLS: api() },
      });

      let w: RateWindow | null = null;
      if (req.counted) {
        w = this.window(plan.perMinute, t);
        if (w.remaining <= 0) return refuse("PER_MINUTE", plan.perMinute, this.secondsUntilSlot(plan.perMinute, t));
        const apiLimit = plan.daily.API_CALLS;
        if (apiLimit !== null && this.used(day, "API_CALLS") >= apiLimit) return refuse("API_CALLS", apiLimit, untilMidnight);
      }
      const own = req.metric && req.metric !== "API_CALLS" ? req.metric : null;
      if (own) {
        const limit = plan.daily[own];
        if (limit !== null && this.used(day, own) >= limit) return refuse(own, limit, untilMidnight);
      }

      const metrics: Partial<Record<Metric, MetricState>> = {};
      if (req.counted) {
        this.sql.exec("INSERT INTO admitted (ts) VALUES (?)", t);
        metrics.API_CALLS = { used: this.bump(day, "API_CALLS"), limit: plan.daily.API_CALLS };
      } else {
        metrics.API_CALLS = api();
      }
      if (own) metrics[own] = { used: this.bump(day, own), limit: plan.daily[own] };
      if ((req.counted || own) && this.recordedPlan !== `${day}|${req.plan}`) {
        this.prune(t);
        this.sql.exec(
          `INSERT INTO days (day, plan) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET plan = excluded.plan
            WHERE plan <> excluded.plan`,
          day,
          req.plan,
        );
        this.recordedPlan = `${day}|${req.plan}`;
      }
      // The window after this admission, without reading it again: one more row, and if it was
      // empty that row (stamped now) is the oldest, leaving in 60 s.
      const window: RateWindow = w
        ? { limit: w.limit, remaining: Math.max(0, w.remaining - 1), resetSeconds: w.resetSeconds || WINDOW_MS / 1000 }
        : this.window(plan.perMinute, t);
      return { ok: true, day, plan: req.plan, resetsAt, window, metrics };
    });
  }

  /** The cheapest possible call: the bench's floor for one Durable Object round trip (src/admin/bench.route.ts). */
  ping(): number {
    return 1;
  }

  /** Gives back a reserved action metric when the action failed. Only that day's counter moves. */
  refund(day: string, metric: Metric): void {
    this.sql.exec("UPDATE counters SET used = used - 1 WHERE day = ? AND metric = ? AND used > 0", day, metric);
  }

  usage(planId: PlanId): UsageSnapshot {
    const t = now();
    const day = utcDay(t);
    const plan = PLANS[planId];
    this.expire(t);
    const used = Object.fromEntries(METRICS.map((m) => [m, 0])) as Record<Metric, number>;
    for (const row of this.sql.exec<{ metric: string; used: number }>("SELECT metric, used FROM counters WHERE day = ?", day)) {
      if (row.metric in used) used[row.metric as Metric] = row.used;
    }
    return {
      day,
      plan: planId,
      perMinute: plan.perMinute,
      resetsAt: new Date(nextUtcMidnight(t)).toISOString(),
      window: this.window(plan.perMinute, t),
      used,
    };
  }

  /** The last `days` UTC days, newest first, today included, zeros for days without use. */
  history(days: number): HistoryDay[] {
    const t = now();
    const from = utcDay(t - (days - 1) * DAY_MS);
    this.prune(t);
    const byDay = new Map<string, HistoryDay>();
    for (let i = 0; i < days; i++) {
      const date = utcDay(t - i * DAY_MS);
      byDay.set(date, { date, plan: null, metrics: Object.fromEntries(METRICS.map((m) => [m, 0])) as Record<Metric, number> });
    }
    for (const row of this.sql.exec<{ day: string; metric: string; used: number }>(
      "SELECT day, metric, used FROM counters WHERE day >= ?",
      from,
    )) {
      const rec = byDay.get(row.day);
      if (rec && row.metric in rec.metrics) rec.metrics[row.metric as Metric] = row.used;
    }
    for (const row of this.sql.exec<{ day: string; plan: string }>("SELECT day, plan FROM days WHERE day >= ?", from)) {
      const rec = byDay.get(row.day);
      if (rec && (PLAN_IDS as readonly string[]).includes(row.plan)) rec.plan = row.plan as PlanId;
    }
    return [...byDay.values()];
  }

  /** Drops history older than HISTORY_DAYS, once per UTC day per instance (not on every read). */
  private prune(t: number): void {
    const day = utcDay(t);
    if (this.prunedDay === day) return;
    const horizon = utcDay(t - HISTORY_DAYS * DAY_MS);
    this.sql.exec("DELETE FROM counters WHERE day < ?", horizon);
    this.sql.exec("DELETE FROM days WHERE day < ?", horizon);
    this.prunedDay = day;
  }

  /**
   * Drops admissions that left the window. Rows stamped after `t` go too: only a clock moved
   * backwards (tests) produces them, and they must not pin the window shut.
   */
  private expire(t: number): void {
    this.sql.exec("DELETE FROM admitted WHERE ts <= ? OR ts > ?", t - WINDOW_MS, t);
  }

  private used(day: string, metric: Metric): number {
    const row = this.sql.exec<{ used: number }>("SELECT used FROM counters WHERE day = ? AND metric = ?", day, metric).toArray()[0];
    return row?.used ?? 0;
  }

  private bump(day: string, metric: Metric): number {
    return this.sql
      .exec<{ used: number }>(
        `INSERT INTO counters (day, metric, used) VALUES (?, ?, 1)
         ON CONFLICT (day, metric) DO UPDATE SET used = used + 1 RETURNING used`,
        day,
        metric,
      )
      .one().used;
  }

  /**
   * Seconds until one more request fits: until the oldest admission leaves the window, or, when
   * the window holds more than `limit` (the plan was just lowered), until enough of them have left.
   */
  private secondsUntilSlot(limit: number, t: number): number {
    const n = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM admitted").one().n;
    const row = this.sql
      .exec<{ ts: number }>("SELECT ts FROM admitted ORDER BY ts, id LIMIT 1 OFFSET ?", Math.max(0, n - limit))
      .toArray()[0];
    return row ? Math.max(1, Math.ceil((row.ts + WINDOW_MS - t) / 1000)) : 1;
  }

  private window(limit: number, t: number): RateWindow {
    const row = this.sql
      .exec<{ n: number; oldest: number | null }>("SELECT COUNT(*) AS n, MIN(ts) AS oldest FROM admitted")
      .one();
    const resetSeconds = row.oldest === null ? 0 : Math.max(1, Math.ceil((row.oldest + WINDOW_MS - t) / 1000));
    return { limit, remaining: Math.max(0, limit - row.n), resetSeconds };
  }
}
