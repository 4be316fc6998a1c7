/**
 * The pre-install package check. Offline facts come from D1 in one batch (malicious reports,
 * hallucinated names, popular names and their typo neighbours, stored advisories, cached registry
 * answers); only names without a fresh cached answer go to their registry, in parallel, within a
 * subrequest budget, each with a timeout. A registry that cannot be reached never yields `ok` and
 * never `block` on a guess: the answer is `warn` with the reason, unless an offline fact decides.
 */
import { DAY_MS, iso, now } from "../core/clock";
import { jsonCols } from "../core/bulk";
import type { Env } from "../env";
import { packageKey } from "../freshness/topics";
import { cleanVersion, inSnapshotVersions, osvAffects, resolveRange, versionKey, type Ecosystem } from "../freshness/versions";
import { ADV_COLS, type MaliciousRow } from "../freshness/advisories";
import { cratesLookup } from "../sources/crates";
import { goLookup, isRetracted } from "../sources/goproxy";
import { SourceError, sourceCtx, type Lookup, type PackageFacts, type SourceCtx } from "../sources/http";
import { npmLookup } from "../sources/npm";
import { pypiLookup } from "../sources/pypi";
import { classify, keyHash, neighbourKeys, TYPO_MESSAGES, type TypoKind } from "./typo";
import type { CheckResult } from "./packages.schemas";

/**
 * Workers allow 50 subrequests per request on the free plan (far more on paid plans): by default a
 * check stays under the lower limit; `PACKAGE_CHECK_SUBREQUESTS` raises it where the plan allows.
 */
export const SUBREQUEST_BUDGET = 40;
const CONCURRENCY = 6;
const COST: Record<Ecosystem, number> = { npm: 1, cargo: 1, pypi: 2, go: 4 };
const NEW_PACKAGE_DAYS = 30;
export const CACHE_TTL = { found: 6 * 3600_000, foundPopular: 24 * 3600_000, missing: 3600_000 };

const NAME_RULES: Record<Ecosystem, RegExp> = {
  npm: /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/i,
  pypi: /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/i,
  cargo: /^[a-z][a-z0-9_-]{0,63}$/i,
  go: /^[a-z0-9.-]+\.[a-z]{2,}(?:\/[A-Za-z0-9._~+-]+)*$/i,
};

export type Lookuper = (eco: Ecosystem, name: string, ctx: SourceCtx, popular: boolean) => Promise<Lookup>;

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

interface Entry {
  i: number;
  name: string;
  eco: Ecosystem;
  key: string;
  version?: string;
  /** The requested version's canonical key (versionKey), matched as a string in SQL; null for ranges and tags. */
  vkey: string | null;
  /** A range or dist-tag instead of one version (`^4.17.0`, `>=2,<3`, `latest`), resolved against the version list. */
  range: string | null;
  /** The version the range resolved to (set after the lookups). */
  resolved?: string | null;
  validName: boolean;
}

/** What the cache keeps of a registry answer besides the version list and per-version flags. */
interface Summary {
  name: string;
  latestVersion: string | null;
  latestKey: string | null;
  firstPublished: string | null;
  datesTrusted: boolean;
  packageDeprecated: string | null;
  securityHolder: boolean;
  quarantined: boolean;
  source: string;
  /** Go `retract` entries (versions and `[a, b]` ranges). */
  retracted: string[];
}
/**
 * Per-version facts: d = deprecation message, y = yank/retraction reason, i = runs install scripts,
 * v = the version as published when its canonical key differs (PyPI `2.0.0` is keyed `2`).
 */
interface Flags {
  d?: string;
  y?: string;
  i?: 1;
  v?: string;
}
type Found = { status: "found"; summary: Summary; fetchedAt: number; versionFound: boolean | null; flags: Flags | null };
type Missing = { status: "missing"; source: string; detail: string; fetchedAt: number };
type Outcome = Found | Missing | { status: "error"; reason: string } | { status: "skipped" };

const pairKey = (eco: string, key: string) => `${eco}\u0000${key}`;
const entryKey = (eco: string, key: string, vkey: string | null) => `${eco}\u0000${key}\u0000${vkey ?? ""}`;

/** The cache form of a registry answer: summary, canonical version keys, flags of the versions that have any. */
function toCache(eco: Ecosystem, f: PackageFacts): { summary: Summary; versions: string[]; flags: Record<string, Flags> } {
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
    },
    versions: [...new Set(f.versions.map((v) => versionKey(eco, v)))],
    flags,
  };
}

/** One D1 batch: every offline fact the check needs for all names (and the cached registry answers). */
async function offlineFacts(db: D1Database, entries: Entry[], at: number) {
  const pairs = [...new Set(entries.map((e) => pairKey(e.eco, e.key)))].map((s) => s.split("\u0000"));
  const keys = new Map<string, [string, number]>();
  for (const e of entries) for (const k of neighbourKeys(e.eco, e.key, true)) keys.set(`${e.eco}:${k}`, [e.eco, keyHash(k)]);
  const p = JSON.stringify(pairs);
  const withVersions = JSON.stringify([...new Set(entries.map((e) => entryKey(e.eco, e.key, e.vkey)))].map((s) => s.split("\u0000").map((x, i) => (i === 2 && x === "" ? null : x))));
  const join = (t: string, col = "name_key") => `JOIN ${t} ON ${t.split(" ")[1]}.ecosystem = json_extract(j.value, '$[0]') AND ${t.split(" ")[1]}.${col} = json_extract(j.value, '$[1]')`;
  const [mal, hall, pop, near, cache, adv] = await db.batch([
    db.prepare(`SELECT m.* FROM json_each(?1) j ${join("malicious_packages m")}`).bind(p),
    db.prepare(`SELECT h.* FROM json_each(?1) j ${join("hallucinated_names h")}`).bind(p),
    db.prepare(`SELECT p.ecosystem, p.name_key, p.rank FROM json_each(?1) j ${join("popular_names p")}`).bind(p),
    db
      .prepare(
        `SELECT DISTINCT k.ecosystem, p.name, p.name_key, p.rank FROM json_each(?1) j ${join("popular_keys k", "key_hash")}
           JOIN popular_names p ON p.ecosystem = k.ecosystem AND p.rank = k.rank`,
      )
      .bind(JSON.stringify([...keys.values()])),
    // The version checks run in SQL over the stored version list: no per-request parse of it.
    db
      .prepare(
        `SELECT c.ecosystem, c.name_key, json_extract(j.value, '$[2]') AS vkey, c.status, c.data, c.fetched_at,
                CASE WHEN json_extract(j.value, '$[2]') IS NULL THEN NULL
                     ELSE EXISTS (SELECT 1 FROM json_each(c.versions) v WHERE v.value = json_extract(j.value, '$[2]')) END AS version_found,
                json_extract(c.flags, '$."' || coalesce(json_extract(j.value, '$[2]'), json_extract(c.data, '$.latestKey'), '') || '"') AS flags
           FROM json_each(?1) j ${join("registry_cache c")} WHERE c.expires_at > ?2`,
      )
      .bind(withVersions, at),
    db.prepare(`SELECT f.ecosystem AS eco, f.name AS key, f.ranges, f.versions, ${ADV_COLS} FROM json_each(?1) j ${join("advisory_affected f", "name")} JOIN advisories a ON a.id = f.advisory_id AND a.malicious = 0`).bind(p),
  ]);
  const group = <T extends { ecosystem?: string; name_key?: string; eco?: string; key?: string }>(rows: T[]) => {
    const m = new Map<string, T[]>();
    for (const r of rows) {
      const k = pairKey((r.ecosystem ?? r.eco)!, (r.name_key ?? r.key)!);
      m.set(k, [...(m.get(k) ?? []), r]);
    }
    return m;
  };
  const cached = new Map<string, Found | Missing>();
  for (const c of cache!.results as { ecosystem: string; name_key: string; vkey: string | null; status: string; data: string; fetched_at: number; version_found: number | null; flags: string | null }[]) {
    const data = JSON.parse(c.data);
    cached.set(
      entryKey(c.ecosystem, c.name_key, c.vkey),
      c.status === "found"
        ? { status: "found", summary: data as Summary, fetchedAt: c.fetched_at, versionFound: c.version_found === null ? null : !!c.version_found, flags: c.flags ? (JSON.parse(c.flags) as Flags) : null }
        : { status: "missing", source: data.source, detail: data.detail, fetchedAt: c.fetched_at },
    );
  }
  return {
    malicious: group(mal!.results as unknown as MaliciousRow[]),
    hallucinated: new Map((hall!.results as { ecosystem: string; name_key: string; suggestion: string; note: string; source: string }[]).map((h) => [pairKey(h.ecosystem, h.name_key), h])),
    popular: new Map((pop!.results as { ecosystem: string; name_key: string; rank: number }[]).map((r) => [pairKey(r.ecosystem, r.name_key), r.rank])),
    near: near!.results as { ecosystem: string; name: string; name_key: string; rank: number }[],
    cached,
    advisories: group(adv!.results as unknown as { eco: string; key: string; id: string; summary: string | null; ranges: string; versions: string }[]),
  };
}

/** Runs `fn` over items with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, fn: (t: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export interface CheckOptions {
  lookup?: Lookuper;
  ctx?: SourceCtx;
  waitUntil?: (p: Promise<unknown>) => void;
  /** Registry subrequests this check may make (default: PACKAGE_CHECK_SUBREQUESTS or SUBREQUEST_BUDGET). */
  budget?: number;
}

export async function checkPackages(env: Env, packages: { name: string; ecosystem: Ecosystem; version?: string }[], opts: CheckOptions = {}): Promise<{ results: CheckResult[] }> {
  const at = now();
  const db = env.DB;
  const entries: Entry[] = packages.map((p, i) => {
    const exact = p.version ? (cleanVersion(p.ecosystem, p.version) ?? pinnedExact(p.ecosystem, p.version)) : null;
    const range = p.version && !exact && isRequirement(p.ecosystem, p.version) ? p.version : null;
    return {
      i,
      name: p.name,
      eco: p.ecosystem,
      key: packageKey(p.ecosystem, p.name),
      version: p.version,
      vkey: p.version && !range ? versionKey(p.ecosystem, exact ?? p.version) : null,
      range,
      validName: NAME_RULES[p.ecosystem].test(p.name),
    };
  });
  const facts = await offlineFacts(db, entries, at);

  // Which names go to their registry: valid, not cached, not already decided by an offline fact.
  const outcomes = new Map<string, Outcome>();
  const fresh = new Map<string, ReturnType<typeof toCache> | Missing | { status: "error"; reason: string }>();
  const toFetch: Entry[] = [];
  const queued = new Set<string>();
  for (const e of entries) {
    const k = pairKey(e.eco, e.key);
    const cached = facts.cached.get(entryKey(e.eco, e.key, e.vkey));
    if (cached) outcomes.set(entryKey(e.eco, e.key, e.vkey), cached);
    else if (!e.validName || facts.hallucinated.has(k) || (facts.malicious.get(k) ?? []).some((m) => m.versions === "*")) outcomes.set(entryKey(e.eco, e.key, e.vkey), { status: "skipped" });
    else if (!queued.has(k)) {
      queued.add(k);
      toFetch.push(e);
    }
  }
  const ctx = opts.ctx ?? sourceCtx(env, 4_000);
  const lookup = opts.lookup ?? registryLookup;
  let budget = opts.budget ?? (Number(env.PACKAGE_CHECK_SUBREQUESTS) || SUBREQUEST_BUDGET);
  const planned = toFetch.filter((e) => {
    if (budget < COST[e.eco]) {
      fresh.set(pairKey(e.eco, e.key), { status: "error", reason: "not looked up: this request reached its registry lookup budget; check it again in a separate request" });
      return false;
    }
    budget -= COST[e.eco];
    return true;
  });
  const rows: unknown[][] = [];
  await pool(planned, CONCURRENCY, async (e) => {
    const k = pairKey(e.eco, e.key);
    try {
      const r = await lookup(e.eco, e.name, ctx, facts.popular.has(k));
      if (r.status === "found") {
        const c = toCache(e.eco, r.facts);
        fresh.set(k, c);
        const ttl = facts.popular.has(k) ? CACHE_TTL.foundPopular : CACHE_TTL.found;
        rows.push([e.eco, e.key, "found", JSON.stringify(c.summary), JSON.stringify(c.versions), JSON.stringify(c.flags), at, at + ttl]);
      } else {
        const m: Missing = { status: "missing", source: r.source, detail: r.detail, fetchedAt: at };
        fresh.set(k, m);
        rows.push([e.eco, e.key, "missing", JSON.stringify({ source: r.source, detail: r.detail }), "[]", "{}", at, at + CACHE_TTL.missing]);
      }
    } catch (err) {
      const reason = err instanceof SourceError ? err.message : `${e.eco} registry: ${(err as Error)?.message ?? "lookup failed"}`;
      fresh.set(k, { status: "error", reason });
    }
  });
  if (rows.length) {
    const write = db
      .prepare(
        `INSERT INTO registry_cache (ecosystem, name_key, status, data, versions, flags, fetched_at, expires_at)
         SELECT ${jsonCols(8)} FROM json_each(?1) WHERE true
         ON CONFLICT (ecosystem, name_key) DO UPDATE SET status = excluded.status, data = excluded.data, versions = excluded.versions,
           flags = excluded.flags, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`,
      )
      .bind(JSON.stringify(rows))
      .run()
      .catch((err) => console.error(JSON.stringify({ level: "error", what: "registry_cache write", error: String(err) })));
    if (opts.waitUntil) opts.waitUntil(write);
    else await write;
  }
  const outcomeOf = (e: Entry): Outcome => {
    const known = outcomes.get(entryKey(e.eco, e.key, e.vkey));
    if (known) return known;
    const f = fresh.get(pairKey(e.eco, e.key));
    if (!f) return { status: "skipped" };
    if ("summary" in f) {
      const judgedKey = e.vkey ?? f.summary.latestKey;
      return { status: "found", summary: f.summary, fetchedAt: at, versionFound: e.vkey ? f.versions.includes(e.vkey) : null, flags: judgedKey ? (f.flags[judgedKey] ?? null) : null };
    }
    return f;
  };
  const resolvedOutcomes = await resolveRanges(db, entries, outcomeOf, fresh);
  return { results: entries.map((e) => verdictFor(e, facts, resolvedOutcomes.get(e) ?? outcomeOf(e), at)) };
}

/** `==2.0` (PyPI) names one version; anything else that is not a version is a range or a tag. */
function pinnedExact(eco: Ecosystem, v: string): string | null {
  const m = eco === "pypi" ? /^===?\s*([^,;\s*]+)$/.exec(v.trim()) : null;
  return m && cleanVersion(eco, m[1]!) ? m[1]! : null;
}

const isRequirement = (eco: Ecosystem, v: string) => resolveRange(eco, v, []) !== undefined || (eco === "npm" && /^[a-z][a-z0-9._-]*$/i.test(v.trim()));

/**
 * Ranges and dist-tags: the version a fresh install would pick (the highest satisfying one; the
 * `latest` tag is the registry's latest), with that version's flags. One extra statement, only
 * for cached packages asked with a range.
 */
async function resolveRanges(
  db: D1Database,
  entries: Entry[],
  outcomeOf: (e: Entry) => Outcome,
  fresh: Map<string, ReturnType<typeof toCache> | Missing | { status: "error"; reason: string }>,
): Promise<Map<Entry, Outcome>> {
  const out = new Map<Entry, Outcome>();
  const ranged = entries.filter((e) => e.range && outcomeOf(e).status === "found");
  if (!ranged.length) return out;
  const need = ranged.filter((e) => !fresh.has(pairKey(e.eco, e.key)));
  const stored = new Map<string, { versions: string[]; flags: Record<string, Flags> }>();
  if (need.length) {
    const rows = await db
      .prepare(
        `SELECT c.ecosystem, c.name_key, c.versions, c.flags FROM json_each(?1) j
           JOIN registry_cache c ON c.ecosystem = json_extract(j.value, '$[0]') AND c.name_key = json_extract(j.value, '$[1]')`,
      )
      .bind(JSON.stringify(need.map((e) => [e.eco, e.key])))
      .all<{ ecosystem: string; name_key: string; versions: string; flags: string }>();
    for (const r of rows.results) stored.set(pairKey(r.ecosystem, r.name_key), { versions: JSON.parse(r.versions), flags: JSON.parse(r.flags) });
  }
  for (const e of ranged) {
    const o = outcomeOf(e) as Found;
    const f = fresh.get(pairKey(e.eco, e.key));
    const data = f && "summary" in f ? { versions: f.versions, flags: f.flags } : stored.get(pairKey(e.eco, e.key));
    if (!data) continue;
    const spec = e.range!.trim();
    // Installers skip yanked releases unless pinned exactly (PEP 592; cargo likewise).
    const candidates = e.eco === "pypi" || e.eco === "cargo" ? data.versions.filter((v) => data.flags[v]?.y === undefined) : data.versions;
    const resolved = e.eco === "npm" && spec === "latest" ? o.summary.latestVersion : resolveRange(e.eco, spec, candidates);
    if (resolved === undefined) {
      // A dist-tag other than latest: its target is not kept; judge the latest and say so.
      e.resolved = o.summary.latestVersion;
      out.set(e, { ...o, versionFound: null });
      continue;
    }
    e.resolved = resolved ? (data.flags[resolved]?.v ?? resolved) : null;
    out.set(e, { ...o, versionFound: resolved !== null, flags: resolved ? (data.flags[versionKey(e.eco, resolved)] ?? null) : null });
  }
  return out;
}

type Facts = Awaited<ReturnType<typeof offlineFacts>>;

function bestImitation(e: Entry, facts: Facts): { target: string; kind: TypoKind } | null {
  let best: { target: string; kind: TypoKind; rank: number } | null = null;
  for (const n of facts.near) {
    if (n.ecosystem !== e.eco || n.name_key === e.key) continue;
    const kind = classify(e.eco, e.key, n.name_key);
    if (kind && (!best || n.rank < best.rank)) best = { target: n.name, kind, rank: n.rank };
  }
  return best;
}

function verdictFor(e: Entry, facts: Facts, outcome: Outcome, at: number): CheckResult {
  const k = pairKey(e.eco, e.key);
  const block: CheckResult["reasons"] = [];
  const warn: CheckResult["reasons"] = [];
  const result: CheckResult = { name: e.name, ecosystem: e.eco, verdict: "ok", reasons: [], exists: null };
  if (e.version) result.version = e.version;
  const advisories: string[] = [];
  const unverified: string[] = [];
  const popularRank = facts.popular.get(k);

  if (!e.validName) {
    block.push({ code: "INVALID_NAME", message: `"${e.name}" is not a valid ${e.eco} package name, so it cannot be installed from the registry as written` });
    result.exists = false;
  }
  const hall = facts.hallucinated.get(k);
  if (hall) {
    block.push({ code: "HALLUCINATED", message: `"${e.name}" is a name coding models are known to invent: ${hall.note} Use "${hall.suggestion}". (${hall.source})` });
    result.suggestion = hall.suggestion;
  }

  const found = outcome.status === "found" ? outcome : null;
  const sum = found?.summary ?? null;
  const version = e.range ? (e.resolved ?? null) : e.version ? (cleanVersion(e.eco, e.version) ?? pinnedExact(e.eco, e.version) ?? e.version) : null;
  // The version whose safety is judged: the requested one (a range: the version it resolves to),
  // else the latest the registry offers.
  const judged = version ?? sum?.latestVersion ?? null;

  for (const m of facts.malicious.get(k) ?? []) {
    const id = m.mal_id ?? `${m.origin} report`;
    const target = m.summary_kind?.startsWith("typosquat:") ? m.summary_kind.slice(10) : null;
    if (target && !result.suggestion) {
      result.suggestion = target;
      result.imitates = target;
    }
    const hit = m.versions === "*" ? true : judged ? inSnapshotVersions(e.eco, judged, m.versions) : null;
    if (hit === true) {
      block.push({ code: "MALICIOUS", message: `reported malicious (${id}${m.versions === "*" ? ", every version" : `, versions ${m.versions}`}${target ? `, a typosquat of "${target}"` : ""}; source: OpenSSF malicious-packages, ${m.origin})` });
      if (m.mal_id) advisories.push(m.mal_id);
    } else if (m.versions === "?" && popularRank === undefined) {
      block.push({ code: "MALICIOUS", message: `reported malicious (${id}; affected versions not known, so every version is treated as affected; source: OpenSSF malicious-packages, ${m.origin})` });
      if (m.mal_id) advisories.push(m.mal_id);
    } else if (hit === null) {
      // Versions not known (a popular name with compromised releases), or no version to judge.
      warn.push({ code: "MALICIOUS_VERSIONS", message: `some versions were reported malicious (${id}: ${m.versions === "?" ? "which ones is not known" : m.versions}); ${m.versions === "?" ? "check the release you install against the report" : "pin a version that is not among them"}` });
      if (m.mal_id) advisories.push(m.mal_id);
    }
    // hit === false: the version judged is not among the reported ones; nothing to say.
  }

  if (outcome.status === "missing") {
    result.exists = false;
    block.push({ code: "NOT_FOUND", message: `${outcome.detail} (${outcome.source}, checked ${iso(outcome.fetchedAt)})` });
    result.source = outcome.source;
    result.checkedAt = iso(outcome.fetchedAt);
  } else if (outcome.status === "error") {
    warn.push({ code: outcome.reason.startsWith("not looked up") ? "NOT_CHECKED" : "REGISTRY_UNREACHABLE", message: `could not verify with the ${e.eco} registry: ${outcome.reason}` });
  } else if (found && sum) {
    result.exists = true;
    result.source = sum.source;
    result.checkedAt = iso(found.fetchedAt);
    if (sum.latestVersion) result.latestVersion = sum.latestVersion;
    if (sum.firstPublished) result.firstPublished = sum.firstPublished;
    if (sum.securityHolder) {
      block.push({ code: "SECURITY_HOLDER", message: `npm removed this package for security reasons and holds the name with a "${sum.latestVersion}" stub (security holding package); it has no real code` });
    }
    if (sum.quarantined) {
      block.push({ code: "QUARANTINED", message: "PyPI quarantined this project (reported malicious): nothing can be installed from it" });
    }
    if (e.version && !sum.securityHolder && !sum.quarantined && found.versionFound === false) {
      block.push({ code: "VERSION_NOT_FOUND", message: `${e.range ? `no published version satisfies ${e.version}` : `version ${e.version} does not exist`}${sum.latestVersion ? `; the latest is ${sum.latestVersion}` : ""}` });
    }
    if (e.range && e.resolved) result.resolvedVersion = e.resolved;
    const flags = found.flags ?? {};
    if (flags.d) warn.push({ code: "DEPRECATED", message: `${judged} is deprecated: ${flags.d}` });
    else if (sum.packageDeprecated) warn.push({ code: "DEPRECATED", message: `deprecated: ${sum.packageDeprecated}` });
    if (judged) {
      const range = e.eco === "go" ? sum.retracted.find((r) => isRetracted(judged, r)) : undefined;
      if (flags.y !== undefined || range) warn.push({ code: "YANKED", message: `${judged} was ${e.eco === "go" ? "retracted" : "yanked"}${flags.y ? `: ${flags.y}` : range ? ` (retract ${range})` : ""}` });
      if (flags.i) warn.push({ code: "INSTALL_SCRIPTS", message: `${judged} runs install scripts (preinstall/install/postinstall) when installed` });
    }
    if (sum.firstPublished && sum.datesTrusted) {
      const ageDays = (at - Date.parse(sum.firstPublished)) / DAY_MS;
      if (ageDays < NEW_PACKAGE_DAYS) warn.push({ code: "NEW_PACKAGE", message: `first published ${sum.firstPublished.slice(0, 10)}, less than ${NEW_PACKAGE_DAYS} days ago` });
    } else if (!sum.datesTrusted) {
      unverified.push("firstPublished", ...(e.eco === "npm" ? ["deprecated"] : []));
      // A popular name is not new, whatever the dates say; anything else could be.
      if (popularRank === undefined) warn.push({ code: "UNVERIFIED_DATES", message: "the registry answered without trustworthy publish dates (a mirror), so Lore could not verify how new this package is" });
    }
  }

  if (judged) {
    for (const a of facts.advisories.get(k) ?? []) {
      if (osvAffects(e.eco, judged, { ranges: JSON.parse(a.ranges), versions: JSON.parse(a.versions) }) && !advisories.includes(a.id)) {
        advisories.push(a.id);
        warn.push({ code: "VULNERABLE", message: `${judged} is affected by ${a.id}${a.summary ? `: ${a.summary}` : ""}` });
      }
    }
  }

  if (popularRank === undefined && !hall) {
    const imit = bestImitation(e, facts);
    if (imit) {
      warn.push({ code: "TYPOSQUAT", message: `"${e.name}" is ${TYPO_MESSAGES[imit.kind](imit.target)}; did you mean "${imit.target}"?` });
      result.imitates = imit.target;
      result.suggestion ??= imit.target;
    }
  }

  result.reasons = [...block, ...warn];
  result.verdict = block.length ? "block" : warn.length ? "warn" : "ok";
  if (advisories.length) result.advisories = [...new Set(advisories)];
  if (unverified.length) result.unverified = [...new Set(unverified)];
  return result;
}
