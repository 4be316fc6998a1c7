import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { call, expectError, newAgent, signup } from "../helpers";

describe("owners and sessions", () => {
  it("signup returns a session token and the owner; the password is stored as PBKDF2, not in clear", async () => {
    const r = await call("POST", "/v1/auth/signup", { body: { email: "Alice@Example.com", password: "a long password" } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      token: expect.stringMatching(/^lore_s_[0-9A-Za-z]{43}$/),
      owner: { id: expect.any(String), email: "alice@example.com", plan: "FREE" },
    });
    const row = await env.DB.prepare("SELECT * FROM owners WHERE email = ?").bind("alice@example.com").first<any>();
    expect(row.password_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.password_iterations).toBeGreaterThanOrEqual(100_000);
    expect(JSON.stringify(row)).not.toContain("a long password");
    const sessions = await env.DB.prepare("SELECT token_hash FROM sessions WHERE owner_id = ?").bind(row.id).all<any>();
    expect(sessions.results[0].token_hash).not.toContain(r.body.token);
  });

  it("a second signup with the same email is 409", async () => {
    await call("POST", "/v1/auth/signup", { body: { email: "dup@example.com", password: "a long password" } });
    expectError(
      await call("POST", "/v1/auth/signup", { body: { email: "DUP@example.com", password: "another password" } }),
      409,
      "CONFLICT",
    );
  });

  it("signup validates email and password length with details.issues", async () => {
    const r = expectError(await call("POST", "/v1/auth/signup", { body: { email: "nope", password: "short" } }), 400, "VALIDATION_FAILED");
    const paths = r.error.details.issues.map((i: any) => i.path).sort();
    expect(paths).toEqual(["body.email", "body.password"]);
  });

  it("login works with the right password and is 401 otherwise; logout ends the session", async () => {
    await call("POST", "/v1/auth/signup", { body: { email: "bob@example.com", password: "bobs password" } });
    expectError(
      await call("POST", "/v1/auth/login", { body: { email: "bob@example.com", password: "wrong password" } }),
      401,
      "UNAUTHENTICATED",
    );
    expectError(
      await call("POST", "/v1/auth/login", { body: { email: "nobody@example.com", password: "bobs password" } }),
      401,
      "UNAUTHENTICATED",
    );
    const ok = await call("POST", "/v1/auth/login", { body: { email: "bob@example.com", password: "bobs password" } });
    expect(ok.status).toBe(200);
    expect(ok.body.owner.email).toBe("bob@example.com");
    expect((await call("GET", "/v1/agents", { token: ok.body.token })).status).toBe(200);
    expect((await call("POST", "/v1/auth/logout", { token: ok.body.token })).status).toBe(200);
    expectError(await call("GET", "/v1/agents", { token: ok.body.token }), 401, "UNAUTHENTICATED");
  });

  it("login attempts are throttled per address and email (10 a minute), other accounts and other addresses unaffected (the rest: test/auth/throttle.test.ts)", async () => {
    const from = { "cf-connecting-ip": "192.0.2.77" };
    await call("POST", "/v1/auth/signup", { body: { email: "guess@example.com", password: "the real password" } });
    for (let i = 0; i < 10; i++) {
      expectError(
        await call("POST", "/v1/auth/login", { body: { email: "guess@example.com", password: `guess ${i} wrong` }, headers: from }),
        401,
        "UNAUTHENTICATED",
      );
    }
    const r = expectError(
      await call("POST", "/v1/auth/login", { body: { email: "guess@example.com", password: "the real password" }, headers: from }),
      429,
      "RATE_LIMITED",
    );
    expect(r.error.details.retryAfterSeconds).toBe(60);
    await call("POST", "/v1/auth/signup", { body: { email: "other@example.com", password: "the real password" } });
    expect(
      (await call("POST", "/v1/auth/login", { body: { email: "other@example.com", password: "the real password" }, headers: from })).status,
    ).toBe(200);
    // The owner, elsewhere, is not locked out.
    expect(
      (
        await call("POST", "/v1/auth/login", {
          body: { email: "guess@example.com", password: "the real password" },
          headers: { "cf-connecting-ip": "192.0.2.78" },
        })
      ).status,
    ).toBe(200);
  });

  it("signup and login set the HttpOnly session cookie; logout clears it; the cookie works like the bearer token", async () => {
    const up = await call("POST", "/v1/auth/signup", { body: { email: "cookie@example.com", password: "a long password" } });
    expect(up.headers.get("set-cookie")).toBe(`lore_session=${up.body.token}; Path=/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax`);
    const login = await call("POST", "/v1/auth/login", { body: { email: "cookie@example.com", password: "a long password" } });
    expect(login.headers.get("set-cookie")).toContain(`lore_session=${login.body.token};`);
    const out = await call("POST", "/v1/auth/logout", { headers: { cookie: `lore_session=${login.body.token}` } });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^lore_session=; Path=\/; Max-Age=0/);
    expectError(await call("GET", "/v1/me/settings", { headers: { cookie: `lore_session=${login.body.token}` } }), 401, "UNAUTHENTICATED");
    const o = await signup();
    const r = await call("GET", "/v1/me/settings", { headers: { cookie: `other=1; lore_session=${o.token}` } });
    expect(r.status).toBe(200);
  });
});

describe("agents and keys", () => {
  it("a page of agents carries each agent's own keys, and only the page's (one D1 round trip)", async () => {
    const o = await signup();
    const made: { id: string; prefix: string }[] = [];
    for (const h of ["pg-one", "pg-two", "pg-three"]) {
      const r = await call("POST", "/v1/agents", { token: o.token, body: { handle: `${h}-${Date.now().toString(36)}` } });
      expect(r.status).toBe(201);
      made.push({ id: r.body.agent.id, prefix: r.body.apiKey.slice(0, 8) });
    }
    const second = await call("POST", `/v1/agents/${made[1]!.id}/keys`, { token: o.token });
    expect(second.status).toBe(201);
    const page = await call("GET", "/v1/agents?perPage=1&page=2", { token: o.token });
    expect(page.body.total).toBe(3);
    expect(page.body.items.map((a: { id: string }) => a.id)).toEqual([made[1]!.id]);
    expect(page.body.items[0].keys.map((k: { prefix: string }) => k.prefix)).toEqual([made[1]!.prefix, second.body.key.prefix]);
    const all = await call("GET", "/v1/agents", { token: o.token });
    expect(all.body.items.map((a: { keys: unknown[] }) => a.keys.length)).toEqual([1, 2, 1]);
  });

  it("creates an agent with a unique lowercase handle; the key is shown once and stored only hashed", async () => {
    const o = await signup();
    const r = await call("POST", "/v1/agents", { token: o.token, body: { handle: "Scout_1", name: "Scout" } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      agent: { id: expect.any(String), handle: "scout_1", name: "Scout", createdAt: expect.any(String) },
      apiKey: expect.stringMatching(/^lore_[0-9A-Za-z]{65}_own_[0-9a-z]+$/),
    });
    // The key names its account in clear after its 256-bit secret: the Worker routes it without a lookup.
    expect(r.body.apiKey.endsWith(`_${o.ownerId}`)).toBe(true);
    const keys = await env.DB.prepare("SELECT * FROM api_keys WHERE agent_id = ?").bind(r.body.agent.id).all<any>();
    expect(keys.results).toHaveLength(1);
    expect(keys.results[0].prefix).toBe(r.body.apiKey.slice(0, 8));
    expect(JSON.stringify(keys.results)).not.toContain(r.body.apiKey);
    const list = await call("GET", "/v1/agents", { token: o.token });
    expect(list.body.total).toBe(1);
    expect(JSON.stringify(list.body)).not.toContain(r.body.apiKey);
    expect(list.body.items[0].keys).toEqual([{ prefix: r.body.apiKey.slice(0, 8), createdAt: expect.any(String), revokedAt: null }]);

    const other = await signup();
    expectError(await call("POST", "/v1/agents", { token: other.token, body: { handle: "SCOUT_1" } }), 409, "CONFLICT");
    expectError(await call("POST", "/v1/agents", { token: o.token, body: { handle: "no spaces!" } }), 400, "VALIDATION_FAILED");
    expectError(await call("POST", "/v1/agents", { token: o.token, body: { handle: "ab" } }), 400, "VALIDATION_FAILED");
  });

  it("keys: a second key works, a revoked key is 401, deleting the agent revokes all its keys", async () => {
    const a = await newAgent();
    const k2 = await call("POST", `/v1/agents/${a.id}/keys`, { token: a.owner.token });
    expect(k2.status).toBe(201);
    expect((await call("GET", "/v1/usage/today", { key: k2.body.apiKey })).status).toBe(200);
    const rev = await call("DELETE", `/v1/agents/${a.id}/keys/${k2.body.key.prefix}`, { token: a.owner.token });
    expect(rev.status).toBe(200);
    expect(rev.body.key.revokedAt).toEqual(expect.any(String));
    expectError(await call("GET", "/v1/usage/today", { key: k2.body.apiKey }), 401, "UNAUTHENTICATED");
    expect((await call("GET", "/v1/usage/today", { key: a.key })).status).toBe(200);
    expectError(await call("DELETE", `/v1/agents/${a.id}/keys/${k2.body.key.prefix}`, { token: a.owner.token }), 404, "NOT_FOUND");

    const del = await call("DELETE", `/v1/agents/${a.id}`, { token: a.owner.token });
    expect(del.body).toEqual({ id: a.id, deleted: true });
    expectError(await call("GET", "/v1/usage/today", { key: a.key }), 401, "UNAUTHENTICATED");
    expect((await call("GET", "/v1/agents", { token: a.owner.token })).body.total).toBe(0);
  });

  it("renames an agent", async () => {
    const a = await newAgent();
    const r = await call("PATCH", `/v1/agents/${a.id}`, { token: a.owner.token, body: { name: "Renamed" } });
    expect(r.status).toBe(200);
    expect(r.body.agent).toMatchObject({ id: a.id, handle: a.handle, name: "Renamed", reputation: 0 });
    // With its keys, oldest first, a revoked one too.
    const k2 = await call("POST", `/v1/agents/${a.id}/keys`, { token: a.owner.token });
    await call("DELETE", `/v1/agents/${a.id}/keys/${a.key.slice(0, 8)}`, { token: a.owner.token });
    const again = await call("PATCH", `/v1/agents/${a.id}`, { token: a.owner.token, body: { name: null } });
    expect(again.body.agent.name).toBeNull();
    expect(again.body.agent.keys).toEqual([
      { prefix: a.key.slice(0, 8), createdAt: expect.any(String), revokedAt: expect.any(String) },
      { prefix: k2.body.key.prefix, createdAt: expect.any(String), revokedAt: null },
    ]);
  });

  it("an owner cannot see or touch another owner's agents or keys", async () => {
    const mine = await newAgent();
    const theirs = await newAgent();
    const t = mine.owner.token;
    expect((await call("GET", "/v1/agents", { token: t })).body.items.map((x: any) => x.id)).toEqual([mine.id]);
    expectError(await call("PATCH", `/v1/agents/${theirs.id}`, { token: t, body: { name: "x" } }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/v1/agents/${theirs.id}`, { token: t }), 404, "NOT_FOUND");
    expectError(await call("POST", `/v1/agents/${theirs.id}/keys`, { token: t }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/v1/agents/${theirs.id}/keys/${theirs.key.slice(0, 8)}`, { token: t }), 404, "NOT_FOUND");
    // Their key still works: nothing was changed.
    expect((await call("GET", "/v1/usage/today", { key: theirs.key })).status).toBe(200);
  });

  it("settings: default DAILY refresh schedule, changeable to the listed values only", async () => {
    const o = await signup();
    const g = await call("GET", "/v1/me/settings", { token: o.token });
    expect(g.body).toEqual({ settings: { email: o.email, plan: "FREE", refreshSchedule: "DAILY" } });
    const p = await call("PATCH", "/v1/me/settings", { token: o.token, body: { refreshSchedule: "EVERY_15_DAYS" } });
    expect(p.body.settings.refreshSchedule).toBe("EVERY_15_DAYS");
    expectError(await call("PATCH", "/v1/me/settings", { token: o.token, body: { refreshSchedule: "HOURLY" } }), 400, "VALIDATION_FAILED");
  });
});

describe("the auth matrix", () => {
  it("agent endpoints: missing, unknown, malformed and session credentials are 401; both header forms work", async () => {
    const a = await newAgent();
    expectError(await call("GET", "/v1/usage/today"), 401, "UNAUTHENTICATED");
    expectError(await call("GET", "/v1/usage/today", { key: `lore_${"x".repeat(43)}` }), 401, "UNAUTHENTICATED");
    expectError(await call("GET", "/v1/usage/today", { headers: { authorization: "Basic abc" } }), 401, "UNAUTHENTICATED");
    expectError(await call("GET", "/v1/usage/today", { token: a.owner.token }), 401, "UNAUTHENTICATED");
    expect((await call("GET", "/v1/usage/today", { key: a.key })).status).toBe(200);
    expect((await call("GET", "/v1/usage/today", { headers: { "x-service-key": a.key } })).status).toBe(200);
    expectError(await call("GET", "/v1/usage/today", { headers: { "x-service-key": "lore_nope" } }), 401, "UNAUTHENTICATED");
  });

  it("dashboard endpoints: agent keys are 403 with the reason, no credential is 401", async () => {
    const a = await newAgent();
    for (const [m, p] of [
      ["GET", "/v1/agents"],
      ["POST", "/v1/agents"],
      ["GET", "/v1/me/settings"],
      ["POST", `/v1/agents/${a.id}/keys`],
      ["DELETE", `/v1/agents/${a.id}`],
    ] as const) {
      const body = m === "POST" ? { handle: "zzz" } : undefined;
      const r = expectError(await call(m, p, { key: a.key, body }), 403, "FORBIDDEN");
      expect(r.error.message).toMatch(/session/);
      expectError(await call(m, p, { headers: { "x-service-key": a.key }, body }), 403, "FORBIDDEN");
      expectError(await call(m, p, { body }), 401, "UNAUTHENTICATED");
    }
    // The agent was not deleted by any of that.
    expect((await call("GET", "/v1/usage/today", { key: a.key })).status).toBe(200);
  });

  it("public endpoints need nothing and ignore a bad key", async () => {
    for (const p of ["/v1/setup", "/v1/setup/claude-code", "/v1/start-here.md", "/v1/plans", "/v1/openapi.json"]) {
      expect((await call("GET", p)).status, p).toBe(200);
    }
  });
});

describe("credential edge cases", () => {
  it("public endpoints ignore a malformed Authorization header or a broken cookie instead of refusing", async () => {
    for (const headers of [{ authorization: "Basic abc" }, { authorization: "Bearer" }, { cookie: "lore_session=%E0%A4%A" }] as Record<
      string,
      string
    >[]) {
      expect((await call("GET", "/v1/setup", { headers })).status, JSON.stringify(headers)).toBe(200);
    }
    const r = await call("POST", "/v1/auth/signup", {
      headers: { authorization: "Basic abc" },
      body: { email: "basic-proxy@example.com", password: "a long password" },
    });
    expect(r.status).toBe(201);
  });

  it("a cookie with broken percent-encoding is 401, never 500", async () => {
    expectError(await call("GET", "/v1/me/settings", { headers: { cookie: "lore_session=%E0%A4%A" } }), 401, "UNAUTHENTICATED");
    expectError(await call("GET", "/v1/usage/today", { headers: { cookie: "lore_session=%E0%A4%A" } }), 401, "UNAUTHENTICATED");
  });

  it("an agent key in the session cookie is not an agent credential", async () => {
    const a = await newAgent();
    expectError(await call("GET", "/v1/usage/today", { headers: { cookie: `lore_session=${a.key}` } }), 401, "UNAUTHENTICATED");
  });

  it("a Bearer key with trailing spaces works; Authorization wins over x-service-key", async () => {
    const a = await newAgent();
    expect((await call("GET", "/v1/usage/today", { headers: { authorization: `Bearer ${a.key}   ` } })).status).toBe(200);
    expect(
      (await call("GET", "/v1/usage/today", { headers: { authorization: `Bearer ${a.key}`, "x-service-key": "lore_other" } })).status,
    ).toBe(200);
    expectError(
      await call("GET", "/v1/usage/today", { headers: { authorization: "Bearer lore_other", "x-service-key": a.key } }),
      401,
      "UNAUTHENTICATED",
    );
  });

  it("a public endpoint with a bad key still answers, and a 401 never echoes the key", async () => {
    expect((await call("GET", "/v1/setup", { key: `lore_${"y".repeat(43)}` })).status).toBe(200);
    const secret = `lore_${"z".repeat(43)}`;
    const r = expectError(await call("GET", "/v1/usage/today", { key: secret }), 401, "UNAUTHENTICATED");
    expect(JSON.stringify(r)).not.toContain("zzzz");
  });
});

describe("session cookie CSRF guard", () => {
  it("a state-changing dashboard request carried only by the cookie must come from this origin", async () => {
    const o = await signup();
    const cookie = `lore_session=${o.token}`;
    const body = { handle: `csrf${Date.now().toString(36)}` };
    for (const headers of [
      { cookie, origin: "https://evil.example" },
      { cookie, origin: "http://sub.localhost" },
      { cookie, "sec-fetch-site": "same-site" },
    ] as Record<string, string>[]) {
      const r = expectError(await call("POST", "/v1/agents", { headers, body }), 403, "FORBIDDEN");
      expect(r.error.message).toMatch(/cookie/);
    }
    expect((await call("GET", "/v1/agents", { token: o.token })).body.total).toBe(0);
    // Same origin, no Origin at all (curl), or a bearer token from anywhere: allowed.
    expect((await call("POST", "/v1/agents", { headers: { cookie, origin: "http://localhost" }, body })).status).toBe(201);
    expect((await call("GET", "/v1/agents", { headers: { cookie, origin: "https://evil.example" } })).status).toBe(200);
    expect((await call("PATCH", "/v1/me/settings", { headers: { cookie }, body: { refreshSchedule: "WEEKLY" } })).status).toBe(200);
    expect(
      (
        await call("PATCH", "/v1/me/settings", {
          token: o.token,
          headers: { origin: "https://evil.example" },
          body: { refreshSchedule: "DAILY" },
        })
      ).status,
    ).toBe(200);
  });
});
