/**
 * Stage 7 of a sync: the answer. The release views (complete ones, then a delta's filtered ones,
 * most breaking first), the stack's summary and notices, the cursor, and the parts the mode asks
 * for; and the notifications the answer's advisories and flagged skills leave for the owner.
 */
import type { Env } from "../../env";
import { iso } from "../../core/clock";
import type { AgentPrincipal } from "../../core/principal";
import type { UpgradeView } from "../../freshness";
import type { SkillStatus } from "../../skills";
import { encodeCursor } from "../cursor";
import { notificationRows, type NotificationRow } from "../notifications.service";
import { nextRefreshAt } from "../schedule";
import { noteViewOut } from "../views";
import type { ReleaseViewOut, SkillStatusOut, SyncInput, SyncOut } from "../sync.schemas";
import type { SyncMode } from "./choose-mode";
import type { SyncEntry } from "./keys";
import type { AdvisoryMatch, SkillMatch } from "./match";
import type { RankedKnowledge } from "./rank-knowledge";
import type { ChangesRead } from "./read-changes";
import type { Freshness } from "./refresh-releases";
import { reportedNow, type ResolvedStack } from "./resolve-stack";

/** Sum of breaking changes and the up-to-date flag of a (possibly filtered) view; "up to date" only on current data. */
function viewOut(v: UpgradeView, packages: string[], complete: boolean, f: Freshness): ReleaseViewOut {
  const day = f.dataAsOf === null ? "an unknown date" : iso(f.dataAsOf).slice(0, 10);
  const staleNote = f.stale
    ? `Lore's release data for ${v.topic} is as of ${day}, older than a day${f.refresh ? `, and could not be refreshed in this request (${f.refresh.error})` : ""}: a newer release may exist.`
    : null;
  return noteViewOut(v, {
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
  });
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

/**
 * The release views of the answer: every complete view with a known latest version, then a delta's
 * views cut to the releases and removed deprecations the change log names; most breaking first.
 */
export function releaseViews(
  entries: SyncEntry[],
  changes: Pick<ChangesRead, "views" | "deltaViews" | "changedReleases" | "changedDeps">,
  freshnessOf: (topic: string) => Freshness,
): ReleaseViewOut[] {
  const names = new Map<string, Set<string>>();
  for (const e of entries) {
    const s = names.get(e.topic);
    if (s) s.add(e.name);
    else names.set(e.topic, new Set([e.name]));
  }
  // Lists only for the topics shown (a few, of up to 500 entries' topics).
  const packagesOf = { get: (t: string) => (names.has(t) ? [...names.get(t)!] : undefined) };
  const releases: ReleaseViewOut[] = [];
  for (const v of changes.views)
    if (v.latestVersion !== null) releases.push(viewOut(v, packagesOf.get(v.topic) ?? [], true, freshnessOf(v.topic)));
  for (const v of changes.deltaViews) {
    const rel = changes.changedReleases.get(v.topic) ?? new Set();
    const dep = changes.changedDeps.get(v.topic) ?? new Set();
    const filtered = {
      ...v,
      releases: v.releases.filter((c) => rel.has(c.version)),
      removedDeprecations: v.removedDeprecations.filter((d) => dep.has(d.id)),
    };
    if (filtered.releases.length || filtered.removedDeprecations.length)
      releases.push(viewOut(filtered, packagesOf.get(v.topic) ?? [], false, freshnessOf(v.topic)));
  }
  releases.sort((a, b) => b.breaking - a.breaking || b.changes.length - a.changes.length || a.topic.localeCompare(b.topic));
  return releases;
}

export interface AnswerParts {
  env: Env;
  origin: string;
  caller: AgentPrincipal;
  input: SyncInput;
  at: number;
  stack: ResolvedStack;
  mode: SyncMode;
  /** Notices of the stages before (after the mode's): said in this order. */
  notices: string[];
  freshnessOf: (topic: string) => Freshness;
  changes: ChangesRead;
  advisories: AdvisoryMatch;
  skills: SkillMatch;
  /** A full answer's knowledge and recommendations (null when up to date). */
  ranked: RankedKnowledge | null;
}

export async function buildAnswer(p: AnswerParts): Promise<{ out: SyncOut; notify: NotificationRow[] }> {
  const { stack, mode, changes, origin, at, input } = p;
  const { entries, schedule, lastFullAt, lastFullSeq } = stack;
  const { full, delta, reason } = mode;
  const notices = [...mode.notices, ...p.notices];
  // The complete lists in a complete full answer; otherwise only entries this sync reports for the first time,
  // so an up_to_date or delta answer for a large stack stays small.
  const listAll = full && !delta;
  const fresh = (e: SyncEntry) => listAll || reportedNow(stack, e);
  const untracked = [...new Set(entries.filter((e) => !e.known && fresh(e)).map((e) => e.topic))].sort();
  const unreadable = entries
    .filter((e) => !e.pinned && fresh(e))
    .map((e) => ({ name: e.name, version: e.version, ecosystem: e.ecosystem }));
  const { advCoverage } = changes;
  if (advCoverage.unchecked.length) {
    notices.push(
      `${advCoverage.unchecked.length} of ${changes.pinned.length} stack entries were not checked against a current, complete advisory source (${advCoverage.coverage
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

  const nextAt = schedule === "EVERY_SESSION" ? at : nextRefreshAt(schedule, full ? at : lastFullAt!);
  // up_to_date moves only the urgent position: the full payload after `since` is still owed.
  const cut = changes.cut;
  const cursorOut = await encodeCursor(
    p.env,
    p.caller.agentId,
    full ? { seq: cut, urgentSeq: cut, issuedAt: at } : { seq: mode.since ?? lastFullSeq ?? 0, urgentSeq: cut, issuedAt: at },
  );

  const out: SyncOut = {
    mode: full ? "full" : "up_to_date",
    reason,
    asOf: iso(at),
    refreshSchedule: schedule,
    nextRefreshAt: iso(nextAt),
    cursor: cursorOut,
    delta,
    hasMore: changes.hasMore,
    stack: {
      entries: entries.length,
      topics: stack.topics.length,
      newTopics: stack.known ? stack.newTopics : [],
      untracked,
      unreadableVersions: unreadable,
      reused: !input.stack,
      reportedAt: iso(input.stack ? at : stack.stackReportedAt),
    },
    mentions: changes.mentions,
    notices,
  };

  const { advisories, skills, ranked } = p;
  if (advisories.full && skills.full && ranked) {
    out.releases = releaseViews(entries, changes, p.freshnessOf);
    out.skills = skills.statuses.map((st) => statusOut(st, origin));
    out.advisories = advisories.advisories;
    out.security = { vulnerabilities: advisories.vulnerabilities, coverage: advCoverage.coverage, unchecked: advCoverage.unchecked };
    out.knowledge = ranked.knowledge;
    out.recommendations = ranked.recommendations;
    return { out, notify: notificationRows(p.caller, changes.vulns, changes.statuses, at) };
  }
  if (!advisories.full && !skills.full) {
    out.urgent = {
      advisories: advisories.urgent,
      flaggedSkills: skills.flagged.map((st) => statusOut(st, origin)),
      coverage: advCoverage.coverage,
      unchecked: advCoverage.unchecked,
    };
    return { out, notify: notificationRows(p.caller, advisories.urgent, skills.flagged, at) };
  }
  throw new Error("sync: the advisory, skill and knowledge stages disagree on the mode");
}
