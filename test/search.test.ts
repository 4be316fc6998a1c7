import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, newAgent, type TestAgent } from "./helpers";
import { RANK_CANDIDATES, TOTAL_BOUND } from "../src/core/fts";

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
