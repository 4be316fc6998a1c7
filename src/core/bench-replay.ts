import { LruCache } from "./cache";

/**
 * The floor of a sync for `npm run bench` (scripts/bench/sync.mjs): the same storage reads, and
 * nothing else. Where `BENCH_ROUTES` is "1" (only the bench's own `wrangler dev`), a sync records
 * the read batches it sends to D1 (SQL and bound values) under its agent; the route
 * `/internal/bench/replay?agent=<id>` sends those batches again. Sync's CPU above this floor is
 * then the Worker's own work: resolving, matching, building and serialising the answer.
 */
interface Recorded {
  sql: string;
  binds: unknown[];
}

const recorded = new LruCache<string, Recorded[][]>({ maxEntries: 1000 });

const readOnly = (sql: string) => /^\s*(SELECT|WITH)\b/i.test(sql);

/** A D1 binding that notes every read batch (and single statement) it runs, for this agent. */
export function recordingDb(db: D1Database, agentId: string): D1Database {
  const batches: Recorded[][] = [];
  recorded.set(agentId, batches);
  const meta = new WeakMap<D1PreparedStatement, Recorded>();
  const wrap = (stmt: D1PreparedStatement, r: Recorded): D1PreparedStatement => {
    meta.set(stmt, r);
    const bind = stmt.bind.bind(stmt);
    const note =
      <K extends "first" | "all" | "run" | "raw">(k: K) =>
      (...args: unknown[]) => {
        if (readOnly(r.sql)) batches.push([r]);
        return (stmt[k] as (...a: unknown[]) => unknown)(...args);
      };
    return new Proxy(stmt, {
      get(target, p) {
        if (p === "bind") return (...values: unknown[]) => wrap(bind(...values), { sql: r.sql, binds: values });
        if (p === "first" || p === "all" || p === "run" || p === "raw") return note(p);
        const v = Reflect.get(target, p);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  };
  return new Proxy(db, {
    get(target, p) {
      if (p === "prepare") return (sql: string) => wrap(target.prepare(sql), { sql, binds: [] });
      if (p === "batch")
        return (stmts: D1PreparedStatement[]) => {
          const rs = stmts.map((s) => meta.get(s));
          if (rs.every((r) => r && readOnly(r.sql))) batches.push(rs as Recorded[]);
          return target.batch(stmts);
        };
      const v = Reflect.get(target, p);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/** Sends the recorded read batches of this agent's last sync again; how many statements. */
export async function replayReads(db: D1Database, agentId: string): Promise<number> {
  const batches = recorded.get(agentId);
  if (!batches) return -1;
  let n = 0;
  for (const b of batches) {
    await db.batch(b.map((r) => db.prepare(r.sql).bind(...r.binds)));
    n += b.length;
  }
  return n;
}
