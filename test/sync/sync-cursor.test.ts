import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { call, expectError, newAgent, type TestAgent } from "../helpers";
import { sha256Hex } from "../../src/core/crypto";
import type { Env } from "../../src/env";

/**
 * The sync cursor carries a keyed MAC (CURSOR_SECRET): only Lore can write one. A forged or altered
 * cursor is a 400 answered before any work, and keeps the freshness call it reserved, so failing on
 * purpose buys nothing. The secret rotates: the previous one still verifies.
 */

const E = env as unknown as Env;
const STACK = [{ name: "react", version: "18.2.0" }];
const sync = (a: TestAgent, body: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  call("POST", "/v1/agents/me/sync", { key: a.key, body, env: Object.keys(extra).length ? extra : undefined });
const freshness = async (a: TestAgent) => (await call("GET", "/v1/usage/today", { key: a.key })).body.metrics.FRESHNESS_CALLS.used;

const b64url = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const b64bytes = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** The D1 binding with a counter of the statements the Worker sends through it. */
function countingDb() {
  let n = 0;
  const wrap = (db: D1Database | D1DatabaseSession): any =>
    new Proxy(db, {
      get(t, prop) {
        if (prop === "prepare") return (q: string) => (n++, (t as D1Database).prepare(q));
        if (prop === "batch") return (b: D1PreparedStatement[]) => ((n += b.length), (t as D1Database).batch(b));
        if (prop === "withSession") return (c?: string) => wrap((t as D1Database).withSession(c));
        const v = Reflect.get(t, prop);
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
  return { DB: wrap(E.DB), count: () => n };
}

describe("the sync cursor", () => {
  it("a cursor set ahead of the log with the old keyless check recomputed is a 400 before any work, and the freshness call is kept", async () => {
    const a = await newAgent();
    const first = await sync(a, { stack: STACK });
    expect(first.status).toBe(200);
    // What the old format allowed anyone to do: compute the check of any payload from public values.
    const payload = b64url(JSON.stringify({ v: 2, s: 9_000_000, u: 9_000_000, t: Date.now() }));
    const hex = await sha256Hex(`lore-sync-cursor\u0000${a.id}\u0000${payload}`);
    const check = b64bytes(Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16))).slice(0, 22);
    const before = await freshness(a);
    const db = countingDb();
    const r = await call("POST", "/v1/agents/me/sync", { key: a.key, body: { since: `c2.${payload}.${check}` }, env: { DB: db.DB } });
    const e = expectError(r, 400, "VALIDATION_FAILED");
    expect(e.error.details.issues[0]).toMatchObject({ path: "body.since" });
    expect(db.count()).toBe(0);
    expect(await freshness(a)).toBe(before + 1);
    // A MAC of the right length that nobody made: the same.
    expectError(await sync(a, { since: `c2.${payload}.${"A".repeat(22)}` }), 400, "VALIDATION_FAILED");
    expect(await freshness(a)).toBe(before + 2);
  });

  it("rotation: a cursor issued under the previous secret still verifies while CURSOR_SECRET_PREVIOUS names it", async () => {
    const a = await newAgent();
    const first = (await sync(a, { stack: STACK })).body;
    expect(first.cursor).toMatch(/^c2\./);
    const rotated = { CURSOR_SECRET: "next-cursor-secret", CURSOR_SECRET_PREVIOUS: E.CURSOR_SECRET };
    const r = await sync(a, { since: first.cursor }, rotated);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // The new cursor is made with the new secret: the old configuration alone does not know it.
    expectError(await sync(a, { since: r.body.cursor }), 400, "VALIDATION_FAILED");
    expect((await sync(a, { since: r.body.cursor }, rotated)).status).toBe(200);
    // Without the previous secret, the old cursor is no longer Lore's.
    expectError(
      await sync(a, { since: first.cursor }, { CURSOR_SECRET: "next-cursor-secret", CURSOR_SECRET_PREVIOUS: "" }),
      400,
      "VALIDATION_FAILED",
    );
  });

  it("a cursor of the first, keyless format gets a complete answer, as if none was sent", async () => {
    const a = await newAgent();
    await sync(a, { stack: STACK });
    const payload = b64url(JSON.stringify({ v: 1, s: 0, u: 0, t: Date.now() }));
    const r = await sync(a, { since: `c1.${payload}.${"x".repeat(12)}`, force: false });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.delta).toBe(false);
    expect(r.body.cursor).toMatch(/^c2\./);
  });
});
