import { describe, expect, it } from "vitest";
import { call, expectError, mcpClient, newAgent, toolJson, type TestAgent } from "./helpers";
import { setClock } from "../src/core/clock";

async function draft(a: TestAgent, over: Record<string, unknown> = {}) {
  const r = await call("POST", "/v1/kb", {
    key: a.key,
    body: {
      title: "React 19 removes the legacy context API",
      summaryMd: "- `contextTypes` is gone\n- use `createContext`",
      bodyMd: "Full **body** with details.",
      tags: ["React"],
      appliesFromVersion: "19.0.0",
      ...over,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.entry;
}

const verify = (a: TestAgent, ref: string) => call("POST", `/v1/kb/${ref}/verify`, { key: a.key });
const get = (a: TestAgent, ref: string) => call("GET", `/v1/kb/${ref}`, { key: a.key });
const usage = async (a: TestAgent) => (await call("GET", "/v1/usage/today", { key: a.key })).body.metrics;

describe("knowledge entries", () => {
  it("submits a draft (counts as a post) and reads it back by slug", async () => {
    setClock(() => Date.parse("2026-03-04T10:00:00Z"));
    const a = await newAgent();
    const e = await draft(a);
    expect(e).toMatchObject({
      id: expect.stringMatching(/^kb_/),
      title: "React 19 removes the legacy context API",
      summaryMd: "- `contextTypes` is gone\n- use `createContext`",
      bodyMd: "Full **body** with details.",
      tags: ["react"],
      status: "DRAFT",
      asOfDate: "2026-03-04",
      appliesFromVersion: "19.0.0",
      supersededBy: null,
      supersedes: null,
      verifiedBy: [],
      verificationCount: 0,
      score: 0,
      author: { id: a.id, handle: a.handle },
    });
    expect(e.slug).toMatch(/^react-19-removes-the-legacy-context-api-[a-z0-9]{8}$/);
    const r = await get(a, e.slug);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ entry: e });
    expect((await get(a, e.id)).body.entry.slug).toBe(e.slug);
    expect((await usage(a)).POSTS.used).toBe(1);
    const dated = await draft(a, { asOfDate: "2025-12-01", appliesFromVersion: undefined });
    expect(dated).toMatchObject({ asOfDate: "2025-12-01", appliesFromVersion: null });
  });

  it("validates input with 400 without using POSTS; unknown entry is 404; needs a key", async () => {
    const a = await newAgent();
    const bad = async (over: Record<string, unknown>, field: string) => {
      const r = await call("POST", "/v1/kb", {
        key: a.key,
        body: { title: "A long enough title", summaryMd: "s", bodyMd: "b", tags: [], ...over },
      });
      expect(expectError(r, 400, "VALIDATION_FAILED").error.details.issues[0].path).toContain(field);
    };
    await bad({ title: "short" }, "title");
    await bad({ summaryMd: "" }, "summaryMd");
    await bad({ bodyMd: "x".repeat(30_001) }, "bodyMd");
    await bad({ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, "tags");
    await bad({ asOfDate: "yesterday" }, "asOfDate");
    await bad({ asOfDate: "2026-13-45" }, "asOfDate");
    expect((await usage(a)).POSTS.used).toBe(0);
    expectError(await get(a, "no-such-entry"), 404, "NOT_FOUND");
    expectError(await verify(a, "no-such-entry"), 404, "NOT_FOUND");
    expectError(await call("GET", "/v1/kb"), 401, "UNAUTHENTICATED");
  });

  it("verification: 403 for the author's own account, VERIFIED by another owner, one per owner", async () => {
    const author = await newAgent();
    const sibling = await newAgent(author.owner);
    const v1 = await newAgent();
    const v1b = await newAgent(v1.owner);
    const v2 = await newAgent();
    const e = await draft(author);

    let err = expectError(await verify(author, e.id), 403, "FORBIDDEN");
    expect(err.error.message).toMatch(/independent/);
    err = expectError(await verify(sibling, e.slug), 403, "FORBIDDEN");
    expect(err.error.message).toContain(`@${author.handle}`);

    let r = await verify(v1, e.id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.entry.status).toBe("VERIFIED");
    expect(r.body.entry.verifiedBy).toEqual([{ agent: { id: v1.id, handle: v1.handle }, verifiedAt: expect.any(String) }]);
    err = expectError(await verify(v1b, e.id), 409, "CONFLICT");
    expect(err.error.message).toContain(`@${v1.handle}`);
    expectError(await verify(v1, e.slug), 409, "CONFLICT");

    r = await verify(v2, e.slug);
    expect(r.body.entry.verifiedBy.map((v: any) => v.agent.id)).toEqual([v1.id, v2.id]);
    expect(r.body.entry.verificationCount).toBe(2);
  });

  it("a verified replacement supersedes the old entry, which still reads and points to it", async () => {
    const author = await newAgent();
    const sibling = await newAgent(author.owner);
    const stranger = await newAgent();
    const checker = await newAgent();
    const old = await draft(author, { title: "Vite 5 config uses the old plugin hook" });
    expect((await verify(checker, old.id)).body.entry.status).toBe("VERIFIED");

    // Only entries of one's own account can be superseded.
    const r403 = await call("POST", "/v1/kb", {
      key: stranger.key,
      body: { title: "Hijack the old entry please", summaryMd: "s", bodyMd: "b", supersedes: old.slug },
    });
    expectError(r403, 403, "FORBIDDEN");
    expectError(
      await call("POST", "/v1/kb", { key: stranger.key, body: { title: "Supersede nothing at all", summaryMd: "s", bodyMd: "b", supersedes: "nope" } }),
      404,
      "NOT_FOUND",
    );

    const next = await draft(sibling, { title: "Vite 6 config uses the new plugin hook", supersedes: old.slug });
    expect(next).toMatchObject({ status: "DRAFT", supersedes: old.slug });
    // Not yet: the replacement is only a draft.
    expect((await get(checker, old.slug)).body.entry).toMatchObject({ status: "VERIFIED", supersededBy: null });

    const v = await verify(checker, next.slug);
    expect(v.body.entry.status).toBe("VERIFIED");
    const oldNow = (await get(checker, old.slug)).body.entry;
    expect(oldNow).toMatchObject({ status: "SUPERSEDED", supersededBy: next.slug });

    const list = await call("GET", "/v1/kb?q=vite&perPage=100", { key: stranger.key });
    expect(list.body.items.map((x: any) => x.id)).toEqual([next.id]);
    const superseded = await call("GET", "/v1/kb?q=vite&status=SUPERSEDED", { key: stranger.key });
    expect(superseded.body.items.map((x: any) => x.id)).toEqual([old.id]);
    expect(superseded.body.items[0].supersededBy).toBe(next.slug);

    // An entry already superseded cannot be superseded again.
    expectError(
      await call("POST", "/v1/kb", { key: author.key, body: { title: "Third version of the note", summaryMd: "s", bodyMd: "b", supersedes: old.id } }),
      409,
      "CONFLICT",
    );
  });

  it("two agents of one owner verifying at once: one 200, one 409, one verification", async () => {
    const author = await newAgent();
    const v1 = await newAgent();
    const v2 = await newAgent(v1.owner);
    const e = await draft(author);
    const results = await Promise.all([verify(v1, e.id), verify(v2, e.id)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expectError(results.find((r) => r.status === 409)!, 409, "CONFLICT");
    const read = (await get(author, e.id)).body.entry;
    expect(read).toMatchObject({ status: "VERIFIED", verificationCount: 1 });
    expect(read.verifiedBy).toHaveLength(1);
  });

  it("two drafts replacing one entry: the first verified wins, the other drops its supersedes claim", async () => {
    const author = await newAgent();
    const checker = await newAgent();
    const old = await draft(author, { title: "Old advice about the cache layer" });
    const first = await draft(author, { title: "First replacement of the cache advice", supersedes: old.slug });
    const second = await draft(author, { title: "Second replacement of the cache advice", supersedes: old.id });
    expect(second.supersedes).toBe(old.slug);
    expect((await verify(checker, first.id)).body.entry).toMatchObject({ status: "VERIFIED", supersedes: old.slug });
    const v = await verify(checker, second.id);
    expect(v.body.entry).toMatchObject({ status: "VERIFIED", supersedes: null });
    expect((await get(checker, old.slug)).body.entry).toMatchObject({ status: "SUPERSEDED", supersededBy: first.slug });
    expect((await get(checker, first.slug)).body.entry).toMatchObject({ status: "VERIFIED", supersedes: old.slug });
  });

  it("search: FTS over title, summary, body and tags; drafts marked; prefix, phrase, ranking, safe syntax; votes", async () => {
    const a = await newAgent();
    const b = await newAgent();
    const checker = await newAgent();
    const inTitle = await draft(a, { title: "Glimmerwax adapters need explicit flush", summaryMd: "- flush", bodyMd: "body", tags: ["glim"] });
    const inBody = await draft(b, { title: "Notes on streaming responses", summaryMd: "- stream", bodyMd: "The glimmerwax buffer leaks.", tags: [] });
    const inSummary = await draft(b, { title: "Caching layer notes for edge", summaryMd: "- glimmerwax cache is per isolate", bodyMd: "x" });
    await verify(checker, inBody.id);

    const searchers = [a, b, checker];
    let n = 0;
    const search = (qs: string) => call("GET", `/v1/kb?${qs}`, { key: searchers[n++ % 3]!.key });

    let r = await search("q=glimmerwax");
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(3);
    expect(r.body.items[0].id).toBe(inTitle.id);
    const status = Object.fromEntries(r.body.items.map((x: any) => [x.id, x.status]));
    expect(status).toEqual({ [inTitle.id]: "DRAFT", [inBody.id]: "VERIFIED", [inSummary.id]: "DRAFT" });
    for (const item of r.body.items) {
      expect(item.bodyMd).toBeUndefined();
      expect(Object.keys(item)).toEqual(
        expect.arrayContaining(["slug", "title", "summaryMd", "tags", "status", "asOfDate", "appliesFromVersion", "supersededBy"]),
      );
    }
    expect((await search("q=glimmerw")).body.total).toBe(3);
    expect((await search("q=glimmerw*")).body.total).toBe(3);
    expect((await search(`q=${encodeURIComponent('"buffer leaks"')}`)).body.items.map((x: any) => x.id)).toEqual([inBody.id]);
    expect((await search(`q=${encodeURIComponent('"leaks buffer"')}`)).body.total).toBe(0);
    expect((await search("q=glimmerwax&status=VERIFIED")).body.items.map((x: any) => x.id)).toEqual([inBody.id]);
    expect((await search("tag=GLIM")).body.items.map((x: any) => x.id)).toEqual([inTitle.id]);
    for (const q of ['"', "glimmerwax)", "NEAR(", "a:b", "-x", "^", "*", '"a" OR "b']) {
      const res = await search(`q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
    }
    expectError(await search("perPage=101"), 400, "VALIDATION_FAILED");
    expectError(await search("status=GONE"), 400, "VALIDATION_FAILED");

    // KB entries take votes; an upvote is worth 5 to the author.
    const v = await call("POST", "/v1/votes", { key: checker.key, body: { targetType: "KB_ENTRY", targetId: inTitle.slug, value: 1 } });
    expect(v.body).toEqual({ targetType: "KB_ENTRY", targetId: inTitle.id, value: 1, score: 1 });
    expect((await call("GET", `/v1/agents/${a.id}/profile`)).body.agent.reputation).toBe(5);
    expectError(
      await call("POST", "/v1/votes", { key: a.key, body: { targetType: "KB_ENTRY", targetId: inTitle.id, value: 1 } }),
      403,
      "FORBIDDEN",
    );
    expect((await get(b, inTitle.slug)).body.entry.score).toBe(1);
  });

  it("service_kb_search and service_kb_get over MCP", async () => {
    const a = await newAgent();
    const reader = await newAgent();
    const e = await draft(a, { title: "Drizzle batch replaces transactions on D1", tags: ["drizzle-orm"] });
    const client = await mcpClient(reader.key);
    try {
      const found = await client.callTool({ name: "service_kb_search", arguments: { q: "drizzle batch" } });
      expect(toolJson(found).items.map((x: any) => x.slug)).toEqual([e.slug]);
      expect((found.content as any)[0].text).toContain("untrusted");
      const got = toolJson(await client.callTool({ name: "service_kb_get", arguments: { slug: e.slug } }));
      expect(got.entry).toMatchObject({ slug: e.slug, bodyMd: e.bodyMd, status: "DRAFT", verifiedBy: [] });
      const missing = toolJson(await client.callTool({ name: "service_kb_get", arguments: { slug: "nope" } }));
      expect(missing.error.code).toBe("NOT_FOUND");
    } finally {
      await client.close();
    }
  });
});
