/**
 * Keeps the registry cache warm for the popular lists, so that a check of popular names is answered
 * from D1 and a request's lookup budget goes to the names nothing else can answer.
 *
 * Runs from its own cron (WARM_CRON, every 10 minutes), so each run has a Worker invocation's
 * subrequest allowance to itself: `REGISTRY_WARM_SUBREQUESTS` per run (default 40, under the free
 * plan's 50 with the run's few D1 calls; a paid plan allows far more). Each run refreshes the most
 * popular names whose cached answer is missing, of an older format, or expires within the hour,
 * sharing the budget between ecosystems (npm 45 %, PyPI 30 %, crates 10 %, Go 15 %; a share an
 * ecosystem does not need flows to the others). Over several runs the lists are walked in rank
 * order and then kept fresh ahead of their 24-hour expiry. crates.io's crawler policy (at most one
 * request a second) is kept by looking crates up one after another, a second apart; the other
 * registries get at most 6 requests in flight (the Workers limit on open connections).
 */
import { lt } from "drizzle-orm";
import { bulkStatements } from "../core/bulk";
import type { Db } from "../db/client";
import { registryCache, ingestStatus } from "../db/freshness";
import type { Env } from "../env";
import { registryKey } from "../ecosystems/topics";
import type { Ecosystem } from "../ecosystems/versions";
import { SourceError, sourceCtx, type SourceCtx } from "../sources/http";
import { CACHE_FORMAT } from "./facts";
import { cacheRow, COST, registryLookup, UPSERT_CACHE, type Lookuper } from "./packages.service";
import { insertColumns } from "../core/columns";

export const WARM_CRON = "*/10 * * * *";
export const WARM_BUDGET = 40;
// Go's share is one lookup (4 subrequests) a run at the default budget: its list is 100 modules.
const SHARE: Record<Ecosystem, number> = { npm: 0.45, pypi: 0.3, cargo: 0.1, go: 0.15 };
const ORDER: Ecosystem[] = ["npm", "pypi", "cargo", "go"];
/** Found rows this close to expiry are refreshed now (the cron runs every 10 minutes). */
const REFRESH_AHEAD_MS = 3600_000;
const CRATES_GAP_MS = 1_000;

export interface WarmReport {
  at: number;
  budget: number;
  ecosystems: { ecosystem: Ecosystem; warmed: number; missing: number; failed: number; throughRank: number | null; errors: string[] }[];
}

interface Candidate {
  ecosystem: Ecosystem;
  name: string;
  rank: number;
}

/** Splits the budget: each ecosystem's share first, then what is left over in list order. */
export function planWarm(candidates: Record<Ecosystem, Candidate[]>, budget: number): Candidate[] {
  const taken: Record<Ecosystem, number> = { npm: 0, pypi: 0, cargo: 0, go: 0 };
  let left = budget;
  for (const eco of ORDER) {
    const n = Math.min(candidates[eco].length, Math.floor((budget * SHARE[eco]) / COST[eco]));
    taken[eco] = n;
    left -= n * COST[eco];
  }
  for (let progress = true; progress; ) {
    progress = false;
    for (const eco of ORDER) {
      if (taken[eco] < candidates[eco].length && left >= COST[eco]) {
        taken[eco]++;
        left -= COST[eco];
        progress = true;
      }
    }
  }
  return ORDER.flatMap((eco) => candidates[eco].slice(0, taken[eco]));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function warmRegistryCache(
  env: Env,
  at: number,
  opts: { budget?: number; lookup?: Lookuper; ctx?: SourceCtx; cratesGapMs?: number } = {},
): Promise<WarmReport> {
  const db = env.DB;
  const budget = opts.budget ?? (Number(env.REGISTRY_WARM_SUBREQUESTS) || WARM_BUDGET);
  const lookup = opts.lookup ?? registryLookup;
  const ctx = opts.ctx ?? sourceCtx(env, 10_000);
  // Per ecosystem, in rank order, the names whose answer is not cached or expires within the hour.
  // The scan walks the primary key (ecosystem, rank) and stops at the LIMIT, so a run reads the rows
  // down to its first cold names, not the whole list (D1 bills rows read).
  const results = await db.batch(
    ORDER.map((eco) =>
      db
        .prepare(
          `SELECT p.ecosystem, p.name, p.rank FROM popular_names p
             LEFT JOIN registry_cache c ON c.ecosystem = p.ecosystem AND c.name_key = CASE WHEN p.ecosystem IN ('npm', 'go') THEN p.name ELSE p.name_key END
            WHERE p.ecosystem = ?1
              AND (c.name_key IS NULL OR c.expires_at < ?2 OR json_extract(c.data, '$.fv') IS NOT ?3 OR (c.status = 'found' AND c.expires_at < ?2 + ?4))
            ORDER BY p.rank LIMIT ?5`,
        )
        .bind(eco, at, CACHE_FORMAT, REFRESH_AHEAD_MS, Math.floor(budget / COST[eco])),
    ),
  );
  const candidates = Object.fromEntries(ORDER.map((eco, i) => [eco, results[i]!.results as unknown as Candidate[]])) as Record<
    Ecosystem,
    Candidate[]
  >;
  const plan = planWarm(candidates, budget);

  const report: WarmReport = {
    at,
    budget,
    ecosystems: ORDER.map((ecosystem) => ({ ecosystem, warmed: 0, missing: 0, failed: 0, throughRank: null, errors: [] })),
  };
  const stat = (eco: Ecosystem) => report.ecosystems.find((x) => x.ecosystem === eco)!;
  const rows: unknown[][] = [];
  const one = async (c: Candidate) => {
    const s = stat(c.ecosystem);
    try {
      const r = await lookup(c.ecosystem, c.name, ctx, true);
      rows.push(cacheRow(c.ecosystem, registryKey(c.ecosystem, c.name), r, at, true));
      if (r.status === "found") s.warmed++;
      else s.missing++;
      s.throughRank = Math.max(s.throughRank ?? 0, c.rank);
    } catch (e) {
      s.failed++;
      if (s.errors.length < 5)
        s.errors.push(`${c.name}: ${e instanceof SourceError ? e.message : String((e as Error)?.message ?? e)}`.slice(0, 300));
    }
  };
  const crates = plan.filter((c) => c.ecosystem === "cargo");
  const others = plan.filter((c) => c.ecosystem !== "cargo");
  const gap = opts.cratesGapMs ?? CRATES_GAP_MS;
  await Promise.all([
    (async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(5, others.length) }, async () => {
          while (next < others.length) await one(others[next++]!);
        }),
      );
    })(),
    (async () => {
      for (const [i, c] of crates.entries()) {
        const started = Date.now();
        await one(c);
        const wait = gap - (Date.now() - started);
        if (wait > 0 && i < crates.length - 1) await sleep(wait);
      }
    })(),
  ]);

  const status = report.ecosystems.map((s) =>
    db
      .prepare(
        `INSERT INTO ${insertColumns(ingestStatus, ["source", "topic", "lastRunAt", "lastOkAt", "lastError", "items", "cursor"])} VALUES ('registry-warm', ?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (source, topic) DO UPDATE SET last_run_at = excluded.last_run_at, last_ok_at = coalesce(excluded.last_ok_at, ingest_status.last_ok_at),
           last_error = excluded.last_error, items = excluded.items, cursor = coalesce(excluded.cursor, ingest_status.cursor)`,
      )
      .bind(
        s.ecosystem,
        at,
        s.failed ? null : at,
        s.errors.length ? s.errors.join("; ") : null,
        s.warmed + s.missing,
        s.throughRank === null ? null : String(s.throughRank),
      ),
  );
  await db.batch([...bulkStatements(db, UPSERT_CACHE, rows), ...status]);
  console.log(
    JSON.stringify({ level: "info", what: "registry-warm", budget, ecosystems: report.ecosystems.map(({ errors: _e, ...s }) => s) }),
  );
  return report;
}

/**
 * The daily maintenance's part: expired cache rows (of names nobody checks any more, and rows of an
 * older format) are deleted; a row is rewritten whole when its name is looked up again.
 */
export const pruneRegistryCache = (db: Db, at: number) => db.delete(registryCache).where(lt(registryCache.expiresAt, at));
