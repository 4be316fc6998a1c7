import { readdirSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { fuzzRest, fuzzRestLine } from "../../scripts/fuzz-rest.mjs";

/**
 * Cost and abuse, against a real `wrangler dev`: what the unit suite's in-process fetch cannot show
 * (the HTTP connection a client streams a body on).
 */

let server: TestServer;
let key: string;
let token: string;

const post = async (p: string, body: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(server.origin + p, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
};

beforeAll(async () => {
  server = await startServer({ seed: false });
  const s = await post("/v1/auth/signup", { email: "abuse-e2e@example.com", password: "correct horse battery" });
  token = s.body.token;
  const a = await post("/v1/agents", { handle: "abuse-e2e" }, { authorization: `Bearer ${token}` });
  key = a.body.apiKey;
});
afterAll(async () => {
  await server?.stop();
});

/** `total` bytes streamed in 8 KiB chunks, no Content-Length (Node's fetch sends it chunked). */
async function streamed(method: string, p: string, total: number, headers: Record<string, string>) {
  const chunk = new Uint8Array(8 * 1024).fill(0x61);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= total) return c.close();
      sent += chunk.length;
      c.enqueue(chunk);
    },
  });
  try {
    const r = await fetch(server.origin + p, { method, headers, body, duplex: "half" } as RequestInit);
    const text = await r.text();
    return { status: r.status, requestId: r.headers.get("x-request-id"), text };
  } catch (e) {
    return { status: 0, requestId: null, text: `${(e as Error).message} ${String((e as { cause?: unknown }).cause ?? "")}` };
  }
}

describe("a chunked body over the limit", () => {
  it("2 MB streamed to every route family answers the contract's 413 (or the route's own refusal) with a request id, never a reset or a 500", async () => {
    const json = { "content-type": "application/json" };
    const families: [string, string, Record<string, string>, number][] = [
      ["POST", "/v1/threads", { ...json, authorization: `Bearer ${key}` }, 413],
      ["POST", "/v1/threads/some-thread/posts", { ...json, authorization: `Bearer ${key}` }, 413],
      ["POST", "/v1/mcp", { ...json, authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" }, 413],
      ["POST", "/v1/auth/login", json, 413],
      ["PATCH", "/v1/me/settings", { ...json, authorization: `Bearer ${token}` }, 413],
      ["POST", "/v1/billing/cancel", { ...json, authorization: `Bearer ${token}` }, 413],
      ["POST", "/login", { "content-type": "application/x-www-form-urlencoded" }, 413],
      ["POST", "/v1/threads", json, 401],
      ["POST", "/v1/nowhere", json, 404],
    ];
    const seen: string[] = [];
    for (let round = 0; round < 4; round++) {
      for (const [method, p, headers, status] of families) {
        const r = await streamed(method, p, 2 * 1024 * 1024, headers);
        seen.push(`${method} ${p} → ${r.status}`);
        expect(r.status, `${method} ${p}: ${r.text.slice(0, 160)}`).toBe(status);
        expect(r.requestId, `${method} ${p}`).toBeTruthy();
        if (p.startsWith("/v1/"))
          expect(JSON.parse(r.text).error.code).toBe(
            status === 413 ? "PAYLOAD_TOO_LARGE" : status === 401 ? "UNAUTHENTICATED" : "NOT_FOUND",
          );
      }
    }
    expect(seen.length).toBe(36);
  });
});

describe("what a FREE account can make the server do", () => {
  let fresh = "";
  const rpc = async (body: unknown) => {
    const r = await fetch(`${server.origin}/v1/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${fresh}`, accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: r.status, text: await r.text() };
  };
  const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });

  it("40 batches of 100 tools/list, then 40 of 10: bounded bytes, every message counted", async () => {
    // An account of its own, so its minute is whole.
    const o = await post("/v1/auth/signup", { email: "amplify-e2e@example.com", password: "correct horse battery" });
    fresh = (await post("/v1/agents", { handle: "amplify-e2e" }, { authorization: `Bearer ${o.body.token}` })).body.apiKey;
    let bytes100 = 0;
    for (let i = 0; i < 40; i++) {
      const r = await rpc(Array.from({ length: 100 }, (_, j) => list(j)));
      expect(r.status).toBe(400);
      bytes100 += r.text.length;
    }
    let bytes10 = 0;
    for (let i = 0; i < 40; i++) bytes10 += (await rpc(Array.from({ length: 10 }, (_, j) => list(j)))).text.length;
    const usage = (await (await fetch(`${server.origin}/v1/usage/today`, { headers: { authorization: `Bearer ${fresh}` } })).json()) as any;
    console.log(
      `amplification (wrangler dev, FREE): 40 batches of 100 tools/list → ${bytes100} bytes, nothing run or counted; ` +
        `40 batches of 10 → ${bytes10} bytes, PER_MINUTE ${usage.metrics.PER_MINUTE.used}/20, API_CALLS ${usage.metrics.API_CALLS.used}`,
    );
    expect(bytes100).toBeLessThan(20_000);
    expect(bytes10).toBeLessThan(3_000_000);
    expect(usage.metrics.PER_MINUTE.used).toBe(20);
  }, 180_000);

  it("100 made-up keys create no account object", async () => {
    const dir = path.join(server.persistTo, "v3", "do", "lore-AccountQuota");
    const objects = () => readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite").length;
    const before = objects();
    for (let i = 0; i < 100; i++) {
      const account = `own_${randomBytes(8).toString("hex")}`;
      const made =
        i % 2
          ? `lore_${randomBytes(32).toString("base64url").replace(/[-_]/g, "a").slice(0, 43)}${"Z".repeat(22)}_${account}`
          : `lore_${"q".repeat(43)}_${account}`;
      const r = await fetch(`${server.origin}/v1/usage/today`, { headers: { authorization: `Bearer ${made}` } });
      expect(r.status).toBe(401);
      await r.text();
    }
    console.log(`made-up keys (wrangler dev): account objects before ${before}, after 100 requests ${objects()}`);
    expect(objects()).toBe(before);
  });
});

describe("fuzz: every route with odd bodies, chunked and oversized", () => {
  it("never a 5xx, an API error out of the contract's shape, an answer without a request id, or a reset", async () => {
    const stats = await fuzzRest(server.origin, { maxJobs: 3000 });
    console.log(fuzzRestLine(stats));
    expect(stats.problems).toEqual([]);
    expect(stats.http5xx + stats.badShape + stats.noRequestId + stats.resets).toBe(0);
    expect(stats.requests).toBe(3000);
  }, 600_000);
});
