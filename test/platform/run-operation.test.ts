import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { call, newAgent, type TestAgent } from "../helpers";
import { invoke } from "../../src/core/invoke";
import { makeOpContext } from "../../src/core/op-context";
import { ApiError } from "../../src/core/errors";
import { quotaGate } from "../../src/quota";
import { storeActivity } from "../../src/sync";
import { castVote } from "../../src/forum/forum.ops";
import { usageToday } from "../../src/quota/quota.ops";
import type { AnyOperation } from "../../src/core/operation";
import type { Env } from "../../src/env";

const E = env as unknown as Env;

/**
 * REST, MCP tools/call and an in-process call run an operation through one path
 * (core/run-operation.ts): the same operation called the three ways must consume the same quota,
 * give back the same on a failure, and record the same activity.
 */

type Outcome = { ok: true } | { ok: false; code: string };
type Transport = (a: TestAgent, op: AnyOperation, tool: string, body: Record<string, unknown>) => Promise<Outcome>;

const rpc = (key: string, name: string, args: Record<string, unknown>) =>
  call("POST", "/v1/mcp", {
    raw: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json", authorization: `Bearer ${key}` },
  });

const TRANSPORTS: Record<"rest" | "mcp" | "web", Transport> = {
  rest: async (a, op, _tool, body) => {
    const r = await call(op.method, `/v1${op.path}`, { key: a.key, ...(op.method === "GET" ? {} : { body }) });
    return r.status < 400 ? { ok: true } : { ok: false, code: r.body.error.code };
  },
  mcp: async (a, _op, tool, body) => {
    const r = (await rpc(a.key, tool, body)).body.result;
    return r.isError ? { ok: false, code: r._meta["lore/error"].code } : { ok: true };
  },
  web: async (a, op, _tool, body) => {
    const pending: Promise<unknown>[] = [];
    const ctx = makeOpContext({
      env: E,
      caller: null,
      requestId: "req_inprocess1",
      origin: "http://localhost",
      via: "web",
      waitUntil: (p) => void pending.push(p),
      gate: quotaGate,
      activity: storeActivity,
    });
    try {
      await invoke(op, ctx, { ...(op.body ? { body } : {}), key: a.key });
      return { ok: true };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return { ok: false, code: err.code };
    } finally {
      await Promise.all(pending);
    }
  },
};

const used = async (key: string) => {
  const m = (await call("GET", "/v1/usage/today", { key })).body.metrics;
  return { API_CALLS: m.API_CALLS.used, VOTES: m.VOTES.used, PER_MINUTE: m.PER_MINUTE.used };
};
const delta = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(Object.keys(a).map((k) => [k, b[k]! - a[k]!]));

describe("REST, MCP and in-process calls run one admission path", () => {
  it("the same operation costs, refunds and records the same through all three", async () => {
    const author = await newAgent();
    const asked = await call("POST", "/v1/threads", {
      key: author.key,
      body: { title: "How do three transports agree on quota?", bodyMd: "Body.", categorySlug: "general", stackTags: [] },
    });
    expect(asked.status).toBe(201);
    const threadId = asked.body.thread.id as string;

    const seen: Record<string, unknown> = {};
    for (const [name, run] of Object.entries(TRANSPORTS)) {
      const a = await newAgent();
      const start = await used(a.key);

      // A failure after the admission (no such thread): the API call and the slot stay used, VOTES comes back.
      const failed = await run(a, castVote, "service_vote", { targetType: "THREAD", targetId: "thr_nosuchthread", value: 1 });
      expect(failed, name).toEqual({ ok: false, code: "NOT_FOUND" });
      const afterFailure = delta(start, await used(a.key));

      const voted = await run(a, castVote, "service_vote", { targetType: "THREAD", targetId: threadId, value: 1 });
      expect(voted, name).toEqual({ ok: true });
      const afterSuccess = delta(start, await used(a.key));

      // The free operation is free however it is called.
      expect(await run(a, usageToday, "service_usage", {}), name).toEqual({ ok: true });
      const afterFree = delta(start, await used(a.key));

      let items: { kind: string; summary: string; target: unknown; via: string }[] = [];
      await vi.waitFor(async () => {
        items = (await call("GET", "/v1/me/activity", { token: a.owner.token })).body.items;
        expect(items.length, name).toBeGreaterThanOrEqual(1);
      });
      expect(items.map((i) => i.via)).toEqual([name]);
      const activity = items.map(({ kind, summary, target }) => ({ kind, summary, target }));
      seen[name] = { afterFailure, afterSuccess, afterFree, activity };
    }

    expect(seen.rest).toEqual({
      afterFailure: { API_CALLS: 1, VOTES: 0, PER_MINUTE: 1 },
      afterSuccess: { API_CALLS: 2, VOTES: 1, PER_MINUTE: 2 },
      afterFree: { API_CALLS: 2, VOTES: 1, PER_MINUTE: 2 },
      activity: [{ kind: "VOTE", summary: `Voted +1 on thread ${threadId}`, target: { type: "THREAD", id: threadId, url: null } }],
    });
    expect(seen.mcp).toEqual(seen.rest);
    expect(seen.web).toEqual(seen.rest);
  });

  it("an in-process call of an agent operation without a key is refused before anything is counted", async () => {
    const ctx = makeOpContext({
      env: E,
      caller: null,
      requestId: "req_inprocess2",
      origin: "http://localhost",
      via: "web",
      waitUntil: () => {},
      gate: quotaGate,
      activity: storeActivity,
    });
    await expect(invoke(castVote, ctx, { body: { targetType: "THREAD", targetId: "thr_x", value: 1 } })).rejects.toMatchObject({
      code: "UNAUTHENTICATED",
    });
  });
});
