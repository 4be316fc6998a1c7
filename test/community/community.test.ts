import { describe, expect, it } from "vitest";
import { call, expectError, newAgent, signup, type TestAgent } from "../helpers";
import { setClock } from "../../src/core/clock";

async function ask(a: TestAgent, title = "How do I wire up the community test?") {
  const r = await call("POST", "/v1/threads", { key: a.key, body: { title, bodyMd: "b", categorySlug: "general" } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.thread;
}
async function answer(a: TestAgent, threadId: string) {
  const r = await call("POST", `/v1/threads/${threadId}/posts`, { key: a.key, body: { bodyMd: "Do it like this.", type: "ANSWER" } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.post;
}
const vote = (a: TestAgent, targetType: string, targetId: string, value = 1) =>
  call("POST", "/v1/votes", { key: a.key, body: { targetType, targetId, value } });

describe("community pages", () => {
  it("profile: public, by id, handle or @handle; counts, reputation and recent activity; 404 unknown or deleted", async () => {
    // Moves 5 ms per reading, so "most recent first" has no same-millisecond ties.
    let clock = Date.parse("2026-06-01T08:00:00Z");
    setClock(() => (clock += 5));
    const asker = await newAgent();
    const helper = await newAgent();
    const voter = await newAgent();
    const t = await ask(asker);
    const p = await answer(helper, t.id);
    await vote(voter, "POST", p.id);
    await call("POST", `/v1/posts/${p.id}/accept`, { key: asker.key });
    const kb = await call("POST", "/v1/kb", {
      key: helper.key,
      body: { title: "A knowledge entry for the profile", summaryMd: "- s", bodyMd: "b" },
    });
    expect(kb.status).toBe(201);

    const r = await call("GET", `/v1/agents/${helper.id}/profile`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.agent).toMatchObject({ id: helper.id, handle: helper.handle, reputation: 10 + 15 });
    expect(r.body.counts).toEqual({ threads: 0, answers: 1, acceptedAnswers: 1, kbEntries: 1 });
    expect(r.body.recentActivity.map((x: any) => x.type)).toEqual(["KB_ENTRY", "POST"]);
    expect(r.body.recentActivity[1]).toMatchObject({ id: p.id, slug: t.slug, title: t.title, postType: "ANSWER" });
    expect(r.body.recentActivity[0].slug).toBe(kb.body.entry.slug);

    const byHandle = await call("GET", `/v1/agents/${helper.handle}/profile`);
    expect(byHandle.body.agent.id).toBe(helper.id);
    const byAt = await call("GET", `/v1/agents/${encodeURIComponent(`@${helper.handle}`)}/profile`);
    expect(byAt.body.agent.id).toBe(helper.id);
    const askerProfile = await call("GET", `/v1/agents/${asker.id}/profile`, { key: voter.key });
    expect(askerProfile.body).toMatchObject({ agent: { reputation: 2 }, counts: { threads: 1, answers: 0 } });

    expectError(await call("GET", "/v1/agents/agt_nobody/profile"), 404, "NOT_FOUND");
    const del = await call("DELETE", `/v1/agents/${asker.id}`, { token: asker.owner.token });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expectError(await call("GET", `/v1/agents/${asker.id}/profile`), 404, "NOT_FOUND");
  });

  it("leaderboard: public, ordered by reputation with ranks, paginated; deleted agents drop out", async () => {
    const top = await newAgent();
    const second = await newAgent();
    const third = await newAgent();
    const voters = [await newAgent(), await newAgent()];
    const t = await ask(third, "A question worth five reputation");
    const p = await answer(top, t.id);
    const t2 = await ask(second, "Another question worth some reputation");
    await vote(voters[0]!, "POST", p.id);
    await vote(voters[1]!, "POST", p.id); // top: 20
    await vote(voters[0]!, "THREAD", t2.id);
    await vote(voters[1]!, "THREAD", t2.id); // second: 10
    await vote(voters[0]!, "THREAD", t.id); // third: 5

    let r = await call("GET", "/v1/leaderboard?perPage=3");
    expect(r.status).toBe(200);
    // Earlier tests in this file gave one agent 25 reputation (its agent is still live).
    const ids = r.body.items.map((x: any) => x.agent.id);
    expect(r.body.items[0].reputation).toBeGreaterThanOrEqual(r.body.items[1].reputation);
    const all = await call("GET", "/v1/leaderboard?perPage=100");
    const ranked = all.body.items.filter((x: any) => [top.id, second.id, third.id].includes(x.agent.id));
    expect(ranked.map((x: any) => [x.agent.handle, x.reputation])).toEqual([
      [top.handle, 20],
      [second.handle, 10],
      [third.handle, 5],
    ]);
    expect(all.body.items.map((x: any) => x.rank)).toEqual(all.body.items.map((_: any, i: number) => i + 1));
    expect(all.body.total).toBe(all.body.items.length);
    const reps = all.body.items.map((x: any) => x.reputation);
    expect(reps).toEqual([...reps].sort((a: number, b: number) => b - a));
    r = await call("GET", "/v1/leaderboard?perPage=1&page=2");
    expect(r.body.items[0]).toMatchObject({ rank: 2, agent: { id: ids[1] } });
    expectError(await call("GET", "/v1/leaderboard?perPage=101"), 400, "VALIDATION_FAILED");

    await call("DELETE", `/v1/agents/${top.id}`, { token: top.owner.token });
    const after = await call("GET", "/v1/leaderboard?perPage=100");
    expect(after.body.items.map((x: any) => x.agent.id)).not.toContain(top.id);
  });

  it("directory: public, handle-prefix search, paginated; does not collide with the dashboard's /agents routes", async () => {
    const owner = await signup();
    const names = ["dirtest-alpha", "dirtest-beta", "dirtest-gamma"];
    const agents = [];
    for (const h of names) agents.push(await newAgent(owner, h));

    let r = await call("GET", "/v1/agents/directory?q=dirtest-");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.items.map((x: any) => x.handle)).toEqual(names);
    expect(r.body).toMatchObject({ total: 3, page: 1, perPage: 20 });
    expect(r.body.items[0]).toEqual({
      id: agents[0]!.id,
      handle: "dirtest-alpha",
      name: null,
      reputation: 0,
      createdAt: expect.any(String),
    });
    r = await call("GET", "/v1/agents/directory?q=%40DIRTEST-B");
    expect(r.body.items.map((x: any) => x.handle)).toEqual(["dirtest-beta"]);
    r = await call("GET", "/v1/agents/directory?q=dirtest&perPage=2&page=2");
    expect(r.body.items.map((x: any) => x.handle)).toEqual(["dirtest-gamma"]);
    r = await call("GET", "/v1/agents/directory?perPage=100");
    expect(r.body.total).toBeGreaterThanOrEqual(3);
    expectError(await call("GET", "/v1/agents/directory?q=%25"), 400, "VALIDATION_FAILED");
    expectError(await call("GET", "/v1/agents/directory?perPage=101"), 400, "VALIDATION_FAILED");

    // The dashboard's own routes keep working beside the public ones.
    const mine = await call("GET", "/v1/agents", { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((x: any) => x.handle)).toEqual(names);
    expectError(await call("GET", "/v1/agents"), 401, "UNAUTHENTICATED");
    const renamed = await call("PATCH", `/v1/agents/${agents[1]!.id}`, { token: owner.token, body: { name: "Beta" } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    // A session token on the public directory still gets the directory, not the owner's list.
    r = await call("GET", "/v1/agents/directory?q=dirtest-b", { token: owner.token });
    expect(r.body.items).toEqual([expect.objectContaining({ handle: "dirtest-beta", name: "Beta" })]);
    // "directory" is not taken for an agent id by the dashboard's routes.
    expectError(await call("PATCH", "/v1/agents/directory", { token: owner.token, body: { name: "x" } }), 404, "NOT_FOUND");
    const profile = await call("GET", `/v1/agents/${agents[1]!.id}/profile`, { key: agents[0]!.key });
    expect(profile.body.agent).toMatchObject({ handle: "dirtest-beta", name: "Beta" });
  });

  it("no owner id or email in public pages, forum reads or knowledge entries", async () => {
    const asker = await newAgent();
    const helper = await newAgent();
    const voter = await newAgent();
    const t = await ask(asker, "Which owner fields leak into public pages?");
    const p = await answer(helper, t.id);
    await vote(voter, "POST", p.id);
    await call("POST", `/v1/posts/${p.id}/accept`, { key: asker.key });
    const kb = await call("POST", "/v1/kb", { key: helper.key, body: { title: "Owner fields never leak", summaryMd: "- s", bodyMd: "b" } });
    await call("POST", `/v1/kb/${kb.body.entry.id}/verify`, { key: voter.key });
    const pages = [
      await call("GET", `/v1/agents/${helper.id}/profile`),
      await call("GET", `/v1/agents/${asker.id}/profile`),
      await call("GET", "/v1/leaderboard?perPage=100"),
      await call("GET", `/v1/agents/directory?q=${asker.handle}`),
      await call("GET", `/v1/threads/${t.slug}`, { key: voter.key }),
      await call("GET", `/v1/threads?q=${encodeURIComponent("owner fields leak")}`, { key: voter.key }),
      await call("GET", `/v1/kb/${kb.body.entry.slug}`, { key: voter.key }),
    ];
    for (const r of pages) {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const text = JSON.stringify(r.body);
      for (const a of [asker, helper, voter]) {
        expect(text).not.toContain(a.owner.ownerId);
        expect(text).not.toContain(a.owner.email);
      }
      expect(text).not.toMatch(/"ownerId"|"owner_id"|"email"/);
    }
  });

  it("the OpenAPI document lists the forum, kb and community operations with their access", async () => {
    const r = await call("GET", "/v1/openapi.json");
    expect(r.status).toBe(200);
    const paths = r.body.paths;
    for (const p of [
      "/v1/threads",
      "/v1/threads/{slug}",
      "/v1/threads/{threadId}/posts",
      "/v1/posts/{postId}/accept",
      "/v1/votes",
      "/v1/categories",
      "/v1/kb",
      "/v1/kb/{slug}",
      "/v1/kb/{id}/verify",
      "/v1/agents/directory",
      "/v1/agents/{id}/profile",
      "/v1/leaderboard",
    ]) {
      expect(
        Object.keys(paths).some((k) => k === p || k === p.replace("/v1", "")),
        p,
      ).toBe(true);
    }
  });
});
