/**
 * The scheduled ingest (cron, see src/index.ts): one step per source, each upserting idempotently
 * and recording per-topic status (`ingest_status`). A source that fails records its error and the
 * next one runs anyway; a topic that fails does not stop the other topics of its source.
 *
 * Dates: a registry's publish time is stored with the lowest rank, a GitHub release's above it, a
 * changelog heading above that, and curated publisher dates highest (DATE_RANK): an ingest never
 * replaces a stronger date with a weaker one, so registry times never win over a changelog date.
 */
import type { Env } from "../env";
import { bulkStatements } from "../core/bulk";
import { columnsOf, type SqlRow, insertColumns } from "../core/columns";
import { freshTopics, ingestStatus } from "../db/freshness";
import { utcDay } from "../core/clock";
import { crateDoc } from "../sources/crates";
import { githubRawFile, githubReleases } from "../sources/github";
import { goInfo, goLatest, goList, goMod, parseGoMod } from "../sources/goproxy";
import { SourceError, sourceCtx, type SourceCtx } from "../sources/http";
import { modelsDevCatalog, MODELS_DEV } from "../sources/modelsdev";
import { npmFacts, npmPackument, npmPath, NPM_REGISTRY } from "../sources/npm";
import { osvModifiedSince, osvQueryPackage, osvVuln, type OsvRecord } from "../sources/osv";
import { pypiProject, pypiReleaseDates, PYPI } from "../sources/pypi";
import { modelsById, modelRow, UPSERT_MODELS } from "../models";
import type { ModelOut } from "../models";
import { osvStatements } from "./advisories";
import { osvCoverageStatement } from "./coverage";
import { MAX_AGE_MS } from "./staleness";
import { packageKey } from "../ecosystems/topics";
import { parseChangelog, parseReleaseNotes, versionFromTag } from "./changelog";
import { DATE_RANK, UPSERT_DEPRECATIONS, UPSERT_RELEASES, type ReleaseRow } from "./freshness.seed";
import { cleanVersion, isPrerelease, OSV_ECOSYSTEM, parseEcosystem, type Ecosystem } from "../ecosystems/versions";

/** The ingest cron in wrangler.toml; src/index.ts sends every other cron to the daily maintenance. */
export const INGEST_CRON = "41 */6 * * *";

export const INGEST_SOURCES = ["npm", "pypi", "go", "crates", "github", "changelog", "osv", "osv-malicious", "models.dev"] as const;
export type IngestSource = (typeof INGEST_SOURCES)[number];

const TOPIC_KEYS = ["topic", "ecosystem", "packages", "repo", "changelog"] as const;
export type TopicRow = SqlRow<typeof freshTopics, (typeof TOPIC_KEYS)[number]>;

export interface IngestReport {
  at: number;
  /** `unreachable`: the source could not be reached at all in this run (its remaining topics were not tried). */
  sources: { source: IngestSource; ok: number; failed: number; items: number; errors: string[]; unreachable: boolean; ms: number }[];
}

interface StepResult {
  topic: string;
  items: number;
  error?: string;
  cursor?: string;
}

const MAX_GO_INFOS = 40;

function release(
  topic: string,
  eco: Ecosystem,
  pkg: string,
  version: string,
  date: string | null,
  basis: string,
  rank: number,
  asOf: string,
  url: string,
  extra: Partial<{ summary: string; breaking: number | null; changes: string; verification: string }> = {},
): ReleaseRow {
  return [
    topic,
    version,
    eco,
    pkg,
    date,
    date ? basis : null,
    rank,
    asOf,
    `${pkg} ${version}`,
    extra.summary ?? "",
    extra.breaking ?? null,
    extra.changes ?? "[]",
    isPrerelease(eco, version) ? 1 : 0,
    url,
    url,
    extra.verification ?? "registry",
  ];
}

/** Registry releases of one topic's main package: stable versions only (canaries and nightlies would drown the rest). */
async function registryReleases(
  t: TopicRow,
  eco: Ecosystem,
  ctx: SourceCtx,
  asOf: string,
  maxGoInfos = MAX_GO_INFOS,
): Promise<{ rows: ReleaseRow[]; deprecations: unknown[][] }> {
  const pkg = (JSON.parse(t.packages) as string[])[0] ?? t.topic;
  const rows: ReleaseRow[] = [];
  const deprecations: unknown[][] = [];
  const stable = (v: string) => cleanVersion(eco, v) !== null && !isPrerelease(eco, v);
  if (eco === "npm") {
    const got = await npmPackument(pkg, ctx, { full: true });
    if (!got) throw new Error(`npm has no package ${pkg}`);
    const facts = npmFacts(got.doc, got.url);
    const url = `https://www.npmjs.com/package/${pkg}`;
    for (const v of Object.keys(got.doc.versions ?? {}).filter(stable)) {
      // A mirror re-stamps times: without time.created the registry's dates are not release dates.
      const time = facts?.datesTrusted ? (got.doc.time?.[v] as string | undefined) : undefined;
      rows.push(
        release(
          t.topic,
          eco,
          pkg,
          v,
          time ? time.slice(0, 10) : null,
          "npm registry publish time",
          DATE_RANK.registry,
          asOf,
          `${url}/v/${v}`,
        ),
      );
    }
    const latest = facts?.latestVersion;
    if (facts?.datesTrusted && latest && facts.deprecated[latest]) {
      deprecations.push([
        `npm:${pkg}`,
        t.topic,
        "npm",
        pkg,
        `${pkg} (the whole package)`,
        "deprecated",
        latest,
        null,
        facts.deprecated[latest],
        null,
        null,
        null,
        asOf,
        `${NPM_REGISTRY}/${npmPath(pkg)}`,
        "registry",
      ]);
    }
  } else if (eco === "pypi") {
    const got = await pypiProject(pkg, ctx);
    if (!got) throw new Error(`PyPI has no project ${pkg}`);
    const dates = pypiReleaseDates(got.doc);
    for (const v of Object.keys(dates).filter(stable)) {
      rows.push(
        release(
          t.topic,
          eco,
          pkg,
          v,
          dates[v]?.slice(0, 10) ?? null,
          "earliest PyPI file upload time",
          DATE_RANK.registry,
          asOf,
          `${PYPI}/project/${pkg}/${v}/`,
        ),
      );
    }
  } else if (eco === "cargo") {
    const got = await crateDoc(pkg, ctx);
    if (!got) throw new Error(`crates.io has no crate ${pkg}`);
    for (const v of got.doc.versions ?? []) {
      if (!stable(v.num) || v.yanked) continue;
      rows.push(
        release(
          t.topic,
          eco,
          pkg,
          v.num,
          v.created_at?.slice(0, 10) ?? null,
          "crates.io publish time",
          DATE_RANK.registry,
          asOf,
          `https://crates.io/crates/${pkg}/${v.num}`,
        ),
      );
    }
  } else {
    const list = await goList(pkg, ctx);
    if (!list) throw new Error(`the Go proxy has no module ${pkg}`);
    const latest = await goLatest(pkg, ctx);
    const versions = list.filter(stable).slice(-maxGoInfos);
    const infos = await Promise.all(versions.map((v) => goInfo(pkg, v, ctx).catch(() => null)));
    versions.forEach((v, i) => {
      const time = infos[i]?.Time;
      rows.push(
        release(
          t.topic,
          eco,
          pkg,
          v,
          time ? time.slice(0, 10) : null,
          "Go module proxy time",
          DATE_RANK.registry,
          asOf,
          `https://pkg.go.dev/${pkg}@${v}`,
        ),
      );
    });
    if (latest) {
      const mod = await goMod(pkg, latest.Version, ctx);
      const dep = mod ? parseGoMod(mod).deprecated : null;
      if (dep)
        deprecations.push([
          `go:${pkg}`,
          t.topic,
          "go",
          pkg,
          `module ${pkg}`,
          "deprecated",
          latest.Version,
          null,
          dep,
          null,
          null,
          null,
          asOf,
          `https://pkg.go.dev/${pkg}`,
          "registry",
        ]);
    }
  }
  return { rows, deprecations };
}

async function githubStep(t: TopicRow, eco: Ecosystem, ctx: SourceCtx, asOf: string): Promise<ReleaseRow[]> {
  if (!t.repo) return [];
  const pkg = (JSON.parse(t.packages) as string[])[0] ?? t.topic;
  const rows: ReleaseRow[] = [];
  for (const r of await githubReleases(t.repo, ctx)) {
    if (r.draft) continue;
    const raw = versionFromTag(r.tag_name);
    const v = raw && (cleanVersion(eco, raw) ? (eco === "go" ? cleanVersion(eco, raw)! : raw) : null);
    if (!v) continue;
    const notes = parseReleaseNotes(r.body ?? "");
    rows.push(
      release(
        t.topic,
        eco,
        pkg,
        v,
        r.published_at ? r.published_at.slice(0, 10) : null,
        "GitHub release published_at",
        DATE_RANK.githubRelease,
        asOf,
        r.html_url ?? `https://github.com/${t.repo}/releases/tag/${r.tag_name}`,
        {
          breaking: notes.breaking,
          changes: JSON.stringify(notes.changes.slice(0, 60)),
          summary: (r.name && r.name !== r.tag_name ? `${r.name}\n\n` : "") + (r.body ?? "").slice(0, 4000),
          verification: "primary",
        },
      ),
    );
  }
  return rows;
}

async function changelogStep(t: TopicRow, eco: Ecosystem, ctx: SourceCtx, asOf: string): Promise<ReleaseRow[]> {
  if (!t.changelog?.startsWith("https://github.com/")) return [];
  const text = await githubRawFile(t.changelog, ctx);
  if (text === null) throw new Error(`changelog not found at ${t.changelog}`);
  const pkg = (JSON.parse(t.packages) as string[])[0] ?? t.topic;
  return parseChangelog(text).flatMap((r) => {
    const v = cleanVersion(eco, eco === "go" && !r.version.startsWith("v") ? `v${r.version}` : r.version);
    if (!v) return [];
    const version = eco === "go" ? v : r.version;
    return [
      release(t.topic, eco, pkg, version, r.date, r.dateBasis ?? "changelog heading", DATE_RANK.changelog, asOf, t.changelog!, {
        breaking: r.breaking,
        changes: JSON.stringify(r.changes.slice(0, 60)),
        verification: "primary",
      }),
    ];
  });
}

async function osvStep(db: D1Database, t: TopicRow, eco: Ecosystem, ctx: SourceCtx, at: number): Promise<number> {
  const records: OsvRecord[] = [];
  const asked = (JSON.parse(t.packages) as string[]).slice(0, 3);
  for (const pkg of asked) records.push(...(await osvQueryPackage(OSV_ECOSYSTEM[eco], pkg, ctx)));
  // Each package asked is now checked as of this run, findings or not (advisory_sources).
  const stmts = [
    ...(await osvStatements(db, records, at)),
    ...asked.map((pkg) => osvCoverageStatement(db, eco, packageKey(eco, pkg), at, MAX_AGE_MS.advisories)),
  ];
  await db.batch(stmts);
  return records.length;
}

/** New MAL- records per ecosystem since the cursor (the newest `modified` already seen). */
async function maliciousStep(db: D1Database, eco: Ecosystem, ctx: SourceCtx, at: number, cursor: string | null): Promise<StepResult> {
  let after = cursor;
  if (!after) {
    const r = await db
      .prepare("SELECT max(modified) AS m FROM malicious_packages WHERE ecosystem = ?")
      .bind(eco)
      .first<{ m: string | null }>();
    after = r?.m ? `${r.m}T23:59:59Z` : "2024-01-01T00:00:00Z";
  }
  const ids = await osvModifiedSince(OSV_ECOSYSTEM[eco], after, ctx, "MAL-", 50);
  let failed = 0;
  const records = (await Promise.all(ids.map((x) => osvVuln(x.id, ctx).catch(() => (failed++, null))))).filter((r): r is OsvRecord => !!r);
  const stmts = await osvStatements(db, records, at);
  if (stmts.length) await db.batch(stmts);
  // The cursor moves only when every record arrived, so a failed one is fetched again next run.
  return {
    topic: eco,
    items: records.length,
    cursor: failed ? after : (ids[0]?.modified ?? after),
    ...(failed ? { error: `${failed} of ${ids.length} MAL- records could not be fetched` } : {}),
  };
}

/** models.dev prices and limits, merged under curated facts (curated lifecycle and benchmarks are kept). */
async function modelsStep(db: D1Database, ctx: SourceCtx, at: number, asOf: string): Promise<number> {
  const catalog = await modelsDevCatalog(ctx);
  const incoming: ModelOut[] = [];
  for (const [providerId, provider] of Object.entries(catalog)) {
    for (const [modelId, m] of Object.entries(provider?.models ?? {})) {
      if (!m || typeof m !== "object") continue;
      const source = `https://github.com/anomalyco/models.dev/blob/dev/providers/${providerId}/models/${modelId}.toml`;
      incoming.push({
        id: `${providerId}/${modelId}`,
        provider: providerId,
        apiModelId: modelId,
        name: m.name ?? modelId,
        aliases: [],
        releaseDate: { value: m.release_date ?? null, notes: null, asOf, source },
        pricing: m.cost
          ? {
              currency: "USD",
              unit: "per million tokens",
              input: m.cost.input ?? null,
              output: m.cost.output ?? null,
              cacheRead: m.cost.cache_read ?? null,
              cacheWrite: m.cost.cache_write ?? null,
              tiers: [],
              notes: null,
              asOf,
              source: MODELS_DEV,
            }
          : null,
        limits: {
          context: m.limit?.context ?? null,
          input: m.limit?.input ?? null,
          output: m.limit?.output ?? null,
          notes: null,
          asOf,
          source: MODELS_DEV,
        },
        lifecycle: {
          status: m.status === "deprecated" ? "deprecated" : "unknown",
          deprecationAnnounced: null,
          retirementDate: null,
          retirementPrecision: null,
          replacement: null,
          replacementNotes: m.status === "deprecated" ? "models.dev names no replacement; the provider's deprecations page may" : null,
          notes: m.status === "deprecated" ? "models.dev: no longer served by the provider's public API" : null,
          verification: "secondary",
          asOf,
          source: MODELS_DEV,
        },
        benchmarks: [],
        sources: [source],
        origin: "models.dev",
      });
    }
  }
  const existing = await modelsById(
    db,
    incoming.map((m) => m.id),
  );
  const merged = incoming.map((m) => {
    const cur = existing.get(m.id);
    if (cur?.origin !== "curated") return m;
    return {
      ...cur,
      pricing: cur.pricing ?? m.pricing,
      limits: cur.limits.context === null ? m.limits : cur.limits,
      lifecycle:
        cur.lifecycle.status === "unknown" || (cur.lifecycle.status === "active" && m.lifecycle.status === "deprecated")
          ? {
              ...cur.lifecycle,
              status: m.lifecycle.status,
              notes: m.lifecycle.notes ?? cur.lifecycle.notes,
              replacementNotes: cur.lifecycle.replacementNotes ?? m.lifecycle.replacementNotes,
            }
          : cur.lifecycle,
    };
  });
  const stmts = bulkStatements(db, UPSERT_MODELS, merged.map(modelRow), [at]);
  for (let i = 0; i < stmts.length; i += 50) await db.batch(stmts.slice(i, i + 50));
  return merged.length;
}

/** Runs every (or the named) source step; never throws because one source failed. */
export async function runIngest(
  env: Env,
  at: number,
  opts: { sources?: readonly IngestSource[]; maxTopics?: number; ctx?: SourceCtx } = {},
): Promise<IngestReport> {
  const db = env.DB;
  const ctx = opts.ctx ?? sourceCtx(env, 15_000);
  const asOf = utcDay(at);
  const wanted = opts.sources ?? INGEST_SOURCES;
  const topics = (
    await db
      .prepare(
        `SELECT ${columnsOf(freshTopics, "t", TOPIC_KEYS)} FROM fresh_topics t
          WHERE t.tracked = 1 AND t.packages <> '[]'
          ORDER BY (SELECT min(last_run_at) FROM ingest_status s WHERE s.topic = t.topic) NULLS FIRST, t.topic LIMIT ?`,
      )
      .bind(opts.maxTopics ?? 25)
      .all<TopicRow>()
  ).results;
  const report: IngestReport = { at, sources: [] };
  const ecoOf = (t: TopicRow) => parseEcosystem(t.ecosystem) as Ecosystem | null;

  // A source that cannot be reached at all (no route, DNS, timeout) is not tried again for its other
  // topics in this run: they fail fast, said so, instead of each waiting out its own timeout.
  let unreachable: string | null = null;
  let networkFailures = 0;
  const perTopic = async (source: IngestSource, list: TopicRow[], fn: (t: TopicRow, eco: Ecosystem) => Promise<number>) => {
    const results: StepResult[] = [];
    for (const t of list) {
      const eco = ecoOf(t);
      if (!eco) continue;
      if (unreachable) {
        results.push({ topic: t.topic, items: 0, error: `not tried: ${unreachable}` });
        continue;
      }
      try {
        results.push({ topic: t.topic, items: await fn(t, eco) });
        networkFailures = 0;
      } catch (e) {
        // Two topics in a row that could not reach the source: it is down (or unreachable from here).
        if (e instanceof SourceError && (e.kind === "network" || e.kind === "timeout") && ++networkFailures >= 2)
          unreachable = `${e.source} ${e.message.replace(/^[^:]+: /, "")} for two topics in a row in this run`;
        results.push({ topic: t.topic, items: 0, error: String((e as Error)?.message ?? e).slice(0, 500) });
      }
    }
    return results;
  };

  const writeReleases = async (rows: ReleaseRow[], deprecations: unknown[][] = []) => {
    const stmts = [...bulkStatements(db, UPSERT_RELEASES, rows, [at]), ...bulkStatements(db, UPSERT_DEPRECATIONS, deprecations, [at])];
    if (stmts.length) await db.batch(stmts);
    return rows.length + deprecations.length;
  };

  const registryEco: Partial<Record<IngestSource, Ecosystem>> = { npm: "npm", pypi: "pypi", go: "go", crates: "cargo" };
  for (const source of wanted) {
    let results: StepResult[] = [];
    unreachable = null;
    networkFailures = 0;
    const t0 = Date.now();
    try {
      const eco = registryEco[source];
      if (eco) {
        results = await perTopic(
          source,
          topics.filter((t) => ecoOf(t) === eco),
          async (t) => {
            const { rows, deprecations } = await registryReleases(t, eco, ctx, asOf);
            return writeReleases(rows, deprecations);
          },
        );
      } else if (source === "github") {
        results = await perTopic(
          source,
          topics.filter((t) => t.repo),
          async (t, e) => writeReleases(await githubStep(t, e, ctx, asOf)),
        );
      } else if (source === "changelog") {
        results = await perTopic(
          source,
          topics.filter((t) => t.changelog?.startsWith("https://github.com/")),
          async (t, e) => writeReleases(await changelogStep(t, e, ctx, asOf)),
        );
      } else if (source === "osv") {
        results = await perTopic(source, topics, (t, e) => osvStep(db, t, e, ctx, at));
      } else if (source === "osv-malicious") {
        const cursors = await db
          .prepare("SELECT topic, cursor FROM ingest_status WHERE source = 'osv-malicious'")
          .all<{ topic: string; cursor: string | null }>();
        for (const eco of ["npm", "pypi", "go", "cargo"] as const) {
          try {
            results.push(await maliciousStep(db, eco, ctx, at, cursors.results.find((c) => c.topic === eco)?.cursor ?? null));
          } catch (e) {
            results.push({ topic: eco, items: 0, error: String((e as Error)?.message ?? e).slice(0, 500) });
          }
        }
      } else if (source === "models.dev") {
        try {
          results = [{ topic: "", items: await modelsStep(db, ctx, at, asOf) }];
        } catch (e) {
          results = [{ topic: "", items: 0, error: String((e as Error)?.message ?? e).slice(0, 500) }];
        }
      }
    } catch (e) {
      results.push({ topic: "", items: 0, error: String((e as Error)?.message ?? e).slice(0, 500) });
    }
    if (results.length) {
      await db
        .batch(
          results.map((r) =>
            db
              .prepare(
                `INSERT INTO ${insertColumns(ingestStatus, ["source", "topic", "lastRunAt", "lastOkAt", "lastError", "items", "cursor"])} VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (source, topic) DO UPDATE SET last_run_at = excluded.last_run_at,
                   last_ok_at = coalesce(excluded.last_ok_at, ingest_status.last_ok_at), last_error = excluded.last_error,
                   items = excluded.items, cursor = coalesce(excluded.cursor, ingest_status.cursor)`,
              )
              .bind(source, r.topic, at, r.error ? null : at, r.error ?? null, r.items, r.cursor ?? null),
          ),
        )
        .catch((e) => console.error(JSON.stringify({ level: "error", what: "ingest_status", error: String(e) })));
    }
    const failed = results.filter((r) => r.error);
    report.sources.push({
      source,
      ok: results.length - failed.length,
      failed: failed.length,
      items: results.reduce((n, r) => n + r.items, 0),
      errors: failed.map((r) => `${r.topic || source}: ${r.error}`),
      unreachable:
        !!results.length &&
        failed.length === results.length &&
        failed.some((r) => /unreachable|no answer within|not tried/.test(r.error ?? "")),
      ms: Date.now() - t0,
    });
  }
  console.log(
    JSON.stringify({
      level: "info",
      what: "ingest",
      sources: report.sources.map((s) => ({ source: s.source, ok: s.ok, failed: s.failed, items: s.items })),
    }),
  );
  return report;
}

/** The registry each ecosystem's releases come from (ingest_status.source). */
export const REGISTRY_SOURCE: Record<Ecosystem, IngestSource> = { npm: "npm", pypi: "pypi", go: "go", cargo: "crates" };
/** Subrequests one topic's registry refresh makes (Go: list, @latest, .mod and a few .info). */
const REFRESH_COST: Record<Ecosystem, number> = { npm: 1, pypi: 1, cargo: 1, go: 8 };

export interface RefreshResult {
  topic: string;
  ok: boolean;
  /** Why it could not be refreshed (unreachable, over this request's budget, …). */
  error: string | null;
}

/**
 * Refreshes the releases of these topics from their registries now (what the scheduled ingest
 * does), within a subrequest budget and a deadline: for a request (sync) that meets stale data.
 * Writes the releases and the topics' ingest status; never throws.
 */
export async function refreshTopics(
  env: Env,
  topics: TopicRow[],
  at: number,
  opts: { budget: number; deadlineMs: number; ctx?: SourceCtx },
): Promise<RefreshResult[]> {
  const db = env.DB;
  const ctx = opts.ctx ?? sourceCtx(env, Math.min(opts.deadlineMs, 5_000));
  const asOf = utcDay(at);
  let budget = opts.budget;
  const out: RefreshResult[] = [];
  const planned: { t: TopicRow; eco: Ecosystem }[] = [];
  for (const t of topics) {
    const eco = parseEcosystem(t.ecosystem);
    if (!eco) continue;
    if (budget < REFRESH_COST[eco]) {
      out.push({
        topic: t.topic,
        ok: false,
        error: "not tried: beyond this request's subrequest budget (the scheduled ingest will refresh it)",
      });
      continue;
    }
    budget -= REFRESH_COST[eco];
    planned.push({ t, eco });
  }
  const deadline = new Promise<"late">((r) => setTimeout(() => r("late"), opts.deadlineMs));
  const done = await Promise.all(
    planned.map(async ({ t, eco }) => {
      const work = (async () => {
        try {
          const { rows, deprecations } = await registryReleases(t, eco, ctx, asOf, 5);
          const stmts = [
            ...bulkStatements(db, UPSERT_RELEASES, rows, [at]),
            ...bulkStatements(db, UPSERT_DEPRECATIONS, deprecations, [at]),
          ];
          if (stmts.length) await db.batch(stmts);
          return { topic: t.topic, ok: true, error: null, items: rows.length + deprecations.length };
        } catch (e) {
          return { topic: t.topic, ok: false, error: String((e as Error)?.message ?? e).slice(0, 300), items: 0 };
        }
      })();
      const r = await Promise.race([work, deadline]);
      return r === "late"
        ? { topic: t.topic, ok: false, error: `no answer within this request's ${opts.deadlineMs} ms`, items: 0, eco }
        : { ...r, eco };
    }),
  );
  if (done.length) {
    await db
      .batch(
        done.map((r) =>
          db
            .prepare(
              `INSERT INTO ${insertColumns(ingestStatus, ["source", "topic", "lastRunAt", "lastOkAt", "lastError", "items", "cursor"])} VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL)
               ON CONFLICT (source, topic) DO UPDATE SET last_run_at = excluded.last_run_at,
                 last_ok_at = coalesce(excluded.last_ok_at, ingest_status.last_ok_at), last_error = excluded.last_error, items = excluded.items`,
            )
            .bind(REGISTRY_SOURCE[r.eco], r.topic, at, r.ok ? at : null, r.error, r.items),
        ),
      )
      .catch((e) => console.error(JSON.stringify({ level: "error", what: "refresh ingest_status", error: String(e) })));
  }
  return [...out, ...done.map(({ topic, ok, error }) => ({ topic, ok, error }))];
}
