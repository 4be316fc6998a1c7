import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { now, nextUtcMidnight, utcDay, DAY_MS } from "../core/clock";
import type { Admission, Counting, MetricState, RateWindow } from "../core/admission";
import type { AgentPrincipal } from "../core/principal";
import { METRICS, PLANS, PLAN_IDS, effectivePlan, type Metric, type PlanId } from "./plans";
import type {
  AccountAdmit,
  AccountAdmitResult,
  AccountChargeResult,
  AccountPlanResult,
  AccountVerifyResult,
  HistoryDay,
  Refusal,
  UsageSnapshot,
} from "./quota.schemas";

export const WINDOW_MS = 60_000;
/** Longest history kept; GET /usage/history reads at most 90 days. */
const HISTORY_DAYS = 400;
/**
 * The account copy (plan, live keys) is read again from D1 once it is this old. Every change of
 * it tells the object at once; this only bounds how long a change the object could not be told
 * about (it was unreachable, and that request answered 500) stays unseen.
 */
export const COPY_MAX_AGE_MS = 3_600_000;
/** Rows of `admitted` that left the window are deleted once this many have (at most this many more rows are stored). */
const STALE_ROWS_BATCH = 32;
/** An owner id that does not exist is remembered this long, so made-up keys do not each cost a D1 read. */
const MISSING_TTL_MS = 60_000;

interface KeyRow {
  agentId: string;
  handle: string;
  prefix: string;
}
interface AccountRow {
  ownerId: string;
  plan: string;
  status: string;
  periodEnd: number | null;
  loadedAt: number;
}

/**
 * One per account (shared by all its agents): the one stop of every agent request. It verifies the
 * key and admits the request in one call, so a request reaches no other storage before its own
 * work. Every check-and-consume runs inside one synchronous storage transaction with no outside I/O
 * in between, and a Durable Object runs one such call at a time, so parallel requests can never
 * admit more than a limit.
 *
 * Storage:
 * - `account` (one row) and `keys`: a copy of the account's plan and period and of the SHA-256 of
 *   each live key with its agent, handle and display prefix. D1 stays the source of record: every
 *   change there (keys, agents, plan) tells this object before it is answered (`refresh`), and an
 *   object that holds nothing reads its account from D1 on first use.
 * - `counters(day, metric, used)`: per UTC day; today's rows are the quota, older rows the history.
 * - `days(day, plan)`: the plan whose limits applied that day (for the history).
 * - `admitted(ts)`: timestamps of requests admitted in the last 60 s (the rolling window). A
 *   rolling log, not a fixed or approximated window: it is the only form that guarantees no
 *   60-second span ever holds more than perMinute admissions, and it is at most perMinute rows.
 *
 * The window and today's counters are also held in memory, written through to SQLite in the same
 * transaction as each change, so an admission runs two or three writes and no reads.
 * - `bookmark`: the newest D1 bookmark of a write made for the account, where its requests' D1
 *   sessions start (so an agent reads its own writes from any replica).
 */
export class AccountQuota extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private prunedDay: string | null = null;
  /** `day|plan` last written to `days`, so the hot path skips a write that would change nothing. */
  private recordedPlan: string | null = null;
  private account: AccountRow | null = null;
  private keys = new Map<string, KeyRow>();
  private bookmark: string | null = null;
  private missingUntil = 0;
  /** The `admitted` rows in the window, ascending (expired ones dropped as they are seen). */
  private admittedTs: number[] = [];
  /** Rows of `admitted` that left the window but are still stored (expire deletes them in batches). */
  private staleRows = 0;
  /** Today's `counters` rows. */
  private counts: { day: string; used: Record<Metric, number> } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS counters (
      day TEXT NOT NULL, metric TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (day, metric))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS days (day TEXT PRIMARY KEY, plan TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS admitted (id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS account (
      id INTEGER PRIMARY KEY CHECK (id = 1), owner_id TEXT NOT NULL, plan TEXT NOT NULL, status TEXT NOT NULL,
      period_end INTEGER, loaded_at INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS keys (
      hash TEXT PRIMARY KEY, agent_id TEXT NOT NULL, handle TEXT NOT NULL, prefix TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS bookmark (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL)`);
    this.readCopy();
    this.admittedTs = this.sql
      .exec<{ ts: number }>("SELECT ts FROM admitted ORDER BY ts, id")
      .toArray()
      .map((r) => r.ts);
  }

  /**
   * The one call of an agent request: verifies the key (by its SHA-256) against the account's live
   * keys, then checks per-minute → API_CALLS → the action's own metric and, only when all pass,
   * consumes them (a refused request consumes nothing). The own metric is a reservation that
   * `refund` returns when the action fails. Answers the principal, the quota after this request
   * and the account's D1 bookmark.
   *
   * With `renewDue` (the local billing provider renews lazily), an ACTIVE paid plan whose period
   * has ended is not admitted under: the answer asks the caller to settle the subscription in D1
   * first (which tells this object the new period) and to ask again.
   */
  async admit(req: AccountAdmit): Promise<AccountAdmitResult> {
    if (!(await this.ready(req.ownerId))) return { ok: false, reason: "unauthenticated" };
    const key = this.keys.get(req.keyHash);
    if (!key) return { ok: false, reason: "unauthenticated" };
    const acct = this.account!;
    const t = now();
    if (req.renewDue && renewalDue(acct, t)) return { ok: false, reason: "settle" };
    const r = this.check(effectivePlan(acct.plan, acct.periodEnd, t), req.metric, req.counted, t);
    if (!r.ok) return { ok: false, reason: "limited", refusal: r.refusal };
    return { ok: true, caller: this.principal(key), admission: r.admission, bookmark: this.bookmark };
  }

  private principal(key: KeyRow): AgentPrincipal {
    const acct = this.account!;
    return {
      kind: "agent",
      agentId: key.agentId,
      handle: key.handle,
      ownerId: acct.ownerId,
      plan: acct.plan,
      planPeriodEnd: acct.periodEnd,
      planStatus: acct.status,
      keyPrefix: key.prefix,
    };
  }

  /** The key only: the principal and the bookmark, nothing read or counted (requests that cost nothing). */
  async verify(req: { ownerId: string; keyHash: string }): Promise<AccountVerifyResult> {
    if (!(await this.ready(req.ownerId))) return { ok: false };
    const key = this.keys.get(req.keyHash);
    if (!key) return { ok: false };
    return { ok: true, caller: this.principal(key), bookmark: this.bookmark };
  }

  /**
   * An owner's own metered action (a skill publish from the dashboard): the metric only, against
   * the plan's daily limit, in the same transaction rules as `admit` (no per-minute slot, no API call).
   */
  async charge(req: { ownerId: string; metric: Metric; renewDue: boolean }): Promise<AccountChargeResult> {
    if (!(await this.ready(req.ownerId))) return { ok: false, reason: "unknown" };
    const acct = this.account!;
    const t = now();
    if (req.renewDue && renewalDue(acct, t)) return { ok: false, reason: "settle" };
    const r = this.check(effectivePlan(acct.plan, acct.periodEnd, t), req.metric, false, t);
    return r.ok ? { ok: true, admission: r.admission } : { ok: false, reason: "limited", refusal: r.refusal };
  }

  /** The plan whose limits apply to the account now (the owner's dashboard), with the same renewal rule as `admit`. */
  async plan(req: { ownerId: string; renewDue: boolean }): Promise<AccountPlanResult> {
    if (!(await this.ready(req.ownerId))) return { ok: false, reason: "unknown" };
    const acct = this.account!;
    const t = now();
    if (req.renewDue && renewalDue(acct, t)) return { ok: false, reason: "settle" };
    return { ok: true, plan: effectivePlan(acct.plan, acct.periodEnd, t) };
  }

  /**
   * D1 changed for this account (a key or an agent created, revoked or deleted; the plan changed):
   * read the copy again before answering, so the very next request sees the change.
   */
  async refresh(ownerId: string): Promise<void> {
    if (this.account && this.account.ownerId !== ownerId) return;
    await this.load(ownerId);
  }

  /** Records the D1 bookmark of a write made for the account; bookmarks sort in time order, the newest is kept. */
  remember(bookmark: string): void {
    if (this.bookmark !== null && bookmark <= this.bookmark) return;
    this.sql.exec("INSERT INTO bookmark (id, value) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET value = excluded.value", bookmark);
    this.bookmark = bookmark;
  }

  /** Gives back a reserved action metric when the action failed. Only that day's counter moves. */
  refund(day: string, metric: Metric): void {
    this.sql.exec("UPDATE counters SET used = used - 1 WHERE day = ? AND metric = ? AND used > 0", day, metric);
    if (this.counts?.day === day) this.counts.used[metric] = Math.max(0, this.counts.used[metric] - 1);
  }

  /** The cheapest possible call: the bench's floor for one Durable Object round trip (src/admin/bench.route.ts). */
  ping(): number {
    return 1;
  }

  /**
   * The bench's floor for an admission (src/admin/bench.route.ts): the same counting transaction
   * `admit` runs, on the floor's own object (no account, no key: those are read from memory).
   */
  benchAdmit(metric: Metric | null, counted: Counting): boolean {
    return this.check("EXPERT", metric, counted, now()).ok;
  }

  usage(planId: PlanId): UsageSnapshot {
    const t = now();
    const day = utcDay(t);
    const plan = PLANS[planId];
    this.expire(t);
    return {
      day,
      plan: planId,
      perMinute: plan.perMinute,
      resetsAt: new Date(nextUtcMidnight(t)).toISOString(),
      window: this.window(plan.perMinute, t),
      used: this.today(day),
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
      byDay.set(date, { date, plan: null, metrics: zeros() });
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

  /**
   * Checks and consumes in one synchronous transaction: per-minute → API_CALLS → the own metric.
   * `counted` true takes a per-minute slot and an API call, "minute" the slot only, false neither.
   * Today's counters are read once; the window after admission is derived, not read again.
   */
  private check(
    planId: PlanId,
    metric: Metric | null,
    counted: Counting,
    t: number,
  ): { ok: true; admission: Admission } | { ok: false; refusal: Refusal } {
    const slot = counted !== false;
    const call = counted === true;
    // A free request writes nothing (unless the window has rows to drop): no transaction needed.
    const run = <T>(fn: () => T): T => (slot || metric ? this.ctx.storage.transactionSync(fn) : fn());
    return run(() => {
      const day = utcDay(t);
      const plan = PLANS[planId];
      const resetsAt = new Date(nextUtcMidnight(t)).toISOString();
      this.expire(t);
      const used = { ...this.today(day) };
      const win = this.window(plan.perMinute, t);
      const untilMidnight = Math.max(1, Math.ceil((nextUtcMidnight(t) - t) / 1000));
      const api = (): MetricState => ({ used: used.API_CALLS, limit: plan.daily.API_CALLS });
      const refuse = (m: Metric | "PER_MINUTE", limit: number, retryAfterSeconds: number) => ({
        ok: false as const,
        refusal: { plan: planId, metric: m, limit, retryAfterSeconds, resetsAt, window: win, metrics: { API_CALLS: api() } },
      });
      if (slot && win.remaining <= 0) return refuse("PER_MINUTE", plan.perMinute, this.secondsUntilSlot(plan.perMinute, t));
      if (call) {
        const apiLimit = plan.daily.API_CALLS;
        if (apiLimit !== null && used.API_CALLS >= apiLimit) return refuse("API_CALLS", apiLimit, untilMidnight);
      }
      const own = metric && metric !== "API_CALLS" ? metric : null;
      if (own) {
        const limit = plan.daily[own];
        if (limit !== null && used[own] >= limit) return refuse(own, limit, untilMidnight);
      }

      if (slot) this.sql.exec("INSERT INTO admitted (ts) VALUES (?)", t);
      this.bump(day, call ? "API_CALLS" : null, own);
      if (call) used.API_CALLS += 1;
      if (own) used[own] += 1;
      if ((call || own) && this.recordedPlan !== `${day}|${planId}`) {
        this.prune(t);
        this.sql.exec(
          `INSERT INTO days (day, plan) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET plan = excluded.plan
            WHERE plan <> excluded.plan`,
          day,
          planId,
        );
        this.recordedPlan = `${day}|${planId}`;
      }
      const metrics: Partial<Record<Metric, MetricState>> = { API_CALLS: api() };
      if (own) metrics[own] = { used: used[own], limit: plan.daily[own] };
      // The window after this admission, without reading it again: one more row, and if it was
      // empty that row (stamped now) is the oldest, leaving in 60 s.
      const window: RateWindow = slot
        ? { limit: win.limit, remaining: Math.max(0, win.remaining - 1), resetSeconds: win.resetSeconds || WINDOW_MS / 1000 }
        : win;
      // Memory follows only once every write of the transaction has gone through.
      if (slot) this.admittedTs.push(t);
      this.counts = { day, used: { ...used } };
      return { ok: true as const, admission: { day, plan: planId, resetsAt, window, metrics, used } };
    });
  }

  /** The account copy is usable: loaded (from this object's storage or, when it holds nothing or is old, from D1). */
  private async ready(ownerId: string): Promise<boolean> {
    const t = now();
    if (this.account) {
      // Named by its owner id, so another id never reaches it; if one did, it would not be this account.
      if (this.account.ownerId !== ownerId) return false;
      if (t - this.account.loadedAt < COPY_MAX_AGE_MS && t >= this.account.loadedAt) return true;
    } else if (t < this.missingUntil) {
      return false;
    }
    await this.load(ownerId);
    return this.account !== null && this.account.ownerId === ownerId;
  }

  /**
   * Reads the account from D1 (the primary: plain binding, no session) and replaces the copy. No
   * other call runs meanwhile (blockConcurrencyWhile), so a change told to the object while it
   * reads cannot be overwritten by an older read: writers change D1 first and tell the object
   * after, and that call waits for this one.
   */
  private async load(ownerId: string): Promise<void> {
    let failure: unknown = null;
    await this.ctx.blockConcurrencyWhile(async () => {
      try {
        const [owner, keys] = await this.env.DB.batch([
          this.env.DB.prepare("SELECT plan, plan_status, plan_period_end FROM owners WHERE id = ?").bind(ownerId),
          this.env.DB.prepare(
            `SELECT k.key_hash, k.prefix, k.agent_id, a.handle
               FROM agents a JOIN api_keys k ON k.agent_id = a.id
              WHERE a.owner_id = ? AND a.deleted_at IS NULL AND k.revoked_at IS NULL`,
          ).bind(ownerId),
        ]);
        const o = (owner!.results as { plan: string; plan_status: string; plan_period_end: number | null }[])[0];
        const t = now();
        if (!o) {
          this.missingUntil = t + MISSING_TTL_MS;
          return;
        }
        const rows = keys!.results as { key_hash: string; prefix: string; agent_id: string; handle: string }[];
        this.ctx.storage.transactionSync(() => {
          this.sql.exec(
            `INSERT INTO account (id, owner_id, plan, status, period_end, loaded_at) VALUES (1, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET owner_id = excluded.owner_id, plan = excluded.plan, status = excluded.status,
               period_end = excluded.period_end, loaded_at = excluded.loaded_at`,
            ownerId,
            o.plan,
            o.plan_status,
            o.plan_period_end,
            t,
          );
          this.sql.exec("DELETE FROM keys");
          for (const k of rows)
            this.sql.exec(
              "INSERT INTO keys (hash, agent_id, handle, prefix) VALUES (?, ?, ?, ?)",
              k.key_hash,
              k.agent_id,
              k.handle,
              k.prefix,
            );
        });
        this.missingUntil = 0;
        this.readCopy();
      } catch (err) {
        // Thrown out of blockConcurrencyWhile it would reset the object; the caller gets it instead.
        failure = err;
      }
    });
    if (failure) throw failure;
  }

  /** The account copy from this object's own storage into memory. */
  private readCopy(): void {
    const a = this.sql
      .exec<{ owner_id: string; plan: string; status: string; period_end: number | null; loaded_at: number }>(
        "SELECT owner_id, plan, status, period_end, loaded_at FROM account WHERE id = 1",
      )
      .toArray()[0];
    this.account = a ? { ownerId: a.owner_id, plan: a.plan, status: a.status, periodEnd: a.period_end, loadedAt: a.loaded_at } : null;
    this.keys = new Map();
    for (const k of this.sql.exec<{ hash: string; agent_id: string; handle: string; prefix: string }>(
      "SELECT hash, agent_id, handle, prefix FROM keys",
    )) {
      this.keys.set(k.hash, { agentId: k.agent_id, handle: k.handle, prefix: k.prefix });
    }
    this.bookmark = this.sql.exec<{ value: string }>("SELECT value FROM bookmark WHERE id = 1").toArray()[0]?.value ?? null;
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
    const from = t - WINDOW_MS;
    const ts = this.admittedTs;
    // Ascending: the rows that left the window are a prefix, rows stamped after `t` a suffix.
    let lo = 0;
    while (lo < ts.length && ts[lo]! <= from) lo++;
    let hi = ts.length;
    while (hi > lo && ts[hi - 1]! > t) hi--;
    if (lo === 0 && hi === ts.length) return;
    this.admittedTs = ts.slice(lo, hi);
    this.staleRows += lo;
    // Rows that left the window are only memory's to drop at once: stored, they are dropped again
    // as soon as they are read back, so they are deleted STALE_ROWS_BATCH at a time rather than in
    // a statement (a scan of the table) on almost every admission of a busy account.
    if (hi < ts.length || this.staleRows >= STALE_ROWS_BATCH) {
      this.sql.exec("DELETE FROM admitted WHERE ts <= ? OR ts > ?", from, t);
      this.staleRows = 0;
    }
  }

  /** Every daily counter of `day` (zeros for metrics not used yet): read once a day, then kept. */
  private today(day: string): Record<Metric, number> {
    if (this.counts?.day === day) return this.counts.used;
    const used = zeros();
    for (const row of this.sql.exec<{ metric: string; used: number }>("SELECT metric, used FROM counters WHERE day = ?", day)) {
      if (row.metric in used) used[row.metric as Metric] = row.used;
    }
    this.counts = { day, used };
    return used;
  }

  /** One more of each metric given on `day`, in one statement (an agent call counts API_CALLS and its own metric). */
  private bump(day: string, a: Metric | null, b: Metric | null): void {
    const [m1, m2] = a && b ? [a, b] : [a ?? b, null];
    if (!m1) return;
    if (m2)
      this.sql.exec(
        `INSERT INTO counters (day, metric, used) VALUES (?1, ?2, 1), (?1, ?3, 1)
         ON CONFLICT (day, metric) DO UPDATE SET used = used + 1`,
        day,
        m1,
        m2,
      );
    else
      this.sql.exec(
        `INSERT INTO counters (day, metric, used) VALUES (?, ?, 1)
         ON CONFLICT (day, metric) DO UPDATE SET used = used + 1`,
        day,
        m1,
      );
  }

  /**
   * Seconds until one more request fits: until the oldest admission leaves the window, or, when
   * the window holds more than `limit` (the plan was just lowered), until enough of them have left.
   */
  private secondsUntilSlot(limit: number, t: number): number {
    const ts = this.admittedTs[Math.max(0, this.admittedTs.length - limit)];
    return ts === undefined ? 1 : Math.max(1, Math.ceil((ts + WINDOW_MS - t) / 1000));
  }

  private window(limit: number, t: number): RateWindow {
    const oldest = this.admittedTs[0];
    const resetSeconds = oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + WINDOW_MS - t) / 1000));
    return { limit, remaining: Math.max(0, limit - this.admittedTs.length), resetSeconds };
  }
}

const zeros = () => Object.fromEntries(METRICS.map((m) => [m, 0])) as Record<Metric, number>;

/** An ACTIVE paid plan whose period has ended: the local provider renews it before admitting under it. */
const renewalDue = (a: AccountRow, t: number) => a.status === "ACTIVE" && a.plan !== "FREE" && a.periodEnd !== null && t >= a.periodEnd;
