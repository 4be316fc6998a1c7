// The owner's side of sync: GET /v1/stack, /v1/stack/<agentId>, /v1/notifications (+ mark read),
// /v1/me/activity, and their dashboard pages, through the real Worker.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { call, expectError, mcpClient, newAgent, signup, type TestAgent } from "../helpers";
import { browse, createAgentForm, expectSafePage, signupForm } from "../web-helpers";
import { DAY_MS, setClock } from "../../src/core/clock";
import { loadReleases } from "../../src/freshness/freshness.seed";
import { mockFetch } from "../fixtures/mock";
import { osvStatements } from "../../src/freshness/advisories";
import type { OsvRecord } from "../../src/sources/osv";
import releases from "../../data/freshness/releases.json?raw";
import osvExpress from "../fixtures/osv/express.query.json?raw";
import osvExpress2 from "../fixtures/osv/express.query.page2.json?raw";
import { loadStarterSkills } from "../../src/skills/seed";
import { starterSkillsPayload } from "../data-helpers";

const T0 = Date.parse("2031-04-01T08:00:00Z");

beforeAll(async () => {
  // No registry answers here: a full sync's refresh of stale release data fails, and says so.
  mockFetch({});
  setClock(() => T0 - DAY_MS);
  await loadReleases(env, releases);
  await env.DB.batch(
    await osvStatements(env.DB, [...JSON.parse(osvExpress).vulns, ...JSON.parse(osvExpress2).vulns] as OsvRecord[], T0 - DAY_MS),
  );
  await loadStarterSkills(env, starterSkillsPayload());
  setClock();
});

const at = (ms: number) => setClock(() => ms);
const syncAs = async (a: TestAgent, body: Record<string, unknown>) => {
  const r = await call("POST", "/v1/agents/me/sync", { key: a.key, body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};

async function addAdvisory(id: string, name: string, events: Record<string, string>[], when: number) {
  const rec = {
    id,
    modified: new Date(when).toISOString(),
    published: new Date(when).toISOString(),
    summary: `${id} summary`,
    affected: [{ package: { ecosystem: "npm", name }, ranges: [{ type: "SEMVER", events }] }],
    database_specific: { severity: "CRITICAL" },
  };
  await env.DB.batch(await osvStatements(env.DB, [rec as unknown as OsvRecord], when));
}

describe("GET /v1/stack", () => {
  it("lists every agent of the account with its last reported stack; the detail shows freshness and advisories per entry", async () => {
    at(T0);
    const o = await signup();
    const a = await newAgent(o);
    const quiet = await newAgent(o);
    const stranger = await newAgent();
    await syncAs(a, {
      stack: [
        { name: "react", version: "18.2.0" },
        { name: "express", version: "4.19.1" },
        { name: "left-pad", version: "1.3.0" },
      ],
      installedSkills: ["lore"],
    });
    await syncAs(stranger, { stack: [{ name: "react", version: "19.2.0" }] });
    const r = await call("GET", "/v1/stack", { token: o.token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.total).toBe(2);
    expect(r.body.items.map((i: any) => i.agent.handle)).toEqual([a.handle, quiet.handle]);
    expect(r.body.items[0]).toMatchObject({
      stackReportedAt: new Date(T0).toISOString(),
      lastSyncAt: new Date(T0).toISOString(),
      lastFullRefreshAt: new Date(T0).toISOString(),
      nextRefreshAt: new Date(T0 + DAY_MS).toISOString(),
      syncs: 1,
      fullRefreshes: 1,
      topics: 3,
      installedSkills: ["lore"],
      stack: [
        { name: "react", version: "18.2.0", ecosystem: "npm", topic: "react", tracked: true },
        { name: "express", version: "4.19.1", ecosystem: "npm", topic: "express", tracked: true },
        { name: "left-pad", version: "1.3.0", ecosystem: "npm", topic: "left-pad", tracked: false },
      ],
    });
    expect(r.body.items[1]).toMatchObject({ lastSyncAt: null, stack: [], installedSkills: [], nextRefreshAt: null });

    const d = await call("GET", `/v1/stack/${a.id}`, { token: o.token });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    expect(d.body.entries[0]).toMatchObject({
      name: "react",
      latestVersion: "19.2.0",
      releasesBehind: 2,
      breaking: 2,
      vulnerabilities: [],
    });
    expect(d.body.entries[1].vulnerabilities.map((v: any) => v.id).sort()).toEqual(["GHSA-qw6h-vgh9-j6wx", "GHSA-rv95-896h-c2vc"]);
    expect(d.body.entries[2]).toMatchObject({ name: "left-pad", tracked: false, latestVersion: null, releasesBehind: null });
    expect(d.body.installedSkills[0]).toMatchObject({ name: "lore" });

    // Another account's agent is not found; an agent key is not a session.
    expectError(await call("GET", `/v1/stack/${stranger.id}`, { token: o.token }), 404, "NOT_FOUND");
    expectError(await call("GET", "/v1/stack", { key: a.key }), 403, "FORBIDDEN");
    expectError(await call("GET", "/v1/stack"), 401, "UNAUTHENTICATED");
  });
});

describe("GET /v1/notifications", () => {
  it("advisories found by syncs and those ingested since, flagged skills and unread mentions; mark read; one account only", async () => {
    at(T0);
    const o = await signup();
    const a = await newAgent(o);
    const other = await signup();
    const b = await newAgent(other);
    const pkg = `ntf-${Date.now().toString(36)}`;
    await syncAs(a, {
      stack: [
        { name: "express", version: "4.19.1" },
        { name: pkg, version: "3.1.0" },
      ],
    });
    await syncAs(b, { stack: [{ name: pkg, version: "3.1.0" }] });
    let n = (await call("GET", "/v1/notifications", { token: o.token })).body;
    expect(n.items.map((i: any) => i.subject).sort()).toEqual(["GHSA-qw6h-vgh9-j6wx", "GHSA-rv95-896h-c2vc"]);
    expect(n.unread).toBe(2);
    expect(n.items[0]).toMatchObject({
      kind: "ADVISORY",
      agent: { id: a.id, handle: a.handle },
      readAt: null,
      data: { name: "express", version: "4.19.1", ecosystem: "npm" },
    });

    // Ingested after the last sync: the list finds it without waiting for one, version-exact.
    at(T0 + 3_600_000);
    await addAdvisory(`GHSA-ntf-${pkg}`, pkg, [{ introduced: "3.0.0" }, { fixed: "3.1.1" }], T0 + 3_600_000);
    await addAdvisory(`GHSA-ntf-old-${pkg}`, pkg, [{ introduced: "1.0.0" }, { fixed: "2.0.0" }], T0 + 3_600_000);
    // A mention from another account's agent.
    const post = await call("POST", "/v1/chat/rooms/general/messages", {
      key: b.key,
      body: { content: `@${a.handle} the ${pkg} advisory is out` },
    });
    expect(post.status).toBe(201);
    await vi.waitFor(async () => expect((await call("GET", "/v1/chat/mentions?unread=true", { key: a.key })).body.total).toBe(1));
    n = (await call("GET", "/v1/notifications?unread=true", { token: o.token })).body;
    expect(n.items.map((i: any) => `${i.kind}:${i.subject}`)).toEqual(
      expect.arrayContaining([`ADVISORY:GHSA-ntf-${pkg}`, expect.stringMatching(/^MENTION:men_/)]),
    );
    expect(n.items.map((i: any) => i.subject)).not.toContain(`GHSA-ntf-old-${pkg}`);
    const mention = n.items.find((i: any) => i.kind === "MENTION");
    expect(mention).toMatchObject({
      agent: { id: a.id },
      title: `@${b.handle} mentioned @${a.handle} in #general`,
      data: { room: "general", excerpt: expect.stringContaining(pkg) },
    });
    expect(n.unread).toBe(4);
    // Reading again adds nothing (one notification per fact).
    expect((await call("GET", "/v1/notifications", { token: o.token })).body.total).toBe(4);
    // The other account sees the advisory for its own agent only, and no mention.
    const theirs = (await call("GET", "/v1/notifications", { token: other.token })).body;
    expect(theirs.items.map((i: any) => `${i.kind}:${i.subject}`)).toEqual([`ADVISORY:GHSA-ntf-${pkg}`]);

    // The agent reads its mention: the owner's copy is read too.
    await call("POST", "/v1/chat/mentions/read", { key: a.key, body: {} });
    n = (await call("GET", "/v1/notifications?kind=MENTION", { token: o.token })).body;
    expect(n.items[0].readAt).not.toBeNull();
    // Mark one read, ignore another account's id, then all.
    const adv = (await call("GET", "/v1/notifications?unread=true&kind=ADVISORY", { token: o.token })).body.items;
    expect((await call("POST", "/v1/notifications/read", { token: o.token, body: { ids: [adv[0].id, theirs.items[0].id] } })).body).toEqual(
      { marked: 1 },
    );
    expect((await call("GET", "/v1/notifications", { token: other.token })).body.unread).toBe(1);
    expect((await call("POST", "/v1/notifications/read", { token: o.token, body: {} })).body).toEqual({ marked: 2 });
    expect((await call("GET", "/v1/notifications", { token: o.token })).body.unread).toBe(0);
    expectError(await call("POST", "/v1/notifications/read", { token: o.token, body: { ids: "all" } }), 400, "VALIDATION_FAILED");
    expectError(await call("GET", "/v1/notifications", { key: a.key }), 403, "FORBIDDEN");
  });
  it("a full sync writes an account's advisory notifications once per ingest generation: never another account's, and again after an ingest", async () => {
    const when = T0 + 2 * 3_600_000;
    at(when);
    const pkg = `ntf-gen-${Date.now().toString(36)}`;
    await addAdvisory(`GHSA-gen1-${pkg}`, pkg, [{ introduced: "3.0.0" }, { fixed: "3.1.1" }], when);
    const stack = [{ name: pkg, version: "3.1.0" }];
    const o = await signup();
    const a = await newAgent(o);
    const other = await signup();
    const b = await newAgent(other);
    const rows = async (ownerId: string) =>
      (
        await env.DB.prepare("SELECT dedup FROM notifications WHERE owner_id = ? AND kind = 'ADVISORY' ORDER BY dedup")
          .bind(ownerId)
          .all<{ dedup: string }>()
      ).results.map((r) => r.dedup);
    await syncAs(a, { stack, force: true });
    await syncAs(a, { stack, force: true });
    const mine = await rows(o.ownerId);
    expect(mine).toEqual([expect.stringContaining(`GHSA-gen1-${pkg}`)]);
    // The other account's agent, same stack, same generation: its own row, not skipped for the first account's.
    await syncAs(b, { stack, force: true });
    expect(await rows(other.ownerId)).toEqual([expect.stringContaining(b.id)]);
    // A notification gone (pruned) at the same generation within the hour is not written again by this isolate.
    await env.DB.prepare("DELETE FROM notifications WHERE owner_id = ?").bind(o.ownerId).run();
    await syncAs(a, { stack, force: true });
    expect(await rows(o.ownerId)).toEqual([]);
    // An ingest (a new generation): every advisory the sync finds is written again, the new one too.
    await addAdvisory(`GHSA-gen2-${pkg}`, pkg, [{ introduced: "3.0.0" }, { fixed: "3.2.0" }], when);
    await syncAs(a, { stack, force: true });
    const again = await rows(o.ownerId);
    expect(again).toHaveLength(2);
    expect(again).toEqual(expect.arrayContaining([...mine, expect.stringContaining(`GHSA-gen2-${pkg}`)]));
  });

  it("the unread count is exact up to 10,000 and then says it is a lower bound, reading no more than that", async () => {
    const o = await signup();
    const ins = (from: number, to: number) =>
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT ?2 UNION ALL SELECT i + 1 FROM n WHERE i < ?3)
         INSERT INTO notifications (id, owner_id, dedup, kind, agent_id, subject, title, severity, data, created_at)
         SELECT 'ntf_bound_' || ?1 || '_' || i, ?1, 'bound:' || i, 'ADVISORY', NULL, 'GHSA-bound-' || i, 't', 'low', '{}', ?4 FROM n`,
      )
        .bind(o.ownerId, from, to, T0)
        .run();
    await ins(1, 10_000);
    let n = (await call("GET", "/v1/notifications?perPage=1", { token: o.token })).body;
    expect(n.unread).toBe(10_000);
    expect(n).not.toHaveProperty("unreadIsLowerBound");
    await ins(10_001, 10_005);
    n = (await call("GET", "/v1/notifications?perPage=1", { token: o.token })).body;
    expect(n).toMatchObject({ unread: 10_000, unreadIsLowerBound: true, total: 10_000, totalIsLowerBound: true });
  });
});

describe("GET /v1/me/activity", () => {
  it("the agents' questions, posts, votes, messages, installs and syncs, newest first, paged, through REST and MCP", async () => {
    at(T0);
    const o = await signup();
    const a = await newAgent(o);
    const b = await newAgent(o);
    const other = await newAgent();
    const q = await call("POST", "/v1/threads", {
      key: other.key,
      body: { title: "How do I pin a transitive dependency?", bodyMd: "npm overrides?", categorySlug: "general", stackTags: ["npm"] },
    });
    expect(q.status).toBe(201);
    const mine = await call("POST", "/v1/threads", {
      key: a.key,
      body: { title: "Why does vitest hang on exit?", bodyMd: "Details.", categorySlug: "debugging", stackTags: ["vitest"] },
    });
    expect(mine.status).toBe(201);
    expect(
      (
        await call("POST", `/v1/threads/${q.body.thread.id}/posts`, {
          key: a.key,
          body: { bodyMd: "Use `overrides` in package.json.", type: "ANSWER" },
        })
      ).status,
    ).toBe(201);
    expect(
      (await call("POST", "/v1/votes", { key: b.key, body: { targetType: "THREAD", targetId: q.body.thread.id, value: 1 } })).status,
    ).toBe(200);
    expect((await call("POST", "/v1/chat/rooms/general/messages", { key: b.key, body: { content: "hello from b" } })).status).toBe(201);
    expect((await call("POST", "/v1/skills/lore/install", { key: a.key, body: { harness: "codex" } })).status).toBe(200);
    // A failed action is not activity.
    expect(
      (await call("POST", "/v1/votes", { key: a.key, body: { targetType: "THREAD", targetId: mine.body.thread.id, value: 1 } })).status,
    ).toBe(403);
    await syncAs(a, { stack: [{ name: "react", version: "18.2.0" }] });
    const client = await mcpClient(b.key);
    await client.callTool({ name: "service_sync", arguments: { stack: [] } });
    await client.close();

    const want = ["QUESTION", "POST", "VOTE", "CHAT_MESSAGE", "SKILL_INSTALL", "SYNC", "SYNC"];
    let feed: any;
    await vi.waitFor(async () => {
      feed = (await call("GET", "/v1/me/activity", { token: o.token })).body;
      expect(feed.items.map((i: any) => i.kind).sort()).toEqual([...want].sort());
    });
    expect(feed.total).toBe(7);
    const byKind = (k: string) => feed.items.filter((i: any) => i.kind === k);
    expect(byKind("QUESTION")[0]).toMatchObject({
      agent: { id: a.id, handle: a.handle },
      summary: "Asked: Why does vitest hang on exit?",
      target: { type: "THREAD", id: mine.body.thread.id },
      via: "rest",
    });
    expect(byKind("VOTE")[0]).toMatchObject({ agent: { id: b.id }, summary: expect.stringMatching(/^Voted \+1 on thread/) });
    expect(byKind("SKILL_INSTALL")[0].summary).toBe("Installed the skill lore 1 for codex");
    expect(
      byKind("SYNC")
        .map((i: any) => i.via)
        .sort(),
    ).toEqual(["mcp", "rest"]);
    const times = feed.items.map((i: any) => i.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    const pageTwo = (await call("GET", "/v1/me/activity?perPage=3&page=2", { token: o.token })).body;
    expect(pageTwo.items.map((i: any) => i.id)).toEqual(feed.items.slice(3, 6).map((i: any) => i.id));
    expect(
      (await call("GET", `/v1/me/activity?agentId=${b.id}`, { token: o.token })).body.items.every((i: any) => i.agent.id === b.id),
    ).toBe(true);
    expect((await call("GET", "/v1/me/activity?kind=SYNC", { token: o.token })).body.total).toBe(2);
    expectError(await call("GET", "/v1/me/activity?kind=NAPPING", { token: o.token }), 400, "VALIDATION_FAILED");
    // Nobody else sees it.
    expect((await call("GET", "/v1/me/activity", { token: other.owner.token })).body.items.map((i: any) => i.kind)).toEqual(["QUESTION"]);
  });
});

describe("dashboard pages", () => {
  it("stack, notifications (mark read by form) and activity pages render safely for their owner only", async () => {
    at(T0);
    const { cookie, token } = await signupForm();
    const { key, handle } = await createAgentForm(cookie);
    const r = await call("POST", "/v1/agents/me/sync", {
      key,
      body: {
        stack: [
          { name: "express", version: "4.19.1" },
          { name: "<script>alert(1)</script>", version: "1.0.0" },
        ],
      },
    });
    expect(r.status).toBe(200);

    const stack = await browse("GET", "/dashboard/stack", { cookie });
    expect(stack.status).toBe(200);
    await expectSafePage(stack);
    expect(stack.html).toContain(`@${handle}`);
    expect(stack.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(stack.html).toMatch(/<a href="\/dashboard\/stack" aria-current="page">Stack<\/a>/);
    const agentId = /\/dashboard\/stack\/(agt_[A-Za-z0-9_]+)/.exec(stack.html)?.[1];
    expect(agentId).toBeTruthy();
    const detail = await browse("GET", `/dashboard/stack/${agentId}`, { cookie });
    expect(detail.status).toBe(200);
    await expectSafePage(detail);
    expect(detail.html).toContain("GHSA-rv95-896h-c2vc");
    expect(detail.html).toContain("1 vulnerable dependency");
    expect((await browse("GET", "/dashboard/stack/agt_nope", { cookie })).status).toBe(404);

    const notes = await browse("GET", "/dashboard/notifications", { cookie });
    expect(notes.status).toBe(200);
    await expectSafePage(notes);
    expect(notes.html).toContain("2 unread");
    const id = /name="id" value="(ntf_[A-Za-z0-9_]+)"/.exec(notes.html)![1]!;
    const marked = await browse("POST", "/dashboard/notifications/read", { cookie, form: { id, back: "https://evil.example/" } });
    expect(marked.status).toBe(303);
    expect(marked.location).toBe("/dashboard/notifications?done=marked");
    expect((await call("GET", "/v1/notifications", { token })).body.unread).toBe(1);
    const all = await browse("POST", "/dashboard/notifications/read", { cookie, form: { back: "/dashboard/notifications?unread=1" } });
    expect(all.location).toBe("/dashboard/notifications?unread=1&done=all");
    const after = await browse("GET", "/dashboard/notifications?unread=1&done=all", { cookie });
    expect(after.html).toContain("All notifications marked read.");
    expect(after.html).toContain("0 unread");
    // A post from another site changes nothing.
    const csrf = await browse("POST", "/dashboard/notifications/read", {
      cookie,
      form: {},
      headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(csrf.status).toBe(403);

    const act = await browse("GET", "/dashboard/activity", { cookie });
    expect(act.status).toBe(200);
    await expectSafePage(act);
    await vi.waitFor(async () =>
      expect((await browse("GET", "/dashboard/activity?kind=SYNC", { cookie })).html).toMatch(/Synced 2 dependencies/),
    );
    const filtered = await browse("GET", "/dashboard/activity?kind=VOTE&agent=whatever", { cookie });
    expect(filtered.html).toContain("Nothing yet.");

    // Signed out: to the login page.
    for (const p of ["/dashboard/stack", "/dashboard/notifications", "/dashboard/activity"]) {
      const out = await browse("GET", p);
      expect(out.status).toBe(303);
      expect(out.location).toBe(`/login?next=${encodeURIComponent(p)}`);
    }
  });
});
