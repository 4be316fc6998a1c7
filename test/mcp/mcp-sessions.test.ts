import { afterEach, describe, expect, it, vi } from "vitest";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { exports } from "cloudflare:workers";
import { BASE, call, expectError, mcpClient, newAgent, setPlanDirect, toolJson, type TestAgent } from "../helpers";
import { setClock } from "../../src/core/clock";
import { SESSION_IDLE_MS } from "../../src/mcp/sessions.do";
import { sseData } from "../../src/mcp/json-response";
import { env as E } from "cloudflare:test";
import { osvStatements } from "../../src/freshness/advisories";
import { changeSeq, pushUrgentAdvisories } from "../../src/sync/push";

/**
 * MCP sessions: `initialize` makes one (Mcp-Session-Id), held by the account's McpSessions object;
 * later requests naming it reach it, DELETE ends it, 30 idle minutes end it, and an id the object
 * does not hold for this key is 404. Requests without an id stay stateless.
 */

const HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };
const fetchWorker = (r: Request) => (exports as any).default.fetch(r) as Promise<Response>;

function req(method: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  return fetchWorker(
    new Request(`${BASE}/v1/mcp`, {
      method,
      headers: { ...HEADERS, authorization: `Bearer ${key}`, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}
async function rpc(key: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await req("POST", key, body, headers);
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse((res.headers.get("content-type") ?? "").includes("text/event-stream") ? sseData(text).at(-1)! : text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: json, text };
}
const initMsg = (version = "2025-06-18") => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: version, capabilities: { roots: {} }, clientInfo: { name: "t", version: "1" } },
});
async function open(key: string, version = "2025-06-18") {
  const r = await rpc(key, initMsg(version));
  expect(r.status, r.text).toBe(200);
  const sid = r.headers.get("mcp-session-id")!;
  expect(sid).toMatch(/^[0-9a-f]{64}$/);
  return sid;
}
const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
const usageCall = (id = 2) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "service_usage", arguments: {} } });
const perMinute = async (a: TestAgent) => (await call("GET", "/v1/usage/today", { key: a.key })).body.metrics.PER_MINUTE.used;

afterEach(() => setClock());

describe("session lifecycle", () => {
  it("initialize creates a session; requests naming it are answered in it; DELETE ends it; then 404", async () => {
    const a = await newAgent();
    const sid = await open(a.key);
    const listed = await rpc(a.key, list, { "mcp-session-id": sid });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("mcp-session-id")).toBe(sid);
    expect(listed.body.result.tools.length).toBeGreaterThan(10);
    const used = await rpc(a.key, usageCall(), { "mcp-session-id": sid });
    expect(used.body.result.structuredContent.plan).toBe("FREE");
    // A second initialize inside a session is the transport's error.
    expect((await rpc(a.key, initMsg(), { "mcp-session-id": sid })).status).toBe(400);
    const del = await req("DELETE", a.key, undefined, { "mcp-session-id": sid });
    expect(del.status).toBe(200);
    const after = await rpc(a.key, list, { "mcp-session-id": sid });
    expect(after.status).toBe(404);
    expect(after.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 } });
    expect((await req("DELETE", a.key, undefined, { "mcp-session-id": sid })).status).toBe(404);
  });

  it("an unknown id, a malformed one, another key's (same account) and another account's session are 404", async () => {
    const a = await newAgent();
    const b = await newAgent();
    const k2 = (await call("POST", `/v1/agents/${a.id}/keys`, { token: a.owner.token })).body.apiKey as string;
    const sid = await open(a.key);
    for (const [key, id] of [
      [a.key, "0".repeat(64)],
      [a.key, "not-a-session"],
      [k2, sid],
      [b.key, sid],
    ] as const) {
      const r = await rpc(key, list, { "mcp-session-id": id });
      expect(r.status, `${key.slice(0, 8)} ${id}`).toBe(404);
      expect((await req("GET", key, undefined, { "mcp-session-id": id, accept: "text/event-stream" })).status).toBe(404);
    }
    // The owner's session still works.
    expect((await rpc(a.key, list, { "mcp-session-id": sid })).status).toBe(200);
  });

  it("expires after 30 idle minutes (each request keeps it alive)", async () => {
    const a = await newAgent();
    let t = Date.parse("2031-01-01T00:00:00Z");
    setClock(() => t);
    const sid = await open(a.key);
    t += SESSION_IDLE_MS - 1000;
    expect((await rpc(a.key, list, { "mcp-session-id": sid })).status).toBe(200);
    t += SESSION_IDLE_MS - 1000;
    expect((await rpc(a.key, list, { "mcp-session-id": sid })).status).toBe(200);
    t += SESSION_IDLE_MS;
    expect((await rpc(a.key, list, { "mcp-session-id": sid })).status).toBe(404);
    expect(SESSION_IDLE_MS).toBe(30 * 60_000);
  });

  it("GET and DELETE without a session stay 405; requests without an id stay stateless and counted as before", async () => {
    const a = await newAgent();
    expect((await req("GET", a.key, undefined, { accept: "text/event-stream" })).status).toBe(405);
    expect((await req("DELETE", a.key)).status).toBe(405);
    const before = await perMinute(a);
    const r = await rpc(a.key, list);
    expect(r.status).toBe(200);
    expect(r.headers.get("mcp-session-id")).toBeNull();
    expect(r.body.result.tools.length).toBeGreaterThan(10);
    expect(await perMinute(a)).toBe(before + 1);
    // In a session too every message takes its per-minute slot (the account's rolling window over all requests).
    const sid = await open(a.key);
    const n = await perMinute(a);
    await rpc(a.key, list, { "mcp-session-id": sid });
    expect(await perMinute(a)).toBe(n + 1);
    await rpc(
      a.key,
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "service_usage_history", arguments: { days: 1 } } },
      { "mcp-session-id": sid },
    );
    expect(await perMinute(a)).toBe(n + 2);
  });

  it("a made-up key is 401 before any session object is addressed", async () => {
    const r = await rpc(`lore_${"x".repeat(65)}_own_nosuch`, initMsg());
    expectError({ ...r, headers: r.headers }, 401, "UNAUTHENTICATED");
  });

  it("the SDK client keeps its session across calls and ends it", async () => {
    const a = await newAgent();
    const mcp = await mcpClient(a.key);
    const transport = (mcp as any)._transport;
    expect(transport.sessionId).toMatch(/^[0-9a-f]{64}$/);
    expect(toolJson(await mcp.callTool({ name: "service_usage", arguments: {} })).plan).toBe("FREE");
    const sid = transport.sessionId;
    await transport.terminateSession();
    expect((await rpc(a.key, list, { "mcp-session-id": sid })).status).toBe(404);
    await mcp.close();
  });
});

describe("changes take effect on the next call in a session", () => {
  it("a revoked key: the next message of any kind is 401, its sessions end and its open streams close", async () => {
    const a = await newAgent();
    const k2 = (await call("POST", `/v1/agents/${a.id}/keys`, { token: a.owner.token })).body;
    const sid = await open(k2.apiKey);
    const sid2 = await open(k2.apiKey);
    expect((await rpc(k2.apiKey, usageCall(), { "mcp-session-id": sid })).status).toBe(200);
    const stream = await req("GET", k2.apiKey, undefined, { "mcp-session-id": sid2, accept: "text/event-stream" });
    expect(stream.status).toBe(200);
    expect((await call("DELETE", `/v1/agents/${a.id}/keys/${k2.key.prefix}`, { token: a.owner.token })).status).toBe(200);
    // The revoked key's open stream is closed at once: no push reaches it meanwhile.
    const closed = await Promise.race([stream.text().then(() => true), new Promise((r) => setTimeout(() => r(false), 10_000))]);
    expect(closed).toBe(true);
    const r = await rpc(k2.apiKey, usageCall(), { "mcp-session-id": sid });
    expect(r.status, r.text).toBe(401);
    expect(r.body.error.code).toBe("UNAUTHENTICATED");
    expect((await rpc(k2.apiKey, list, { "mcp-session-id": sid2 })).status).toBe(401);
    // Ended by the refusal: the client initializes again (and is refused there too).
    expect((await rpc(k2.apiKey, list, { "mcp-session-id": sid })).status).toBe(404);
    expect((await rpc(k2.apiKey, initMsg())).status).toBe(401);
    // The other key's sessions are untouched.
    const sid3 = await open(a.key);
    expect((await rpc(a.key, list, { "mcp-session-id": sid3 })).status).toBe(200);
  });

  it("every message of a session takes a slot of the account's minute: many sessions do not multiply the plan's rate", async () => {
    const a = await newAgent();
    const sids = [await open(a.key), await open(a.key), await open(a.key)];
    const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
    const answers = [];
    for (let i = 0; i < 24; i++) answers.push(await rpc(a.key, ping, { "mcp-session-id": sids[i % 3]! }));
    // FREE admits 20 a minute: three initializes and 17 pings; the rest are refused, whichever session they name.
    expect(answers.filter((r) => r.status === 200)).toHaveLength(17);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(7);
    expect(await perMinute(a)).toBe(20);
  });

  it("a plan change: the next tool call in the session answers under the new plan", async () => {
    const a = await newAgent();
    const sid = await open(a.key);
    expect((await rpc(a.key, usageCall(), { "mcp-session-id": sid })).body.result.structuredContent.plan).toBe("FREE");
    await setPlanDirect(a.owner.ownerId, "PRO");
    expect((await rpc(a.key, usageCall(3), { "mcp-session-id": sid })).body.result.structuredContent.plan).toBe("PRO");
  });
});

describe("answers through a session equal the stateless answers", () => {
  it("initialize, tools/list, ping and a tool call, for every supported protocol version", async () => {
    const a = await newAgent();
    // Eight requests per version: more than FREE's minute allows.
    await setPlanDirect(a.owner.ownerId, "EXPERT");
    const strip = (b: any) => {
      const s = JSON.parse(JSON.stringify(b));
      if (s.result?._meta) delete s.result._meta;
      if (s.result?.content) s.result.content = s.result.content.map((c: any) => ({ ...c, text: c.text.replace(/\n\nquota: .*$/s, "") }));
      return s;
    };
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const sessionInit = await rpc(a.key, initMsg(version));
      const statelessInit = await rpc(a.key, initMsg(version));
      expect(sessionInit.body, version).toEqual(statelessInit.body);
      const sid = sessionInit.headers.get("mcp-session-id")!;
      const h = { "mcp-protocol-version": version };
      for (const msg of [list, { jsonrpc: "2.0", id: 9, method: "ping" }, usageCall()]) {
        const inSession = await rpc(a.key, msg, { ...h, "mcp-session-id": sid });
        const alone = await rpc(a.key, msg, h);
        expect(inSession.status, `${version} ${msg.method}`).toBe(alone.status);
        expect(strip(inSession.body), `${version} ${msg.method}`).toEqual(strip(alone.body));
      }
    }
  });
});

/** Reads SSE events (`id` and parsed `data`) from a stream until `done` says so or 5 s pass. */
async function readEvents(res: Response, done: (events: { id?: string; data: any }[]) => boolean, waitMs = 5000) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const events: { id?: string; data: any }[] = [];
  const deadline = Date.now() + waitMs;
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  while (!done(events) && Date.now() < deadline) {
    pending ??= reader.read();
    const r = await Promise.race([pending, new Promise<null>((resolve) => setTimeout(() => resolve(null), 200))]);
    if (r === null) continue;
    pending = null;
    if (r.done) break;
    buf += decoder.decode(r.value, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const id = /^id: ?(.*)$/m.exec(block)?.[1];
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).replace(/^ /, ""))
        .join("\n");
      events.push({ id, data: data.trim() ? JSON.parse(data) : null });
    }
  }
  await reader.cancel().catch(() => {});
  return events;
}

const SCAN_ARGS = { tools: [{ name: "get_weather", description: "Gets the weather for a city." }] };

describe("progress on long calls", () => {
  it("service_mcp_scan and service_sync with a progressToken stream notifications/progress, then the result", async () => {
    const a = await newAgent();
    const sid = await open(a.key);
    for (const [name, args] of [
      ["service_mcp_scan", SCAN_ARGS],
      ["service_sync", { stack: [{ name: "react", version: "18.2.0", ecosystem: "npm" }], force: true }],
    ] as const) {
      const res = await req(
        "POST",
        a.key,
        { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args, _meta: { progressToken: "tok-1" } } },
        { "mcp-session-id": sid },
      );
      expect(res.status, name).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      const events = await readEvents(res, (e) => e.some((x) => x.data?.id === 7));
      const progress = events.filter((e) => e.data?.method === "notifications/progress").map((e) => e.data.params);
      expect(progress.length, name).toBeGreaterThanOrEqual(2);
      for (const p of progress) expect(p.progressToken).toBe("tok-1");
      const values = progress.map((p) => p.progress);
      expect(values, name).toEqual([...values].sort((x, y) => x - y));
      expect(new Set(values).size).toBe(values.length);
      const result = events.at(-1)!.data;
      expect(result).toMatchObject({ jsonrpc: "2.0", id: 7, result: { structuredContent: expect.any(Object) } });
      expect(result.result.isError, JSON.stringify(result)).toBeUndefined();
    }
    // Without a token: the same call is one JSON answer.
    const plain = await rpc(
      a.key,
      { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "service_mcp_scan", arguments: SCAN_ARGS } },
      { "mcp-session-id": sid },
    );
    expect(plain.headers.get("content-type")).toContain("application/json");
    expect(plain.body.result.structuredContent.securityStatus).toBeDefined();
  });

  it("service_check_packages reports each registry lookup of names not cached", async () => {
    const a = await newAgent();
    const sid = await open(a.key);
    // Every registry answers "no such package" (recorded shape: a 404).
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response("{}", { status: 404 }));
    try {
      const packages = [1, 2, 3].map((n) => ({ name: `zz-cold-session-${n}-${Date.now()}`, ecosystem: "npm" }));
      const res = await req(
        "POST",
        a.key,
        {
          jsonrpc: "2.0",
          id: 11,
          method: "tools/call",
          params: { name: "service_check_packages", arguments: { packages }, _meta: { progressToken: 5 } },
        },
        { "mcp-session-id": sid },
      );
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      const events = await readEvents(res, (e) => e.some((x) => x.data?.id === 11));
      const progress = events.filter((e) => e.data?.method === "notifications/progress").map((e) => e.data.params);
      expect(progress.map((p) => [p.progressToken, p.progress, p.total])).toEqual([
        [5, 1, 3],
        [5, 2, 3],
        [5, 3, 3],
      ]);
      expect(events.at(-1)!.data.result.structuredContent.results).toHaveLength(3);
    } finally {
      spy.mockRestore();
    }
  });

  it("the SDK client receives them through its onprogress callback", async () => {
    const a = await newAgent();
    const mcp = await mcpClient(a.key);
    const seen: number[] = [];
    const r = await mcp.callTool({ name: "service_mcp_scan", arguments: SCAN_ARGS }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(r.isError).toBeFalsy();
    expect(seen).toEqual([1, 2]);
    await mcp.close();
  });
});

describe("push to an open stream", () => {
  it("an @mention reaches the mentioned agent's open GET stream, is resumable with Last-Event-ID, and the inbox still has it", async () => {
    const a = await newAgent();
    const b = await newAgent();
    const sid = await open(a.key);
    const other = await open(a.key);
    const stream = await req("GET", a.key, undefined, { "mcp-session-id": sid, accept: "text/event-stream" });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const posted = await call("POST", "/v1/chat/rooms/rust/messages", {
      key: b.key,
      body: { content: `hello @${a.handle}, look at this` },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const events = await readEvents(stream, (e) => e.some((x) => x.data?.method === "notifications/message"));
    const priming = events[0]!;
    expect(priming.data).toBeNull();
    const pushed = events.find((e) => e.data?.method === "notifications/message")!;
    expect(pushed.data.params).toMatchObject({
      level: "notice",
      logger: "lore",
      data: { type: "mention", room: "rust", author: b.handle, messageId: posted.body.message.id },
    });
    // The stream dropped: reconnecting with the last id it saw before the push gets the push again.
    const again = await req("GET", a.key, undefined, { "mcp-session-id": sid, accept: "text/event-stream", "last-event-id": priming.id! });
    const replay = await readEvents(again, (e) => e.some((x) => x.data?.method === "notifications/message"));
    expect(replay.find((e) => e.data?.method === "notifications/message")!.id).toBe(pushed.id);
    // With the push's own id, nothing is sent again.
    const after = await req("GET", a.key, undefined, { "mcp-session-id": sid, accept: "text/event-stream", "last-event-id": pushed.id! });
    const none = await readEvents(after, () => false, 1000);
    expect(none.filter((e) => e.data !== null)).toEqual([]);
    // The session without a stream kept it too, for when it connects.
    const late = await req("GET", a.key, undefined, { "mcp-session-id": other, accept: "text/event-stream", "last-event-id": "0" });
    expect(
      (await readEvents(late, (e) => e.some((x) => x.data?.method === "notifications/message"))).some(
        (e) => e.data?.params?.data?.type === "mention",
      ),
    ).toBe(true);
    // A client that ignored the push loses nothing: the inbox has the mention.
    const inbox = await call("GET", "/v1/chat/mentions", { key: a.key });
    expect(JSON.stringify(inbox.body)).toContain(posted.body.message.id);
  });

  it("an event older than its hour is not sent again, though no sweep has deleted it yet (messages sweep once a minute)", async () => {
    const a = await newAgent();
    const b = await newAgent();
    const sid = await open(a.key);
    const stream = await req("GET", a.key, undefined, { "mcp-session-id": sid, accept: "text/event-stream" });
    const posted = await call("POST", "/v1/chat/rooms/rust/messages", { key: b.key, body: { content: `old news @${a.handle}` } });
    expect(posted.status).toBe(201);
    // The push is stored (and seen on the open stream) before the clock moves.
    await readEvents(stream, (e) => e.some((x) => x.data?.method === "notifications/message"));
    const t0 = Date.now();
    // The session is kept alive; the last message (and its sweep) comes when the event is 59.5 minutes old.
    for (const minutes of [25, 50, 59.5]) {
      setClock(() => t0 + minutes * 60_000);
      expect((await rpc(a.key, list, { "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" })).status).toBe(200);
    }
    // 42 seconds later the event is past its hour, and this GET does not sweep (the last was within a minute).
    setClock(() => t0 + 60.2 * 60_000);
    const late = await req("GET", a.key, undefined, { "mcp-session-id": sid, accept: "text/event-stream", "last-event-id": "0" });
    expect(late.status).toBe(200);
    const events = await readEvents(late, () => false, 1000);
    expect(events.filter((e) => e.data !== null)).toEqual([]);
  });
});

describe("a stream nobody reads", () => {
  it("is closed once more pushes wait unread than a full replay, so they never pile up in the object; the events stay for Last-Event-ID", async () => {
    const a = await newAgent();
    const sid = await open(a.key);
    const stream = await req("GET", a.key, undefined, { "mcp-session-id": sid, accept: "text/event-stream" });
    expect(stream.status).toBe(200);
    const stub = E.MCP_SESSIONS.get(E.MCP_SESSIONS.idFromName(a.owner.ownerId)) as any;
    const filler = "x".repeat(16_384);
    for (let i = 0; i < 400; i++)
      await stub.notify(
        { method: "notifications/message", params: { level: "notice", logger: "lore", data: { type: "test", i, filler } } },
        a.id,
      );
    const ended = await Promise.race([
      stream.text().then(
        () => true,
        () => true,
      ),
      new Promise((r) => setTimeout(() => r(false), 10_000)),
    ]);
    expect(ended).toBe(true);
    // Nothing is lost: the newest events are replayed on a new stream.
    const again = await req("GET", a.key, undefined, { "mcp-session-id": sid, accept: "text/event-stream", "last-event-id": "0" });
    const replay = await readEvents(again, (e) => e.filter((x) => x.data).length >= 100);
    expect(replay.filter((x) => x.data).at(-1)!.data.params.data.i).toBe(399);
  });
});

describe("urgent advisories pushed to open streams", () => {
  it("a high advisory for a package in the agent's reported stack reaches its stream, and its next sync still has it", async () => {
    const a = await newAgent();
    const sid = await open(a.key);
    const stack = [{ name: "left-pad-sessions", version: "1.0.0", ecosystem: "npm" }];
    const first = await rpc(
      a.key,
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "service_sync", arguments: { stack, force: true } } },
      { "mcp-session-id": sid },
    );
    expect(first.body.result.isError, first.text).toBeUndefined();
    const cursor = first.body.result.structuredContent.cursor;
    const stream = await req("GET", a.key, undefined, { "mcp-session-id": sid, accept: "text/event-stream" });
    // What the ingest writes for a new OSV record, then what it does at the end of its run.
    const since = await changeSeq(E as never);
    await E.DB.batch(
      await osvStatements(
        E.DB,
        [
          {
            id: "GHSA-sess-ions-0001",
            modified: "2030-01-01T00:00:00Z",
            summary: "Prototype pollution in left-pad-sessions",
            database_specific: { severity: "HIGH" },
            affected: [
              {
                package: { ecosystem: "npm", name: "left-pad-sessions" },
                ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "9.0.0" }] }],
              },
            ],
          },
        ],
        Date.now(),
      ),
    );
    expect(await pushUrgentAdvisories(E as never, since)).toBe(1);
    const events = await readEvents(stream, (e) => e.some((x) => x.data?.method === "notifications/message"));
    const pushed = events.find((e) => e.data?.method === "notifications/message")!;
    expect(pushed.data.params).toMatchObject({
      level: "warning",
      logger: "lore",
      data: { type: "advisory", advisoryId: "GHSA-sess-ions-0001", ecosystem: "npm", name: "left-pad-sessions", severity: "HIGH" },
    });
    // A client that ignored it loses nothing: the next sync names the advisory.
    const next = await rpc(
      a.key,
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "service_sync", arguments: { stack, since: cursor } } },
      { "mcp-session-id": sid },
    );
    expect(JSON.stringify(next.body.result.structuredContent)).toContain("GHSA-sess-ions-0001");
    // Pushed once: the same run again pushes nothing new.
    expect(await pushUrgentAdvisories(E as never, await changeSeq(E as never))).toBe(0);
  });
});
