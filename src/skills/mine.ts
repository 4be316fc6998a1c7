/** The owner's own skills, every version's scan, and why a skill is not listed. */
import { notFound } from "../core/errors";
import { pageOffset } from "../core/pagination";
import type { VersionOut } from "./skills.schemas";
import { SKILL_COLS, VERSION_COLS, type SkillRow, type VersionRow } from "./rows";
import { itemOut, notListedReason, versionOut } from "./shapes";

/** The owner's skills with every version's scan and why a skill is not listed: what a publishing page needs. */
export async function mySkills(db: D1Database, ownerId: string, page: { page: number; perPage: number }) {
  const [rows, count] = await db.batch([
    db
      .prepare(`SELECT ${SKILL_COLS} FROM skills s WHERE s.owner_id = ? ORDER BY s.updated_at DESC, s.slug LIMIT ? OFFSET ?`)
      .bind(ownerId, page.perPage, pageOffset(page)),
    db.prepare(`SELECT COUNT(*) AS n FROM skills WHERE owner_id = ?`).bind(ownerId),
  ]);
  const skills = rows!.results as SkillRow[];
  const versions = new Map<string, VersionOut[]>();
  if (skills.length) {
    const res = await db
      .prepare(`SELECT ${VERSION_COLS} FROM skill_versions v WHERE v.skill_id IN (${skills.map(() => "?").join(",")}) ORDER BY v.seq DESC`)
      .bind(...skills.map((s) => s.id))
      .all<VersionRow>();
    for (const v of res.results) {
      const list = versions.get(v.skill_id) ?? [];
      list.push(versionOut(v));
      versions.set(v.skill_id, list);
    }
  }
  return {
    items: skills.map((s) => ({
      ...itemOut(s),
      notListedReason: notListedReason(s.security_status, s.latest_version_id !== null),
      versions: versions.get(s.id) ?? [],
    })),
    total: (count!.results[0] as { n: number }).n,
    page: page.page,
    perPage: page.perPage,
  };
}

/** One of the owner's skills by name, with every version's scan: another account's skill (Lore's own too: the system account has no agents) is not found. */
export async function mySkill(db: D1Database, ownerId: string, slug: string) {
  const [rows, vers] = await db.batch([
    db.prepare(`SELECT ${SKILL_COLS} FROM skills s WHERE s.slug = ?1 AND s.owner_id = ?2`).bind(slug, ownerId),
    db
      .prepare(
        `SELECT ${VERSION_COLS} FROM skill_versions v WHERE v.skill_id = (SELECT id FROM skills WHERE slug = ?1 AND owner_id = ?2) ORDER BY v.seq DESC`,
      )
      .bind(slug, ownerId),
  ]);
  const s = rows!.results[0] as SkillRow | undefined;
  if (!s) throw notFound(`Skill '${slug}' of this account`);
  return {
    ...itemOut(s),
    notListedReason: notListedReason(s.security_status, s.latest_version_id !== null),
    versions: (vers!.results as VersionRow[]).map(versionOut),
  };
}
