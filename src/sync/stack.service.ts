/**
 * The owner's view of its agents' reported stacks: GET /v1/stack (every agent, what it last
 * reported and when) and GET /v1/stack/<agentId> (one agent's entries with their freshness and
 * advisories, and its installed skills' scans), each in one D1 round trip.
 */
import { iso } from "../core/clock";
import { columnsOf, type LeftJoined, type SqlRow } from "../core/columns";
import { agents, type owners } from "../db/identity";
import { syncAgents } from "../db/sync";
import { notFound } from "../core/errors";
import { pageOffset } from "../core/pagination";
import { runReads } from "../core/batch";
import { advisoriesForStackRead, releasesForStackRead } from "../freshness";
import { pinnedVersion, type Ecosystem } from "../ecosystems/versions";
import { packageKey } from "../ecosystems/topics";
import { skillStatusesRead } from "../skills";
import { asSchedule, nextRefreshAt } from "./schedule";

const AGENT_KEYS = ["id", "handle", "name"] as const;
const SYNC_KEYS = ["stackReportedAt", "skillsReportedAt", "lastSyncAt", "lastFullAt", "syncs", "fullSyncs"] as const;
/** An agent, its owner's schedule and its sync state (LEFT JOIN: null before its first sync), with its stack and skills as JSON. */
type AgentStateRow = SqlRow<typeof agents, (typeof AGENT_KEYS)[number]> &
  SqlRow<typeof owners, "refreshSchedule"> &
  LeftJoined<SqlRow<typeof syncAgents, (typeof SYNC_KEYS)[number]>> & { entries: string; skills: string };

const STATE_COLS = `${columnsOf(agents, "a", AGENT_KEYS)}, o.refresh_schedule, ${columnsOf(syncAgents, "s", SYNC_KEYS)},
  (SELECT json_group_array(json_array(e.name, e.version, e.ecosystem, e.topic, e.known)) FROM (SELECT * FROM sync_stack_entries WHERE agent_id = a.id ORDER BY position) e) AS entries,
  (SELECT json_group_array(i.name) FROM (SELECT * FROM sync_installed_skills WHERE agent_id = a.id ORDER BY position) i) AS skills`;

function syncState(r: AgentStateRow) {
  const schedule = asSchedule(r.refresh_schedule);
  return {
    agent: { id: r.id, handle: r.handle, name: r.name },
    stackReportedAt: iso(r.stack_reported_at),
    skillsReportedAt: iso(r.skills_reported_at),
    lastSyncAt: iso(r.last_sync_at),
    lastFullRefreshAt: iso(r.last_full_at),
    nextRefreshAt:
      r.last_full_at === null ? null : iso(schedule === "EVERY_SESSION" ? r.last_sync_at! : nextRefreshAt(schedule, r.last_full_at)),
    syncs: r.syncs ?? 0,
    fullRefreshes: r.full_syncs ?? 0,
  };
}

const entriesOf = (r: AgentStateRow) =>
  (JSON.parse(r.entries) as [string, string, string, string, number][]).map(([name, version, ecosystem, topic, known]) => ({
    name,
    version,
    ecosystem,
    topic,
    tracked: !!known,
  }));

/** Every live agent of the owner with the stack and skills it last reported (agents that never synced included). */
export async function listStacks(db: D1Database, ownerId: string, page: { page: number; perPage: number }) {
  const [rows, count] = await db.batch([
    db
      .prepare(
        `SELECT ${STATE_COLS} FROM agents a JOIN owners o ON o.id = a.owner_id LEFT JOIN sync_agents s ON s.agent_id = a.id
          WHERE a.owner_id = ?1 AND a.deleted_at IS NULL
          ORDER BY s.last_sync_at IS NULL, s.last_sync_at DESC, a.handle LIMIT ?2 OFFSET ?3`,
      )
      .bind(ownerId, page.perPage, pageOffset(page)),
    db.prepare(`SELECT COUNT(*) AS n FROM agents WHERE owner_id = ? AND deleted_at IS NULL`).bind(ownerId),
  ]);
  return {
    items: (rows!.results as unknown as AgentStateRow[]).map((r) => {
      const entries = entriesOf(r);
      return {
        ...syncState(r),
        stack: entries,
        topics: new Set(entries.map((e) => e.topic)).size,
        installedSkills: JSON.parse(r.skills) as string[],
      };
    }),
    total: (count!.results[0] as { n: number }).n,
    page: page.page,
    perPage: page.perPage,
  };
}

/** One agent's stack with, per entry, the latest version, how far behind it is, and the advisories that affect it. */
export async function agentStack(db: D1Database, ownerId: string, agentId: string) {
  const row = await db
    .prepare(
      `SELECT ${STATE_COLS}
         FROM agents a JOIN owners o ON o.id = a.owner_id LEFT JOIN sync_agents s ON s.agent_id = a.id
        WHERE a.id = ?1 AND a.owner_id = ?2 AND a.deleted_at IS NULL`,
    )
    .bind(agentId, ownerId)
    .first<AgentStateRow>();
  // Another owner's agent is indistinguishable from a missing one.
  if (!row) throw notFound(`Agent '${agentId}'`);
  const entries = entriesOf(row);
  const keyed = entries.map((e) => ({
    ...e,
    key: packageKey(e.ecosystem as Ecosystem, e.name),
    pinned: pinnedVersion(e.ecosystem as Ecosystem, e.version),
  }));
  const [views, vulns, skills] = await runReads(db, [
    releasesForStackRead(
      db,
      keyed.map((e) => ({ topic: e.topic, ecosystem: e.ecosystem as Ecosystem, pinned: e.pinned })),
    ),
    advisoriesForStackRead(db, entries),
    skillStatusesRead(db, JSON.parse(row.skills) as string[]),
  ] as const);
  const viewOf = new Map(views.map((v) => [v.topic, v]));
  return {
    ...syncState(row),
    entries: keyed.map((e) => {
      // A topic without release data (untracked) has no "behind".
      const v = viewOf.get(e.topic)?.latestVersion ? viewOf.get(e.topic) : undefined;
      const mine = vulns.filter(
        (x) => x.ecosystem === e.ecosystem && packageKey(x.ecosystem as Ecosystem, x.name) === e.key && x.version === e.pinned,
      );
      return {
        name: e.name,
        version: e.version,
        ecosystem: e.ecosystem,
        topic: e.topic,
        tracked: e.tracked,
        latestVersion: v?.latestVersion ?? null,
        latestDate: v?.latestDate ?? null,
        releasesBehind: v ? v.releases.length : null,
        breaking: v ? v.breaking : null,
        vulnerabilities: mine.map((x) => ({
          id: x.advisory.id,
          severity: x.advisory.severity,
          summary: x.advisory.summary,
          url: x.advisory.url,
          fixedVersions: x.fixedVersions,
        })),
      };
    }),
    installedSkills: skills.map((s) => ({
      name: s.name,
      known: s.known,
      securityStatus: s.securityStatus,
      securityScanHash: s.securityScanHash,
      listed: s.listed,
      statusChangedAt: s.statusChangedAt,
    })),
  };
}
