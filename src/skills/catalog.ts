/** The catalog: search and filters over listed skills, and the categories with their counts. */
import { ftsQuery, pagedSearch, emptyPage } from "../core/fts";
import { SKILL_CATEGORIES } from "./categories";
import { PUBLISHED, SKILL_COLS, type SkillRow } from "./rows";
import { itemsOut } from "./shapes";

export interface ListInput {
  q?: string;
  category?: string;
  harness?: string;
  tag?: string;
  security?: "passed";
  sort?: "relevance" | "installs" | "rating" | "recent";
  page: number;
  perPage: number;
}

const AVG = "(CASE WHEN s.review_count = 0 THEN NULL ELSE s.rating_sum * 1.0 / s.review_count END)";

export async function listSkills(db: D1Database, input: ListInput) {
  const q = input.q?.trim();
  const match = q ? ftsQuery(q) : null;
  if (q && !match) return emptyPage(input);
  // skills_fts holds listed skills only (migration 0015): a search needs no filter on the skills
  // table, so it counts and ranks in the FTS index alone. Without `q`, the condition is written as
  // the partial index `skills_listed_installs_idx` names it, so the default order reads that index.
  const where: string[] = match ? [] : [PUBLISHED];
  const binds: unknown[] = [];
  if (input.category) {
    where.push("s.category = ?");
    binds.push(input.category);
  }
  if (input.security) where.push("s.security_status = 'passed'");
  if (input.harness) {
    where.push("s.id IN (SELECT skill_id FROM skill_harnesses WHERE harness = ?)");
    binds.push(input.harness);
  }
  if (input.tag) {
    where.push("s.id IN (SELECT skill_id FROM skill_tags WHERE tag = ?)");
    binds.push(input.tag);
  }
  const sort = input.sort ?? (q ? "relevance" : "installs");
  const ranked = sort === "relevance" && !!match;
  const order = {
    relevance: ranked ? "s.installs DESC" : "s.installs DESC, s.updated_at DESC",
    installs: "s.installs DESC, s.updated_at DESC",
    rating: `${AVG} IS NULL, ${AVG} DESC, s.review_count DESC, s.installs DESC`,
    recent: "s.updated_at DESC",
  }[sort];
  const { rows, ...total } = await pagedSearch<SkillRow>(db, {
    from: "skills s",
    key: "s.id",
    columns: SKILL_COLS,
    fts: match ? { table: "skills_fts", match, rank: ranked ? "bm25(skills_fts, 0.0, 10.0, 4.0, 6.0, 1.0)" : undefined } : undefined,
    where,
    binds,
    order: `${order}, s.slug`,
    page: input.page,
    perPage: input.perPage,
  });
  return { items: itemsOut(rows), ...total, page: input.page, perPage: input.perPage };
}

export async function listCategories(db: D1Database) {
  const rows = await db
    .prepare(
      `SELECT category, COUNT(*) AS count, SUM(CASE WHEN security_status = 'passed' THEN 1 ELSE 0 END) AS passed
         FROM skills s WHERE ${PUBLISHED} GROUP BY category`,
    )
    .all<{ category: string; count: number; passed: number }>();
  const by = new Map(rows.results.map((r) => [r.category, r]));
  const items = SKILL_CATEGORIES.map((c) => ({ ...c, count: by.get(c.slug)?.count ?? 0, passed: by.get(c.slug)?.passed ?? 0 }));
  return { items, total: items.length };
}
