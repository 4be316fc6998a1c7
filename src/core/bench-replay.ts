import { LruCache } from "./cache";
import { newId } from "./crypto";

/**
 * The floor of a sync for `npm run bench` (scripts/bench/sync.mjs): the same storage work, and
 * nothing else. Where `BENCH_ROUTES` is "1" (only the bench's own `wrangler dev`), a sync records
 * the batches it sends to D1 (SQL and bound values), reads and writes, under its agent; the route
 * `/internal/bench/replay?agent=<id>` sends those batches again. Sync's CPU above this floor is
 * then the Worker's own work: resolving, matching, building and serialising the answer. The writes
 * belong in the floor: the bench's CPU is the whole workerd process, D1's SQLite included, while a
 * deployed Worker's CPU is its isolate's alone (D1 runs elsewhere), so SQLite writing the sync's
 * rows counted as the Worker's own before.
 */
interface Recorded {
  sql: string;
  binds: unknown[];
}

const recorded = new LruCache<string, Recorded[][]>({ maxEntries: 1000 });

/**
 * A write replayed must do the same work, not fail: the activity row's key is made per request
 * (`act_…`), so a replay binds a new one. Every other write of a sync is an upsert or an INSERT OR
 * IGNORE of rows that exist, as it is in the steady state the bench measures.
 */
const freshKey = (v: unknown) => (typeof v === "string" && /^act_[0-9A-Za-z]+$/.test(v) ? newId("act_") : v);

/**
 * D1 bindings that note every batch (and single statement) they run, for this agent: the request's
 * session and the binding outside it (a sync writes its bookkeeping there) share one record.
 */
export function recordingDbs(agentId: string, ...dbs: D1Database[]): D1Database[] {
  const batches: Recorded[][] = [];
  recorded.set(agentId, batches);
  return dbs.map((db) => recordingDb(db, batches));
}

function recordingDb(db: D1Database, batches: Recorded[][]): D1Database {
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
          // Every statement of a batch is one this binding made (a sync makes them all here).
          if (ms.every((m) => m)) {
            batches.push(ms.map((m) => m!.r));
            return target.batch(ms.map((m) => m!.real));
          }
          return target.batch(stmts);
        };
      const v = Reflect.get(target, p);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/** Sends the recorded batches of this agent's last sync again; how many statements. */
export async function replayStorage(db: D1Database, agentId: string): Promise<number> {
  const batches = recorded.get(agentId);
  if (!batches) return -1;
  let n = 0;
  for (const b of batches) {
    await db.batch(b.map((r) => db.prepare(r.sql).bind(...r.binds.map(freshKey))));
    n += b.length;
  }
  return n;
}
