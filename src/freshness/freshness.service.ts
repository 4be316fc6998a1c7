/** Freshness reads: dated changes per topic (for the caller's version), deprecations, topics, tracking requests. */
import { ApiError } from "../core/errors";
import { columnsOf, keysOf, type SqlRow, insertColumns } from "../core/columns";
import { freshDeprecations, freshReleases, freshTopics, freshTrackingRequests, freshAliases } from "../db/freshness";
import { iso, now } from "../core/clock";
import { pageOffset } from "../core/pagination";
import { ftsQuery, pagedSearch, emptyPage } from "../core/fts";
import { checkRepoUrl } from "../sources/safe-url";
import type { ChangeOut, DeprecationOut, TopicOut } from "./freshness.schemas";
import { foldDisplay, packageKey, resolveTopics, topicCandidates, topicDataAsOf, topicExpr } from "../ecosystems/topics";
import { advisoriesForStackRead, type VulnerabilityOut } from "./advisories";
import { advisoryCoverageRead } from "./coverage";
import { MAX_AGE_MS } from "./staleness";
import { LruCache } from "../core/cache";
import {
  cleanVersion,
  compareVersions,
  isBreakingBump,
  majorOf,
  parseEcosystem,
  pinnedVersion,
  type Ecosystem,
} from "../ecosystems/versions";

/** A release as the change lists read it: every column but the sort key `date_rank`. */
const RELEASE_KEYS = keysOf(freshReleases, ["dateRank"]);
export type ReleaseRowDb = SqlRow<typeof freshReleases, (typeof RELEASE_KEYS)[number]>;
export type DeprecationRowDb = SqlRow<typeof freshDeprecations>;

export const RELEASE_COLS = columnsOf(freshReleases, "r", RELEASE_KEYS);
export const DEPRECATION_COLS = columnsOf(freshDeprecations, "d");

const ecoOf = (s: string): Ecosystem => (parseEcosystem(s) ?? "npm") as Ecosystem;

export function deprecationOut(d: DeprecationRowDb): DeprecationOut {
  return {
    id: d.id,
    topic: d.topic,
    ecosystem: d.ecosystem,
    package: d.package,
    api: d.api,
    status: d.status,
    since: d.since,
    removedIn: d.removed_in,
    replacement: d.replacement,
    notes: d.notes,
    exampleBefore: d.example_before,
    exampleAfter: d.example_after,
    asOfDate: d.as_of_date,
    source: d.source,
    verification: d.verification,
  };
}

/** Valid versions of one topic in ascending order (rows whose version the ecosystem cannot parse are dropped). */
export function sortReleases(rows: ReleaseRowDb[]): ReleaseRowDb[] {
  return rows
    .filter((r) => cleanVersion(ecoOf(r.ecosystem), r.version) !== null)
    .sort((a, b) => compareVersions(ecoOf(a.ecosystem), a.version, b.version));
}

/**
 * Change records of one topic's sorted releases. A release whose notes were not assessed gets its
 * breaking count from the version bump over the previous known release (basis `version`).
 */
export function changesOf(sorted: ReleaseRowDb[]): ChangeOut[] {
  let prevStable: ReleaseRowDb | null = null;
  return sorted.map((r) => {
    const eco = ecoOf(r.ecosystem);
    let breaking = r.breaking;
    let basis: ChangeOut["breakingBasis"] = "notes";
    if (breaking === null) {
      basis = "version";
      const major = majorOf(eco, r.version) ?? 0;
      // Without an earlier known release, only an N.0.0 (N >= 1) release is taken as a major.
      breaking = prevStable
        ? isBreakingBump(eco, prevStable.version, r.version)
          ? 1
          : 0
        : major >= 1 && /^v?\d+(\.0)*$/.test(r.version)
          ? 1
          : 0;
    }
    if (!r.prerelease) prevStable = r;
    return {
      topic: r.topic,
      ecosystem: r.ecosystem,
      package: r.package,
      version: r.version,
      date: r.date,
      dateBasis: r.date_basis,
      asOfDate: r.as_of_date,
      title: r.title,
      summaryMd: r.summary_md,
      breaking,
      breakingBasis: basis,
      changes: JSON.parse(r.changes),
      prerelease: !!r.prerelease,
      url: r.url,
      source: r.source,
      verification: r.verification,
    };
  });
}

/** The newest stable release (prereleases only when nothing else exists). */
export function latestOf(changes: ChangeOut[]): ChangeOut | null {
  const stable = changes.filter((c) => !c.prerelease);
  return (stable.length ? stable : changes).at(-1) ?? null;
}

export interface UpgradeView {
  topic: string;
  ecosystem: string;
  yourVersion: string;
  latestVersion: string | null;
  latestDate: string | null;
  /** Releases in (yourVersion, latest], oldest first. */
  releases: ChangeOut[];
  breaking: number;
  removedDeprecations: DeprecationOut[];
  /** null when yourVersion is newer than every release Lore knows: not known, so not "up to date". */
  upToDate: boolean | null;
  /** Whether yourVersion is among the releases Lore knows. */
  versionKnown: boolean;
  /** Said when yourVersion is newer than every known release (with the latest known and its date). */
  note: string | null;
}

/** The caller's view of one topic: releases after its version up to latest, breaking total, removals in between. */
export function upgradeView(
  topic: string,
  ecosystem: Ecosystem,
  yourVersion: string,
  changes: ChangeOut[],
  deprecations: DeprecationRowDb[],
): UpgradeView {
  const latest = latestOf(changes);
  const inRange = latest
    ? changes.filter(
        (c) =>
          compareVersions(ecosystem, c.version, yourVersion) > 0 &&
          compareVersions(ecosystem, c.version, latest.version) <= 0 &&
          (!c.prerelease || c === latest),
      )
    : [];
  const removed = latest
    ? deprecations.filter((d) => {
        const v = d.removed_in && cleanVersion(ecosystem, d.removed_in.replace(/^v/, ecosystem === "go" ? "v" : ""));
        return !!v && compareVersions(ecosystem, v, yourVersion) > 0 && compareVersions(ecosystem, v, latest.version) <= 0;
      })
    : [];
  const versionKnown = changes.some((c) => compareVersions(ecosystem, c.version, yourVersion) === 0);
  // A version above every known release is either one Lore has not ingested yet or one that does
  // not exist: Lore cannot say it is current.
  const ahead = !!latest && !versionKnown && compareVersions(ecosystem, yourVersion, latest.version) > 0;
  return {
    topic,
    ecosystem,
    yourVersion,
    latestVersion: latest?.version ?? null,
    latestDate: latest?.date ?? null,
    releases: inRange,
    breaking: inRange.reduce((n, c) => n + c.breaking, 0),
    removedDeprecations: removed.map(deprecationOut),
    upToDate: ahead ? null : inRange.length === 0,
    versionKnown,
    note: ahead
      ? `${yourVersion} is not a ${topic} release Lore knows: it is newer than the latest known release, ${latest!.version}${latest!.date ? ` (${latest!.date})` : ""}. It may be a release Lore has not ingested yet, or a version that does not exist.`
      : null,
  };
}

/**
 * A topic's releases sorted by version and read into changes, and the upgrade views asked of them,
 * held per isolate for the release data's generation: the change log's newest row, which every
 * insert or update of fresh_releases and fresh_deprecations adds (triggers, migration 0012; rows of
 * either are never deleted), read in the same batch as the rows. Sorting a topic of a thousand
 * releases and comparing each with the caller's version was most of a read's own CPU; a new
 * generation makes new keys, and the old ones age out. The held objects are only ever serialised.
 * Bounded by count and approximate bytes (topics and versions are the callers').
 */
const heldChanges = new LruCache<string, ChangeOut[]>({ maxEntries: 2_000, maxBytes: 16 * 1024 * 1024 });
const heldViews = new LruCache<string, UpgradeView>({ maxEntries: 5_000, maxBytes: 8 * 1024 * 1024 });
const changesCost = (n: number) => 400 + 600 * n;
// A view's releases are the held changes' objects: it costs its arrays and its key.
const viewCost = (releases: number, deprecations: number, version: string) => 400 + 8 * releases + 600 * deprecations + 2 * version.length;

export async function getFreshness(
  db: D1Database,
  input: { topic?: string; ecosystem?: string; since?: string; version?: string; page: number; perPage: number },
) {
  const ecoIn = input.ecosystem ? parseEcosystem(input.ecosystem) : null;
  if (input.ecosystem && !ecoIn)
    throw new ApiError("VALIDATION_FAILED", "ecosystem must be one of npm, pypi, go, cargo", {
      issues: [{ path: "query.ecosystem", message: "unknown ecosystem" }],
    });
  const at = now();
  const empty = {
    upgrade: null,
    yourVersion: null,
    lastIngestAt: null,
    dataAsOf: null,
    stale: false,
    security: null,
    page: input.page,
    perPage: input.perPage,
  };
  if (!input.topic) {
    if (input.version)
      throw new ApiError("VALIDATION_FAILED", "version needs a topic", {
        issues: [{ path: "query.version", message: "give a topic with version" }],
      });
    const since = input.since ?? "0000-00-00";
    // The page, and every release of the page's topics: a release whose notes were not assessed
    // gets its breaking count from the release before it in its own topic.
    const page = `SELECT r.topic, r.version FROM fresh_releases r WHERE r.date >= ?1 ORDER BY r.date DESC, r.topic, r.version LIMIT ?2 OFFSET ?3`;
    const [rows, all, count] = await db.batch([
      db.prepare(page).bind(since, input.perPage, pageOffset(input)),
      db
        .prepare(`SELECT ${RELEASE_COLS} FROM fresh_releases r WHERE r.topic IN (SELECT topic FROM (${page}))`)
        .bind(since, input.perPage, pageOffset(input)),
      db.prepare(`SELECT COUNT(*) AS n FROM fresh_releases r WHERE r.date >= ?1`).bind(since),
    ]);
    const byTopic = new Map<string, ReleaseRowDb[]>();
    for (const r of all!.results as unknown as ReleaseRowDb[]) byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r]);
    const computed = new Map<string, ChangeOut>();
    for (const list of byTopic.values()) for (const c of changesOf(sortReleases(list))) computed.set(`${c.topic}\u0000${c.version}`, c);
    return {
      topic: null,
      ecosystem: null,
      tracked: false,
      latestVersion: null,
      latestDate: null,
      ...empty,
      changes: (rows!.results as { topic: string; version: string }[]).flatMap((r) => computed.get(`${r.topic}\u0000${r.version}`) ?? []),
      total: (count!.results[0] as { n: number }).n,
    };
  }
  // Topic resolution, releases, removals and metadata in one batch (one round trip).
  const tc = topicCandidates(input.topic, ecoIn);
  const q = `WITH q AS (SELECT ${topicExpr("?1", "?2")} AS topic)`;
  // With a version: the advisories of that version of the package named, and what they were looked up in.
  const eco0 = ecoIn ?? tc.fallbackEcosystem;
  const pinned0 = input.version ? pinnedVersion(eco0, input.version) : null;
  const stackEntry = { name: input.topic, version: input.version ?? "", ecosystem: eco0 };
  const advRead = pinned0 ? advisoriesForStackRead(db, [stackEntry]) : null;
  const covRead = pinned0
    ? advisoryCoverageRead(
        db,
        [{ name: input.topic, ecosystem: eco0, key: packageKey(eco0, input.topic), version: input.version!, pinned: pinned0 }],
        at,
      )
    : null;
  const [rels, deps, topicRow, ...advRes] = await db.batch([
    db.prepare(`${q} SELECT ${RELEASE_COLS} FROM fresh_releases r WHERE r.topic = (SELECT topic FROM q)`).bind(tc.candidates, tc.fallback),
    db
      .prepare(
        `${q} SELECT ${DEPRECATION_COLS} FROM fresh_deprecations d WHERE d.topic = (SELECT topic FROM q) AND d.removed_in IS NOT NULL`,
      )
      .bind(tc.candidates, tc.fallback),
    db
      .prepare(
        `${q} SELECT q.topic, t.ecosystem, t.tracked, (SELECT max(last_ok_at) FROM ingest_status s WHERE s.topic = q.topic) AS last_ok_at,
                (SELECT max(last_ok_at) FROM ingest_status s WHERE s.topic = q.topic AND s.source IN ('npm', 'pypi', 'go', 'crates')) AS registry_ok_at,
                (SELECT max(as_of_date) FROM fresh_releases r WHERE r.topic = q.topic) AS seed_as_of,
                (SELECT seq || ':' || coalesce(at, '') FROM sync_changes ORDER BY seq DESC LIMIT 1) AS generation
           FROM q LEFT JOIN fresh_topics t ON t.topic = q.topic`,
      )
      .bind(tc.candidates, tc.fallback),
    ...(advRead?.statements ?? []),
    ...(covRead?.statements ?? []),
  ]);
  const meta = topicRow!.results[0] as {
    topic: string;
    ecosystem: string | null;
    tracked: number | null;
    last_ok_at: number | null;
    registry_ok_at: number | null;
    seed_as_of: string | null;
    generation: string | null;
  };
  const dataAsOf = topicDataAsOf({
    tracked: true,
    packages: "[]",
    repo: null,
    changelog: null,
    lastOkAt: meta.registry_ok_at,
    lastRunAt: null,
    lastError: null,
    seedAsOf: meta.seed_as_of,
  });
  const stale = dataAsOf === null || at - dataAsOf > MAX_AGE_MS.releases;
  const staleNote = stale
    ? `Lore's release data for ${meta.topic} is as of ${dataAsOf === null ? "an unknown date" : iso(dataAsOf).slice(0, 10)}, older than a day: a newer release may exist.`
    : null;
  const security =
    advRead && covRead
      ? {
          vulnerabilities: (await advRead.read(advRes.slice(0, advRead.statements.length))) as VulnerabilityOut[],
          ...(await covRead.read(advRes.slice(advRead.statements.length))),
        }
      : null;
  const topic = meta.topic;
  const eco = meta.ecosystem ? ecoOf(meta.ecosystem) : tc.fallbackEcosystem;
  let yourVersion: string | null = null;
  if (input.version) {
    yourVersion = pinnedVersion(eco, input.version);
    if (!yourVersion) {
      throw new ApiError("VALIDATION_FAILED", `"${input.version}" is not a ${eco} version`, {
        issues: [{ path: "query.version", message: `not a valid ${eco} version` }],
      });
    }
  }
  // No change row yet names no generation: nothing is held then.
  const gen = meta.generation;
  const sorted = () => changesOf(sortReleases(rels!.results as unknown as ReleaseRowDb[]));
  const all = gen ? heldChanges.getOrSet(`${gen}\u0000${topic}`, sorted, changesCost(rels!.results.length)) : sorted();
  const latest = latestOf(all);
  let list = [...all].reverse();
  let upgrade = null;
  if (yourVersion) {
    const deprecations = deps!.results as unknown as DeprecationRowDb[];
    const v = yourVersion;
    const make = () => upgradeView(topic, eco, v, all, deprecations);
    const view = gen
      ? heldViews.getOrSet(`${gen}\u0000${topic}\u0000${eco}\u0000${v}`, make, viewCost(all.length, deprecations.length, v))
      : make();
    upgrade = {
      from: yourVersion,
      to: view.latestVersion,
      toDate: view.latestDate,
      releases: view.releases.length,
      breaking: view.breaking,
      removedDeprecations: view.removedDeprecations,
      upToDate: stale && view.upToDate === true ? null : view.upToDate,
      versionKnown: view.versionKnown,
      note: [view.note, stale ? staleNote : null].filter(Boolean).join(" ") || null,
    };
    list = [...view.releases].reverse();
  }
  if (input.since) list = list.filter((c) => c.date !== null && c.date >= input.since!);
  const tracked = meta.tracked === 1;
  return {
    topic,
    ecosystem: eco,
    tracked,
    latestVersion: latest?.version ?? null,
    latestDate: latest?.date ?? null,
    yourVersion,
    upgrade,
    changes: list.slice(pageOffset(input), pageOffset(input) + input.perPage),
    total: list.length,
    page: input.page,
    perPage: input.perPage,
    lastIngestAt: meta.last_ok_at ? iso(meta.last_ok_at) : null,
    dataAsOf: dataAsOf === null ? null : iso(dataAsOf),
    stale,
    security,
  };
}

export async function searchDeprecations(
  db: D1Database,
  input: { topic?: string; q?: string; status?: string; page: number; perPage: number },
) {
  const where: string[] = [];
  const binds: unknown[] = [];
  const q = input.q?.trim();
  const match = q ? ftsQuery(q) : null;
  if (q && !match) return emptyPage(input);
  if (input.topic) {
    const [ref] = await resolveTopics(db, [{ name: input.topic, ecosystem: null }]);
    where.push("d.topic = ?");
    binds.push(ref!.topic);
  }
  if (input.status) {
    where.push("d.status = ?");
    binds.push(input.status);
  }
  const { rows, ...total } = await pagedSearch<DeprecationRowDb>(db, {
    from: "fresh_deprecations d",
    key: "d.id",
    columns: DEPRECATION_COLS,
    fts: match ? { table: "fresh_deprecations_fts", match, rank: "bm25(fresh_deprecations_fts, 0.0, 10.0, 6.0, 1.0, 3.0)" } : undefined,
    where,
    binds,
    order: "d.topic, d.id",
    page: input.page,
    perPage: input.perPage,
  });
  return { items: rows.map(deprecationOut), ...total, page: input.page, perPage: input.perPage };
}

/** A topic with what the subqueries of TOPIC_COLS add. */
type TopicRowDb = SqlRow<typeof freshTopics, "topic" | "ecosystem" | "packages" | "repo" | "changelog" | "tracked"> & {
  aliases: string | null;
  requests: string | null;
  release_count: number;
  deprecation_count: number;
  last_ok_at: number | null;
  last_error: string | null;
  versions: string | null;
};

const TOPIC_COLS = `t.topic, t.ecosystem, t.packages, t.repo, t.changelog, t.tracked,
    (SELECT json_group_array(alias) FROM fresh_aliases a WHERE a.topic = t.topic AND a.ecosystem <> '') AS aliases,
    (SELECT json_group_array(json_array(repo_url, requests)) FROM fresh_tracking_requests q WHERE q.topic = t.topic) AS requests,
    (SELECT COUNT(*) FROM fresh_releases r WHERE r.topic = t.topic) AS release_count,
    (SELECT COUNT(*) FROM fresh_deprecations d WHERE d.topic = t.topic) AS deprecation_count,
    (SELECT max(last_ok_at) FROM ingest_status s WHERE s.topic = t.topic) AS last_ok_at,
    (SELECT last_error FROM ingest_status s WHERE s.topic = t.topic AND s.last_error IS NOT NULL ORDER BY last_run_at DESC LIMIT 1) AS last_error,
    (SELECT json_group_array(json_array(version, prerelease)) FROM fresh_releases r WHERE r.topic = t.topic) AS versions`;
const TOPIC_SELECT = `SELECT ${TOPIC_COLS} FROM fresh_topics t`;

function topicOut(r: TopicRowDb): TopicOut {
  const eco = ecoOf(r.ecosystem);
  const versions = (JSON.parse(r.versions ?? "[]") as [string, number][])
    .filter(([v, pre]) => !pre && cleanVersion(eco, v))
    .map(([v]) => v)
    .sort((a, b) => compareVersions(eco, a, b));
  const sources: TopicOut["sources"] = [];
  if (r.repo) sources.push({ kind: "repo", url: `https://github.com/${r.repo}` });
  if (r.changelog) sources.push({ kind: "changelog", url: r.changelog });
  for (const [url, requests] of JSON.parse(r.requests ?? "[]") as [string, number][]) sources.push({ kind: "requested", url, requests });
  return {
    topic: r.topic,
    ecosystem: r.ecosystem,
    status: r.tracked ? "tracked" : "requested",
    packages: JSON.parse(r.packages),
    aliases: [...new Set(JSON.parse(r.aliases ?? "[]") as string[])].sort(),
    sources,
    latestVersion: versions.at(-1) ?? null,
    releaseCount: r.release_count,
    deprecationCount: r.deprecation_count,
    lastIngestAt: r.last_ok_at ? iso(r.last_ok_at) : null,
    lastIngestError: r.last_error,
  };
}

export async function listTopics(
  db: D1Database,
  input: { q?: string; ecosystem?: string; status?: string; page: number; perPage: number },
) {
  const where: string[] = [];
  const binds: unknown[] = [];
  if (input.ecosystem) {
    const eco = parseEcosystem(input.ecosystem);
    if (!eco)
      throw new ApiError("VALIDATION_FAILED", "ecosystem must be one of npm, pypi, go, cargo", {
        issues: [{ path: "query.ecosystem", message: "unknown ecosystem" }],
      });
    where.push("t.ecosystem = ?");
    binds.push(eco);
  }
  if (input.status) where.push(input.status === "tracked" ? "t.tracked = 1" : "t.tracked = 0");
  if (input.q) {
    const like = `${input.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(
      "(t.topic LIKE ? ESCAPE '\\' OR t.topic IN (SELECT topic FROM fresh_aliases WHERE alias LIKE ? ESCAPE '\\' OR alias LIKE ? ESCAPE '\\'))",
    );
    binds.push(like, like, `${foldDisplay(input.q).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  const { rows, ...total } = await pagedSearch<TopicRowDb>(db, {
    from: "fresh_topics t",
    key: "t.topic",
    columns: TOPIC_COLS,
    where,
    binds,
    order: "t.tracked DESC, t.topic",
    page: input.page,
    perPage: input.perPage,
  });
  return { items: rows.map(topicOut), ...total, page: input.page, perPage: input.perPage };
}

/**
 * Records a request to track a topic from public repositories. Every `repoUrl` is checked before
 * anything is written (https on github.com, gitlab.com or codeberg.org; no credentials, ports, IP
 * literals or private names); a repeated request merges into the stored one and counts it.
 */
export async function requestTracking(
  db: D1Database,
  ownerId: string,
  input: { topic: string; ecosystem?: string; sources: { repoUrl: string }[] },
) {
  const eco = input.ecosystem ? parseEcosystem(input.ecosystem) : null;
  if (input.ecosystem && !eco)
    throw new ApiError("VALIDATION_FAILED", "ecosystem must be one of npm, pypi, go, cargo", {
      issues: [{ path: "body.ecosystem", message: "unknown ecosystem" }],
    });
  const urls: string[] = [];
  const issues: { path: string; message: string }[] = [];
  input.sources.forEach((s, i) => {
    const r = checkRepoUrl(s.repoUrl);
    if (r.ok) urls.push(r.url);
    else issues.push({ path: `body.sources.${i}.repoUrl`, message: r.reason });
  });
  if (issues.length) throw new ApiError("VALIDATION_FAILED", `Validation failed: ${issues[0]!.path}: ${issues[0]!.message}`, { issues });
  const [ref] = await resolveTopics(db, [{ name: input.topic, ecosystem: eco }]);
  const topic = ref!.topic;
  if (!/^[a-z0-9@][a-z0-9@/._~-]{0,213}$/.test(topic)) {
    throw new ApiError("VALIDATION_FAILED", "topic must be a package or project name", {
      issues: [{ path: "body.topic", message: "not a package name" }],
    });
  }
  const t = now();
  const unique = [...new Set(urls)];
  const res = await db.batch([
    db
      .prepare(
        `INSERT INTO ${insertColumns(freshTopics, ["topic", "ecosystem", "displayName", "packages", "tracked", "createdAt", "updatedAt"])} VALUES (?1, ?2, ?3, ?4, 0, ?5, ?5) ON CONFLICT (topic) DO NOTHING`,
      )
      .bind(topic, ref!.ecosystem, input.topic, JSON.stringify([packageKey(ecoOf(ref!.ecosystem), input.topic)]), t),
    db
      .prepare(`INSERT OR IGNORE INTO ${insertColumns(freshAliases, ["ecosystem", "alias", "topic"])} VALUES (?1, ?2, ?3)`)
      .bind(ref!.ecosystem, packageKey(ecoOf(ref!.ecosystem), input.topic), topic),
    ...unique.map((url) =>
      db
        .prepare(
          `INSERT INTO ${insertColumns(freshTrackingRequests, ["topic", "repoUrl", "requests", "firstOwnerId", "createdAt", "updatedAt"])} VALUES (?1, ?2, 1, ?3, ?4, ?4)
           ON CONFLICT (topic, repo_url) DO UPDATE SET requests = requests + 1, updated_at = excluded.updated_at RETURNING requests`,
        )
        .bind(topic, url, ownerId, t),
    ),
    db.prepare(`${TOPIC_SELECT} WHERE t.topic = ?`).bind(topic),
  ]);
  const merged = res.slice(2, 2 + unique.length).some((r) => ((r.results[0] as { requests: number } | undefined)?.requests ?? 1) > 1);
  return { topic: topicOut(res.at(-1)!.results[0] as unknown as TopicRowDb), merged, accepted: unique };
}

/**
 * Operator: track a topic (or approve a requested one): its ecosystem, packages, aliases and
 * sources. Tracking requests never do this by themselves, because a user-supplied repository must
 * not become the source of a topic's facts without review.
 */
export async function trackTopic(
  db: D1Database,
  input: { topic: string; ecosystem: string; packages: string[]; aliases?: string[]; repo?: string | null; changelog?: string | null },
) {
  const eco = parseEcosystem(input.ecosystem);
  if (!eco) throw new ApiError("VALIDATION_FAILED", "ecosystem must be one of npm, pypi, go, cargo");
  const topic = input.topic.trim().toLowerCase();
  if (!/^[a-z0-9@][a-z0-9@/._~-]{0,213}$/.test(topic) || !input.packages.length)
    throw new ApiError("VALIDATION_FAILED", "topic must be a package name and packages must not be empty");
  if (input.repo && !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(input.repo))
    throw new ApiError("VALIDATION_FAILED", "repo must be owner/name on GitHub");
  if (input.changelog && !checkRepoUrl(input.changelog.replace(/\/blob\/.*$/, "")).ok)
    throw new ApiError("VALIDATION_FAILED", "changelog must be a file on a public code host");
  const t = now();
  const aliases = [...new Set([topic, ...input.packages, ...(input.aliases ?? [])])];
  await db.batch([
    db
      .prepare(
        `INSERT INTO ${insertColumns(freshTopics, ["topic", "ecosystem", "displayName", "packages", "repo", "changelog", "tracked", "createdAt", "updatedAt"])} VALUES (?1, ?2, ?1, ?3, ?4, ?5, 1, ?6, ?6)
         ON CONFLICT (topic) DO UPDATE SET ecosystem = excluded.ecosystem, packages = excluded.packages, repo = excluded.repo,
           changelog = excluded.changelog, tracked = 1, updated_at = excluded.updated_at`,
      )
      .bind(topic, eco, JSON.stringify(input.packages), input.repo ?? null, input.changelog ?? null, t),
    ...aliases.flatMap((a) => [
      db
        .prepare(`INSERT OR REPLACE INTO ${insertColumns(freshAliases, ["ecosystem", "alias", "topic"])} VALUES (?, ?, ?)`)
        .bind(eco, packageKey(eco, a), topic),
      db
        .prepare(`INSERT OR REPLACE INTO ${insertColumns(freshAliases, ["ecosystem", "alias", "topic"])} VALUES ('', ?, ?)`)
        .bind(foldDisplay(a), topic),
    ]),
  ]);
  return (await listTopics(db, { q: topic, page: 1, perPage: 1 })).items[0]!;
}
