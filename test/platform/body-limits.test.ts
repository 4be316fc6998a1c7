import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { BASE, call, newAgent, signup } from "../helpers";

/**
 * A body over a route's limit is answered 413 however it arrives: with a Content-Length, or
 * streamed (chunked, no length). The answer is the contract's error with an x-request-id; the body
 * is never kept, and one far over the limit is cut off instead of being read to its end.
 */

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** Sends `total` bytes as a stream (no Content-Length) and counts the chunks the Worker pulled. */
async function streamed(method: string, path: string, total: number, headers: Record<string, string> = {}) {
  const chunk = new Uint8Array(CHUNK).fill(0x20);
  const chunks = Math.ceil(total / CHUNK);
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(ctl) {
      if (pulled < chunks) {
        pulled++;
        ctl.enqueue(chunk);
      } else ctl.close();
    },
  });
  const res: Response = await (exports as any).default.fetch(
    new Request(BASE + path, { method, headers, body, duplex: "half" } as RequestInit),
  );
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* an HTML page */
  }
  return { status: res.status, json, text, headers: res.headers, pulled, chunks };
}

describe("oversized bodies are 413 however they arrive, on every route family", () => {
  it("2 MB streamed to every route family: the route's own answer (413 past its limit) with an x-request-id, never a 500", async () => {
    const a = await newAgent();
    const o = await signup();
    const key = { authorization: `Bearer ${a.key}`, "content-type": "application/json" };
    const session = { authorization: `Bearer ${o.token}`, "content-type": "application/json" };
    const cookie = { cookie: `lore_session=${o.token}`, "content-type": "multipart/form-data; boundary=x", accept: "text/html" };
    const cases: [string, string, Record<string, string>, number][] = [
      ["POST", "/v1/threads", key, 413],
      ["POST", "/v1/threads/some-thread/posts", key, 413],
      ["POST", "/v1/votes", key, 413],
      ["POST", "/v1/mcp", { ...key, accept: "application/json, text/event-stream" }, 413],
      ["POST", "/v1/auth/login", { "content-type": "application/json" }, 413],
      ["PATCH", "/v1/me/settings", session, 413],
      // An operation that takes no body refuses one over the default limit too.
      ["POST", "/v1/billing/cancel", session, 413],
      ["POST", "/v1/chat/mentions/read", key, 413],
      ["POST", "/login", { "content-type": "application/x-www-form-urlencoded", accept: "text/html" }, 413],
      ["POST", "/dashboard/skills/publish", cookie, 200],
      // Routes that answer before reading: the body is still never a 500.
      ["POST", "/v1/threads", { "content-type": "application/json" }, 401],
      ["POST", "/v1/does-not-exist", {}, 404],
      ["PUT", "/v1/plans", {}, 405],
    ];
    for (const [method, path, headers, status] of cases) {
      const r = await streamed(method, path, 2 * MiB, headers);
      const what = `${method} ${path}`;
      if (path === "/dashboard/skills/publish") {
        // 6 MiB upload limit: 2 MB is read whole, and is not a valid multipart body.
        expect(r.status, what).toBe(400);
      } else expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBe(status);
      expect(r.headers.get("x-request-id"), what).toBeTruthy();
      if (path.startsWith("/v1/")) expect(Object.keys(r.json ?? {}), what).toEqual(["error"]);
      if (status === 413 && r.json) expect(r.json.error.code, what).toBe("PAYLOAD_TOO_LARGE");
    }
  });

  it("a body far over the limit is cut off, not read to its end, with or without a Content-Length", async () => {
    const a = await newAgent();
    const r = await streamed("POST", "/v1/threads", 16 * MiB, { authorization: `Bearer ${a.key}` });
    expect(r.status).toBe(413);
    expect(r.json.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: 256 * 1024 } });
    // The limit, then at most 2 MiB thrown away unread: never the 16 MiB.
    expect(r.pulled * CHUNK).toBeLessThanOrEqual(256 * 1024 + 2 * MiB + 2 * CHUNK);
    const declared = await call("POST", "/v1/threads", { key: a.key, raw: new Uint8Array(3 * MiB) });
    expect(declared.status).toBe(413);
    expect(declared.headers.get("x-request-id")).toBeTruthy();
  });
});
