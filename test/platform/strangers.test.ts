import { describe, expect, it } from "vitest";
import { env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { call, expectError, newAgent } from "../helpers";
import { randomBase62, sha256Hex } from "../../src/core/crypto";
import { accountOfKey } from "../../src/core/auth";
import { quotaStub } from "../../src/quota/quota.client";
import type { AccountQuota } from "../../src/quota/quota.do";
import type { Env } from "../../src/env";

/**
 * No storage for strangers: a key naming an account that does not exist is refused by the Worker
 * before any account object is addressed (the key's tag, a keyed MAC under KEY_SECRET, proves Lore
 * wrote the account id in it), and a key in a format from before tags costs one D1 read the first
 * time an isolate sees it, never again. Public routes address no account object at all.
 */

const E = env as unknown as Env;

/** The test environment with a D1 binding that counts the Worker's statements. */
function countingEnv() {
  let statements = 0;
  const wrap = (db: D1Database | D1DatabaseSession) =>
    new Proxy(db, {
      get(target, prop) {
        if (prop === "prepare") return (q: string) => (statements++, (target as D1Database).prepare(q));
        if (prop === "batch") return (b: D1PreparedStatement[]) => ((statements += b.length), (target as D1Database).batch(b));
        if (prop === "withSession") return (c?: string) => wrap((target as D1Database).withSession(c));
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  return { env: { DB: wrap(E.DB) }, statements: () => statements };
}

const objects = async () => (await listDurableObjectIds(E.ACCOUNT_QUOTA)).length;
const madeUpId = () => `own_${randomBase62(12).toLowerCase()}`;

describe("a key naming an account that does not exist", () => {
  it("100 made-up keys, tagged or in the older formats, through REST, MCP and public routes: 401 (public routes 200), no object created, no repeated D1 read", async () => {
    const real = await newAgent();
    expect((await call("GET", "/v1/usage/today", { key: real.key })).status).toBe(200);
    const before = await objects();
    const d1 = countingEnv();

    // Tagged, with a tag nobody signed: refused in the Worker, nothing read.
    for (let i = 0; i < 40; i++) {
      const key = `lore_${randomBase62(32)}${randomBase62(16).slice(0, 22)}_${madeUpId()}`;
      expect(accountOfKey(key)).toMatch(/^own_/);
      expectError(await call("GET", "/v1/usage/today", { key, env: d1.env }), 401, "UNAUTHENTICATED");
      const mcp = await call("POST", "/v1/mcp", {
        env: d1.env,
        raw: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream", "content-type": "application/json" },
      });
      expect(mcp.status).toBe(401);
      expect((await call("GET", "/v1/plans", { key, env: d1.env })).status).toBe(200);
    }
    expect(d1.statements()).toBe(0);

    // One made-up key in the format from before tags, 30 times: one D1 read, the first time only.
    const old = `lore_${randomBase62(32)}_${madeUpId()}`;
    for (let i = 0; i < 30; i++) expectError(await call("GET", "/v1/usage/today", { key: old, env: d1.env }), 401, "UNAUTHENTICATED");
    expect(d1.statements()).toBe(1);
    // And one from before keys named their account.
    const legacy = `lore_${randomBase62(32)}`;
    for (let i = 0; i < 30; i++) expectError(await call("GET", "/v1/usage/today", { key: legacy, env: d1.env }), 401, "UNAUTHENTICATED");
    expect(d1.statements()).toBe(2);

    // A made-up key naming a real account, with a tag nobody signed: refused the same way.
    const forged = `lore_${randomBase62(32)}${randomBase62(16).slice(0, 22)}_${real.owner.ownerId}`;
    expectError(await call("GET", "/v1/usage/today", { key: forged, env: d1.env }), 401, "UNAUTHENTICATED");
    expect(d1.statements()).toBe(2);

    expect(await objects()).toBe(before);
    expect((await call("GET", "/v1/usage/today", { key: real.key })).status).toBe(200);
  });

  it("a public route with a real agent key or session reads neither: it needs no caller", async () => {
    const a = await newAgent();
    const d1 = countingEnv();
    expect((await call("GET", "/v1/plans", { key: a.key, env: d1.env })).status).toBe(200);
    expect((await call("GET", "/v1/plans", { token: a.owner.token, env: d1.env })).status).toBe(200);
    expect(d1.statements()).toBe(0);
  });
});

describe("KEY_SECRET", () => {
  it("rotation: a key tagged under the previous secret works while KEY_SECRET_PREVIOUS names it; new keys get the new secret's tag", async () => {
    const a = await newAgent();
    const rotated = { KEY_SECRET: "the-next-secret", KEY_SECRET_PREVIOUS: E.KEY_SECRET };
    expect((await call("GET", "/v1/usage/today", { key: a.key, env: rotated })).status).toBe(200);
    expectError(
      await call("GET", "/v1/usage/today", { key: a.key, env: { KEY_SECRET: "the-next-secret", KEY_SECRET_PREVIOUS: "" } }),
      401,
      "UNAUTHENTICATED",
    );
    const made = await call("POST", `/v1/agents/${a.id}/keys`, { token: a.owner.token, env: rotated });
    expect(made.status).toBe(201);
    expect((await call("GET", "/v1/usage/today", { key: made.body.apiKey, env: rotated })).status).toBe(200);
    // Under the old configuration alone, the new key's tag is unknown.
    expectError(await call("GET", "/v1/usage/today", { key: made.body.apiKey }), 401, "UNAUTHENTICATED");
  });

  it("without it no key can be made: a 500 that names what to set, nothing written", async () => {
    const a = await newAgent();
    const r = expectError(
      await call("POST", `/v1/agents/${a.id}/keys`, { token: a.owner.token, env: { KEY_SECRET: "" } }),
      500,
      "INTERNAL",
    );
    expect(r.error.message).toContain("KEY_SECRET");
    const agents = (await call("GET", "/v1/agents", { token: a.owner.token })).body.items;
    expect(agents[0].keys).toHaveLength(1);
  });

  it("a key from before tags still works, routed by one D1 read per isolate", async () => {
    const a = await newAgent();
    const old = `lore_${randomBase62(32)}_${a.owner.ownerId}`;
    await E.DB.prepare("INSERT INTO api_keys (key_hash, prefix, agent_id, owner_id, created_at) VALUES (?, ?, ?, ?, ?)")
      .bind(await sha256Hex(old), old.slice(0, 8), a.id, a.owner.ownerId, Date.now())
      .run();
    await runInDurableObject(quotaStub(E, a.owner.ownerId), async (q: AccountQuota) => q.refresh(a.owner.ownerId));
    const d1 = countingEnv();
    for (let i = 0; i < 5; i++) expect((await call("GET", "/v1/usage/today", { key: old, env: d1.env })).status).toBe(200);
    expect(d1.statements()).toBe(1);
  });
});
