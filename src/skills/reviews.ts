/** Reviews: one per owner and skill, never by the skill's own account; the skill's totals recomputed from them. */
import { forbidden, notFound } from "../core/errors";
import { now } from "../core/clock";
import type { AgentPrincipal } from "../core/principal";
import { PUBLISHED, type SkillRow } from "./rows";
import { columnsOf, insertColumns, type SqlRow } from "../core/columns";
import { skillReviews, skills } from "../db/skills";
import { REVIEW_COLS, type ReviewRow, reviewOut, round1 } from "./shapes";

/** The skill's totals, recomputed in the same batch. */
const TOTAL_KEYS = ["reviewCount", "ratingSum", "successCount"] as const;

export async function reviewSkill(
  db: D1Database,
  caller: AgentPrincipal,
  slug: string,
  input: { rating: number; succeeded: boolean; notes?: string },
) {
  const s = await db
    .prepare(`SELECT s.id, s.owner_id FROM skills s WHERE s.slug = ? AND ${PUBLISHED}`)
    .bind(slug)
    .first<Pick<SkillRow, "id" | "owner_id">>();
  if (!s) throw notFound(`Skill '${slug}'`);
  if (s.owner_id === caller.ownerId) throw forbidden("Reviews must be independent: this skill was published by your own account");
  const t = now();
  const notes = input.notes ? input.notes : null;
  const res = await db.batch([
    db
      .prepare(
        `INSERT INTO ${insertColumns(skillReviews, ["skillId", "ownerId", "agentId", "rating", "succeeded", "notes", "createdAt", "updatedAt"])}
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
         ON CONFLICT (skill_id, owner_id) DO UPDATE SET agent_id = ?3, rating = ?4, succeeded = ?5, notes = ?6, updated_at = ?7`,
      )
      .bind(s.id, caller.ownerId, caller.agentId, input.rating, input.succeeded ? 1 : 0, notes, t),
    // Recomputed from the reviews, never adjusted by deltas, so concurrent reviews cannot drift.
    db
      .prepare(
        `UPDATE skills SET review_count = (SELECT COUNT(*) FROM skill_reviews WHERE skill_id = ?1),
                           rating_sum = (SELECT COALESCE(SUM(rating), 0) FROM skill_reviews WHERE skill_id = ?1),
                           success_count = (SELECT COALESCE(SUM(succeeded), 0) FROM skill_reviews WHERE skill_id = ?1)
          WHERE id = ?1`,
      )
      .bind(s.id),
    db
      .prepare(
        `SELECT ${REVIEW_COLS}, ${columnsOf(skills, "s", TOTAL_KEYS)}
           FROM skill_reviews r JOIN skills s ON s.id = r.skill_id WHERE r.skill_id = ? AND r.owner_id = ?`,
      )
      .bind(s.id, caller.ownerId),
  ]);
  const r = res[2]!.results[0] as ReviewRow & SqlRow<typeof skills, (typeof TOTAL_KEYS)[number]>;
  return {
    review: reviewOut(r, { id: caller.agentId, handle: caller.handle }),
    skill: {
      slug,
      rating: round1(r.rating_sum / r.review_count),
      successRate: round1((r.success_count / r.review_count) * 100) / 100,
      reviewCount: r.review_count,
    },
  };
}
