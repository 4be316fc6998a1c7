import { LruCache } from "./cache";
import { newId } from "./crypto";
import type { Env } from "../env";
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

/** A call the request made to a binding other than D1 (an object, the scanner Worker, R2): which binding, which object, which method, with what. */
export interface RecordedCall {
  binding: string;
  id: string;
  method: string;
  args: unknown[];
}

/** A request's storage work: its D1 batches, its object calls, and when it started (the keys it made carry that time). */
interface Work {
  at: number;
  /** When its last D1 statement or batch was sent: the keys it made were made by then. */
  last: number;
  batches: Recorded[][];
  calls: RecordedCall[];
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

function freshKeys({ at, last, batches }: Work): (v: unknown) => unknown {
  // Made within the request: from its start until its last statement (a slow recorded request,
  // such as the first sync of a loaded run, makes keys seconds after it started; left as they
  // were, their rows collide with the originals when replayed), and never less than MADE_WITHIN_MS.
  const until = Math.max(at + MADE_WITHIN_MS, last + 5);
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
          if (t < at - 5 || t > until) continue;
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

/**
 * The request's bindings with its storage work recorded as this slot's, replacing the slot's last
 * record: the D1 binding (its sessions' too), every Durable Object namespace (each RPC method a
 * stub of it is asked for; `fetch` too, though only its name is kept), the scanner Worker's
 * methods and the R2 bucket's reads.
 */
export function recordingEnv<E extends Env>(slot: string, env: E, at = Date.now()): E {
  const work: Work = { at, last: at, batches: [], calls: [] };
  recorded.set(slotKey(slot), work);
  return recordInto(work, env);
}

/**
 * An object serving a request the Worker forwarded (with its slot header): the object's own
 * bindings record into the same slot, and the `fetch` that reached it is recorded as `method` of it
 * with `args`, the round trip standing for the storage work it did. Where nothing is recorded under
 * the slot (no Worker with BENCH_ROUTES "1" made it), the object's bindings are given back as they
 * are. Locally the objects share the Worker's isolate.
 */
export function recordingInside<E extends Env>(
  slot: string,
  env: E,
  self: { binding: (typeof NAMESPACES)[number]; id: string; method: string; args: unknown[] },
): E {
  const work = recorded.get(slotKey(slot));
  if (!work) return env;
  const fetched = work.calls.findLastIndex((c) => c.binding === self.binding && c.id === self.id && c.method === "fetch");
  if (fetched >= 0) work.calls[fetched] = self;
  else work.calls.push(self);
  return recordInto(work, env);
}

function recordInto<E extends Env>(work: Work, env: E): E {
  const out: Record<string, unknown> = { ...(env as object) };
  // Keyed by the wrapper the caller holds (what it hands to batch), with the statement it stands for;
  // one for the binding and its sessions, so a batch of statements prepared on either is recorded.
  out.DB = recorder(env.DB, work, new WeakMap());
  // Named: a service binding answers every property with a function, so none can be told by its shape.
  for (const binding of NAMESPACES) out[binding] = recordingNamespace(binding, env[binding], work.calls);
  out.SKILLS = recordingBucket(env.SKILLS, work.calls);
  // The scanner Worker: another Worker's CPU when deployed (it runs in this process locally).
  out.SCANNER = recordingStub("SCANNER", "", env.SCANNER, work.calls);
  return out as E;
}

/** An R2 bucket whose reads (`get`, `head`: the key) are recorded; its writes are not replayed. */
function recordingBucket(bucket: R2Bucket, calls: RecordedCall[]): R2Bucket {
  return new Proxy(bucket, {
    get(target, p) {
      const v = Reflect.get(target, p);
      if (typeof v !== "function") return v;
      if (p !== "get" && p !== "head") return v.bind(target);
      return (key: string, ...rest: unknown[]) => {
        calls.push({ binding: "SKILLS", id: "", method: p, args: [key] });
        return Reflect.apply(v, target, [key, ...rest]);
      };
    },
  });
}

/** The Durable Object namespaces of env.ts. */
const NAMESPACES = ["ACCOUNT_QUOTA", "CHAT_ROOM", "MCP_SESSIONS"] as const satisfies readonly (keyof Env)[];

// What a stub answers that is not an RPC method (its own properties, and what `await` looks for).
const NOT_RPC = new Set(["id", "name", "then", "connect", "dup"]);

function recordingNamespace(binding: string, ns: DurableObjectNamespace, calls: RecordedCall[]): DurableObjectNamespace {
  return new Proxy(ns, {
    get(target, p) {
      const v = Reflect.get(target, p);
      if (p !== "get" && p !== "getByName") return typeof v === "function" ? v.bind(target) : v;
      return (...a: unknown[]) => {
        const stub = Reflect.apply(v as (...a: unknown[]) => DurableObjectStub, target, a) as DurableObjectStub;
        const id = p === "get" ? String(a[0]) : target.idFromName(String(a[0])).toString();
        return recordingStub(binding, id, stub, calls);
      };
    },
  });
}

/** An RPC stub (an object's, or a service binding's) whose method calls are recorded. */
function recordingStub<S extends object>(binding: string, id: string, stub: S, calls: RecordedCall[]): S {
  return new Proxy(stub, {
    get(s, m) {
      const f = Reflect.get(s, m);
      if (typeof m !== "string" || typeof f !== "function") return f;
      // An RPC method is a callable stand-in whose own properties are RPC too (`f.apply` would be
      // a call of the object's "apply"): called with Reflect.
      if (NOT_RPC.has(m)) return (...args: unknown[]) => Reflect.apply(f, s, args);
      return (...args: unknown[]) => {
        calls.push({ binding, id, method: m, args: m === "fetch" ? [] : args });
        return Reflect.apply(f, s, args);
      };
    },
  });
}

/** The object calls the slot's last request made, in order (empty: nothing recorded under that slot). */
export function recordedCalls(slot: string): RecordedCall[] {
  return recorded.get(slotKey(slot))?.calls ?? [];
}

type Meta = WeakMap<D1PreparedStatement, { real: D1PreparedStatement; r: Recorded }>;

function recorder<D extends D1Database | D1DatabaseSession>(db: D, work: Work, meta: Meta): D {
  const push = (b: Recorded[]) => {
    work.batches.push(b);
    work.last = Date.now();
  };
  const wrap = (stmt: D1PreparedStatement, r: Recorded): D1PreparedStatement => {
    const bind = stmt.bind.bind(stmt);
    const note =
      <K extends "first" | "all" | "run" | "raw">(k: K) =>
      (...args: unknown[]) => {
        push([r]);
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
            push(ms.map((m) => m!.r));
            return target.batch(ms.map((m) => m!.real));
          }
          return target.batch(stmts);
        };
      // A request's reads and writes go through a session (core/d1.ts): recorded into the same slot.
      if (p === "withSession") return (c?: string) => recorder((target as D1Database).withSession(c), work, meta);
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
