/**
 * Stage 4 of a sync: everything the answer is made of, read in one D1 batch (one round trip, one
 * snapshot): the release views, the stack's advisories and their change-log positions, the skills'
 * statuses, recommendations, knowledge, mentions, advisory coverage. A delta then stops at a
 * change-log position (`cut`) and reads the releases and knowledge the change log names after the
 * cursor.
 */
import { type BatchRead, constantRead, runReads } from "../../core/batch";
import { ApiError } from "../../core/errors";
import {
  advisoriesForStackRead,
  advisoryCoverageRead,
  releasesForStackRead,
  type UpgradeView,
  type VulnerabilityOut,
} from "../../freshness";
import { unreadMentionsRead } from "../../chat";
import { type KbItemOut, kbItemsByIdsRead, verifiedForTagsRead } from "../../kb";
import { recommendSkillsRead, skillStatusesRead } from "../../skills";
import type { Cursor } from "../cursor";
import { cachedAdvisoriesRead, cachedReleasesRead } from "../views";
import type { SyncMode } from "./choose-mode";
import { entryPinKey, type SyncEntry } from "./keys";
import type { ResolvedStack } from "./resolve-stack";

/** Change-log rows a delta answer reads at most per kind before it says `hasMore`. */
export const DELTA_LIMIT = 5000;
const MENTIONS_SHOWN = 20;
const KNOWLEDGE_SHOWN = 50;
const RECOMMENDATIONS_SHOWN = 10;

type ReadResult<R> = R extends BatchRead<infer T> ? T : never;
type TopicChange = { seq: number; kind: string; scope: string; ref: string };

export interface ChangesRead {
  /** The change-log position this answer stands at: everything up to it is in it. */
  cut: number;
  /** A delta stopped before the newest change (the next call continues from `cut`). */
  hasMore: boolean;
  /** Topics sent whole (every topic unless this is a delta: then the new and moved ones). */
  completeTopics: Set<string>;
  /** One entry per pinned version (`express 4.19.1` and `express ^4.19.1` are one exposure). */
  pinned: SyncEntry[];
  /** The complete release views of `completeTopics` (full syncs only). */
  views: UpgradeView[];
  vulns: VulnerabilityOut[];
  /** The stack entry each of `vulns` is about, index for index (null: not known, match by their pin keys). */
  vulnEntries: SyncEntry[] | null;
  /** The last change-log position of each advisory of the stack's packages after the position asked. */
  advSeqs: Map<string, number>;
  statuses: ReadResult<ReturnType<typeof skillStatusesRead>>;
  /** The last change-log position of each skill (lowercase name). */
  skillSeqs: Map<string, number>;
  recommended: ReadResult<ReturnType<typeof recommendSkillsRead>>;
  /** The verified knowledge of the stack's topics (a complete full answer only). */
  knowledge: KbItemOut[];
  mentions: ReadResult<ReturnType<typeof unreadMentionsRead>>;
  advCoverage: ReadResult<ReturnType<typeof advisoryCoverageRead>>;
  /** A delta's changed releases and removed deprecations, per topic not sent whole. */
  changedReleases: Map<string, Set<string>>;
  changedDeps: Map<string, Set<string>>;
  /** The views of those topics and the knowledge items changed after the cursor. */
  deltaViews: UpgradeView[];
  deltaKb: KbItemOut[];
}

/** Changed after `from` and no later than this answer's cut. */
export const changedIn = (changes: Pick<ChangesRead, "cut">, seq: number | undefined, from: number | null) =>
  seq !== undefined && seq <= changes.cut && seq > (from ?? -1);

/** Change-log positions per item since a point, as one statement of the answer batch. */
function changeSeqsRead(db: D1Database, sql: string, binds: unknown[]): BatchRead<Map<string, number>> {
  return {
    statements: [db.prepare(sql).bind(...binds)],
    read: ([res]) => new Map((res!.results as { id: string; seq: number }[]).map((r) => [r.id, r.seq])),
  };
}

type CachedViews = { views: UpgradeView[]; fromCache: boolean; commit: (seenSeq: number) => void };
const uncached = (views: UpgradeView[]): CachedViews => ({ views, fromCache: false, commit: () => {} });
const mapRead = <T, U>(r: BatchRead<T>, f: (t: T) => U): BatchRead<U> => ({
  statements: r.statements,
  read: async (res) => f(await r.read(res)),
});

export async function readChanges(
  db: D1Database,
  agentId: string,
  stack: Pick<ResolvedStack, "entries" | "topics" | "newTopics" | "movedTopics" | "installed" | "generation" | "lastFullSeq">,
  mode: SyncMode,
  cursorIn: Cursor | null,
  at: number,
): Promise<ChangesRead> {
  const { entries, topics, installed, generation, lastFullSeq } = stack;
  const { full, delta, since, sinceUrgent, urgentFrom } = mode;
  const completeTopics = new Set(delta ? [...stack.newTopics, ...stack.movedTopics] : topics);
  const readableEntries = entries.filter((e) => e.pinned);
  // The stack's packages, each once in the order first named: [ecosystem, key] pairs (the advisory and coverage reads').
  const packages = new Map<string, [string, string]>();
  const ecosystems = new Set<string>();
  for (const e of entries) {
    const k = `${e.ecosystem}\u0000${e.key}`;
    if (!packages.has(k)) packages.set(k, [e.ecosystem, e.key]);
    ecosystems.add(e.ecosystem);
  }
  const pairs = JSON.stringify([...packages.values()]);
  // The earliest change-log position each question needs (null: it is not asked).
  const advFrom = !full ? urgentFrom : delta ? Math.min(sinceUrgent!, lastFullSeq ?? sinceUrgent!) : lastFullSeq;
  const skillFrom = !full ? urgentFrom : delta ? since : null;

  const pinned = [...new Map(entries.map((e) => [entryPinKey(e), e])).values()];
  const completeEntries = readableEntries.filter((e) => completeTopics.has(e.topic));
  const answerReads = (cached: boolean) =>
    [
      {
        statements: [db.prepare(`SELECT max(seq) AS hi FROM sync_changes`)],
        read: ([r]: D1Result[]) => (r!.results[0] as { hi: number | null }).hi ?? 0,
      } as BatchRead<number>,
      !full
        ? constantRead<CachedViews>(uncached([]))
        : cached
          ? cachedReleasesRead(db, completeEntries, generation)
          : mapRead(releasesForStackRead(db, completeEntries), uncached),
      cached
        ? cachedAdvisoriesRead(db, pinned, generation)
        : mapRead(advisoriesForStackRead(db, pinned), (vulns) => ({
            vulns,
            of: null as SyncEntry[] | null,
            fromCache: false,
            commit: (_: number) => {},
          })),
      // The last change of each advisory of the stack's packages after `advFrom`.
      advFrom === null || !entries.length
        ? constantRead(new Map<string, number>())
        : changeSeqsRead(
            db,
            `WITH scopes(scope) AS (
             SELECT f.advisory_id FROM json_each(?2) j JOIN advisory_affected f ON f.ecosystem = json_extract(j.value, '$[0]') AND f.name = json_extract(j.value, '$[1]')
             UNION SELECT json_extract(value, '$[0]') || '/' || json_extract(value, '$[1]') FROM json_each(?2))
           SELECT c.ref AS id, max(c.seq) AS seq FROM scopes s JOIN sync_changes c ON c.scope = s.scope AND c.seq > ?1
            WHERE c.kind IN ('advisory', 'malicious') GROUP BY c.ref`,
            [advFrom, pairs],
          ),
      skillStatusesRead(db, installed),
      skillFrom === null
        ? constantRead(new Map<string, number>())
        : changeSeqsRead(db, `SELECT scope AS id, max(seq) AS seq FROM sync_changes WHERE kind = 'skill' AND seq > ?1 GROUP BY scope`, [
            skillFrom,
          ]),
      full ? recommendSkillsRead(db, topics, installed, RECOMMENDATIONS_SHOWN) : constantRead([]),
      full && !delta ? verifiedForTagsRead(db, topics, KNOWLEDGE_SHOWN) : constantRead<KbItemOut[]>([]),
      full && delta
        ? changeSeqsRead(
            db,
            `SELECT scope AS id, max(seq) AS seq FROM sync_changes WHERE kind = 'kb' AND seq > ?1 GROUP BY scope LIMIT ${DELTA_LIMIT}`,
            [since],
          )
        : constantRead(new Map<string, number>()),
      // Release and deprecation changes of the topics this delta does not send whole.
      full && delta
        ? ({
            statements: [
              db
                .prepare(
                  `SELECT c.seq, c.kind, c.scope, c.ref FROM json_each(?1) j JOIN sync_changes c ON c.scope = j.value AND c.seq > ?2
                  WHERE c.kind IN ('release', 'deprecation') ORDER BY c.seq LIMIT ${DELTA_LIMIT + 1}`,
                )
                .bind(JSON.stringify(topics.filter((t) => !completeTopics.has(t))), since),
            ],
            read: ([r]: D1Result[]) => r!.results as TopicChange[],
          } as BatchRead<TopicChange[]>)
        : constantRead<TopicChange[]>([]),
      unreadMentionsRead(db, agentId, MENTIONS_SHOWN),
      // Which advisory sources answered for these entries, as of when: what "no advisory" is worth.
      // `pinned` names the same packages as `entries`, first named in the same order: the same pairs.
      advisoryCoverageRead(db, pinned, at, { ecosystems: JSON.stringify([...ecosystems]), pairs }),
    ] as const;
  let answer = await runReads(db, answerReads(true));
  // Views held from a generation this batch no longer saw (an ingest committed between the two
  // batches): the whole batch again without them, so the answer is one snapshot.
  if ((answer[1].fromCache || answer[2].fromCache) && answer[0] !== generation.seq) answer = await runReads(db, answerReads(false));
  else {
    answer[1].commit(answer[0]);
    answer[2].commit(answer[0]);
  }
  const [
    hi,
    { views },
    { vulns, of: vulnEntries },
    advSeqs,
    statuses,
    skillSeqs,
    recommended,
    knowledge,
    kbSeqs,
    topicChanges,
    mentions,
    advCoverage,
  ] = answer;
  if (cursorIn && cursorIn.urgentSeq > hi) {
    throw new ApiError("VALIDATION_FAILED", "since: this cursor is ahead of the change log (not one this service issued)", {
      issues: [{ path: "body.since", message: "unknown cursor position" }],
    });
  }

  // A delta holds at most DELTA_LIMIT topic changes; beyond that it stops at a change-log position
  // and everything after it waits for the next call (so nothing is sent twice).
  let cut = hi;
  let hasMore = false;
  let changes = topicChanges;
  if (changes.length > DELTA_LIMIT) {
    cut = changes[DELTA_LIMIT - 1]!.seq;
    changes = changes.filter((c) => c.seq <= cut);
    hasMore = true;
  }

  // A delta's releases and knowledge, named by the change log.
  const changedReleases = new Map<string, Set<string>>();
  const changedDeps = new Map<string, Set<string>>();
  for (const c of changes) {
    const m = c.kind === "release" ? changedReleases : changedDeps;
    m.set(c.scope, (m.get(c.scope) ?? new Set()).add(c.ref));
  }
  const changedKb = [...kbSeqs].filter(([, seq]) => seq <= cut).map(([id]) => id);
  let deltaViews: UpgradeView[] = [];
  let deltaKb: KbItemOut[] = [];
  if (full && delta && (changedReleases.size || changedDeps.size || changedKb.length)) {
    const changedTopics = new Set([...changedReleases.keys(), ...changedDeps.keys()]);
    [deltaViews, deltaKb] = await runReads(db, [
      releasesForStackRead(
        db,
        readableEntries.filter((e) => changedTopics.has(e.topic)),
      ),
      kbItemsByIdsRead(db, changedKb),
    ] as const);
  }

  return {
    cut,
    hasMore,
    completeTopics,
    pinned,
    views,
    vulns,
    vulnEntries,
    advSeqs,
    statuses,
    skillSeqs,
    recommended,
    knowledge,
    mentions,
    advCoverage,
    changedReleases,
    changedDeps,
    deltaViews,
    deltaKb,
  };
}
