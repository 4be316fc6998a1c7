import { LruCache } from "./cache";
import { newId } from "./crypto";
import { WRITES } from "./d1";

/**
 * The floors of `npm run bench` that do a request's own storage work, and nothing else. Where
 * `BENCH_ROUTES` is "1" (only the bench's own `wrangler dev`), a request that names a slot
 * (`x-lore-bench-slot`) runs with a D1 binding that records every batch and statement it sends (SQL
 * and bound values, through its sessions too) under that slot; `/internal/bench/replay?slot=…`
 * sends them again. A scenario's CPU above that floor is the Worker's own work: validating,
 * matching, building and serialising. The bench's CPU is the whole workerd process, D1's SQLite
 * included, while a deployed Worker's CPU is its isolate's alone (D1 runs elsewhere): a floor of
 * `SELECT 1` counted the scenario's real queries as the Worker's.
 */
interface Recorded {
  sql: string;
  binds: unknown[];
}

const recorded = new LruCache<string, Recorded[][]>({ maxEntries: 2000 });

/** The bench's header naming a request's slot (at most 100 characters). */
export const BENCH_SLOT_HEADER = "x-lore-bench-slot";

/**
 * A write replayed must do the same work, not fail: the activity row's key is made per request
 * (`act_…`), so a replay binds a new one. Writes are replayed only where the bench asks
 * (`writes=1`: sync, whose other writes are upserts and INSERT OR IGNOREs of rows that exist in
 * the steady state it measures); a new thread or post would collide with the one it copies.
 */
const freshKey = (v: unknown) => (typeof v === "string" && /^act_[0-9A-Za-z]+$/.test(v) ? newId("act_") : v);

/** A D1 binding whose work (its sessions' too) is this slot's record, replacing the slot's last one. */
export function recordingDb(slot: string, db: D1Database): D1Database {
  const batches: Recorded[][] = [];
  recorded.set(slot.slice(0, 100), batches);
  return recorder(db, batches);
}

function recorder<D extends D1Database | D1DatabaseSession>(db: D, batches: Recorded[][]): D {
  // Keyed by the wrapper the caller holds (what it hands to batch), with the statement it stands for.
  const meta = new WeakMap<D1PreparedStatement, { real: D1PreparedStatement; r: Recorded }>();
  const wrap = (stmt: D1PreparedStatement, r: Recorded): D1PreparedStatement => {
    const bind = stmt.bind.bind(stmt);
    const note =
      <K extends "first" | "all" | "run" | "raw">(k: K) =>
      (...args: unknown[]) => {
        batches.push([r]);
        return (stmt[k] as (...a: unknown[]) => unknown)(...args);
      };
    const proxy = new Proxy(stmt, {
      get(target, p) {
        if (p === "bind") return (...values: unknown[]) => wrap(bind(...values), { sql: r.sql, binds: values });
        if (p === "first" || p === "all" || p === "run" || p === "raw") return note(p);
        const v = Reflect.get(target, p);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    meta.set(proxy, { real: stmt, r });
    return proxy;
  };
  return new Proxy(db, {
    get(target, p) {
      if (p === "prepare") return (sql: string) => wrap(target.prepare(sql), { sql, binds: [] });
      if (p === "batch")
        return (stmts: D1PreparedStatement[]) => {
          const ms = stmts.map((s) => meta.get(s));
          // Every statement of a batch is one this binding made (a request makes them all here).
          if (ms.every((m) => m)) {
            batches.push(ms.map((m) => m!.r));
            return target.batch(ms.map((m) => m!.real));
          }
          return target.batch(stmts);
        };
      // A request's reads and writes go through a session (core/d1.ts): recorded into the same slot.
      if (p === "withSession") return (c?: string) => recorder((target as D1Database).withSession(c), batches);
      const v = Reflect.get(target, p);
      return typeof v === "function" ? v.bind(target) : v;
    },
  }) as D;
}

/**
 * Sends the recorded batches of the slot's last request again (its reads; its writes too with
 * `writes`); how many statements (-1: nothing recorded under that slot).
 */
export async function replayStorage(db: D1Database, slot: string, { writes = false } = {}): Promise<number> {
  const batches = recorded.get(slot);
  if (!batches) return -1;
  let n = 0;
  for (const b of batches) {
    const kept = writes ? b : b.filter((r) => !WRITES.test(r.sql));
    if (!kept.length) continue;
    await db.batch(kept.map((r) => db.prepare(r.sql).bind(...r.binds.map(freshKey))));
    n += kept.length;
  }
  return n;
}
