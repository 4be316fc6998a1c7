/**
 * The pre-install package check. Offline facts come from D1 in one batch (facts.ts: malicious
 * reports, hallucinated names, popular names and their typo neighbours, stored advisories, cached
 * registry answers with the version facts each question needs); only names the cache cannot answer go to
 * their registry, in parallel, within a subrequest budget, each with a timeout. A registry that
 * cannot be reached never yields `ok` and never `block` on a guess: the answer is `warn` with the
 * reason, unless an offline fact decides.
 *
 * Names: the registry cache and the per-request dedupe use the registry's own identity
 * (registryKey: npm and Go names are case-sensitive, PyPI and crates.io fold theirs); the offline
 * lists use the folded key (packageKey), so that `React` still finds `react` to point at.
 *
 * Each version question is judged against its registry answer (judge.ts), and each entry's verdict
 * is a table of checks run in order (verdict.ts).
 */
import { now } from "../core/clock";
import { bulkStatements, jsonCols } from "../core/bulk";
import type { Env } from "../env";
import { packageKey, registryKey } from "../ecosystems/topics";
import { isGoPseudoVersion, parseVersionSpec, versionKey, type Ecosystem } from "../ecosystems/versions";
import { entryCoverage, osvStatements } from "../freshness";
import { OSV_ECOSYSTEM } from "../ecosystems/versions";
import { osvQueryBatch, osvVuln, type OsvRecord } from "../sources/osv";
import { cratesLookup } from "../sources/crates";
import { goInfo, goLookup } from "../sources/goproxy";
import { SourceError, sourceCtx, type Lookup, type PackageFacts, type SourceCtx } from "../sources/http";
import { npmLookup } from "../sources/npm";
import { pypiLookup } from "../sources/pypi";
import {
  CACHE_FORMAT,
  type CacheForm,
  type Entry,
  entryKey,
  type Facts,
  type Failure,
  type Flags,
  type Known,
  maliciousRows,
  offlineFacts,
  type OsvAnswer,
  pairKey,
  popularRank,
  REGISTRY_NAMES,
} from "./facts";
import { judge, type ProbeResult, probeKey, probeQuery } from "./judge";
import type { CheckResult } from "./packages.schemas";
import { verdictFor } from "./verdict";
import { insertColumns } from "../core/columns";
import { registryCache } from "../db/freshness";

/**
 * Subrequests one Worker invocation may make, per Workers plan (developers.cloudflare.com/workers/
 * platform/limits): `WORKERS_PLAN` in wrangler.toml names the plan the service runs on.
 */
export const PLAN_SUBREQUESTS = { free: 50, paid: 1000 } as const;
/** Kept back from a check's registry lookups for the rest of its request (the OSV query, the quota, D1). */
const RESERVED_SUBREQUESTS = 10;
/** The free plan's lookup budget (and the warm-up's default). */
export const SUBREQUEST_BUDGET = PLAN_SUBREQUESTS.free - RESERVED_SUBREQUESTS;
/** A check's registry lookups: `PACKAGE_CHECK_SUBREQUESTS` when set, else the configured plan's limit less the reserve. */
export function lookupBudget(env: Pick<Env, "PACKAGE_CHECK_SUBREQUESTS" | "WORKERS_PLAN">): number {
  const explicit = Number(env.PACKAGE_CHECK_SUBREQUESTS);
  if (explicit > 0) return Math.floor(explicit);
  return (env.WORKERS_PLAN === "paid" ? PLAN_SUBREQUESTS.paid : PLAN_SUBREQUESTS.free) - RESERVED_SUBREQUESTS;
}
/** Workers keep at most 6 connections open per invocation; more would only queue (and time out queued). */
const CONCURRENCY = 6;
/** Lookups not started within this time of the check's start are not started: the answer says so. */
export const CHECK_DEADLINE_MS = 12_000;
/** Advisory records fetched from OSV in one check when Lore does not hold them yet. */
const MAX_OSV_RECORDS = 25;

/** A source failure in words: "unreachable (…)", "no answer within 4000 ms", "answered HTTP 503". */
function failureText(err: unknown): string {
  if (err instanceof SourceError) {
    const detail = err.message.replace(/^[^:]+: /, "");
    if (err.kind === "status") return `answered HTTP ${err.status}`;
    if (err.kind === "malformed") return `answered with a document Lore could not read (${detail})`;
    return detail;
  }
  return `lookup failed (${String((err as Error)?.message ?? err).slice(0, 200)})`;
}
/** Subrequests of one registry lookup (PyPI: JSON + Simple API; Go: list, @latest, .mod, first .info). */
export const COST: Record<Ecosystem, number> = { npm: 1, cargo: 1, pypi: 2, go: 4 };
/**
 * found 6 h (popular names 24 h: the scheduled warm-up keeps them fresh); missing 1 h (a squatter
 * may register the name), except npm names with capitals, which npm no longer lets anyone publish.
 */
export const CACHE_TTL = { found: 6 * 3600_000, foundPopular: 24 * 3600_000, missing: 3600_000, missingUnpublishable: 24 * 3600_000 };

const NAME_RULES: Record<Ecosystem, RegExp> = {
  npm: /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/i,
  pypi: /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/i,
  cargo: /^[a-z][a-z0-9_-]{0,63}$/i,
  go: /^[a-z0-9.-]+\.[a-z]{2,}(?:\/[A-Za-z0-9._~+-]+)*$/i,
};

export type Lookuper = (eco: Ecosystem, name: string, ctx: SourceCtx, popular: boolean) => Promise<Lookup>;
/** Go: what the proxy's `.info` says a version query (pseudo-version, branch, commit) is, or null (404/410). */
export type Prober = (module: string, query: string, ctx: SourceCtx) => Promise<{ version: string } | null>;

export const registryLookup: Lookuper = (eco, name, ctx, popular) => {
  switch (eco) {
    case "npm":
      // Popular packages need no dates (they are not new) and their full documents are huge.
      return npmLookup(name, ctx, { full: !popular });
    case "pypi":
      return pypiLookup(name, ctx);
    case "go":
      return goLookup(name, ctx);
    case "cargo":
      return cratesLookup(name, ctx);
  }
};

export const registryProbe: Prober = async (module, query, ctx) => {
  const info = await goInfo(module, query, ctx);
  return info ? { version: info.Version } : null;
};

/** The cache form of a registry answer: summary, canonical version keys, flags of the versions that have any. */
export function toCache(eco: Ecosystem, f: PackageFacts): CacheForm {
  const flags: Record<string, Flags> = {};
  const flag = (v: string) => (flags[versionKey(eco, v)] ??= {});
  for (const [v, msg] of Object.entries(f.deprecated)) flag(v).d = msg;
  const retracted: string[] = [];
  for (const [v, why] of Object.entries(f.yanked)) {
    if (eco === "go" && v.startsWith("[")) retracted.push(v);
    else flag(v).y = why;
  }
  for (const v of f.installScripts) flag(v).i = 1;
  for (const v of f.versions) if (versionKey(eco, v) !== v) flag(v).v = v;
  return {
    summary: {
      name: f.name,
      latestVersion: f.latestVersion,
      latestKey: f.latestVersion ? versionKey(eco, f.latestVersion) : null,
      firstPublished: f.firstPublished,
      datesTrusted: f.datesTrusted,
      packageDeprecated: f.packageDeprecated,
      securityHolder: f.securityHolder,
      quarantined: f.quarantined,
      source: f.source,
      retracted,
      distTags: eco === "npm" ? (f.distTags ?? {}) : null,
      distTagsComplete: f.distTagsComplete ?? true,
    },
    versions: [...new Set(f.versions.map((v) => versionKey(eco, v)))],
    flags,
  };
}

/** A registry_cache row (for UPSERT_CACHE) of a lookup's answer. */
export function cacheRow(eco: Ecosystem, rkey: string, r: Lookup, at: number, popular: boolean, extraVersions: string[] = []): unknown[] {
  if (r.status === "found") {
    const c = toCache(eco, r.facts);
    for (const v of extraVersions) if (!c.versions.includes(v)) c.versions.push(v);
    const ttl = popular ? CACHE_TTL.foundPopular : CACHE_TTL.found;
    return [
      eco,
      rkey,
      "found",
      JSON.stringify({ ...c.summary, fv: CACHE_FORMAT }),
      JSON.stringify(c.versions),
      JSON.stringify(c.flags),
      at,
      at + ttl,
    ];
  }
  const unpublishable = eco === "npm" && /[A-Z]/.test(rkey);
  return [
    eco,
    rkey,
    "missing",
    JSON.stringify({ source: r.source, detail: r.detail, fv: CACHE_FORMAT }),
    "[]",
    "{}",
    at,
    at + (unpublishable ? CACHE_TTL.missingUnpublishable : CACHE_TTL.missing),
  ];
}

export const UPSERT_CACHE = `INSERT INTO ${insertColumns(registryCache, ["ecosystem", "nameKey", "status", "data", "versions", "flags", "fetchedAt", "expiresAt"])}
  SELECT ${jsonCols(8)} FROM json_each(?1) WHERE true
  ON CONFLICT (ecosystem, name_key) DO UPDATE SET status = excluded.status, data = excluded.data, versions = excluded.versions,
    flags = excluded.flags, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`;

/** Runs `fn` over items with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, fn: (t: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** How long an isolate leaves OSV alone after a check could not reach it. */
export const OSV_RETRY_MS = 30_000;
type Outage = { since: number; until: number; why: string };
// Keyed by the fetch in use, so that a test's recorded responses never inherit another test's outage.
const osvDown = new WeakMap<typeof fetch, { at: Outage | null }>();
const osvOutages = (f: typeof fetch) => {
  let o = osvDown.get(f);
  if (!o) osvDown.set(f, (o = { at: null }));
  return o;
};

export interface CheckOptions {
  lookup?: Lookuper;
  probe?: Prober;
  ctx?: SourceCtx;
  waitUntil?: (p: Promise<unknown>) => void;
  /** Registry subrequests this check may make (default: PACKAGE_CHECK_SUBREQUESTS, else the plan's limit less a reserve). */
  budget?: number;
  /** OSV's querybatch and record reads (tests pass recorded answers). */
  osvBatch?: typeof osvQueryBatch;
  osvRecord?: typeof osvVuln;
  /** Lookups not started this long after the check began are not started (ms). */
  deadlineMs?: number;
  /** Called after each registry lookup of the check (done, planned): an MCP call's progress. */
  onProgress?: (done: number, total: number) => void;
}

interface Task {
  kind: "lookup" | "probe";
  eco: Ecosystem;
  name: string;
  rkey: string;
  query?: string;
  popular: boolean;
  /** 1: names nothing else answers (not cached, not popular); 2: re-checks and probes of cached names; 3: popular names not cached. */
  priority: 1 | 2 | 3;
  cost: number;
  order: number;
}

/**
 * What each name needs from its registry, within the budget: nothing (cached and conclusive, or
 * decided offline), a lookup (not cached; or a cached list without the version asked that may be
 * stale), and for Go pseudo-versions, branches and commits a `.info` probe.
 */
function planLookups(entries: Entry[], facts: Facts, at: number, lookups: number) {
  const tasks = new Map<string, Task>();
  const addTask = (t: Omit<Task, "order">) => {
    const id = t.kind === "lookup" ? pairKey(t.eco, t.rkey) : `probe\u0000${probeKey(t.rkey, t.query!)}`;
    const cur = tasks.get(id);
    if (!cur) tasks.set(id, { ...t, order: tasks.size });
    else if (t.priority < cur.priority) cur.priority = t.priority;
  };
  for (const e of entries) {
    const popular = popularRank(e, facts) !== undefined;
    const cached = facts.cached.get(entryKey(e));
    const decidedOffline =
      !e.validName || facts.hallucinated.has(pairKey(e.eco, e.key)) || maliciousRows(e, facts).some((m) => m.versions === "*");
    if (!cached && decidedOffline) continue;
    const pq = probeQuery(e);
    if (!cached) {
      const priority = popular ? 3 : 1;
      addTask({ kind: "lookup", eco: e.eco, name: e.name, rkey: e.rkey, popular, priority, cost: COST[e.eco] });
      if (pq) addTask({ kind: "probe", eco: e.eco, name: e.name, rkey: e.rkey, query: pq, popular, priority, cost: 1 });
      continue;
    }
    if (cached.status !== "found") continue;
    if (pq) {
      if (!(e.spec?.kind === "exact" && cached.versionFound))
        addTask({ kind: "probe", eco: e.eco, name: e.name, rkey: e.rkey, query: pq, popular, priority: 2, cost: 1 });
      continue;
    }
    if (judge(e, cached, undefined, at).unverified?.code === "NOT_CHECKED")
      addTask({ kind: "lookup", eco: e.eco, name: e.name, rkey: e.rkey, popular, priority: 2, cost: COST[e.eco] });
  }

  // Names nothing else answers first, then re-checks, then popular names; within each, request order.
  // One subrequest stays for the OSV query of the versions judged.
  let budget = lookups - 1;
  const planned: Task[] = [];
  const skipped: Task[] = [];
  const lookedUp = new Set<string>();
  const ordered = [...tasks.values()].sort(
    (a, b) => a.priority - b.priority || (a.kind === b.kind ? 0 : a.kind === "lookup" ? -1 : 1) || a.order - b.order,
  );
  for (const t of ordered) {
    // A probe of a name that is neither cached nor looked up would answer nothing on its own.
    const orphan = t.kind === "probe" && t.priority !== 2 && !lookedUp.has(pairKey(t.eco, t.rkey));
    if (budget < t.cost || orphan) {
      skipped.push(t);
      continue;
    }
    budget -= t.cost;
    planned.push(t);
    if (t.kind === "lookup") lookedUp.add(pairKey(t.eco, t.rkey));
  }
  return { planned, skipped, lookedUp, budget };
}

/**
 * Cache writes: fresh answers, pseudo-versions the proxy confirmed (never listed in `@v/list`, so the
 * next check of them needs no probe), and the OSV records fetched for this answer (the next check,
 * and sync, find them in the store).
 */
async function cacheStatements(
  db: D1Database,
  entries: Entry[],
  plan: Pick<ReturnType<typeof planLookups>, "planned" | "lookedUp">,
  fresh: Map<string, Fresh>,
  probes: Map<string, ProbeResult>,
  osvRecords: Map<string, OsvRecord>,
  at: number,
): Promise<D1PreparedStatement[]> {
  const { planned, lookedUp } = plan;
  const confirmed = new Map<string, string[]>();
  for (const e of entries) {
    const pq = probeQuery(e);
    const p = pq ? probes.get(probeKey(e.rkey, pq)) : undefined;
    if (p?.status === "found" && isGoPseudoVersion(p.version))
      confirmed.set(e.rkey, [...new Set([...(confirmed.get(e.rkey) ?? []), versionKey("go", p.version)])]);
  }
  const rows: unknown[][] = [];
  for (const t of planned) {
    const f = t.kind === "lookup" ? fresh.get(pairKey(t.eco, t.rkey)) : undefined;
    if (f && "lookup" in f)
      rows.push(cacheRow(t.eco, t.rkey, f.lookup, at, t.popular, t.eco === "go" ? (confirmed.get(t.rkey) ?? []) : []));
  }
  const appends = [...confirmed].flatMap(([rkey, versions]) =>
    lookedUp.has(pairKey("go", rkey)) ? [] : versions.map((v) => [rkey, v] as const),
  );
  const stmts: D1PreparedStatement[] = [
    ...bulkStatements(db, UPSERT_CACHE, rows),
    // OSV records fetched for this answer: the next check (and sync) finds them in the store.
    ...(osvRecords.size ? await osvStatements(db, [...osvRecords.values()], at) : []),
    ...appends.map(([rkey, v]) =>
      db
        .prepare(
          `UPDATE registry_cache SET versions = json_insert(versions, '$[#]', ?3)
            WHERE ecosystem = 'go' AND name_key = ?1 AND status = 'found' AND expires_at > ?2 AND NOT EXISTS (SELECT 1 FROM json_each(versions) WHERE value = ?3)`,
        )
        .bind(rkey, at, v),
    ),
  ];
  return stmts;
}

/** A registry answer this request looked up, in the cache's form, or why it could not. */
type Fresh = { lookup: Lookup; form: CacheForm | null } | Failure;

export async function checkPackages(
  env: Env,
  packages: { name: string; ecosystem: Ecosystem; version?: string }[],
  opts: CheckOptions = {},
): Promise<{ results: CheckResult[] }> {
  const at = now();
  const db = env.DB;
  const entries: Entry[] = packages.map((p, i) => {
    const spec = p.version ? parseVersionSpec(p.ecosystem, p.version) : null;
    return {
      i,
      name: p.name,
      eco: p.ecosystem,
      key: packageKey(p.ecosystem, p.name),
      rkey: registryKey(p.ecosystem, p.name),
      version: p.version,
      spec,
      vkey: spec?.kind === "exact" ? versionKey(p.ecosystem, spec.version) : null,
      want: spec?.kind === "range" ? 1 : spec?.kind === "tag" || spec?.kind === "probe" ? 2 : 0,
      validName: NAME_RULES[p.ecosystem].test(p.name),
    };
  });
  const facts = await offlineFacts(db, entries, at);

  const plan = planLookups(entries, facts, at, opts.budget ?? lookupBudget(env));
  const { planned, skipped } = plan;
  let { budget } = plan;

  const ctx = opts.ctx ?? sourceCtx(env, 4_000);
  const lookup = opts.lookup ?? registryLookup;
  const probe = opts.probe ?? registryProbe;
  const fresh = new Map<string, Fresh>();
  const probes = new Map<string, ProbeResult>();
  const notChecked =
    "not looked up: this request reached its registry lookup budget (the Workers plan's subrequest limit); check it again in a separate request";
  for (const t of skipped) {
    const f: Failure = { status: "error", reason: notChecked, notChecked: true };
    if (t.kind === "lookup") fresh.set(pairKey(t.eco, t.rkey), f);
    else probes.set(probeKey(t.rkey, t.query!), f);
  }
  const deadline = Date.now() + (opts.deadlineMs ?? CHECK_DEADLINE_MS);
  let done = 0;
  await pool(planned, CONCURRENCY, async (t) => {
    try {
      await lookupOne(t);
    } finally {
      opts.onProgress?.(++done, planned.length);
    }
  });
  async function lookupOne(t: Task) {
    if (Date.now() > deadline) {
      const f: Failure = {
        status: "error",
        reason: `not looked up: ${REGISTRY_NAMES[t.eco]} did not answer the earlier lookups of this request in time; check it again in a separate request`,
        notChecked: true,
      };
      if (t.kind === "lookup") fresh.set(pairKey(t.eco, t.rkey), f);
      else probes.set(probeKey(t.rkey, t.query!), f);
      return;
    }
    try {
      if (t.kind === "lookup") {
        const r = await lookup(t.eco, t.name, ctx, t.popular);
        fresh.set(pairKey(t.eco, t.rkey), { lookup: r, form: r.status === "found" ? toCache(t.eco, r.facts) : null });
      } else {
        const r = await probe(t.rkey, t.query!, ctx);
        probes.set(probeKey(t.rkey, t.query!), r ? { status: "found", version: r.version } : { status: "missing" });
      }
    } catch (err) {
      const reason = failureText(err);
      if (t.kind === "lookup") fresh.set(pairKey(t.eco, t.rkey), { status: "error", reason });
      else probes.set(probeKey(t.rkey, t.query!), { status: "error", reason });
    }
  }

  // The registry's answer for each entry: this request's lookup, else the cache.
  const knownOf = (e: Entry): { known: Known | Failure | null; recheck?: Failure } => {
    const f = fresh.get(pairKey(e.eco, e.rkey));
    const cached = facts.cached.get(entryKey(e)) ?? null;
    if (f && "lookup" in f) {
      if (f.lookup.status === "missing")
        return { known: { status: "missing", source: f.lookup.source, detail: f.lookup.detail, fetchedAt: at } };
      const form = f.form!;
      return {
        known: {
          status: "found",
          summary: form.summary,
          fetchedAt: at,
          versionFound: e.vkey ? form.versions.includes(e.vkey) : null,
          flags: form.flags[e.vkey ?? form.summary.latestKey ?? ""] ?? null,
          versions: form.versions,
          allFlags: form.flags,
        },
      };
    }
    // A failed or skipped re-check keeps the cached answer (its version question then stays open).
    if (cached) return { known: cached, recheck: f as Failure | undefined };
    return { known: (f as Failure | undefined) ?? null };
  };
  const judged = entries.map((e) => {
    const { known, recheck } = knownOf(e);
    const pq = probeQuery(e);
    const j = known?.status === "found" ? judge(e, known, pq ? probes.get(probeKey(e.rkey, pq)) : undefined, at, recheck) : null;
    return { e, known, j };
  });

  // Advisories of the versions judged: one OSV query for all of them (current, whatever Lore's
  // store holds), then the records Lore does not hold yet, within what is left of the budget.
  const candidates = judged.filter(
    ({ e, known, j }) => known?.status === "found" && j?.judged && j.versionFound !== false && !j.unverified && e.validName,
  );
  const osvAnswers = new Map<number, OsvAnswer>();
  // Packages whose stored advisories are current (the OSV ingest asked within the day) need no query.
  const storedCurrent = (c: (typeof candidates)[number]) =>
    entryCoverage(facts.sources, { ecosystem: c.e.eco, key: c.e.key, pinned: c.j!.judged }, at).state === "current";
  for (const c of candidates)
    if (storedCurrent(c))
      osvAnswers.set(c.e.i, {
        status: "failed",
        reason: "OSV not asked in this request: Lore's stored advisories for this package are current",
      });
  const osvAsked = candidates.filter((c) => !osvAnswers.has(c.e.i));
  const osvRecords = new Map<string, OsvRecord>();
  // The live OSV query is the one outbound call every check may make: while OSV cannot be reached,
  // the isolate answers "not asked" at once instead of making each check wait out the timeout.
  const outages = opts.osvBatch ? null : osvOutages(globalThis.fetch);
  const outage = outages?.at && now() < outages.at.until ? outages.at : null;
  if (osvAsked.length) {
    try {
      if (budget < 0) throw new Error("OSV not asked: this request reached its subrequest budget");
      if (outage)
        throw new Error(
          `OSV not asked: it could not be reached at ${new Date(outage.since).toISOString()} (${outage.why}); Lore asks it again after ${new Date(outage.until).toISOString()}`,
        );
      const answers = await (opts.osvBatch ?? osvQueryBatch)(
        osvAsked.map(({ e, j }) => ({ ecosystem: OSV_ECOSYSTEM[e.eco], name: e.name, version: j!.judged! })),
        ctx,
      );
      osvAsked.forEach(({ e }, i) => {
        osvAnswers.set(e.i, { status: "answered", ids: [...new Set((answers[i] ?? []).map((v) => v.id))] });
      });
      if (outages) outages.at = null;
      const held = new Set([...facts.advisories.values()].flat().map((a) => a.id));
      const missing = [...new Set(answers.flat().map((v) => v.id))]
        .filter((id) => !held.has(id) && !id.startsWith("MAL-"))
        .slice(0, Math.max(0, Math.min(MAX_OSV_RECORDS, budget + 1)));
      budget -= missing.length;
      const got = await Promise.all(missing.map((id) => (opts.osvRecord ?? osvVuln)(id, ctx).catch(() => null)));
      for (const r of got) if (r) osvRecords.set(r.id, r);
    } catch (err) {
      if (outages && err instanceof SourceError && (err.kind === "network" || err.kind === "timeout")) {
        const at = now();
        outages.at = { since: at, until: at + OSV_RETRY_MS, why: failureText(err) };
      }
      const reason = err instanceof SourceError ? `OSV ${failureText(err)}` : String((err as Error)?.message ?? err);
      for (const { e } of osvAsked) osvAnswers.set(e.i, { status: "failed", reason });
    }
  }
  const results = judged.map(({ e, known, j }) => verdictFor({ e, facts, known, j, at, osv: osvAnswers.get(e.i), osvRecords }));

  // Cache writes after the answer when the runtime allows.
  const stmts = await cacheStatements(db, entries, plan, fresh, probes, osvRecords, at);
  if (stmts.length) {
    const write = db
      .batch(stmts)
      .catch((err) => console.error(JSON.stringify({ level: "error", what: "registry_cache write", error: String(err) })));
    if (opts.waitUntil) opts.waitUntil(write);
    else await write;
  }
  return { results };
}
