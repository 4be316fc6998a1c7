import { describe, expect, it, vi } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { BASE, call, expectError, mcpClient, mcpPost, newAgent, signup, toolJson, type TestAgent } from "../helpers";
import { viaSdk } from "../../src/mcp/endpoint";
import { setClock } from "../../src/core/clock";
import { newId, randomBase62, sha256Hex } from "../../src/core/crypto";
import { recordingEnv as benchRecording, replayStorage } from "../../src/core/bench-replay";
import { accountOfKey } from "../../src/core/auth";
import { quotaGate, quotaStub } from "../../src/quota/quota.client";
import { refreshAccount } from "../../src/quota/account";
import type { AccountQuota } from "../../src/quota/quota.do";
import type { Env } from "../../src/env";

const E = env as unknown as Env;

/**
 * Issue 13: one hop per agent request. The account's AccountQuota object verifies the key and
 * admits in one call; D1 stays the source of record and every change of keys, agents or plan
 * tells the object before it is answered.
 */

function clockAt(iso: string) {
  let t = Date.parse(iso);
  setClock(() => t);
  return { set: (s: string) => void (t = Date.parse(s)), advance: (ms: number) => void (t += ms) };
}

const usage = (key: string) => call("GET", "/v1/usage/today", { key });
const rpc = (key: string, body: unknown, headers: Record<string, string> = {}) => mcpPost(key, body, { headers });
const toolCall = (key: string, name: string, args: Record<string, unknown> = {}, id: number | string = 1) =>
  rpc(key, { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

/** What the account's object holds for its account (the copy made from D1). */
async function copyOf(ownerId: string) {
  return runInDurableObject(quotaStub(E, ownerId), async (_q: AccountQuota, state) => ({
    account: state.storage.sql.exec("SELECT owner_id, plan, status, period_end FROM account").toArray()[0] ?? null,
    keys: state.storage.sql.exec<{ prefix: string; agent_id: string }>("SELECT prefix, agent_id FROM keys ORDER BY prefix").toArray(),
    bookmark: (state.storage.sql.exec<{ value: string }>("SELECT value FROM bookmark").toArray()[0]?.value ?? null) as string | null,
  }));
}

/**
 * The object loses what it held for its account, as after a storage loss or on first use after the
 * deploy that introduced the copy: its storage is emptied (`counters` too, with `all`) and the
 * instance is reset, so the next call starts from nothing.
 */
async function loseState(ownerId: string, all = false) {
  await runInDurableObject(quotaStub(E, ownerId), async (_q: AccountQuota, state) => {
    if (all) await state.storage.deleteAll();
    else for (const t of ["account", "keys"]) state.storage.sql.exec(`DELETE FROM ${t}`);
    // Durable before the reset, which would otherwise drop the unconfirmed writes.
    await state.storage.sync();
    try {
      state.abort("test: the object loses its state");
    } catch {
      /* abort throws in the caller */
    }
  }).catch(() => {});
}

/** A key of the format before keys named their account, stored directly in D1 for an agent. */
async function legacyKey(a: TestAgent) {
  const key = `lore_${randomBase62(32)}`;
  await E.DB.prepare("INSERT INTO api_keys (key_hash, prefix, agent_id, owner_id, created_at) VALUES (?, ?, ?, ?, ?)")
    .bind(await sha256Hex(key), key.slice(0, 8), a.id, a.owner.ownerId, Date.now())
    .run();
  return key;
}

async function subscribe(token: string, plan: string) {
  const r = await call("POST", "/v1/billing/subscribe", { token, body: { plan } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

describe("keys name their account; the account's object verifies and admits in one call", () => {
  it("a new key is lore_<secret>_<account>; its 8-character prefix still tells an agent's keys apart", async () => {
    const a = await newAgent();
    expect(a.key).toMatch(/^lore_[0-9A-Za-z]{65}_own_[0-9a-z]+$/);
    expect(accountOfKey(a.key)).toBe(a.owner.ownerId);
    const second = (await call("POST", `/v1/agents/${a.id}/keys`, { token: a.owner.token })).body;
    expect(accountOfKey(second.apiKey)).toBe(a.owner.ownerId);
    expect(second.key.prefix).toBe(second.apiKey.slice(0, 8));
    expect(second.key.prefix).not.toBe(a.key.slice(0, 8));
    // The object holds both keys' hashes (never the keys), with the agent and the display prefix.
    const copy = await copyOf(a.owner.ownerId);
    expect(copy.account).toMatchObject({ owner_id: a.owner.ownerId, plan: "FREE", status: "NONE" });
    expect(copy.keys.map((k) => k.prefix).sort()).toEqual([a.key.slice(0, 8), second.key.prefix].sort());
    expect(JSON.stringify(copy)).not.toContain(a.key);
  });

  it("authenticating reads no D1: a key removed from D1 behind the object's back still works until the object is told", async () => {
    const a = await newAgent();
    expect((await usage(a.key)).status).toBe(200);
    // Not how keys are revoked (that tells the object): this shows who decides on each request.
    await E.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE agent_id = ?").bind(Date.now(), a.id).run();
    expect((await usage(a.key)).status).toBe(200);
    await refreshAccount(E, a.owner.ownerId);
    expectError(await usage(a.key), 401, "UNAUTHENTICATED");
  });

  it("a made-up key naming a real account, a made-up account, and a malformed key are 401", async () => {
    const a = await newAgent();
    const forged = `lore_${randomBase62(32)}_${a.owner.ownerId}`;
    expectError(await usage(forged), 401, "UNAUTHENTICATED");
    expectError(await usage(`lore_${randomBase62(32)}_own_nosuchaccount1`), 401, "UNAUTHENTICATED");
    expectError(await usage(`${a.key.slice(0, 30)}_${a.owner.ownerId}`), 401, "UNAUTHENTICATED");
    expect((await rpc(forged, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(401);
    expect((await usage(a.key)).status).toBe(200);
  });
});

describe("a change takes effect on the very next request, through REST and MCP", () => {
  it("a revoked key", async () => {
    const a = await newAgent();
    const k2 = (await call("POST", `/v1/agents/${a.id}/keys`, { token: a.owner.token })).body;
    const mcp = await mcpClient(k2.apiKey);
    expect((await usage(k2.apiKey)).status).toBe(200);
    expect(toolJson(await mcp.callTool({ name: "service_usage", arguments: {} })).plan).toBe("FREE");
    expect((await call("DELETE", `/v1/agents/${a.id}/keys/${k2.key.prefix}`, { token: a.owner.token })).status).toBe(200);
    expectError(await usage(k2.apiKey), 401, "UNAUTHENTICATED");
    // The MCP connection made before the revocation: its next message is refused with HTTP 401.
    expect(await mcp.callTool({ name: "service_usage", arguments: {} }).catch((e) => String(e))).toMatch(/UNAUTHENTICATED/);
    for (const body of [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "service_usage", arguments: {} } },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
    ]) {
      const r = await rpc(k2.apiKey, body);
      expect(r.status, JSON.stringify(body)).toBe(401);
      expect(r.body.error.code).toBe("UNAUTHENTICATED");
    }
    // The agent's other key is untouched.
    expect((await usage(a.key)).status).toBe(200);
  });

  it("a deleted agent", async () => {
    const a = await newAgent();
    const sibling = await newAgent(a.owner);
    const mcp = await mcpClient(a.key);
    expect((await call("GET", "/v1/threads", { key: a.key })).status).toBe(200);
    expect((await call("DELETE", `/v1/agents/${a.id}`, { token: a.owner.token })).status).toBe(200);
    expectError(await call("GET", "/v1/threads", { key: a.key }), 401, "UNAUTHENTICATED");
    expect((await toolCall(a.key, "service_usage")).status).toBe(401);
    expect(await mcp.listTools().catch((e) => String(e))).toMatch(/UNAUTHENTICATED/);
    expect((await usage(sibling.key)).status).toBe(200);
    expect((await copyOf(a.owner.ownerId)).keys.map((k) => k.agent_id)).toEqual([sibling.id]);
  });

  it("a downgraded plan, and a canceled one that runs out", async () => {
    const clock = clockAt("2030-06-01T10:00:00.000Z");
    const a = await newAgent();
    await subscribe(a.owner.token, "PRO");
    expect((await usage(a.key)).body).toMatchObject({ plan: "PRO", perMinute: 150 });
    expect(toolJson(await (await mcpClient(a.key)).callTool({ name: "service_usage", arguments: {} }))).toMatchObject({ plan: "PRO" });
    // Down to STARTER: the very next request is admitted under STARTER's limits.
    await subscribe(a.owner.token, "STARTER");
    const r = await call("GET", "/v1/usage/history?days=1", { key: a.key });
    expect(r.headers.get("ratelimit-policy")).toBe(`"minute";q=60;w=60, "day";q=3000;w=86400`);
    expect(toolJson((await toolCall(a.key, "service_usage")).body.result)).toMatchObject({ plan: "STARTER", perMinute: 60 });
    // Canceled: paid to the period end, then 3 days of grace, then FREE, from the dates the object holds.
    expect((await call("POST", "/v1/billing/cancel", { token: a.owner.token })).body.status).toBe("CANCELED");
    expect((await usage(a.key)).body.plan).toBe("STARTER");
    clock.set("2030-07-04T09:59:59.000Z");
    expect((await usage(a.key)).body.plan).toBe("STARTER");
    clock.set("2030-07-04T10:00:00.000Z");
    expect((await usage(a.key)).body).toMatchObject({ plan: "FREE", perMinute: 20 });
    expect(toolJson((await toolCall(a.key, "service_usage")).body.result).plan).toBe("FREE");
  });

  it("the local provider still renews lazily: the first request after the period end renews it, once", async () => {
    const clock = clockAt("2030-01-31T12:00:00.000Z");
    const a = await newAgent();
    await subscribe(a.owner.token, "PRO");
    clock.set("2030-03-15T08:00:00.000Z"); // two periods later (Feb 28, Mar 31)
    const rs = await Promise.all(Array.from({ length: 5 }, () => call("GET", "/v1/usage/history?days=1", { key: a.key })));
    for (const r of rs) expect(r.status).toBe(200);
    const row = await E.DB.prepare("SELECT plan, plan_status, plan_period_end FROM owners WHERE id = ?").bind(a.owner.ownerId).first<any>();
    expect(row).toMatchObject({ plan: "PRO", plan_status: "ACTIVE", plan_period_end: Date.parse("2030-03-31T12:00:00.000Z") });
    expect((await copyOf(a.owner.ownerId)).account).toMatchObject({
      plan: "PRO",
      status: "ACTIVE",
      period_end: Date.parse("2030-03-31T12:00:00.000Z"),
    });
    expect((await usage(a.key)).body.plan).toBe("PRO");
  });

  it("two parallel requests with the key revoked between them never both succeed once the revocation answered", async () => {
    const a = await newAgent();
    for (let round = 0; round < 8; round++) {
      const k = (await call("POST", `/v1/agents/${a.id}/keys`, { token: a.owner.token })).body;
      const key: string = round % 2 ? k.apiKey : await legacyKey(a);
      const prefix = round % 2 ? k.key.prefix : key.slice(0, 8);
      if (!(round % 2)) await refreshAccount(E, a.owner.ownerId);
      expect((await usage(key)).status).toBe(200);
      const first = round % 4 < 2 ? usage(key) : toolCall(key, "service_usage");
      const revoked = await call("DELETE", `/v1/agents/${a.id}/keys/${prefix}`, { token: a.owner.token });
      expect(revoked.status).toBe(200);
      // Started after the revocation answered: refused, whichever way it comes.
      const after = round % 4 < 2 ? await toolCall(key, "service_usage") : await usage(key);
      expect(after.status, `round ${round}`).toBe(401);
      await first;
    }
  });
});

describe("an object that has lost its state rebuilds from D1", () => {
  it("the copy lost: rebuilt on first use, the same principal and plan, the counters kept", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    await subscribe(a.owner.token, "STARTER");
    for (let i = 0; i < 3; i++) expect((await call("GET", "/v1/usage/history?days=1", { key: a.key })).status).toBe(200);
    const before = (await usage(a.key)).body;
    const copy = await copyOf(a.owner.ownerId);
    await loseState(a.owner.ownerId);
    expect((await copyOf(a.owner.ownerId)).account).toBeNull();
    // The next request rebuilds: admitted under the same plan, on the same counters.
    const r = await call("GET", "/v1/usage/history?days=1", { key: a.key });
    expect(r.status).toBe(200);
    expect(r.headers.get("ratelimit")).toBe(`"minute";r=56;t=60, "day";r=2996;t=${15.5 * 3600}`);
    expect((await usage(a.key)).body).toEqual({
      ...before,
      metrics: {
        ...before.metrics,
        API_CALLS: { ...before.metrics.API_CALLS, used: 4 },
        PER_MINUTE: { ...before.metrics.PER_MINUTE, used: 4 },
      },
    });
    const rebuilt = await copyOf(a.owner.ownerId);
    expect(rebuilt.account).toEqual(copy.account);
    expect(rebuilt.keys).toEqual(copy.keys);
    // The MCP side admits the same way.
    expect(toolJson((await toolCall(a.key, "service_usage")).body.result)).toMatchObject({
      plan: "STARTER",
      metrics: { API_CALLS: { used: 4 } },
    });
  });

  it("everything lost: rebuilt from D1 with the same keys and plan; 20 parallel requests at the limit admit exactly the limit", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    const b = await newAgent(a.owner);
    const copy = await copyOf(a.owner.ownerId);
    await loseState(a.owner.ownerId, true);
    // Twenty requests reach the empty object at once: one rebuilds, the others wait for it.
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("POST", "/v1/threads", {
          key: i % 2 ? a.key : b.key,
          body: { title: `Parallel question number ${i} about rebuilding`, bodyMd: "Body.", categorySlug: "general", stackTags: [] },
        }),
      ),
    );
    expect(rs.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = rs.filter((r) => r.status === 429);
    expect(refused).toHaveLength(17);
    for (const r of refused) expect(r.body.error.details).toMatchObject({ metric: "QUESTIONS", limit: 3, plan: "FREE" });
    expect((await copyOf(a.owner.ownerId)).keys).toEqual(copy.keys);
    expect((await usage(b.key)).body.metrics).toMatchObject({ QUESTIONS: { used: 3 }, API_CALLS: { used: 3 } });
  });

  it("20 parallel requests with one API call left per-minute slot each: exactly the limit", async () => {
    clockAt("2030-03-10T08:30:00.000Z");
    const a = await newAgent();
    for (let i = 0; i < 15; i++) expect((await call("GET", "/v1/usage/history?days=1", { key: a.key })).status).toBe(200);
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 ? call("GET", "/v1/usage/history?days=1", { key: a.key }) : toolCall(a.key, "service_usage_history", { days: 1 }, i),
      ),
    );
    const ok = rs.filter((r) => r.status === 200 && !r.body.result?.isError);
    expect(ok).toHaveLength(5);
    expect((await usage(a.key)).body.metrics.PER_MINUTE).toMatchObject({ used: 20, limit: 20 });
  });
});

describe("keys from before keys named their account", () => {
  it("still authenticate (REST and MCP), through one D1 read that routes them; revoking them works at once", async () => {
    const a = await newAgent();
    const key = await legacyKey(a);
    expect(accountOfKey(key)).toBeNull();
    // As after the deploy: the object has no copy yet, and builds it from D1, old keys included.
    await loseState(a.owner.ownerId);
    const u = await usage(key);
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    const mcp = await mcpClient(key);
    expect(toolJson(await mcp.callTool({ name: "service_usage", arguments: {} })).metrics.API_CALLS.used).toBe(0);
    expect((await call("GET", "/v1/threads", { key })).status).toBe(200);
    expect((await call("DELETE", `/v1/agents/${a.id}/keys/${key.slice(0, 8)}`, { token: a.owner.token })).status).toBe(200);
    expectError(await usage(key), 401, "UNAUTHENTICATED");
    expect((await toolCall(key, "service_usage")).status).toBe(401);
    expect((await usage(a.key)).status).toBe(200);
  });
});

describe("input is validated before admission", () => {
  it("a malformed request never reaches the object: 400 whatever the key, nothing counted", async () => {
    const a = await newAgent();
    const bad = { title: "x", bodyMd: "", categorySlug: "general", stackTags: [] };
    for (const key of [a.key, `lore_${randomBase62(32)}_${a.owner.ownerId}`]) {
      const r = await call("POST", "/v1/threads", { key, body: bad });
      expectError(r, 400, "VALIDATION_FAILED");
      expect(r.headers.get("ratelimit")).toBeNull();
      expectError(await call("GET", "/v1/usage/history?days=0", { key }), 400, "VALIDATION_FAILED");
      const tool = (await toolCall(key, "service_forum_ask", { title: 5 })).body.result;
      expect(tool.isError).toBe(true);
      expect(JSON.parse(tool.content[0].text).error.code).toBe("VALIDATION_FAILED");
    }
    // No key at all is still 401 first: that needs no storage either.
    expectError(await call("POST", "/v1/threads", { body: bad }), 401, "UNAUTHENTICATED");
    expect((await usage(a.key)).body.metrics).toMatchObject({ API_CALLS: { used: 0 }, QUESTIONS: { used: 0 }, PER_MINUTE: { used: 0 } });
  });
});

describe("reads near the caller: D1 sessions, and the account's bookmark", () => {
  /** The test environment with a D1 binding that records the constraint or bookmark of every session. */
  function recordingEnv() {
    const starts: (string | undefined)[] = [];
    let statements = 0;
    const DB = new Proxy(E.DB, {
      get(target, prop) {
        if (prop === "withSession") {
          return (c?: string) => {
            starts.push(c);
            const s = target.withSession(c);
            return {
              prepare: (q: string) => (statements++, s.prepare(q)),
              batch: (b: D1PreparedStatement[]) => s.batch(b),
              getBookmark: () => s.getBookmark(),
            };
          };
        }
        if (prop === "prepare") return (q: string) => (statements++, target.prepare(q));
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    return { env: { DB }, starts, statements: () => statements };
  }

  it("an agent reads its own write on its next request: the write's bookmark is kept by the account's object and starts the next session", async () => {
    const a = await newAgent();
    const rec = recordingEnv();
    expect((await copyOf(a.owner.ownerId)).bookmark).toBeNull();
    // A read records nothing.
    expect((await call("GET", "/v1/threads?q=sessions", { key: a.key, env: rec.env })).status).toBe(200);
    expect(rec.starts).toEqual(["first-unconstrained"]);
    expect((await copyOf(a.owner.ownerId)).bookmark).toBeNull();
    const asked = await call("POST", "/v1/threads", {
      key: a.key,
      env: rec.env,
      body: {
        title: "Does a replica show my own question?",
        bodyMd: "Asked through the Sessions API.",
        categorySlug: "general",
        stackTags: ["d1"],
      },
    });
    expect(asked.status).toBe(201);
    const bookmark = (await copyOf(a.owner.ownerId)).bookmark;
    expect(bookmark).toEqual(expect.any(String));
    const found = await call("GET", `/v1/threads?q=${encodeURIComponent("replica")}`, { key: a.key, env: rec.env });
    expect(rec.starts.at(-1)).toBe(bookmark);
    expect(found.body.items.map((t: any) => t.id)).toContain(asked.body.thread.id);
    // Another agent of the account starts there too; another account does not.
    const sibling = await newAgent(a.owner);
    await call("GET", "/v1/kb?q=replica", { key: sibling.key, env: rec.env });
    expect(rec.starts.at(-1)).toBe(bookmark);
    const stranger = await newAgent();
    await call("GET", "/v1/kb?q=replica", { key: stranger.key, env: rec.env });
    expect(rec.starts.at(-1)).toBe("first-unconstrained");
    // Through MCP: a tool call that writes moves the bookmark on, the next one starts there.
    const posted = (await toolCall(a.key, "service_chat_post", { room: "general", content: "bookmarks" })).body.result;
    expect(posted.isError).toBeFalsy();
    await call("GET", "/v1/threads?q=replica", { key: a.key, env: rec.env });
    expect(rec.starts.at(-1)! >= bookmark!).toBe(true);
  });

  it("public reads start anywhere; dashboard requests read the primary", async () => {
    const o = await signup();
    const rec = recordingEnv();
    expect((await call("GET", "/v1/leaderboard", { env: rec.env })).status).toBe(200);
    expect(rec.starts).toEqual(["first-unconstrained"]);
    expect((await call("GET", "/v1/agents", { token: o.token, env: rec.env })).status).toBe(200);
    expect(rec.starts).toEqual(["first-unconstrained"]);
  });

  it("MCP initialize, tools/list and ping read no D1 and take no daily quota (a slot of the minute only), even with every daily quota spent", async () => {
    const a = await newAgent();
    await runInDurableObject(quotaStub(E, a.owner.ownerId), async (_q: AccountQuota, state) => {
      state.storage.sql.exec(
        "INSERT INTO counters (day, metric, used) VALUES (?, 'API_CALLS', 300)",
        new Date().toISOString().slice(0, 10),
      );
    });
    const rec = recordingEnv();
    const send = (body: unknown) =>
      call("POST", "/v1/mcp", {
        env: rec.env,
        raw: JSON.stringify(body),
        headers: { accept: "application/json, text/event-stream", "content-type": "application/json", authorization: `Bearer ${a.key}` },
      });
    const init = await send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(init.body.result.serverInfo.name).toBe("lore");
    expect((await send({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    expect((await send({ jsonrpc: "2.0", id: 2, method: "tools/list" })).body.result.tools.length).toBeGreaterThan(20);
    expect((await send({ jsonrpc: "2.0", id: 3, method: "ping" })).body).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    expect(rec.statements()).toBe(0);
    expect(rec.starts).toEqual([]);
    expect((await usage(a.key)).body.metrics.API_CALLS.used).toBe(300);
  });
});

describe("the activity hook on the one-hop path", () => {
  it("a successful agent call lands in the owner's feed through REST and MCP; a failed one does not; the feed write is not the request's write", async () => {
    const a = await newAgent();
    const other = await newAgent();
    // The @handle makes the post read D1 (the handle's agent), so its session has a bookmark.
    expect(
      (await call("POST", "/v1/chat/rooms/general/messages", { key: a.key, body: { content: `activity over REST for @${other.handle}` } }))
        .status,
    ).toBe(201);
    const posted = (await toolCall(a.key, "service_chat_post", { room: "general", content: `activity over MCP for @${other.handle}` })).body
      .result;
    expect(posted.isError).toBeFalsy();
    // Refused by the handler (no such thread): no entry.
    const failed = (await toolCall(a.key, "service_vote", { targetType: "THREAD", targetId: "thr_nosuchthread", value: 1 })).body.result;
    expect(failed.isError).toBe(true);
    let items: any[] = [];
    await vi.waitFor(async () => {
      items = (await call("GET", "/v1/me/activity", { token: a.owner.token })).body.items;
      expect(items).toHaveLength(2);
    });
    expect(items.map((i) => [i.kind, i.via]).sort()).toEqual([
      ["CHAT_MESSAGE", "mcp"],
      ["CHAT_MESSAGE", "rest"],
    ]);
    // A chat post writes nothing to D1 in its request (the room's object delivers mentions itself),
    // and the feed entry is written outside the request's session: no bookmark to remember.
    expect((await copyOf(a.owner.ownerId)).bookmark).toBeNull();
  });
});

describe("the MCP endpoint answers exactly as the SDK would", () => {
  // The endpoint's own answer, and the SDK's to the same message (what serves everything else): they must agree.
  const both = async (key: string, msg: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const mine = await rpc(key, msg, headers);
    const body = new TextEncoder().encode(JSON.stringify(msg));
    const request = new Request(`${BASE}/v1/mcp`, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json", ...headers },
      body,
    });
    const sdk = await viaSdk(request, body, {
      gate: quotaGate,
      activity: null,
      env: E,
      key,
      requestId: "req_sdk_compare",
      origin: BASE,
      waitUntil: () => {},
    });
    expect(sdk.status).toBe(200);
    return { mine: mine.body, sdk: await sdk.json<any>() };
  };

  /** A counted tool's quota differs between two calls (the second one counts one more): set aside. */
  const withoutQuota = (r: any) => {
    const result = r.result && { ...r.result, _meta: { ...r.result._meta, "lore/quota": undefined } };
    if (result?.content) result.content = result.content.map((c: any) => ({ ...c, text: c.text.replace(/\n\nquota: .*$/s, "") }));
    return { ...r, result };
  };

  it("initialize for every protocol version (and an unknown one), tools/list, ping, tools/call", async () => {
    const a = await newAgent();
    for (const protocolVersion of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "1999-01-01"]) {
      const { mine, sdk } = await both(a.key, {
        jsonrpc: "2.0",
        id: 9,
        method: "initialize",
        params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      expect(mine).toEqual(sdk);
      expect(mine.result.protocolVersion).toBe(protocolVersion === "1999-01-01" ? "2025-11-25" : protocolVersion);
    }
    for (const msg of [
      { jsonrpc: "2.0", id: "l", method: "tools/list" },
      { jsonrpc: "2.0", id: "l2", method: "tools/list", params: {} },
      { jsonrpc: "2.0", id: "l3", method: "tools/list", params: { cursor: "" } },
      { jsonrpc: "2.0", id: "l4", method: "tools/list", params: { cursor: "page-2" } },
      { jsonrpc: "2.0", id: 4, method: "ping" },
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "service_usage", arguments: {} } },
      { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "service_forum_ask", arguments: { title: 5 } } },
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "service_chat_rooms" } },
    ]) {
      const { mine, sdk } = await both(a.key, msg, { "mcp-protocol-version": "2025-06-18" });
      expect(withoutQuota(mine), JSON.stringify(msg)).toEqual(withoutQuota(sdk));
      if (mine.result?._meta?.["lore/quota"]?.free === false)
        expect(sdk.result._meta["lore/quota"].used).toBe(mine.result._meta["lore/quota"].used + 1);
    }
  });

  it("what the endpoint does not answer itself still works through the SDK", async () => {
    const a = await newAgent();
    const r = await rpc(a.key, { jsonrpc: "2.0", id: 1, method: "resources/list" });
    expect(r.body.error.code).toBe(-32601);
    // An SSE-only client is refused as the transport refuses it.
    expect((await rpc(a.key, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { accept: "text/event-stream" })).status).toBe(406);
    // A cursor that is not a string: the SDK's schema refuses it.
    expect((await rpc(a.key, { jsonrpc: "2.0", id: 4, method: "tools/list", params: { cursor: 5 } })).body.error.code).toBe(-32602);
    // An unsupported protocol version header.
    expect((await rpc(a.key, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { "mcp-protocol-version": "1999-01-01" })).status).toBe(400);
  });
});

describe("the bench floors", () => {
  it("exist only where BENCH_ROUTES is 1", async () => {
    for (const p of ["bare", "d1", "do", "do-d1", "do2"]) {
      expectError(await call("GET", `/internal/bench/${p}`), 404, "NOT_FOUND");
      const r = await call("GET", `/internal/bench/${p}?n=3`, { env: { BENCH_ROUTES: "1" } });
      expect(r.status, p).toBe(200);
      expect(r.body).toEqual({ ok: true });
    }
  });

  it("the bare route answers as many bytes as asked (a page's size, capped at 4 MiB) and of its type", async () => {
    const env = { env: { BENCH_ROUTES: "1" } };
    const r = await call("GET", "/internal/bench/bare?n=1&bytes=9595", env);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(9595);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect((await call("GET", "/internal/bench/bare?n=1&bytes=99999999", env)).body).toHaveLength(4 << 20);
    // Of the scenario's type: a page's floor answers HTML.
    const page = await call("GET", "/internal/bench/bare?n=1&bytes=100&type=html", env);
    expect(page.headers.get("content-type")).toBe("text/html; charset=UTF-8");
    expect(page.body).toHaveLength(100);
  });

  it("a floor takes its scenario's request, a POST or PATCH with its body, and reads the body whole", async () => {
    const env = { env: { BENCH_ROUTES: "1" } };
    const body = { jsonrpc: "2.0", id: 1, method: "tools/list", pad: "x".repeat(100_000) };
    for (const method of ["POST", "PATCH"] as const) {
      for (const p of ["bare", "do-d1", "replay?slot=none"]) {
        const r = await call(method, `/internal/bench/${p}${p.includes("?") ? "&" : "?"}n=2`, { ...env, body });
        expect(r.status, `${method} ${p}`).toBe(200);
        expect(r.body.ok, `${method} ${p}`).toBe(p.startsWith("replay") ? false : true);
      }
    }
    // Other methods are not floors; outside the bench nothing answers.
    expect((await call("DELETE", "/internal/bench/bare", env)).status).toBe(404);
    expectError(await call("POST", "/internal/bench/bare", { body }), 404, "NOT_FOUND");
  });
});

describe("toHex", () => {
  it("writes each byte as two lower-case hex digits, as fromHex reads them", async () => {
    const { toHex, fromHex } = await import("../../src/core/crypto");
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const hex = toHex(all);
    expect(hex).toHaveLength(512);
    expect(hex.slice(0, 8)).toBe("00010203");
    expect(hex.slice(-4)).toBe("feff");
    expect(fromHex(hex)).toEqual(all);
    expect(toHex(all.buffer)).toBe(hex);
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("the replay floors (core/bench-replay.ts)", () => {
  const bench = { env: { BENCH_ROUTES: "1" } };
  const slot = (name: string) => ({ ...bench, headers: { "x-lore-bench-slot": name } });

  it("replay a sync's D1 work, reads and writes, and a replay's activity row gets its own key", async () => {
    const a: TestAgent = await newAgent();
    const stack = [
      { name: "react", version: "18.2.0" },
      { name: "zod", version: "3.22.0" },
    ];
    expect((await call("POST", "/v1/agents/me/sync", { key: a.key, body: { stack } })).status).toBe(200);
    // The steady state the bench measures: the same stack again, forced full, in a slot.
    expect((await call("POST", "/v1/agents/me/sync", { key: a.key, body: { stack, force: true }, ...slot(`s-${a.id}`) })).status).toBe(200);
    const activity = () =>
      E.DB.prepare("SELECT count(*) AS n FROM agent_activity WHERE agent_id = ? AND kind = 'SYNC'").bind(a.id).first<number>("n");
    const syncs = () => E.DB.prepare("SELECT syncs FROM sync_agents WHERE agent_id = ?").bind(a.id).first<number>("syncs");
    const [before, syncsBefore] = [await activity(), await syncs()];
    const reads = await call("GET", `/internal/bench/replay?slot=s-${a.id}`, bench);
    expect(reads.body.ok).toBe(true);
    // Reads alone write nothing.
    expect([await activity(), await syncs()]).toEqual([before, syncsBefore]);
    for (let i = 0; i < 2; i++) {
      const r = await call("GET", `/internal/bench/replay?slot=s-${a.id}&writes=1&do=1&n=1`, bench);
      expect(r.status).toBe(200);
      expect(r.body.ok).toBe(true);
      // The reads (state, topics, the answer's batch) and the writes (state, activity).
      expect(r.body.statements).toBeGreaterThan(reads.body.statements + 1);
    }
    // Each replay wrote what the sync wrote: its state row again and an activity row with a new key.
    expect(await activity()).toBe(before! + 2);
    expect(await syncs()).toBe(syncsBefore! + 2);
    // With `bytes`, answered with as many (the size of the answer it stands for).
    const sized = await call("GET", `/internal/bench/replay?slot=s-${a.id}&bytes=250000`, bench);
    expect(sized.status).toBe(200);
    expect(String(sized.body).length).toBe(250000);
    const page = await call("GET", `/internal/bench/replay?slot=s-${a.id}&bytes=2000&type=html`, bench);
    expect(page.headers.get("content-type")).toBe("text/html; charset=UTF-8");
    expect(String(page.body).length).toBe(2000);
  });

  it("replay a write as new rows: the keys and slugs the request made are bound anew, the ones it named are kept", async () => {
    const a: TestAgent = await newAgent();
    const ask = await call("POST", "/v1/threads", {
      key: a.key,
      body: { title: "Replay me: wrangler d1 binding missing", bodyMd: "The binding is undefined.", categorySlug: "debugging" },
      ...slot("ask-1"),
    });
    expect(ask.status).toBe(201);
    const mine = () =>
      E.DB.prepare("SELECT id, slug FROM threads WHERE author_id = ? ORDER BY created_at").bind(a.id).all<{ id: string; slug: string }>();
    for (let i = 0; i < 2; i++) {
      const r = await call("GET", "/internal/bench/replay?slot=ask-1&writes=1", bench);
      expect(r.status).toBe(200);
      expect(r.body.ok).toBe(true);
      // The admission, the question's scan asked of the scanner Worker again (another Worker's CPU when
      // deployed), and the write's D1 bookmark told to the account's object.
      expect(r.body.calls).toEqual(["ACCOUNT_QUOTA.admit", "SCANNER.scanAgentText", "ACCOUNT_QUOTA.remember"]);
    }
    const rows = (await mine()).results;
    // The thread asked and two copies, each its own key and slug, all by the same author.
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((t) => t.id)).size).toBe(3);
    expect(new Set(rows.map((t) => t.slug)).size).toBe(3);
    for (const t of rows) expect(t.slug).toMatch(/^replay-me-wrangler-d1-binding-missing-[0-9a-z]{8}$/);
  });

  it("replay a slow request's write: keys it made seconds after it started are bound anew too", async () => {
    // A recorded request that made its row 5 s after it started (the first sync of a loaded bench
    // run, queued behind a cold build): its key is still the request's own, so each replay makes a
    // new row rather than colliding with the original (a 500 on the floor, seen in full runs).
    await E.DB.prepare("CREATE TABLE IF NOT EXISTS replay_probe (id TEXT PRIMARY KEY, note TEXT)").run();
    const rec = benchRecording("slow-1", E, Date.now() - 5000);
    const id = newId("prb_");
    await rec.DB.prepare("INSERT INTO replay_probe (id, note) VALUES (?, ?)").bind(id, "slow").run();
    for (let i = 0; i < 2; i++) expect(await replayStorage(E.DB, "slow-1", { writes: true })).toBe(1);
    const rows = (await E.DB.prepare("SELECT id FROM replay_probe WHERE note = 'slow'").all<{ id: string }>()).results;
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
    expect(rows.map((r) => r.id)).toContain(id);
  });

  it("replay a request's object calls: the admission on the floor's own object, a room's post on the room", async () => {
    const a: TestAgent = await newAgent();
    const owner = { token: a.owner.token };
    const post = await call("POST", "/v1/chat/rooms/general/messages", {
      key: a.key,
      body: { content: "replay me", type: "TEXT" },
      ...slot(`chat-${a.id}`),
    });
    expect(post.status).toBe(201);
    const roomCount = async () =>
      (await call("GET", "/v1/chat/rooms/general?limit=100", { key: a.key })).body.messages.filter(
        (m: { content: string }) => m.content === "replay me",
      ).length;
    const usage = async () => (await call("GET", "/v1/me/usage/today", owner)).body.metrics;
    const [before, inRoom] = [await usage(), await roomCount()];
    for (let i = 0; i < 2; i++) {
      const r = await call("GET", `/internal/bench/replay?slot=chat-${a.id}&writes=1&n=replay-test`, bench);
      expect(r.status).toBe(200);
      // The admission and the room's post (its D1 work besides: the activity feed's row).
      expect(r.body.ok).toBe(true);
      expect(r.body.calls).toEqual(["ACCOUNT_QUOTA.admit", "CHAT_ROOM.post"]);
    }
    // The room did the post's storage work again; the account's own counters did not move (the
    // floor's admission counts on the floor's object).
    expect(await roomCount()).toBe(inRoom + 2);
    const after = await usage();
    expect(after.API_CALLS.used).toBe(before.API_CALLS.used + 2); // the two room reads above, not the replays
    expect(after.CHAT_MESSAGES.used).toBe(before.CHAT_MESSAGES.used);
  });

  it("replay an MCP session's message as the object did it: the session's read and write, the admission it asked for", async () => {
    const a: TestAgent = await newAgent();
    const mcp = (body: unknown, headers: Record<string, string> = {}) =>
      call("POST", "/v1/mcp", { key: a.key, body, headers: { accept: "application/json, text/event-stream", ...headers }, ...bench });
    const init = await mcp({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const sid = init.headers.get("mcp-session-id")!;
    expect(sid).toBeTruthy();
    const session = { "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18", "x-lore-bench-slot": `mcp-${a.id}` };
    const listed = await mcp({ jsonrpc: "2.0", id: 1, method: "tools/list" }, session);
    expect(listed.status).toBe(200);
    const r = await call("GET", `/internal/bench/replay?slot=mcp-${a.id}&n=replay-test`, bench);
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    // tools/list is answered by the Worker: the session's touch in its object, then the admission.
    expect(r.body.calls).toEqual(["MCP_SESSIONS.touch", "ACCOUNT_QUOTA.admit"]);
    // A tool call goes to the object: the Worker's fetch into it stands as what the object did for it.
    const called = await mcp({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "service_usage", arguments: {} } }, session);
    expect(called.status).toBe(200);
    const rc = await call("GET", `/internal/bench/replay?slot=mcp-${a.id}&n=replay-test`, bench);
    expect(rc.body.calls[0]).toBe("MCP_SESSIONS.benchTouch");
    expect(rc.body.calls).not.toContain("MCP_SESSIONS.fetch");
    // A header alone records nothing: a slot exists only where the Worker made it.
    const other = await call("POST", "/v1/mcp", {
      key: a.key,
      body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
      headers: { accept: "application/json, text/event-stream", ...session, "x-lore-bench-slot": "mcp-unrecorded" },
    });
    expect(other.status).toBe(200);
    expect((await call("GET", "/internal/bench/replay?slot=mcp-unrecorded", bench)).body.calls).toEqual([]);
  });

  it("replay a skill file's R2 read, its bytes the floor's answer", async () => {
    const owner = await signup();
    const name = `replay-r2-${Date.now().toString(36)}`;
    const content = `---\nname: ${name}\ndescription: Helps with ${name} tasks in a project\n---\n\n# ${name}\n\nRun the tests with \`npm test\`.\n`;
    const pub = await call("POST", "/v1/me/skills", {
      token: owner.token,
      body: { category: "testing", files: [{ path: "SKILL.md", content }] },
    });
    expect(pub.status, JSON.stringify(pub.body)).toBe(201);
    const file = await call("GET", `/.well-known/agent-skills/${name}/SKILL.md`, slot(`r2-${name}`));
    expect(file.status).toBe(200);
    const r = await call("GET", `/internal/bench/replay?slot=r2-${name}`, bench);
    expect(r.status).toBe(200);
    expect(String(r.body)).toBe(content);
  });

  it("record any request's D1 work through its session, and only where BENCH_ROUTES is 1", async () => {
    const a: TestAgent = await newAgent();
    expect((await call("GET", "/v1/threads?q=react", { key: a.key, ...slot("forum-1") })).status).toBe(200);
    const r = await call("GET", "/internal/bench/replay?slot=forum-1", bench);
    expect(r.body).toMatchObject({ ok: true });
    expect(r.body.statements).toBeGreaterThan(0);
    // Elsewhere the header records nothing, and the route is a 404.
    expect((await call("GET", "/v1/threads?q=react", { key: a.key, headers: { "x-lore-bench-slot": "forum-2" } })).status).toBe(200);
    expect((await call("GET", "/internal/bench/replay?slot=forum-2", bench)).body).toEqual({ ok: false, statements: -1, calls: [] });
    expectError(await call("GET", "/internal/bench/replay?slot=forum-1"), 404, "NOT_FOUND");
  });
});
