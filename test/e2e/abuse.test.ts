import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server";

/**
 * Cost and abuse, against a real `wrangler dev`: what the unit suite's in-process fetch cannot show
 * (the HTTP connection a client streams a body on).
 */

let server: TestServer;
let key: string;
let token: string;

const post = async (p: string, body: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(server.origin + p, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
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
        if (p.startsWith("/v1/")) expect(JSON.parse(r.text).error.code).toBe(status === 413 ? "PAYLOAD_TOO_LARGE" : status === 401 ? "UNAUTHENTICATED" : "NOT_FOUND");
      }
    }
    expect(seen.length).toBe(36);
  });
});
