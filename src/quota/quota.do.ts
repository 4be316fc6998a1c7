import { DurableObject } from "cloudflare:workers";
import { now, nextUtcMidnight, utcDay, DAY_MS } from "../core/clock";
import { METRICS, PLANS, type Metric, type PlanId } from "./plans";
import type { AdmitRequest, AdmitResult, HistoryDay, RateWindow, UsageSnapshot } from "./quota.schemas";

const WINDOW_MS = 60_000;
const HISTORY_DAYS = 400;

/**
 * One per account (shared by all its agents). Every check-and-consume runs inside one synchronous
 * storage transaction with no outside I/O in between, and a Durable Object runs one such call at a
 * time, so parallel requests can never admit more than a limit.
 *
 * Storage: `counters(day, metric, used)` per UTC day (the history comes from the same rows) and
 * `admitted(ts)`, the timestamps of requests admitted in the last 60 seconds (the rolling window).
 */
export class AccountQuota extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS counters (
      day TEXT NOT NULL, metric TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (day, metric))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS admitted (id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL)`);
  }

  admit(req: AdmitRequest): AdmitResult {
    return this.ctx.storage.transactionSync(() => {
      const t = now();
      const day = utcDay(t);
      const plan = PLANS[req.plan];
      this.sql.exec("DELETE FROM admitted WHERE ts <= ?", t - WINDOW_MS);
      const refuse = (metric: Metric | "PER_MINUTE", limit: number, retryAfterSeconds: number): AdmitResult => ({
        ok: false,
        plan: req.plan,
        metric,
        limit,
        retryAfterSeconds,
        resetsAt: new Date(nextUtcMidnight(t)).toISOString(),
        window: this.window(plan.perMinute, t),
      });
      const untilMidnight = Math.max(1, Math.ceil((nextUtcMidnight(t) - t) / 1000));

      if (req.counted) {
        const w = this.window(plan.perMinute, t);
        if (w.remaining <= 0) return refuse("PER_MINUTE", plan.perMinute, w.resetSeconds);
        const apiLimit = plan.daily.API_CALLS;
        if (apiLimit !== null && this.used(day, "API_CALLS") >= apiLimit) {
          return refuse("API_CALLS", apiLimit, untilMidnight);
        }
      }
      if (req.metric && req.metric !== "API_CALLS") {
        const limit = plan.daily[req.metric];
        if (limit !== null && this.used(day, req.metric) >= limit) return refuse(req.metric, limit, untilMidnight);
      }

      const metrics: AdmitResult & { ok: true } = {
        ok: true,
        day,
        plan: req.plan,
        window: undefined as unknown as RateWindow,
        metrics: {},
      };
      if (req.counted) {
        this.sql.exec("INSERT INTO admitted (ts) VALUES (?)", t);
        metrics.metrics.API_CALLS = { used: this.bump(day, "API_CALLS", 1), limit: plan.daily.API_CALLS };
      }
      if (req.metric && req.metric !== "API_CALLS") {
        metrics.metrics[req.metric] = { used: this.bump(day, req.metric, 1), limit: plan.daily[req.metric] };
      }
      metrics.window = this.window(plan.perMinute, t);
      return metrics;
    });
  }

  /** Gives back a reserved action metric when the action failed. Only that day's counter moves. */
  refund(day: string, metric: Metric): void {
    this.sql.exec("UPDATE counters SET used = used - 1 WHERE day = ? AND metric = ? AND used > 0", day, metric);
  }

  usage(planId: PlanId): UsageSnapshot {
    const t = now();
    const day = utcDay(t);
    const plan = PLANS[planId];
    this.sql.exec("DELETE FROM admitted WHERE ts <= ?", t - WINDOW_MS);
    const used = Object.fromEntries(METRICS.map((m) => [m, 0])) as Record<Metric, number>;
    for (const row of this.sql.exec<{ metric: string; used: number }>(
      "SELECT metric, used FROM counters WHERE day = ?",
      day,
    )) {
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
    this.sql.exec("DELETE FROM counters WHERE day < ?", utcDay(t - HISTORY_DAYS * DAY_MS));
    const byDay = new Map<string, Record<Metric, number>>();
    for (let i = 0; i < days; i++) {
      byDay.set(utcDay(t - i * DAY_MS), Object.fromEntries(METRICS.map((m) => [m, 0])) as Record<Metric, number>);
    }
    for (const row of this.sql.exec<{ day: string; metric: string; used: number }>(
      "SELECT day, metric, used FROM counters WHERE day >= ?",
      from,
    )) {
      const rec = byDay.get(row.day);
      if (rec && row.metric in rec) rec[row.metric as Metric] = row.used;
    }
    return [...byDay].map(([date, metrics]) => ({ date, metrics }));
  }

  private used(day: string, metric: Metric): number {
    const row = this.sql.exec<{ used: number }>("SELECT used FROM counters WHERE day = ? AND metric = ?", day, metric).toArray()[0];
    return row?.used ?? 0;
  }

  private bump(day: string, metric: Metric, by: number): number {
    const row = this.sql
      .exec<{ used: number }>(
        `INSERT INTO counters (day, metric, used) VALUES (?, ?, ?)
         ON CONFLICT (day, metric) DO UPDATE SET used = used + excluded.used RETURNING used`,
        day,
        metric,
        by,
      )
      .one();
    return row.used;
  }

  private window(limit: number, t: number): RateWindow {
    const row = this.sql
      .exec<{ n: number; oldest: number | null }>("SELECT COUNT(*) AS n, MIN(ts) AS oldest FROM admitted")
      .one();
    const resetSeconds = row.oldest === null ? 0 : Math.max(1, Math.ceil((row.oldest + WINDOW_MS - t) / 1000));
    return { limit, remaining: Math.max(0, limit - row.n), resetSeconds };
  }
}
