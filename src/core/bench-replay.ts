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

/** A request's D1 work: its batches, and when it started (the keys it made carry that time). */
interface Work {
  at: number;
  batches: Recorded[][];
}

// The bench replays a slot right after its scenario's requests (scripts/bench.mjs interleaves them),
// so only the running scenario's slots (16, or a sync's 40 agents) matter; a 500-entry sync's record
// holds its stack several times over (tens of KB), so few are kept.
const recorded = new LruCache<string, Work>({ maxEntries: 256 });
const slotKey = (slot: string) => slot.slice(0, 100);

/** The bench's header naming a request's slot (at most 100 characters). */
export const BENCH_SLOT_HEADER = "x-lore-bench-slot";

/**
 * A write replayed must do the same work, not fail on the row it copies: every key the request made
 * (`newId`: a prefix, 9 characters of its time in base 36, 10 random; made within the request, so
 * its time is the request's, where the keys of the agent, the thread or the post it names are
 * older) is bound anew, and so are the slugs made from them (`…-<the key's last 8>`) and the keys
 * inside JSON values, one new key per old one so the rows of one replay still refer to each other.
 */
const KEY = /^([a-z]{2,5}_)([0-9a-z]{9})[0-9a-z]{8,12}$/;
const KEY_IN_TEXT = /\b[a-z]{2,5}_[0-9a-z]{17,21}\b/g;
const MADE_WITHIN_MS = 2000;

function freshKeys({ at, batches }: Work): (v: unknown) => unknown {
  const keys = new Map<string, string>();
  const tails = new Map<string, string>();
  for (const b of batches)
    for (const r of b)
      for (const v of r.binds) {
        if (typeof v !== "string") continue;
        for (const k of v.match(KEY_IN_TEXT) ?? []) {
          if (keys.has(k)) continue;
          const m = KEY.exec(k);
          if (!m) continue;
          const t = Number.parseInt(m[2]!, 36);
          if (t < at - 5 || t > at + MADE_WITHIN_MS) continue;
          const fresh = newId(m[1]);
          keys.set(k, fresh);
          tails.set(k.slice(-8), fresh.slice(-8));
        }
      }
  if (!keys.size) return (v) => v;
  return (v) => {
    if (typeof v !== "string") return v;
    const whole = keys.get(v);
    if (whole) return whole;
    const slug = /-([0-9a-z]{8})$/.exec(v);
    const tail = slug && tails.get(slug[1]!);
    if (tail) return v.slice(0, -8) + tail;
    return v.includes("_") ? v.replace(KEY_IN_TEXT, (k) => keys.get(k) ?? k) : v;
  };
}

/** A D1 binding whose work (its sessions' too) is this slot's record, replacing the slot's last one. */
export function recordingDb(slot: string, db: D1Database, at = Date.now()): D1Database {
  const batches: Recorded[][] = [];
  recorded.set(slotKey(slot), { at, batches });
  // Keyed by the wrapper the caller holds (what it hands to batch), with the statement it stands for;
  // one for the binding and its sessions, so a batch of statements prepared on either is recorded.
  return recorder(db, batches, new WeakMap());
}

type Meta = WeakMap<D1PreparedStatement, { real: D1PreparedStatement; r: Recorded }>;

function recorder<D extends D1Database | D1DatabaseSession>(db: D, batches: Recorded[][], meta: Meta): D {
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
      if (p === "withSession") return (c?: string) => recorder((target as D1Database).withSession(c), batches, meta);
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
  const record = recorded.get(slotKey(slot));
  if (!record) return -1;
  const fresh = writes ? freshKeys(record) : (v: unknown) => v;
  let n = 0;
  for (const b of record.batches) {
    const kept = writes ? b : b.filter((r) => !WRITES.test(r.sql));
    if (!kept.length) continue;
    await db.batch(kept.map((r) => db.prepare(r.sql).bind(...r.binds.map(fresh))));
    n += kept.length;
  }
  return n;
}
