import { iso } from "../core/clock";
import { newId } from "../core/crypto";
import { ApiError } from "../core/errors";
import { runRead, runReads, constantRead, type BatchRead } from "../core/batch";
import type { AgentPrincipal } from "../core/principal";
import type { OpContext } from "../core/operation";
import {
  advisoriesForStackRead,
  normaliseStack,
  releasesForStackRead,
  topicDataRead,
  type NormalisedStackEntry,
  type UpgradeView,
} from "../freshness";
import { refreshTopics, type RefreshResult } from "../freshness";
import { topicDataAsOf, type TopicData } from "../ecosystems/topics";
import { MAX_AGE_MS } from "../freshness";
import type { VulnerabilityOut } from "../freshness";
import { advisoryCoverageRead } from "../freshness";
import { packageKey } from "../ecosystems/topics";
import { versionKey, type Ecosystem } from "../ecosystems/versions";
import { recommendSkillsRead, skillStatusesRead, type SkillStatus } from "../skills";
import { kbItemsByIdsRead, verifiedForTagsRead } from "../kb";
import { unreadMentionsRead } from "../chat";
import type { KbItemOut } from "../kb";
import { decodeCursor, encodeCursor, type Cursor } from "./cursor";
import { asSchedule, nextRefreshAt, refreshDue } from "./schedule";
import type { ReleaseViewOut, SkillStatusOut, SyncInput, SyncOut } from "./sync.schemas";
import { notificationRows, insertNotificationsStatement, type NotificationRow } from "./notifications.service";
import { activityStatement } from "./activity.service";
import { cachedReleasesRead, type Generation } from "./views";

/** Change-log rows a delta answer reads at most per kind before it says `hasMore`. */
export const DELTA_LIMIT = 5000;
const TOPICS_REMEMBERED = 2000;
const MENTIONS_SHOWN = 20;
const KNOWLEDGE_SHOWN = 50;
const RECOMMENDATIONS_SHOWN = 10;
/**
 * A full sync that meets topics whose release data is older than its refresh interval asks their
 * registries itself, within this many subrequests and this much time; the rest wait for the
 * scheduled ingest, and the answer says which.
 */
export const SYNC_REFRESH_SUBREQUESTS = 20;
export const SYNC_REFRESH_MS = 3_000;
/** A topic whose registry failed this recently is not asked again by a sync (the answer says so). */
const REFRESH_RETRY_MS = 10 * 60_000;

interface StateRow {
  refresh_schedule: string;
  agent_id: string | null;
  topics: string | null;
  stack_reported_at: number | null;
  skills_reported_at: number | null;
  last_sync_at: number | null;
  last_full_at: number | null;
  last_full_seq: number | null;
}

interface StoredEntry {
  ecosystem: string;
  key: string;
  version: string;
  name: string;
  topic: string;
  pinned: string | null;
  known: number;
  first_seen_at: number;
}

/** A stack entry as this sync sees it: normalised, with when the agent first reported it. */
export interface SyncEntry extends NormalisedStackEntry {
  firstSeenAt: number;
}

/** An entry as the agent spelled it (`^4.19.1`, `==2.10`): one stored row each. */
const entryKey = (e: { ecosystem: string; key: string; version: string }) => `${e.ecosystem}\u0000${e.key}\u0000${e.version}`;
/**
 * The package at the version an entry pins, canonical (`^4.19.1`, `~4.19.1`, `=4.19.1`, `v4.19.1` and
 * `4.19.1` are one; PyPI `==2.10` and `2.10.0` too). This is what advisories are about and what the agent
 * has been told of, so vulnerabilities join entries, and "reported before" is judged, by it; never by the
 * spelling. An unreadable version keeps its text (no advisory names it).
 */
const pinKey = (ecosystem: string, key: string, pinned: string | null, version: string) =>
  `${ecosystem}\u0000${key}\u0000${pinned === null ? `\u0001${version}` : versionKey(ecosystem as Ecosystem, pinned)}`;
const entryPinKey = (e: { ecosystem: string; key: string; pinned: string | null; version: string }) =>
  pinKey(e.ecosystem, e.key, e.pinned, e.version);
// The matcher reports `version` as pinnedVersion() of the entry's text, the same function that set `pinned`.
const vulnPinKey = (v: VulnerabilityOut) => pinKey(v.ecosystem, packageKey(v.ecosystem as Ecosystem, v.name), v.version, v.version);

function storedToEntry(r: StoredEntry): SyncEntry {
  return {
    name: r.name,
    version: r.version,
    ecosystem: r.ecosystem as SyncEntry["ecosystem"],
    key: r.key,
    topic: r.topic,
    known: !!r.known,
    pinned: r.pinned,
    firstSeenAt: r.first_seen_at,
  };
}

/** How current a topic's release data is for this answer. */
interface Freshness {
  dataAsOf: number | null;
  stale: boolean;
  refresh: RefreshResult | null;
}

/** Sum of breaking changes and the up-to-date flag of a (possibly filtered) view; "up to date" only on current data. */
function viewOut(v: UpgradeView, packages: string[], complete: boolean, f: Freshness): ReleaseViewOut {
  const day = f.dataAsOf === null ? "an unknown date" : iso(f.dataAsOf).slice(0, 10);
  const staleNote = f.stale
    ? `Lore's release data for ${v.topic} is as of ${day}, older than a day${f.refresh ? `, and could not be refreshed in this request (${f.refresh.error})` : ""}: a newer release may exist.`
    : null;
  return {
    topic: v.topic,
    ecosystem: v.ecosystem,
    packages,
    yourVersion: v.yourVersion,
    latestVersion: v.latestVersion,
    latestDate: v.latestDate,
    breaking: v.releases.reduce((n, c) => n + c.breaking, 0),
    upToDate: f.stale && v.upToDate === true ? null : v.upToDate,
    versionKnown: v.versionKnown,
    note: [v.note, staleNote].filter(Boolean).join(" ") || null,
    changes: v.releases,
    removedDeprecations: v.removedDeprecations,
    complete,
    dataAsOf: f.dataAsOf === null ? null : iso(f.dataAsOf),
    stale: f.stale,
    refreshed: !!f.refresh?.ok,
  };
}

function statusOut(s: SkillStatus, origin: string): SkillStatusOut {
  return {
    name: s.name,
    known: s.known,
    securityStatus: s.securityStatus,
    securityScanHash: s.securityScanHash,
    latestVersion: s.latestVersion,
    listed: s.listed,
    statusChangedAt: s.statusChangedAt,
    source: s.known ? `${origin}/v1/skills/${encodeURIComponent(s.name)}` : null,
  };
}

/** Change-log positions per item since a point, as one statement of the answer batch. */
function changeSeqsRead(db: D1Database, sql: string, binds: unknown[]): BatchRead<Map<string, number>> {
  return {
    statements: [db.prepare(sql).bind(...binds)],
    read: ([res]) => new Map((res!.results as { id: string; seq: number }[]).map((r) => [r.id, r.seq])),
  };
}

export async function runSync(
  ctx: Pick<OpContext, "env" | "origin" | "via" | "progress">,
  caller: AgentPrincipal,
  input: SyncInput,
  at: number,
): Promise<SyncOut> {
  const db = ctx.env.DB;
  const { origin } = ctx;
  const cursorIn: Cursor | null = input.since !== undefined ? await decodeCursor(ctx.env, caller.agentId, input.since) : null;

  // ---- 1. state -------------------------------------------------------------------------------
  const [[stateRes, storedRes, skillsRes, boundsRes], normalised] = await Promise.all([
    db.batch([
      db
        .prepare(
          `SELECT o.refresh_schedule, s.agent_id, s.topics, s.stack_reported_at, s.skills_reported_at, s.last_sync_at, s.last_full_at, s.last_full_seq
             FROM owners o LEFT JOIN sync_agents s ON s.agent_id = ?2 WHERE o.id = ?1`,
        )
        .bind(caller.ownerId, caller.agentId),
      db
        .prepare(
          `SELECT ecosystem, key, version, name, topic, pinned, known, first_seen_at FROM sync_stack_entries WHERE agent_id = ? ORDER BY position`,
        )
        .bind(caller.agentId),
      db.prepare(`SELECT name, first_seen_at FROM sync_installed_skills WHERE agent_id = ? ORDER BY position`).bind(caller.agentId),
      // The newest change also names the ingest generation the cached release views belong to (views.ts).
      db.prepare(
        `SELECT min(seq) AS lo, max(seq) AS hi, (SELECT at FROM sync_changes ORDER BY seq DESC LIMIT 1) AS hi_at FROM sync_changes`,
      ),
    ]),
    input.stack ? normaliseStack(db, input.stack) : Promise.resolve(null),
  ]);
  const state = stateRes!.results[0] as unknown as StateRow;
  const schedule = asSchedule(state.refresh_schedule);
  const known = state.agent_id !== null;
  const stored = (storedRes!.results as unknown as StoredEntry[]).map(storedToEntry);
  // When each pinned version was first reported (the earliest of its spellings).
  const storedFirstSeen = new Map<string, number>();
  for (const e of stored) {
    const k = entryPinKey(e);
    storedFirstSeen.set(k, Math.min(storedFirstSeen.get(k) ?? e.firstSeenAt, e.firstSeenAt));
  }
  const storedSkills = skillsRes!.results as { name: string; first_seen_at: number }[];
  const bounds = boundsRes!.results[0] as { lo: number | null; hi: number | null; hi_at: number | null };
  const generation: Generation = { seq: bounds.hi ?? 0, at: bounds.hi_at };

  // The stack: as sent (normalised, duplicates dropped), or the last one reported.
  let entries: SyncEntry[];
  if (normalised) {
    const seen = new Set<string>();
    entries = [];
    for (const e of normalised) {
      const k = entryKey(e);
      if (seen.has(k)) continue;
      seen.add(k);
      entries.push({ ...e, firstSeenAt: storedFirstSeen.get(entryPinKey(e)) ?? at });
    }
  } else entries = stored.map((e) => ({ ...e, firstSeenAt: storedFirstSeen.get(entryPinKey(e))! }));
  const stackChanged =
    !!normalised &&
    (entries.length !== stored.length || entries.some((e, i) => entryKey(e) !== entryKey(stored[i]!) || e.name !== stored[i]!.name));

  const installed = input.installedSkills
    ? [...new Set(input.installedSkills.map((n) => n.trim().toLowerCase()))]
    : storedSkills.map((s) => s.name);
  const storedSkillSeen = new Map(storedSkills.map((s) => [s.name.toLowerCase(), s.first_seen_at]));
  const skillsChanged =
    !!input.installedSkills && (installed.length !== storedSkills.length || installed.some((n, i) => n !== storedSkills[i]!.name));
  const skillFirstSeen = (name: string) => storedSkillSeen.get(name.toLowerCase()) ?? at;

  const topics = [...new Set(entries.map((e) => e.topic))];
  const seenTopics = new Set<string>(JSON.parse(state.topics ?? "[]") as string[]);
  const newTopics = known ? topics.filter((t) => !seenTopics.has(t)) : topics;
  // A topic whose pinned versions changed gets its whole view again in a delta (the range moved).
  const pinsOf = (list: SyncEntry[]) => {
    const m = new Map<string, string>();
    for (const e of list) m.set(e.topic, [...(m.get(e.topic)?.split("\u0000") ?? []), e.pinned ?? ""].sort().join("\u0000"));
    return m;
  };
  const storedPins = pinsOf(stored);
  const currentPins = pinsOf(entries);
  const movedTopics = topics.filter((t) => storedPins.has(t) && storedPins.get(t) !== currentPins.get(t));

  // ---- the mode -------------------------------------------------------------------------------
  let reason: SyncOut["reason"] = null;
  if (input.force) reason = "force";
  else if (!known || state.last_full_at === null) reason = "first_sync";
  else if (newTopics.length) reason = "new_topics";
  else if (refreshDue(schedule, state.last_full_at, at)) reason = "schedule";
  const full = reason !== null;

  const notices: string[] = [];
  // `force` always gives the complete payload; otherwise `since` turns the answer into a delta.
  let delta = !!cursorIn && !input.force;
  if (cursorIn && delta && cursorIn.seq > 0 && bounds.lo !== null && cursorIn.seq < bounds.lo - 1) {
    delta = false;
    notices.push("The since cursor is older than the change log kept (90 days): this answer is complete, not a delta.");
  }
  if (cursorIn && input.force) notices.push("force: true gives the complete payload; since was not applied.");
  if (!entries.length)
    notices.push(
      input.stack ? "The stack is empty." : "No stack reported yet: send `stack` (name, version, ecosystem) once; later syncs may omit it.",
    );
  // What the holder of the cursor already has: the full payload up to `since`, urgent items up to `sinceUrgent`.
  const since = delta ? cursorIn!.seq : null;
  const sinceUrgent = delta ? cursorIn!.urgentSeq : null;
  const lastFullSeq = state.last_full_seq;
  const lastFullAt = state.last_full_at;
  // Urgent means new since the last full refresh (and, with a cursor, not yet delivered).
  const urgentFrom = Math.max(lastFullSeq ?? 0, sinceUrgent ?? 0);

  ctx.progress?.(1, 4, "state read");
  // ---- 1b. stale release data: refreshed from the registries now, within this request's budget -------
  const topicData = new Map<string, TopicData>();
  const refreshes = new Map<string, RefreshResult>();
  if (full && entries.length) {
    if (normalised) {
      for (const e of normalised) if (e.data) topicData.set(e.topic, e.data);
    } else {
      for (const [t, d] of await runRead(db, topicDataRead(db, [...new Set(entries.filter((e) => e.known).map((e) => e.topic))])))
        topicData.set(t, d);
    }
    const stale = [...topicData].filter(([, d]) => d.tracked && d.packages !== "[]" && isStale(topicDataAsOf(d), at));
    const toAsk = stale.filter(([topic, d]) => {
      const failedRecently = d.lastRunAt !== null && d.lastRunAt > (d.lastOkAt ?? 0) && at - d.lastRunAt < REFRESH_RETRY_MS;
      if (failedRecently)
        refreshes.set(topic, {
          topic,
          ok: false,
          error: `its registry failed ${Math.max(1, Math.round((at - d.lastRunAt!) / 60_000))} min ago (${d.lastError ?? "no answer"}); not asked again so soon`,
        });
      return !failedRecently;
    });
    if (toAsk.length) {
      const results = await refreshTopics(
        ctx.env,
        toAsk.map(([topic, d]) => ({
          topic,
          ecosystem: entries.find((e) => e.topic === topic)!.ecosystem,
          packages: d.packages,
          repo: d.repo,
          changelog: d.changelog,
        })),
        at,
        { budget: SYNC_REFRESH_SUBREQUESTS, deadlineMs: SYNC_REFRESH_MS },
      );
      for (const r of results) refreshes.set(r.topic, r);
    }
    const ok = [...refreshes.values()].filter((r) => r.ok).map((r) => r.topic);
    const failed = [...refreshes.values()].filter((r) => !r.ok);
    if (ok.length) notices.push(`Release data older than a day was refreshed from the registries in this request: ${ok.join(", ")}.`);
    if (failed.length)
      notices.push(
        `Release data older than a day could not be refreshed in this request (their views say stale: true): ${failed.map((r) => `${r.topic} (${r.error})`).join("; ")}.`,
      );
  }
  const freshnessOf = (topic: string): Freshness => {
    const r = refreshes.get(topic) ?? null;
    const dataAsOf = r?.ok ? at : topicDataAsOf(topicData.get(topic) ?? null);
    return { dataAsOf, stale: isStale(dataAsOf, at), refresh: r };
  };

  ctx.progress?.(2, 4, "release data current");
  // ---- 2. the answer, in one batch ---------------------------------------------------------------
  const completeTopics = new Set(delta ? [...newTopics, ...movedTopics] : topics);
  const readableEntries = entries.filter((e) => e.pinned);
  const pairs = JSON.stringify([...new Set(entries.map((e) => `${e.ecosystem}\u0000${e.key}`))].map((p) => p.split("\u0000")));
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
      // One entry per pinned version: `express 4.19.1` and `express ^4.19.1` are one exposure, reported once.
      advisoriesForStackRead(db, pinned),
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
      skillStatusesRead(db, installed, origin),
      skillFrom === null
        ? constantRead(new Map<string, number>())
        : changeSeqsRead(db, `SELECT scope AS id, max(seq) AS seq FROM sync_changes WHERE kind = 'skill' AND seq > ?1 GROUP BY scope`, [
            skillFrom,
          ]),
      full ? recommendSkillsRead(db, origin, topics, installed, RECOMMENDATIONS_SHOWN) : constantRead([]),
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
            read: ([r]: D1Result[]) => r!.results as { seq: number; kind: string; scope: string; ref: string }[],
          } as BatchRead<{ seq: number; kind: string; scope: string; ref: string }[]>)
        : constantRead<{ seq: number; kind: string; scope: string; ref: string }[]>([]),
      unreadMentionsRead(db, caller.agentId, MENTIONS_SHOWN),
      // Which advisory sources answered for these entries, as of when: what "no advisory" is worth.
      advisoryCoverageRead(db, pinned, at),
    ] as const;
  let answer = await runReads(db, answerReads(true));
  // Views held from a generation this batch no longer saw (an ingest committed between the two
  // batches): the whole batch again without them, so the answer is one snapshot.
  if (answer[1].fromCache && answer[0] !== generation.seq) answer = await runReads(db, answerReads(false));
  else answer[1].commit(answer[0]);
  const [hi, { views }, vulns, advSeqs, statuses, skillSeqs, recommended, knowledgeAll, kbSeqs, topicChanges, mentions, advCoverage] =
    answer;
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
  /** Changed after `from` and no later than this answer's cut. */
  const changedIn = (seq: number | undefined, from: number | null) => seq !== undefined && seq <= cut && seq > (from ?? -1);

  // ---- 2b. a delta's releases and knowledge, named by the change log -------------------------------
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

  // ---- the response ----------------------------------------------------------------------------------
  const packagesOf = new Map<string, string[]>();
  for (const e of entries) packagesOf.set(e.topic, [...new Set([...(packagesOf.get(e.topic) ?? []), e.name])]);
  const releases: ReleaseViewOut[] = [];
  for (const v of views) if (v.latestVersion !== null) releases.push(viewOut(v, packagesOf.get(v.topic) ?? [], true, freshnessOf(v.topic)));
  for (const v of deltaViews) {
    const rel = changedReleases.get(v.topic) ?? new Set();
    const dep = changedDeps.get(v.topic) ?? new Set();
    const filtered = {
      ...v,
      releases: v.releases.filter((c) => rel.has(c.version)),
      removedDeprecations: v.removedDeprecations.filter((d) => dep.has(d.id)),
    };
    if (filtered.releases.length || filtered.removedDeprecations.length)
      releases.push(viewOut(filtered, packagesOf.get(v.topic) ?? [], false, freshnessOf(v.topic)));
  }
  releases.sort((a, b) => b.breaking - a.breaking || b.changes.length - a.changes.length || a.topic.localeCompare(b.topic));

  // Entries of one pinned version share firstSeenAt, topic and reportedNow, so any of them answers for it.
  const entryByPin = new Map(entries.map((e) => [entryPinKey(e), e]));
  const entryOf = (v: VulnerabilityOut) => entryByPin.get(vulnPinKey(v));
  const advSeq = (v: VulnerabilityOut) => advSeqs.get(v.advisory.id);
  /** Reported by this sync for the first time (its pinned version is not in the stored stack, whatever the spelling). */
  const reportedNow = (e: SyncEntry | undefined) => !!e && !storedFirstSeen.has(entryPinKey(e));
  /** First reported after the last full refresh. */
  const sinceLastFull = (e: SyncEntry | undefined) => !!e && lastFullAt !== null && e.firstSeenAt > lastFullAt;
  /** Not yet told in a full refresh: first full, changed since the last one, or a version reported since. */
  const isNew = (v: VulnerabilityOut) => lastFullSeq === null || changedIn(advSeq(v), lastFullSeq) || sinceLastFull(entryOf(v));
  const inDelta = (v: VulnerabilityOut) =>
    !delta || changedIn(advSeq(v), sinceUrgent) || reportedNow(entryOf(v)) || completeTopics.has(entryOf(v)?.topic ?? "");
  // The complete lists in a complete full answer; otherwise only entries this sync reports for the first time,
  // so an up_to_date or delta answer for a large stack stays small.
  const listAll = full && !delta;
  const fresh = (e: SyncEntry) => listAll || reportedNow(e);
  const untracked = [...new Set(entries.filter((e) => !e.known && fresh(e)).map((e) => e.topic))].sort();
  const unreadable = entries
    .filter((e) => !e.pinned && fresh(e))
    .map((e) => ({ name: e.name, version: e.version, ecosystem: e.ecosystem }));
  if (advCoverage.unchecked.length) {
    notices.push(
      `${advCoverage.unchecked.length} of ${pinned.length} stack entries were not checked against a current, complete advisory source (${advCoverage.coverage
        .filter((c) => c.unchecked)
        .map((c) => `${c.ecosystem}: ${c.status}`)
        .join(
          ", ",
        )}): the vulnerabilities listed for them are what is known, not all there is. See ${full ? "security" : "urgent"}.coverage and ${full ? "security" : "urgent"}.unchecked.`,
    );
  }
  if (unreadable.length)
    notices.push(
      `${unreadable.length} stack entries have a version their ecosystem cannot read: they get no release view, and advisories only where a report covers every version.`,
    );

  const skillSeq = (name: string) => skillSeqs.get(name.toLowerCase());
  const skillNew = (name: string) => !storedSkillSeen.has(name.toLowerCase());
  const nextAt = schedule === "EVERY_SESSION" ? at : nextRefreshAt(schedule, full ? at : lastFullAt!);
  // up_to_date moves only the urgent position: the full payload after `since` is still owed.
  const cursorOut = await encodeCursor(
    ctx.env,
    caller.agentId,
    full ? { seq: cut, urgentSeq: cut, issuedAt: at } : { seq: since ?? lastFullSeq ?? 0, urgentSeq: cut, issuedAt: at },
  );

  const out: SyncOut = {
    mode: full ? "full" : "up_to_date",
    reason,
    asOf: iso(at),
    refreshSchedule: schedule,
    nextRefreshAt: iso(nextAt),
    cursor: cursorOut,
    delta,
    hasMore,
    stack: {
      entries: entries.length,
      topics: topics.length,
      newTopics: known ? newTopics : [],
      untracked,
      unreadableVersions: unreadable,
      reused: !input.stack,
      reportedAt: iso(input.stack ? at : state.stack_reported_at),
    },
    mentions,
    notices,
  };

  let notify: NotificationRow[];
  if (full) {
    const vulnsOut = vulns.filter(inDelta);
    out.releases = releases;
    // In a delta: statuses changed after `since`, except flags already delivered as urgent, and new installs.
    out.skills = statuses
      .filter((st) => {
        if (!delta || skillNew(st.name)) return true;
        const seq = skillSeq(st.name);
        return changedIn(seq, since) && !(seq! <= sinceUrgent! && st.securityStatus !== "passed");
      })
      .map((st) => statusOut(st, origin));
    out.advisories = vulnsOut.filter(isNew);
    out.security = { vulnerabilities: vulnsOut, coverage: advCoverage.coverage, unchecked: advCoverage.unchecked };
    const knowledge = delta ? deltaKb.filter((k) => k.tags.some((t) => topics.includes(t)) && k.status !== "DRAFT") : knowledgeAll;
    out.knowledge = knowledge.map((k) => ({ ...k, source: `${origin}/v1/kb/${encodeURIComponent(k.slug)}` }));
    out.recommendations = recommended
      .filter((r) => !delta || changedIn(skillSeq(r.slug), since))
      .map((r) => ({ ...r, source: `${origin}/v1/skills/${encodeURIComponent(r.slug)}` }));
    notify = notificationRows(caller, vulns, statuses, at);
  } else {
    const urgentVulns = vulns.filter(
      (v) => changedIn(advSeq(v), urgentFrom) || (sinceLastFull(entryOf(v)) && (!delta || reportedNow(entryOf(v)))),
    );
    const flagged = statuses.filter(
      (st) =>
        st.known &&
        st.securityStatus !== "passed" &&
        (changedIn(skillSeq(st.name), urgentFrom) || (skillFirstSeen(st.name) > (lastFullAt ?? 0) && (!delta || skillNew(st.name)))),
    );
    out.urgent = {
      advisories: urgentVulns,
      flaggedSkills: flagged.map((st) => statusOut(st, origin)),
      coverage: advCoverage.coverage,
      unchecked: advCoverage.unchecked,
    };
    notify = notificationRows(caller, urgentVulns, flagged, at);
  }

  ctx.progress?.(3, 4, "answer built; saving");
  // ---- 3. write --------------------------------------------------------------------------------------
  const remembered = [...newTopics, ...JSON.parse(state.topics ?? "[]")].slice(0, TOPICS_REMEMBERED);
  const writes: D1PreparedStatement[] = [
    db
      .prepare(
        `INSERT INTO sync_agents (agent_id, owner_id, topics, stack_reported_at, skills_reported_at, last_sync_at, last_full_at, last_full_seq, syncs, full_syncs)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9)
         ON CONFLICT (agent_id) DO UPDATE SET topics = excluded.topics,
           stack_reported_at = coalesce(excluded.stack_reported_at, sync_agents.stack_reported_at),
           skills_reported_at = coalesce(excluded.skills_reported_at, sync_agents.skills_reported_at),
           last_sync_at = excluded.last_sync_at,
           last_full_at = coalesce(excluded.last_full_at, sync_agents.last_full_at),
           last_full_seq = coalesce(excluded.last_full_seq, sync_agents.last_full_seq),
           syncs = sync_agents.syncs + 1, full_syncs = sync_agents.full_syncs + excluded.full_syncs`,
      )
      .bind(
        caller.agentId,
        caller.ownerId,
        JSON.stringify(remembered),
        input.stack ? at : null,
        input.installedSkills ? at : null,
        at,
        full ? at : null,
        full ? cut : null,
        full ? 1 : 0,
      ),
  ];
  if (stackChanged) {
    writes.push(db.prepare(`DELETE FROM sync_stack_entries WHERE agent_id = ?`).bind(caller.agentId));
    if (entries.length) {
      writes.push(
        db
          .prepare(
            `INSERT INTO sync_stack_entries (agent_id, ecosystem, key, version, name, topic, pinned, known, position, first_seen_at)
             SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),
                    json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), key, json_extract(value, '$[7]')
               FROM json_each(?2)`,
          )
          .bind(
            caller.agentId,
            JSON.stringify(entries.map((e) => [e.ecosystem, e.key, e.version, e.name, e.topic, e.pinned, e.known ? 1 : 0, e.firstSeenAt])),
          ),
      );
    }
  }
  if (skillsChanged) {
    writes.push(db.prepare(`DELETE FROM sync_installed_skills WHERE agent_id = ?`).bind(caller.agentId));
    if (installed.length) {
      writes.push(
        db
          .prepare(
            `INSERT INTO sync_installed_skills (agent_id, name, position, first_seen_at) SELECT ?1, json_extract(value, '$[0]'), key, json_extract(value, '$[1]') FROM json_each(?2)`,
          )
          .bind(caller.agentId, JSON.stringify(installed.map((n) => [n, skillFirstSeen(n)]))),
      );
    }
  }
  if (notify.length) writes.push(insertNotificationsStatement(db, notify));
  writes.push(
    activityStatement(db, caller, {
      id: newId("act_"),
      kind: "SYNC",
      summary: `Synced ${entries.length} dependencies (${full ? `full refresh: ${reason!.replace("_", " ")}` : "up to date"}${delta ? ", changes since the last cursor" : ""})`,
      targetType: null,
      targetId: null,
      url: null,
      via: ctx.via,
      createdAt: at,
    }),
  );
  await db.batch(writes);
  return out;
}

type CachedViews = { views: UpgradeView[]; fromCache: boolean; commit: (seenSeq: number) => void };
const uncached = (views: UpgradeView[]): CachedViews => ({ views, fromCache: false, commit: () => {} });
const mapRead = <T, U>(r: BatchRead<T>, f: (t: T) => U): BatchRead<U> => ({
  statements: r.statements,
  read: async (res) => f(await r.read(res)),
});

/** Older than the release refresh interval (or of unknown age). */
const isStale = (asOf: number | null, at: number) => asOf === null || at - asOf > MAX_AGE_MS.releases;
