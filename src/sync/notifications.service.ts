/**
 * The owner's notifications: advisories affecting its agents' reported stacks, installed skills
 * that are no longer `passed`, and its agents' unread @mentions. One notification per fact per
 * owner (`dedup`), however many syncs or reads find it.
 *
 * Where they come from:
 *  - each sync writes the advisories and flagged skills it found for that agent (same batch);
 *  - reading the list first matches the change log since the owner's last read against the
 *    stored stacks (an advisory ingested after the last sync still shows up at once), and copies
 *    the agents' unread mentions; a mention the agent has since read is marked read here too.
 */
import { jsonCols } from "../core/bulk";
import { iso } from "../core/clock";
import { columnsOf, insertColumns, type LeftJoined, type SqlRow } from "../core/columns";
import { newId } from "../core/crypto";
import { pagedStatements, TOTAL_BOUND } from "../core/fts";
import type { AgentPrincipal } from "../core/principal";
import { AFFECTED_COLS, matchAdvisories, type AffectedRow, type MaliciousRow } from "../freshness";
import type { VulnerabilityOut } from "../freshness";
import type { SkillStatus } from "../skills";
import type { agents } from "../db/identity";
import { skills as skillsTable } from "../db/skills";
import { notificationState, notifications, type syncInstalledSkills, type syncStackEntries } from "../db/sync";

export const NOTIFICATION_KINDS = ["ADVISORY", "SKILL_FLAGGED", "MENTION"] as const;

/** A notification as built to be stored: the table's row, unread, with its kind named and its data not yet JSON. */
export type NotificationRow = Omit<typeof notifications.$inferSelect, "readAt" | "kind" | "data"> & {
  kind: (typeof NOTIFICATION_KINDS)[number];
  data: Record<string, unknown>;
};
/** The columns a new notification is written with, in the order its values are sent. */
const NEW_KEYS = ["id", "ownerId", "dedup", "kind", "agentId", "subject", "title", "severity", "data", "createdAt"] as const;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function advisoryNotification(ownerId: string, agentId: string, v: VulnerabilityOut, at: number): NotificationRow {
  const a = v.advisory;
  return {
    id: newId("ntf_"),
    ownerId,
    dedup: `adv:${agentId}:${a.id}:${v.ecosystem}:${v.name}@${v.version}`,
    kind: "ADVISORY",
    agentId,
    subject: a.id,
    title: clip(
      `${v.name} ${v.version} (${v.ecosystem}): ${a.id}${a.severity ? ` [${a.severity}]` : ""}${a.summary ? ` ${a.summary}` : ""}`,
      300,
    ),
    severity: a.severity,
    data: { name: v.name, ecosystem: v.ecosystem, version: v.version, fixedVersions: v.fixedVersions, advisory: a },
    createdAt: at,
  };
}

export function skillNotification(
  ownerId: string,
  agentId: string,
  s: { name: string; securityStatus: string | null; securityScanHash: string | null },
  at: number,
): NotificationRow {
  return {
    id: newId("ntf_"),
    ownerId,
    dedup: `skill:${agentId}:${s.name}:${s.securityScanHash ?? ""}:${s.securityStatus}`,
    kind: "SKILL_FLAGGED",
    agentId,
    subject: s.name,
    title: `Installed skill ${s.name} is now ${s.securityStatus}: remove it or review its findings`,
    severity: s.securityStatus,
    data: { name: s.name, securityStatus: s.securityStatus, securityScanHash: s.securityScanHash },
    createdAt: at,
  };
}

/** What one sync tells the owner: the advisories it found and the installed skills that are not `passed`. */
export function notificationRows(
  caller: AgentPrincipal,
  vulns: VulnerabilityOut[],
  statuses: SkillStatus[],
  at: number,
): NotificationRow[] {
  return [
    ...vulns.map((v) => advisoryNotification(caller.ownerId, caller.agentId, v, at)),
    ...statuses
      .filter((s) => s.known && s.securityStatus !== null && s.securityStatus !== "passed")
      .map((s) => skillNotification(caller.ownerId, caller.agentId, s, at)),
  ];
}

/** One statement for any number of rows (json_each), each kept once per owner (INSERT OR IGNORE on dedup). */
export function insertNotificationsStatement(db: D1Database, rows: NotificationRow[]): D1PreparedStatement {
  return db
    .prepare(`INSERT OR IGNORE INTO ${insertColumns(notifications, NEW_KEYS)} SELECT ${jsonCols(NEW_KEYS.length)} FROM json_each(?1)`)
    .bind(JSON.stringify(rows.map((r) => NEW_KEYS.map((k) => (k === "data" ? JSON.stringify(r.data) : r[k])))));
}

// The owner's position in the change log: where its last read stopped; without one, the earliest
// full refresh of its agents (that sync notified everything found until then).
const WATERMARK = `coalesce((SELECT seq FROM notification_state WHERE owner_id = ?1),
  (SELECT min(last_full_seq) FROM sync_agents WHERE owner_id = ?1), (SELECT max(seq) FROM sync_changes), 0)`;

/** A stored stack entry's agent and name and version as `entry_*` (`e` = sync_stack_entries), next to what it matched. */
type SweptEntry = SqlRow<typeof syncStackEntries, "agentId"> & { entry_name: string; entry_version: string };
const SWEPT_ENTRY = "e.agent_id, e.name AS entry_name, e.version AS entry_version";
type SweptAffected = AffectedRow & SweptEntry;
type SweptMalicious = MaliciousRow & SweptEntry;
const FLAGGED_KEYS = ["slug", "securityStatus", "securityScanHash"] as const;
type SweptSkill = SqlRow<typeof syncInstalledSkills, "agentId"> & SqlRow<typeof skillsTable, (typeof FLAGGED_KEYS)[number]>;

/**
 * Advisories, malicious reports and skill flags that changed since the owner's watermark and touch
 * its agents' stored stacks and installed skills: one batch of four statements.
 */
async function sweep(db: D1Database, ownerId: string, at: number): Promise<{ rows: NotificationRow[]; hi: number }> {
  const [wm, aff, mal, skills] = await db.batch([
    db.prepare(`SELECT ${WATERMARK} AS w, (SELECT max(seq) FROM sync_changes) AS hi`).bind(ownerId),
    db
      .prepare(
        `WITH changed AS (SELECT DISTINCT scope AS id FROM sync_changes WHERE kind = 'advisory' AND seq > ${WATERMARK})
         SELECT ${SWEPT_ENTRY}, ${AFFECTED_COLS}
           FROM changed ch JOIN advisory_affected f ON f.advisory_id = ch.id JOIN advisories a ON a.id = f.advisory_id
           JOIN sync_stack_entries e ON e.ecosystem = f.ecosystem AND e.key = f.name
           JOIN agents g ON g.id = e.agent_id AND g.owner_id = ?1 AND g.deleted_at IS NULL`,
      )
      .bind(ownerId),
    db
      .prepare(
        `WITH changed AS (SELECT DISTINCT scope FROM sync_changes WHERE kind = 'malicious' AND seq > ${WATERMARK})
         SELECT ${SWEPT_ENTRY}, m.*
           FROM changed ch
           JOIN sync_stack_entries e ON e.ecosystem = substr(ch.scope, 1, instr(ch.scope, '/') - 1) AND e.key = substr(ch.scope, instr(ch.scope, '/') + 1)
           JOIN agents g ON g.id = e.agent_id AND g.owner_id = ?1 AND g.deleted_at IS NULL
           JOIN malicious_packages m ON m.ecosystem = e.ecosystem AND m.name_key = e.key`,
      )
      .bind(ownerId),
    db
      .prepare(
        `WITH changed AS (SELECT DISTINCT scope FROM sync_changes WHERE kind = 'skill' AND seq > ${WATERMARK})
         SELECT i.agent_id, ${columnsOf(skillsTable, "s", FLAGGED_KEYS)}
           FROM changed ch JOIN skills s ON s.slug = ch.scope AND s.security_status <> 'passed'
           JOIN sync_installed_skills i ON i.name = s.slug
           JOIN agents g ON g.id = i.agent_id AND g.owner_id = ?1 AND g.deleted_at IS NULL`,
      )
      .bind(ownerId),
  ]);
  const rows: NotificationRow[] = [];
  const byAgent = new Map<
    string,
    { stack: { name: string; version: string; ecosystem: string }[]; aff: AffectedRow[]; mal: MaliciousRow[] }
  >();
  const slot = (agentId: string) => {
    let s = byAgent.get(agentId);
    if (!s) byAgent.set(agentId, (s = { stack: [], aff: [], mal: [] }));
    return s;
  };
  for (const r of aff!.results as unknown as SweptAffected[]) {
    const s = slot(r.agent_id);
    s.stack.push({ name: r.entry_name, version: r.entry_version, ecosystem: r.eco });
    s.aff.push(r);
  }
  for (const r of mal!.results as unknown as SweptMalicious[]) {
    const s = slot(r.agent_id);
    s.stack.push({ name: r.entry_name, version: r.entry_version, ecosystem: r.ecosystem });
    s.mal.push(r);
  }
  for (const [agentId, s] of byAgent) {
    // The same version-exact matching sync uses (OSV ranges per ecosystem, malicious versions).
    const unique = [...new Map(s.stack.map((e) => [`${e.ecosystem}\u0000${e.name}\u0000${e.version}`, e])).values()];
    for (const v of matchAdvisories(unique, s.aff, s.mal)) rows.push(advisoryNotification(ownerId, agentId, v, at));
  }
  for (const r of skills!.results as SweptSkill[]) {
    rows.push(
      skillNotification(
        ownerId,
        r.agent_id,
        { name: r.slug, securityStatus: r.security_status, securityScanHash: r.security_scan_hash },
        at,
      ),
    );
  }
  return { rows, hi: (wm!.results[0] as { hi: number | null }).hi ?? 0 };
}

const LIST_KEYS = ["id", "kind", "agentId", "subject", "title", "severity", "data", "createdAt", "readAt"] as const;
/** A listed notification with its agent's handle (LEFT JOIN: null once the agent is gone). */
type NotificationDbRow = SqlRow<typeof notifications, (typeof LIST_KEYS)[number]> & LeftJoined<SqlRow<typeof agents, "handle">>;

const unreadCount = (n: number) => (n > TOTAL_BOUND ? { unread: TOTAL_BOUND, unreadIsLowerBound: true as const } : { unread: n });

/** The owner's notifications, newest first; the sweep and the mention copy run first (two round trips in all). */
export async function listNotifications(
  db: D1Database,
  ownerId: string,
  input: { unread?: boolean; kind?: string; page: number; perPage: number },
  at: number,
) {
  const { rows, hi } = await sweep(db, ownerId, at);
  const where = ["n.owner_id = ?1"];
  const binds: unknown[] = [ownerId];
  if (input.unread) where.push("n.read_at IS NULL");
  if (input.kind) {
    binds.push(input.kind);
    where.push(`n.kind = ?${binds.length}`);
  }
  const list = pagedStatements<NotificationDbRow>(db, {
    from: "notifications n",
    key: "n.id",
    columns: `${columnsOf(notifications, "n", LIST_KEYS)}, a.handle`,
    joins: "LEFT JOIN agents a ON a.id = n.agent_id",
    where,
    binds,
    order: "n.created_at DESC, n.id DESC",
    page: input.page,
    perPage: input.perPage,
  });
  const res = await db.batch([
    ...(rows.length ? [insertNotificationsStatement(db, rows)] : []),
    db
      .prepare(
        `INSERT INTO ${insertColumns(notificationState, ["ownerId", "seq", "checkedAt"])} VALUES (?1, ?2, ?3)
         ON CONFLICT (owner_id) DO UPDATE SET seq = max(notification_state.seq, excluded.seq), checked_at = excluded.checked_at`,
      )
      .bind(ownerId, hi, at),
    // The agents' unread mentions, copied once each.
    db
      .prepare(
        `INSERT OR IGNORE INTO ${insertColumns(notifications, NEW_KEYS)}
         SELECT 'ntf_' || m.id, ?1, 'mention:' || m.id, 'MENTION', m.agent_id, m.id,
                '@' || m.author_handle || ' mentioned @' || g.handle || ' in #' || m.room, NULL,
                json_object('room', m.room, 'messageId', m.message_id, 'author', m.author_handle, 'excerpt', substr(m.content, 1, 280), 'messageCreatedAt', m.message_created_at),
                m.created_at
           FROM agents g JOIN mentions m ON m.agent_id = g.id AND m.read_at IS NULL
          WHERE g.owner_id = ?1 AND g.deleted_at IS NULL`,
      )
      .bind(ownerId),
    // A mention its agent has read (or that is gone) is no longer news for the owner either.
    db
      .prepare(
        `UPDATE notifications SET read_at = ?2
          WHERE owner_id = ?1 AND kind = 'MENTION' AND read_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.id = notifications.subject AND m.read_at IS NULL)`,
      )
      .bind(ownerId, at),
    ...list.statements,
    // Counted like every list's total: exact up to the bound, never more than bound + 1 rows read.
    db
      .prepare(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM notifications WHERE owner_id = ?1 AND read_at IS NULL LIMIT ${TOTAL_BOUND + 1})`)
      .bind(ownerId),
  ]);
  const [page, count, unread] = res.slice(-3);
  const { rows: found, ...total } = list.read(page!, count!);
  return {
    items: found.map((r) => ({
      id: r.id,
      kind: r.kind as (typeof NOTIFICATION_KINDS)[number],
      agent: r.agent_id ? { id: r.agent_id, handle: r.handle ?? "(deleted)" } : null,
      subject: r.subject,
      title: r.title,
      severity: r.severity,
      data: JSON.parse(r.data) as Record<string, unknown>,
      createdAt: iso(r.created_at),
      readAt: iso(r.read_at),
    })),
    ...total,
    ...unreadCount((unread!.results[0] as { n: number }).n),
    page: input.page,
    perPage: input.perPage,
  };
}

/** Marks the owner's unread notifications read: those in `ids`, or all. Others' ids are not touched. */
export async function markNotificationsRead(db: D1Database, ownerId: string, ids: string[] | undefined, at: number) {
  if (ids && ids.length === 0) return { marked: 0 };
  const res = ids
    ? await db
        .prepare(
          `UPDATE notifications SET read_at = ?2 WHERE owner_id = ?1 AND read_at IS NULL AND id IN (SELECT value FROM json_each(?3))`,
        )
        .bind(ownerId, at, JSON.stringify(ids))
        .run()
    : await db.prepare(`UPDATE notifications SET read_at = ?2 WHERE owner_id = ?1 AND read_at IS NULL`).bind(ownerId, at).run();
  return { marked: res.meta.changes };
}
