import { describe, expect, it } from "vitest";
import { call, expectError, mcpPost, newAgent, type TestAgent } from "../helpers";
import { setClock } from "../../src/core/clock";

/**
 * Every MCP message is admitted. Protocol versions from 2025-06-18 on have no JSON-RPC batches, so
 * a batch is the protocol's error there; where batches exist (2025-03-26 and before, and a request
 * naming no version), each message is admitted and counted as if it came alone, and a batch holds at
 * most 10. initialize, ping, tools/list and notifications take no daily quota, but a slot of the
 * per-minute rate like every other request.
 */

const rpc = (key: string, body: unknown, headers: Record<string, string> = {}) => mcpPost(key, body, { headers });
const usage = async (a: TestAgent) => (await call("GET", "/v1/usage/today", { key: a.key })).body.metrics;
const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
const tool = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});
const init = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

function clockAt(iso: string) {
  const t = Date.parse(iso);
  setClock(() => t);
}

describe("JSON-RPC batches", () => {
  it("are the protocol's error for 2025-06-18 and later: -32600, nothing run, nothing counted", async () => {
    const a = await newAgent();
    for (const version of ["2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01"]) {
      const r = await rpc(a.key, [list(1), list(2)], { "mcp-protocol-version": version });
      expect(r.status, version).toBe(400);
      expect(r.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("batch") } });
    }
    expect((await usage(a)).PER_MINUTE.used).toBe(0);
  });

  it("where batches exist, each message is answered and counted as if it came alone", async () => {
    clockAt("2030-05-01T10:00:00.000Z");
    const a = await newAgent();
    for (const headers of [{}, { "mcp-protocol-version": "2025-03-26" }] as Record<string, string>[]) {
      const r = await rpc(
        a.key,
        [
          list(1),
          { jsonrpc: "2.0", id: 2, method: "ping" },
          tool(3, "service_usage_history", { days: 1 }),
          { jsonrpc: "2.0", method: "notifications/initialized" },
        ],
        headers,
      );
      expect(r.status).toBe(200);
      expect(r.body.map((m: any) => m.id)).toEqual([1, 2, 3]);
      expect(r.body[0].result.tools.length).toBeGreaterThan(20);
      expect(r.body[1].result).toEqual({});
      expect(r.body[2].result.isError).toBeFalsy();
    }
    // Per batch: four slots of the minute; the one tool call also an API call.
    const m = await usage(a);
    expect(m.PER_MINUTE.used).toBe(8);
    expect(m.API_CALLS.used).toBe(2);
    // Notifications only: 202, still counted.
    expect((await rpc(a.key, [{ jsonrpc: "2.0", method: "notifications/initialized" }])).status).toBe(202);
    expect((await usage(a)).PER_MINUTE.used).toBe(9);
  });

  it("hold at most 10 messages and never an initialize: -32600, nothing counted", async () => {
    const a = await newAgent();
    const big = await rpc(
      a.key,
      Array.from({ length: 11 }, (_, i) => list(i)),
    );
    expect(big.status).toBe(400);
    expect(big.body.error).toMatchObject({ code: -32600, message: expect.stringContaining("at most 10") });
    const withInit = await rpc(a.key, [init, list(1)]);
    expect(withInit.status).toBe(400);
    expect(withInit.body.error).toMatchObject({ code: -32600, message: expect.stringContaining("initialize") });
    expect((await rpc(a.key, [init])).status).toBe(400);
    expect((await usage(a)).PER_MINUTE.used).toBe(0);
    // Exactly 10 is a batch.
    expect(
      (
        await rpc(
          a.key,
          Array.from({ length: 10 }, (_, i) => list(i)),
        )
      ).body,
    ).toHaveLength(10);
  });

  it("a message past the per-minute rate gets its own -32029 error with the contract's 429 in data; the rest of the batch still runs", async () => {
    clockAt("2030-05-01T11:00:00.000Z");
    const a = await newAgent();
    const first = await rpc(
      a.key,
      Array.from({ length: 10 }, (_, i) => list(i)),
    );
    expect(first.body.every((m: any) => m.result)).toBe(true);
    const second = await rpc(a.key, [
      ...Array.from({ length: 4 }, (_, i) => list(i)),
      tool(4, "service_usage"),
      ...Array.from({ length: 5 }, (_, i) => list(5 + i)),
    ]);
    expect(second.status).toBe(200);
    expect(second.body.filter((m: any) => m.result?.tools)).toHaveLength(9);
    // service_usage is free (no slot, answered even with the minute spent), and sees the four before it.
    expect(second.body[4].result.structuredContent.metrics.PER_MINUTE.used).toBe(14);
    expect((await rpc(a.key, { jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(200);
    const third = await rpc(a.key, [list(1), tool(2, "service_usage_history", { days: 1 }), { jsonrpc: "2.0", id: 3, method: "ping" }]);
    expect(third.body[0].error).toMatchObject({
      code: -32029,
      message: expect.stringContaining("PER_MINUTE"),
      data: { code: "RATE_LIMITED", details: { metric: "PER_MINUTE", limit: 20, plan: "FREE" } },
    });
    // A tool call is refused as a tool call always is: an error result.
    expect(third.body[1].result.isError).toBe(true);
    expect(JSON.parse(third.body[1].result.content[0].text).error.details.metric).toBe("PER_MINUTE");
    expect(third.body[2].error.code).toBe(-32029);
    const m = await usage(a);
    expect(m.PER_MINUTE.used).toBe(20);
    expect(m.API_CALLS.used).toBe(0);
  });

  it("a batch the transport refuses (an SSE-only client, a non-JSON body type) is refused once, nothing counted", async () => {
    const a = await newAgent();
    expect((await rpc(a.key, [list(1), list(2)], { accept: "text/event-stream" })).status).toBe(406);
    expect((await rpc(a.key, [list(1), list(2)], { "content-type": "text/plain" })).status).toBe(415);
    expect((await usage(a)).PER_MINUTE.used).toBe(0);
  });

  it("a refused key refuses the whole batch: 401", async () => {
    const a = await newAgent();
    const r = await rpc(`${a.key.slice(0, 10)}${"x".repeat(33)}${a.key.slice(43)}`, [list(1), list(2)]);
    expectError(r, 401, "UNAUTHENTICATED");
  });
});

describe("messages sent alone", () => {
  it("initialize, ping, tools/list and notifications take a slot of the minute; past it, the contract's 429 over HTTP", async () => {
    clockAt("2030-05-01T12:00:00.000Z");
    const a = await newAgent();
    expect((await rpc(a.key, init)).status).toBe(200);
    expect((await rpc(a.key, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    for (let i = 0; i < 9; i++) expect((await rpc(a.key, { jsonrpc: "2.0", id: i, method: "ping" })).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await rpc(a.key, list(i))).status).toBe(200);
    const m = await usage(a);
    expect(m.PER_MINUTE.used).toBe(20);
    expect(m.API_CALLS.used).toBe(0);
    for (const msg of [list(99), init, { jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 2, method: "resources/list" }]) {
      const r = expectError(await rpc(a.key, msg), 429, "RATE_LIMITED");
      expect(r.error.details).toMatchObject({ metric: "PER_MINUTE", limit: 20, plan: "FREE", retryAfterSeconds: 60 });
    }
    const refused = await rpc(a.key, list(100));
    expect(refused.headers.get("retry-after")).toBe("60");
    // A minute later the window has room again.
    clockAt("2030-05-01T12:01:00.001Z");
    expect((await rpc(a.key, list(101))).status).toBe(200);
  });

  it("amplification is bounded: 40 batches of 100 tools/list, then of 10, from a FREE account", async () => {
    clockAt("2030-05-01T13:00:00.000Z");
    const a = await newAgent();
    let bytes100 = 0;
    for (let i = 0; i < 40; i++) {
      const r = await rpc(
        a.key,
        Array.from({ length: 100 }, (_, j) => list(j)),
      );
      expect(r.status).toBe(400);
      bytes100 += JSON.stringify(r.body).length;
    }
    let bytes10 = 0;
    for (let i = 0; i < 40; i++) {
      const r = await rpc(
        a.key,
        Array.from({ length: 10 }, (_, j) => list(j)),
      );
      bytes10 += JSON.stringify(r.body).length;
    }
    const m = await usage(a);
    expect(m.PER_MINUTE.used).toBe(20);
    expect(m.API_CALLS.used).toBe(0);
    // 20 tool lists (~88 KB each) and 380 short errors: nothing like the 351 MB of before.
    const one = JSON.stringify((await rpc((await newAgent()).key, list(1))).body).length;
    expect(bytes10).toBeLessThan(20 * one + 380 * 600);
    expect(bytes100).toBeLessThan(40 * 300);
    console.log(
      `40 batches of 100 tools/list: ${bytes100} bytes, nothing counted; 40 of 10: ${bytes10} bytes, PER_MINUTE ${m.PER_MINUTE.used}, API_CALLS ${m.API_CALLS.used}`,
    );
  });
});
