/**
 * What sync calls. Every function takes a whole stack (up to 500 entries) and costs a
 * fixed number of D1 statements (one batch), never one per dependency, and no outbound call.
 *
 *   normaliseStack(db, stack)            → entries with topic, ecosystem, pinned version
 *   releasesForStack(db, entries)        → per topic: releases in (yourVersion, latest], breaking total, removed APIs
 *   advisoriesForStack(db, stack)        → advisories affecting the pinned versions, with fixed versions
 *   …Read(db, …)                         → the same two as BatchReads, to join the caller's one batch
 *   matchAdvisories(stack, rows, mal)    → the version-exact matching alone, on rows the caller selected
 *   advisoriesSince(db, isoDate, opts)   → advisories published after a date (optionally for these packages)
 *   changesSince(db, ms, opts)           → releases, deprecations and advisories Lore ingested after `ms`
 */
import * as z from "zod/v4";
import { iso } from "../core/clock";
import { groupBy } from "../core/group";
import { constantRead, runRead, type BatchRead } from "../core/batch";
import {
  advisoriesForStack,
  advisoriesForStackRead,
  advisoriesSince,
  advisoryFromRow,
  ADV_COLS,
  AFFECTED_COLS,
  maliciousAdvisory,
  matchAdvisories,
  type AdvisoryOut,
  type AffectedRow,
  type MaliciousRow,
  type StackEntry,
} from "./advisories";
import {
  changesOf,
  DEPRECATION_COLS,
  deprecationOut,
  RELEASE_COLS,
  sortReleases,
  upgradeView,
  type DeprecationRowDb,
  type ReleaseRowDb,
  type UpgradeView,
} from "./freshness.service";
import type { ChangeOut, DeprecationOut } from "./freshness.schemas";
import { packageKey, resolveTopicLookups, type TopicData, type TopicLookups, topicLookups } from "../ecosystems/topics";
import { LruCache } from "../core/cache";
import { parseEcosystem, pinnedVersion, type Ecosystem } from "../ecosystems/versions";

export {
  advisoriesForStack,
  advisoriesForStackRead,
  advisoriesSince,
  matchAdvisories,
  AFFECTED_COLS,
  type AffectedRow,
  type MaliciousRow,
  type StackEntry,
  type UpgradeView,
};

export const MAX_STACK = 500;

export interface NormalisedStackEntry {
  name: string;
  /** As sent. */
  version: string;
  ecosystem: Ecosystem;
  /** The ecosystem's key of the name (PEP 503, lowercase…). */
  key: string;
  topic: string;
  /** Whether the topic is one Lore tracks (false: an unknown name kept as its own topic). */
  known: boolean;
  /** The version the entry pins (a range's lowest match), or null when the version cannot be read. */
  pinned: string | null;
  /** A known topic's release data (its age, what a refresh needs); null for unknown names. */
  data?: TopicData | null;
}

/** A stack's entries as far as they depend on the stack alone: each valid entry's ecosystem, key and pin, and the topic lookups. */
interface PreparedStack {
  valid: { name: string; version: string; ecosystem: Ecosystem; key: string; pinned: string | null }[];
  lookups: TopicLookups;
}
/** What the prepared stacks may hold together, in approximate bytes (a 500-entry stack: about 200 KB). */
export const PREPARED_STACK_BYTES = 4 * 1024 * 1024;
// An agent sends the same stack session after session: its names' keys, pins and alias lookups are made
// once per isolate, not per sync (all pure functions of the stack's text; topics are read every time).
const prepared = new LruCache<string, PreparedStack>({ maxEntries: 256, maxBytes: PREPARED_STACK_BYTES });

function prepareStack(stack: StackEntry[]): PreparedStack {
  const valid = stack.flatMap((s) => {
    const eco = parseEcosystem(s.ecosystem);
    return eco
      ? [{ name: s.name, version: s.version, ecosystem: eco, key: packageKey(eco, s.name), pinned: pinnedVersion(eco, s.version) }]
      : [];
  });
  return { valid, lookups: topicLookups(valid.map((e) => ({ name: e.name, ecosystem: e.ecosystem }))) };
}

/** For tests: forget the prepared stacks, as a fresh isolate would; how many are held. */
export const clearPreparedStacks = () => prepared.clear();
export const preparedStacks = () => ({ size: prepared.size, bytes: prepared.bytes });

/** Normalises a stack (npm is the default ecosystem) to topics with one D1 query. Unknown ecosystems are dropped. */
export async function normaliseStack(db: D1Database, stack: StackEntry[]): Promise<NormalisedStackEntry[]> {
  const list = stack.slice(0, MAX_STACK);
  const text = JSON.stringify(list.map((s) => [s.name, s.version, s.ecosystem ?? null]));
  let prep = prepared.get(text);
  if (!prep) {
    prep = prepareStack(list);
    prepared.set(text, prep, 2 * text.length + prep.lookups.bytes + 200 * prep.valid.length);
  }
  const refs = await resolveTopicLookups(db, prep.lookups);
  return prep.valid.map((e, i) => ({
    name: e.name,
    version: e.version,
    ecosystem: e.ecosystem,
    key: e.key,
    topic: refs[i]!.topic,
    known: refs[i]!.known,
    pinned: e.pinned,
    data: refs[i]!.data,
  }));
}

/** The release data of known topics (as resolveTopics reads it), for a stack reused from storage. */
export function topicDataRead(db: D1Database, topics: string[]): BatchRead<Map<string, TopicData>> {
  if (!topics.length) return constantRead(new Map());
  const src = "('npm', 'pypi', 'go', 'crates')";
  return {
    statements: [
      db
        .prepare(
          `SELECT t.topic, t.tracked, t.packages, t.repo, t.changelog,
                  (SELECT max(s.last_ok_at) FROM ingest_status s WHERE s.topic = t.topic AND s.source IN ${src}) AS last_ok_at,
                  (SELECT max(s.last_run_at) FROM ingest_status s WHERE s.topic = t.topic AND s.source IN ${src}) AS last_run_at,
                  (SELECT s.last_error FROM ingest_status s WHERE s.topic = t.topic AND s.source IN ${src} ORDER BY s.last_run_at DESC LIMIT 1) AS last_error,
                  (SELECT max(r.as_of_date) FROM fresh_releases r WHERE r.topic = t.topic) AS seed_as_of
             FROM json_each(?1) j JOIN fresh_topics t ON t.topic = j.value`,
        )
        .bind(JSON.stringify(topics)),
    ],
    read: ([r]) =>
      new Map(
        (
          r!.results as {
            topic: string;
            tracked: number;
            packages: string;
            repo: string | null;
            changelog: string | null;
            last_ok_at: number | null;
            last_run_at: number | null;
            last_error: string | null;
            seed_as_of: string | null;
          }[]
        ).map((x) => [
          x.topic,
          {
            tracked: !!x.tracked,
            packages: x.packages,
            repo: x.repo,
            changelog: x.changelog,
            lastOkAt: x.last_ok_at,
            lastRunAt: x.last_run_at,
            lastError: x.last_error,
            seedAsOf: x.seed_as_of,
          },
        ]),
      ),
  };
}

/** The pinned versions a stack names per topic (entries without a pinned version name none). */
export function pinnedByTopic(
  entries: Pick<NormalisedStackEntry, "topic" | "ecosystem" | "pinned">[],
): Map<string, { ecosystem: Ecosystem; versions: string[] }> {
  const byTopic = new Map<string, { ecosystem: Ecosystem; versions: string[] }>();
  for (const e of entries) {
    if (!e.pinned) continue;
    const cur = byTopic.get(e.topic) ?? { ecosystem: e.ecosystem, versions: [] };
    cur.versions.push(e.pinned);
    byTopic.set(e.topic, cur);
  }
  return byTopic;
}

/**
 * For each entry with a readable version: the releases after it up to the latest known one (with
 * their changes and breaking counts), and the deprecated APIs removed in that interval, as a read
 * that can join another caller's batch. Two statements. Several entries of one topic (react +
 * react-dom) give one view, for the lowest pinned version.
 */
export function releasesForStackRead(
  db: D1Database,
  entries: Pick<NormalisedStackEntry, "topic" | "ecosystem" | "pinned">[],
): BatchRead<UpgradeView[]> {
  const byTopic = pinnedByTopic(entries);
  if (!byTopic.size) return constantRead([]);
  const topics = JSON.stringify([...byTopic.keys()]);
  return {
    statements: [
      db.prepare(`SELECT ${RELEASE_COLS} FROM json_each(?1) j JOIN fresh_releases r ON r.topic = j.value`).bind(topics),
      db
        .prepare(
          `SELECT ${DEPRECATION_COLS} FROM json_each(?1) j JOIN fresh_deprecations d ON d.topic = j.value WHERE d.removed_in IS NOT NULL`,
        )
        .bind(topics),
    ],
    read: ([rels, deps]) => {
      const relByTopic = groupBy(rels!.results as unknown as ReleaseRowDb[], (r) => r.topic);
      const depByTopic = groupBy(deps!.results as unknown as DeprecationRowDb[], (d) => d.topic);
      const out: UpgradeView[] = [];
      for (const [topic, { ecosystem, versions }] of byTopic) {
        const changes = changesOf(sortReleases(relByTopic.get(topic) ?? []));
        const views = versions.map((v) => upgradeView(topic, ecosystem, v, changes, depByTopic.get(topic) ?? []));
        // The entry furthest behind decides what the caller must read.
        out.push(views.sort((a, b) => b.releases.length - a.releases.length)[0]!);
      }
      return out;
    },
  };
}

/** releasesForStackRead on its own: one batch of two statements. */
export const releasesForStack = (
  db: D1Database,
  entries: Pick<NormalisedStackEntry, "topic" | "ecosystem" | "pinned">[],
): Promise<UpgradeView[]> => runRead(db, releasesForStackRead(db, entries));

export const changesSinceOut = z.object({
  releases: z.array(z.custom<ChangeOut>()),
  deprecations: z.array(z.custom<DeprecationOut>()),
  advisories: z.array(z.custom<{ name: string; ecosystem: string; advisory: AdvisoryOut }>()),
  /** Pass back as `sinceMs` next time (the newest ingestion time seen, or the one given). */
  cursor: z.number().int(),
});

/**
 * Everything Lore ingested (or changed) after `sinceMs`, for a sync cursor: releases and
 * deprecations of the given topics, advisories and malicious reports of the given packages (all of
 * them when a list is omitted). Ordered oldest first so a client can resume; at most `limit` of each.
 */
export async function changesSince(
  db: D1Database,
  sinceMs: number,
  opts: { topics?: string[]; packages?: { name: string; ecosystem?: string }[]; limit?: number } = {},
): Promise<z.infer<typeof changesSinceOut>> {
  const limit = Math.min(opts.limit ?? 500, 2000);
  const topicFilter = opts.topics ? "JOIN json_each(?2) j ON j.value = r.topic" : "";
  const depFilter = opts.topics ? "JOIN json_each(?2) j ON j.value = d.topic" : "";
  const pkgs = opts.packages?.flatMap((p) => {
    const eco = parseEcosystem(p.ecosystem);
    return eco ? [[eco, packageKey(eco, p.name)]] : [];
  });
  const advFilter = pkgs
    ? "JOIN json_each(?2) j ON json_extract(j.value, '$[0]') = f.ecosystem AND json_extract(j.value, '$[1]') = f.name"
    : "";
  const malFilter = pkgs
    ? "JOIN json_each(?2) j ON json_extract(j.value, '$[0]') = m.ecosystem AND json_extract(j.value, '$[1]') = m.name_key"
    : "";
  const t = (extra: unknown) => (extra === undefined ? [sinceMs] : [sinceMs, JSON.stringify(extra)]);
  const [rels, deps, advs, mals] = await db.batch([
    // Every release of the topics that changed, so breaking counts inferred from the version bump
    // see the release before each new one; only the changed ones are returned.
    db
      .prepare(
        `SELECT ${RELEASE_COLS} FROM fresh_releases r WHERE r.topic IN (
           SELECT r.topic FROM fresh_releases r ${topicFilter} WHERE r.ingested_at > ?1 ORDER BY r.ingested_at LIMIT ${limit})`,
      )
      .bind(...t(opts.topics)),
    db
      .prepare(
        `SELECT ${DEPRECATION_COLS} FROM fresh_deprecations d ${depFilter} WHERE d.ingested_at > ?1 ORDER BY d.ingested_at LIMIT ${limit}`,
      )
      .bind(...t(opts.topics)),
    db
      .prepare(`SELECT DISTINCT f.ecosystem AS eco, f.name AS key, a.ingested_at, ${ADV_COLS} FROM advisories a JOIN advisory_affected f ON f.advisory_id = a.id ${advFilter}
                 WHERE a.ingested_at > ?1 AND a.malicious = 0 ORDER BY a.ingested_at LIMIT ${limit}`)
      .bind(...t(pkgs)),
    db
      .prepare(`SELECT m.* FROM malicious_packages m ${malFilter} WHERE m.ingested_at > ?1 ORDER BY m.ingested_at LIMIT ${limit}`)
      .bind(...t(pkgs)),
  ]);
  const topicRows = rels!.results as unknown as ReleaseRowDb[];
  const relRows = topicRows.filter((r) => r.ingested_at > sinceMs);
  const depRows = deps!.results as unknown as DeprecationRowDb[];
  const advRows = advs!.results as unknown as (Parameters<typeof advisoryFromRow>[0] & { eco: string; key: string; ingested_at: number })[];
  const malRows = mals!.results as unknown as MaliciousRow[];
  const cursor = Math.max(
    sinceMs,
    ...relRows.map((r) => r.ingested_at),
    ...depRows.map((d) => d.ingested_at),
    ...advRows.map((a) => a.ingested_at),
    ...malRows.map((m) => m.ingested_at),
  );
  // Change records need their topic's order for breaking inference: sort within each topic.
  const byTopic = new Map<string, ReleaseRowDb[]>();
  for (const r of topicRows) byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r]);
  const changed = new Set(relRows.map((r) => `${r.topic}\u0000${r.version}`));
  return {
    releases: [...byTopic.values()]
      .flatMap((rows) => changesOf(sortReleases(rows)))
      .filter((c) => changed.has(`${c.topic}\u0000${c.version}`)),
    deprecations: depRows.map(deprecationOut),
    advisories: [
      ...advRows.map((r) => ({ name: r.key, ecosystem: r.eco, advisory: advisoryFromRow(r) })),
      ...malRows.map((m) => ({ name: m.name, ecosystem: m.ecosystem, advisory: maliciousAdvisory(m) })),
    ],
    cursor,
  };
}

export const cursorIso = (ms: number) => iso(ms);
