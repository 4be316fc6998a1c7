/**
 * The lookups sync and setup make for a whole stack at once (statuses of installed skills,
 * scan-passed recommendations by topic, install targets, scan changes since a time): each one
 * statement, to run alone or inside the caller's batch.
 */
import { iso } from "../core/clock";
import { constantRead, runRead, type BatchRead } from "../core/batch";
import type { ScanStatus } from "../scan/types";
import type { InstallTarget } from "./install";
import type { SkillItemOut } from "./skills.schemas";
import { PUBLISHED, SKILL_COLS, type SkillRow } from "./rows";
import { itemOut, itemsOut } from "./shapes";

export interface SkillStatus {
  name: string;
  /** False for a name Lore does not know (everything else is then null). */
  known: boolean;
  securityStatus: ScanStatus | null;
  securityScanHash: string | null;
  latestVersion: string | null;
  /** In the discovery index and installable. */
  listed: boolean;
  updatedAt: string | null;
  scannedAt: string | null;
  statusChangedAt: string | null;
}

const unknownSkill = (name: string): SkillStatus => ({
  name,
  known: false,
  securityStatus: null,
  securityScanHash: null,
  latestVersion: null,
  listed: false,
  updatedAt: null,
  scannedAt: null,
  statusChangedAt: null,
});

/**
 * Scan status of each installed skill name, in the order given (unknown names reported as
 * unknown), as a read that can join another caller's batch: one statement for any number of names.
 */
export function skillStatusesRead(db: D1Database, names: readonly string[]): BatchRead<SkillStatus[]> {
  const wanted = [...new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length) return constantRead(names.map(unknownSkill));
  return {
    statements: [
      db
        .prepare(
          `SELECT ${SKILL_COLS}, v.scanned_at FROM json_each(?1) j JOIN skills s ON s.slug = j.value
             LEFT JOIN skill_versions v ON v.id = s.latest_version_id`,
        )
        .bind(JSON.stringify(wanted)),
    ],
    read: async ([res]) => {
      const rows = res!.results as (SkillRow & { scanned_at: number | null })[];
      const found = new Map<string, SkillStatus>();
      for (const r of rows) {
        if (!r.latest_version_id) continue;
        const item = itemOut(r);
        found.set(r.slug, {
          name: r.slug,
          known: true,
          securityStatus: item.securityStatus,
          securityScanHash: item.securityScanHash,
          latestVersion: item.latestVersion,
          listed: item.listed,
          updatedAt: item.updatedAt,
          scannedAt: iso(r.scanned_at),
          statusChangedAt: iso(r.status_changed_at),
        });
      }
      return names.map((n) => found.get(n.trim().toLowerCase()) ?? unknownSkill(n));
    },
  };
}

/** Scan status of each installed skill name, in the order given (unknown names reported as unknown). */
export const skillStatuses = (db: D1Database, names: readonly string[]): Promise<SkillStatus[]> =>
  runRead(db, skillStatusesRead(db, names));

export interface SkillRecommendation extends SkillItemOut {
  /** The stack topics this skill's tags matched. */
  matchedTopics: string[];
}

/**
 * Scan-passed skills whose tags match any of the stack's topics (canonical lowercase names, any
 * number of them), most matched topics first, then most installed; `exclude` (installed names)
 * left out. One statement, to run alone or in another caller's batch.
 */
export function recommendSkillsRead(
  db: D1Database,
  topics: readonly string[],
  exclude: readonly string[] = [],
  limit = 10,
): BatchRead<SkillRecommendation[]> {
  const wanted = [...new Set(topics.map((t) => t.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length || limit <= 0) return constantRead([]);
  const skip = [...new Set(exclude.map((n) => n.trim().toLowerCase()))];
  return {
    statements: [
      db
        .prepare(
          `SELECT ${SKILL_COLS}, group_concat(t.tag, ' ') AS matched, COUNT(*) AS n
             FROM json_each(?1) j JOIN skill_tags t ON t.tag = j.value JOIN skills s ON s.id = t.skill_id
            WHERE s.security_status = 'passed' AND ${PUBLISHED} AND s.slug NOT IN (SELECT value FROM json_each(?2))
            GROUP BY s.id ORDER BY n DESC, s.installs DESC, s.slug LIMIT ?3`,
        )
        .bind(JSON.stringify(wanted), JSON.stringify(skip), limit),
    ],
    read: async ([res]) => {
      const rows = res!.results as (SkillRow & { matched: string; n: number })[];
      const items = itemsOut(rows);
      return items
        .map((item, i) => ({ ...item, matchedTopics: rows[i]!.matched.split(" ").sort() }))
        .filter((x) => x.securityStatus === "passed");
    },
  };
}

/** recommendSkillsRead on its own. */
export const recommendSkills = (
  db: D1Database,
  topics: readonly string[],
  exclude: readonly string[] = [],
  limit = 10,
): Promise<SkillRecommendation[]> => runRead(db, recommendSkillsRead(db, topics, exclude, limit));

/**
 * What an install command needs for each named skill that is installable (scan passed, published):
 * its artifact type, digest and files. Unknown and not-passed names are left out. One statement.
 */
export function installTargetsRead(db: D1Database, names: readonly string[]): BatchRead<InstallTarget[]> {
  const wanted = [...new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length) return constantRead([]);
  return {
    statements: [
      db
        .prepare(
          `SELECT s.slug, s.security_scan_hash, v.artifact_type, v.files
             FROM json_each(?1) j JOIN skills s ON s.slug = j.value JOIN skill_versions v ON v.id = s.latest_version_id
            WHERE s.security_status = 'passed'`,
        )
        .bind(JSON.stringify(wanted)),
    ],
    read: async ([res]) => {
      const rows = res!.results as (Pick<SkillRow, "slug" | "security_scan_hash"> & { artifact_type: string; files: string })[];
      const bySlug = new Map(rows.map((r) => [r.slug, r]));
      const out: InstallTarget[] = [];
      for (const name of wanted) {
        const r = bySlug.get(name);
        if (!r) continue;
        out.push({
          name,
          artifactType: r.artifact_type as "skill-md" | "archive",
          digest: r.security_scan_hash!,
          files: JSON.parse(r.files),
        });
      }
      return out;
    },
  };
}

/** Skills whose scan status changed after `since` (ms), oldest change first: a sync cursor's "scan changes since". */
export async function skillScanChangesSince(db: D1Database, since: number, opts: { names?: readonly string[]; limit?: number } = {}) {
  const limit = Math.min(opts.limit ?? 100, 500);
  const names = opts.names?.map((n) => n.trim().toLowerCase());
  if (names && names.length === 0) return [];
  // Any number of names as one JSON parameter (D1 allows 100 bound parameters per statement).
  const byName = names ? " AND s.slug IN (SELECT value FROM json_each(?3))" : "";
  const res = await db
    .prepare(
      `SELECT ${SKILL_COLS} FROM skills s WHERE s.status_changed_at > ?1 AND ${PUBLISHED}${byName} ORDER BY s.status_changed_at, s.slug LIMIT ?2`,
    )
    .bind(since, limit, ...(names ? [JSON.stringify(names)] : []))
    .all<SkillRow>();
  const items = itemsOut(res.results);
  return items.map((item, i) => ({
    name: item.slug,
    securityStatus: item.securityStatus,
    securityScanHash: item.securityScanHash,
    latestVersion: item.latestVersion,
    listed: item.listed,
    statusChangedAt: iso(res.results[i]!.status_changed_at),
  }));
}
