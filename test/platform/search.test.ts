import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, newAgent, type TestAgent } from "../helpers";
import { RANK_CANDIDATES, TOTAL_BOUND } from "../../src/core/fts";

/**
 * The shared paged search (src/core/fts.ts) through the real Worker: the ranked first page, the
 * bounded total, and what a user may type. Rows are seeded with one INSERT … SELECT over a
 * recursive counter (the FTS index fills through the migration's triggers).
 */

const BM25 = "bm25(forum_fts, 0.0, 10.0, 4.0, 6.0, 1.5)";

/** `count` threads whose title holds `word` 1–4 times and whose body holds it 0–2 times, so bm25 differs between rows. */
async function seedThreads(agent: TestAgent, word: string, count: number, boostOldest = false) {
  const now = Date.now();
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1)
     INSERT INTO threads (id, slug, title, body_md, category_slug, stack_tags, status, score, answer_count, author_id, owner_id, created_at, last_activity_at)
     SELECT 'thr_' || ?2 || '_' || i, ?2 || '-' || i,
            CASE WHEN ?5 AND i = 0 THEN ?2 || ' ' || ?2 || ' ' || ?2 || ' ' || ?2 || ' ' || ?2 || ' ' || ?2
                 ELSE 'about ' || substr(?2 || ' ' || ?2 || ' ' || ?2 || ' ' || ?2 || ' ', 1, (length(?2) + 1) * (1 + i % 4)) || ' question number ' || i END,
            'Body text ' || substr(?2 || ' ' || ?2 || ' ', 1, (length(?2) + 1) * (i % 3)) || 'with padding words ' || substr('lorem ipsum dolor sit amet ', 1, (i * 7) % 27),
            'general', '[]', 'OPEN', 0, 0, ?3, ?4, ?6 - i * 1000, ?6 - i * 1000
       FROM n`,
  )
    .bind(count, word, agent.id, agent.owner.ownerId, boostOldest ? 1 : 0, now)
    .run();
}

/** Today's ranking, computed on every match: bm25, then the most recent activity. */
async function fullRanking(word: string, limit: number, offset = 0, newest?: number) {
  const source = newest ? `(SELECT rowid FROM forum_fts WHERE forum_fts MATCH ?1 ORDER BY rowid DESC LIMIT ${newest})` : "forum_fts";
  const { results } = await env.DB.prepare(
    `SELECT t.id FROM forum_fts f JOIN threads t ON t.id = f.thread_id
      WHERE forum_fts MATCH ?1 ${newest ? `AND f.rowid IN ${source}` : ""}
      ORDER BY ${BM25}, t.last_activity_at DESC LIMIT ?2 OFFSET ?3`,
  )
    .bind(`"${word}"`, limit, offset)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

const ids = (r: { body: { items: { id: string }[] } }) => r.body.items.map((x) => x.id);

const slugs = (r: { body: { items: { slug: string }[] } }) => r.body.items.map((x) => x.slug);
const SKILLS_BM25 = "bm25(skills_fts, 0.0, 10.0, 4.0, 6.0, 1.0)";
const LISTED = "s.latest_version_id IS NOT NULL";

/**
 * `count` listed skills whose description holds `word` 1–3 times (so bm25 differs) and whose installs
 * repeat every 7 rows (so ties on bm25 fall to installs, then the name). `unlisted` more rows match
 * too but have no version (a first publish that failed midway): never listed, never counted.
 */
async function seedSkills(owner: string, word: string, count: number, unlisted = 0) {
  const now = Date.now();
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1)
     INSERT INTO skills (id, slug, owner_id, category, description, tags, harnesses, latest_version_id, latest_version, security_status,
                         status_changed_at, search_body, installs, created_at, updated_at)
     SELECT 'skl_' || ?2 || '_' || i, ?2 || '-skill-' || i, ?3, 'testing',
            'Checks ' || substr(?2 || ' ' || ?2 || ' ' || ?2 || ' ', 1, (length(?2) + 1) * (1 + i % 3)) || 'in projects number ' || i,
            '[]', '[]', CASE WHEN i < ?4 THEN NULL ELSE 'skv_' || ?2 || '_' || i END, CASE WHEN i < ?4 THEN NULL ELSE '1.0.0' END,
            'passed', ?5, 'body', (i % 7) * 10, ?5 - i * 1000, ?5 - i * 1000
       FROM n`,
  )
    .bind(count + unlisted, word, owner, unlisted, now)
    .run();
}

/** The catalog's ranking computed on every listed match, with no FTS shortcut: bm25, then installs, then the name. */
async function skillsRanking(word: string, limit: number, offset = 0) {
  const { results } = await env.DB.prepare(
    `SELECT s.slug FROM skills s
      WHERE ${LISTED} AND s.id IN (SELECT skill_id FROM skills_fts WHERE skills_fts MATCH ?1)
      ORDER BY (SELECT ${SKILLS_BM25} FROM skills_fts WHERE skills_fts MATCH ?1 AND skills_fts.skill_id = s.id), s.installs DESC, s.slug
      LIMIT ?2 OFFSET ?3`,
  )
    .bind(`"${word}"*`, limit, offset)
    .all<{ slug: string }>();
  return results.map((r) => r.slug);
}

describe("paged search", () => {
  it("a ranked first page is today's bm25 order while the matches fit the candidate set; the total is exact", async () => {
    const a = await newAgent();
    const word = "zorbquent";
    await seedThreads(a, word, 600);
    const expected = await fullRanking(word, 20);
    const r = await call("GET", `/v1/threads?q=${word}&perPage=20`, { key: a.key });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(expected);
    expect(r.body.total).toBe(600);
    expect(r.body).not.toHaveProperty("totalIsLowerBound");
    // A later page too, and the page past the end is empty with the same total.
    const p3 = await call("GET", `/v1/threads?q=${word}&perPage=50&page=3`, { key: a.key });
    expect(ids(p3)).toEqual(await fullRanking(word, 50, 100));
    const past = await call("GET", `/v1/threads?q=${word}&perPage=50&page=13`, { key: a.key });
    expect(past.body.items).toEqual([]);
    expect(past.body.total).toBe(600);
  });

  it(`above ${TOTAL_BOUND} matches: total is the bound with totalIsLowerBound; the first page ranks the newest ${RANK_CANDIDATES} matches; deep pages use the full ranking`, async () => {
    const a = await newAgent();
    const word = "plimbrax";
    // The oldest match is the best by bm25: the documented rule leaves it off the first page.
    await seedThreads(a, word, TOTAL_BOUND + 50, true);
    const r = await call("GET", `/v1/threads?q=${word}&perPage=20`, { key: a.key });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(TOTAL_BOUND);
    expect(r.body.totalIsLowerBound).toBe(true);
    const all = await fullRanking(word, 20);
    expect(all[0]).toBe(`thr_${word}_0`);
    expect(ids(r)).toEqual(await fullRanking(word, 20, 0, RANK_CANDIDATES));
    expect(ids(r)).not.toContain(`thr_${word}_0`);

    // A page reaching past the candidates is answered from the full ranking.
    const perPage = 100;
    const page = Math.floor(RANK_CANDIDATES / perPage) + 1;
    const deep = await call("GET", `/v1/threads?q=${word}&perPage=${perPage}&page=${page}`, { key: a.key });
    expect(ids(deep)).toEqual(await fullRanking(word, perPage, (page - 1) * perPage));
    expect(deep.body.totalIsLowerBound).toBe(true);

    // A list without a query is bounded the same way; with a filter that matches nothing it is exact.
    const recent = await call("GET", `/v1/threads?perPage=5`, { key: a.key });
    expect(recent.body).toMatchObject({ total: TOTAL_BOUND, totalIsLowerBound: true });
    const none = await call("GET", `/v1/threads?q=${word}&status=ANSWERED`, { key: a.key });
    expect(none.body).toEqual({ items: [], total: 0, page: 1, perPage: 20 });

    // The agent directory and the leaderboard count through the same helper.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1)
       INSERT INTO agents (id, owner_id, handle, created_at) SELECT 'agt_many_' || i, ?2, 'many' || i, 0 FROM n`,
    )
      .bind(TOTAL_BOUND + 5, a.owner.ownerId)
      .run();
    for (const path of ["/v1/agents/directory?q=many&perPage=5", "/v1/leaderboard?perPage=5"]) {
      const r2 = await call("GET", path, { key: a.key });
      expect(r2.status, path).toBe(200);
      expect(r2.body, path).toMatchObject({ total: TOTAL_BOUND, totalIsLowerBound: true });
    }
  });

  it("skills: the ranked first page and later pages equal bm25 computed on every listed match; unlisted skills are neither shown nor counted", async () => {
    const a = await newAgent();
    const word = "vellomart";
    await seedSkills(a.owner.ownerId, word, 400, 5);
    const expected = await skillsRanking(word, 20);
    expect(expected).toHaveLength(20);
    const r = await call("GET", `/v1/skills?q=${word}&perPage=20`, { key: a.key });
    expect(r.status).toBe(200);
    expect(slugs(r)).toEqual(expected);
    expect(r.body.total).toBe(400);
    expect(r.body).not.toHaveProperty("totalIsLowerBound");
    const p4 = await call("GET", `/v1/skills?q=${word}&perPage=50&page=4`, { key: a.key });
    expect(slugs(p4)).toEqual(await skillsRanking(word, 50, 150));
    // A prefix and a phrase take the same path.
    const prefix = await call("GET", `/v1/skills?q=${word.slice(0, 5)}*&perPage=20`, { key: a.key });
    expect(slugs(prefix)).toEqual(expected);
    const phrase = await call("GET", `/v1/skills?q=${encodeURIComponent(`"${word} in projects number 12"`)}`, { key: a.key });
    expect(slugs(phrase)).toEqual([`${word}-skill-12`]);

    // A skill enters the search index with its first version, and leaves it if it stops being listed.
    const late = `${word}-skill-0`;
    const find = async () =>
      slugs(await call("GET", `/v1/skills?q=${encodeURIComponent(`"${word} in projects number 0"`)}`, { key: a.key }));
    expect(await find()).not.toContain(late);
    await env.DB.prepare("UPDATE skills SET latest_version_id = 'skv_late', latest_version = '1.0.0' WHERE slug = ?").bind(late).run();
    expect(await find()).toContain(late);
    await env.DB.prepare("UPDATE skills SET description = description || ' again' WHERE slug = ?").bind(late).run();
    expect(await find()).toContain(late);
    await env.DB.prepare("UPDATE skills SET latest_version_id = NULL WHERE slug = ?").bind(late).run();
    expect(await find()).not.toContain(late);
    const { results } = await env.DB.prepare(
      `SELECT COUNT(*) AS n FROM skills_fts f JOIN skills s ON s.rowid = f.rowid WHERE s.latest_version_id IS NULL`,
    ).all<{ n: number }>();
    expect(results[0]!.n).toBe(0);
  });

  it(`skills: above ${TOTAL_BOUND} matches the total is the bound with totalIsLowerBound; the list without q is in installs order from its index`, async () => {
    const a = await newAgent();
    const word = "drumvoltic";
    await seedSkills(a.owner.ownerId, word, TOTAL_BOUND + 20);
    const r = await call("GET", `/v1/skills?q=${word}&perPage=20`, { key: a.key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: TOTAL_BOUND, totalIsLowerBound: true });
    // The newest RANK_CANDIDATES matches, ranked with the same rule.
    const { results } = await env.DB.prepare(
      `SELECT s.slug FROM (SELECT rowid AS r, ${SKILLS_BM25} AS rank FROM skills_fts WHERE skills_fts MATCH ?1 ORDER BY rowid DESC LIMIT ${RANK_CANDIDATES}) c
         JOIN skills s ON s.rowid = c.r ORDER BY c.rank, s.installs DESC, s.slug LIMIT 20`,
    )
      .bind(`"${word}"*`)
      .all<{ slug: string }>();
    expect(slugs(r)).toEqual(results.map((x) => x.slug));

    const list = await call("GET", "/v1/skills?perPage=30", { key: a.key });
    expect(list.body).toMatchObject({ total: TOTAL_BOUND, totalIsLowerBound: true });
    const order = await env.DB.prepare(
      `SELECT s.slug FROM skills s WHERE ${LISTED} ORDER BY s.installs DESC, s.updated_at DESC, s.slug LIMIT 30`,
    ).all<{ slug: string }>();
    expect(slugs(list)).toEqual(order.results.map((x) => x.slug));
    // That order is read from the partial index, not sorted from every skill.
    const plan = await env.DB.prepare(
      `EXPLAIN QUERY PLAN SELECT s.slug FROM skills s WHERE ${LISTED} ORDER BY s.installs DESC, s.updated_at DESC, s.slug LIMIT 30`,
    ).all<{ detail: string }>();
    const details = plan.results.map((x) => x.detail).join("; ");
    expect(details).toContain("skills_listed_installs_idx");
    expect(details).not.toContain("TEMP B-TREE");
  });

  it("prefix, phrase and FTS5 syntax characters are answered on every full-text list (never a 500)", async () => {
    const a = await newAgent();
    const word = "quendrilax";
    await seedThreads(a, word, 30);
    const searchers = [a, await newAgent(), await newAgent(), await newAgent(), await newAgent(), await newAgent()];
    let n = 0;
    const get = (path: string) => call("GET", path, { key: searchers[n++ % searchers.length]!.key });

    const prefix = await get(`/v1/threads?q=${word.slice(0, 6)}*`);
    expect(prefix.body.total).toBe(30);
    const bare = await get(`/v1/threads?q=${word.slice(0, 6)}`);
    expect(ids(bare)).toEqual(ids(prefix));
    const phrase = await get(`/v1/threads?q=${encodeURIComponent(`"${word} question number 7"`)}`);
    expect(ids(phrase)).toEqual([`thr_${word}_7`]);

    const lists = ["/v1/threads", "/v1/skills", "/v1/kb", "/v1/models", "/v1/freshness/deprecations", "/v1/mcp-servers"];
    const typed = ['"', "(", "a:b", "-x", "NEAR(a b)", "^x", "*", "AND OR NOT", "c++ c#", "'; --", `"${word}`, `${word}*)`];
    for (const list of lists) {
      for (const q of typed) {
        const r = await get(`${list}?q=${encodeURIComponent(q)}`);
        expect(r.status, `${list} ${q}: ${JSON.stringify(r.body)}`).toBe(200);
        expect(typeof r.body.total).toBe("number");
      }
    }
  });

  it("the OpenAPI document describes totalIsLowerBound on the list outputs", async () => {
    const r = await call("GET", "/v1/openapi.json");
    expect(r.status).toBe(200);
    for (const path of [
      "/threads",
      "/skills",
      "/kb",
      "/models",
      "/freshness/deprecations",
      "/mcp-servers",
      "/me/activity",
      "/notifications",
      "/agents/directory",
      "/leaderboard",
      "/freshness/topics",
    ]) {
      const op = (r.body.paths[`/v1${path}`] ?? r.body.paths[path])?.get;
      const schema = op?.responses["200"].content["application/json"].schema;
      const props = schema?.properties ?? r.body.components?.schemas?.[schema?.$ref?.split("/").pop()]?.properties;
      expect(props?.totalIsLowerBound, `${path}: ${JSON.stringify(schema)?.slice(0, 300)}`).toMatchObject({ const: true });
      expect(props.totalIsLowerBound.description).toMatch(/lower bound/);
      expect(props.totalIsLowerBound.type ?? "boolean").toBe("boolean");
    }
  });
});
