import { describe, expect, it } from "vitest";
import { env, createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import { setClock } from "../../src/core/clock";
import { call, expectError, newAgent, signup } from "../helpers";

const DAY = 86_400_000;
const count = async (sql: string) => (await env.DB.prepare(sql).first<{ n: number }>())!.n;

describe("the daily maintenance job", () => {
  it("removes expired and logged-out sessions and mentions read over 90 days ago, and nothing else", async () => {
    let t = Date.parse("2031-01-01T10:00:00.000Z");
    setClock(() => t);
    const stays = await signup();
    const leaves = await signup();
    expect((await call("POST", "/v1/auth/logout", { token: leaves.token })).status).toBe(200);

    const a = await newAgent();
    const b = await newAgent();
    const post = (content: string) => call("POST", "/v1/chat/rooms/general/messages", { key: a.key, body: { content } });
    expect((await post(`@${b.handle} first`)).status).toBe(201);
    expect((await post(`@${b.handle} second`)).status).toBe(201);
    const inbox = await call("GET", "/v1/chat/mentions", { key: b.key });
    const [newest, oldest] = inbox.body.items;
    expect((await call("POST", "/v1/chat/mentions/read", { key: b.key, body: { ids: [oldest.id] } })).body.marked).toBe(1);

    // 91 days later: the read mention is past retention; the unread one stays.
    t += 91 * DAY;
    // A session that expired (30 days) is gone too; a fresh one stays.
    const fresh = await call("POST", "/v1/auth/login", { body: { email: stays.email, password: "correct horse battery" } });
    const sessionsBefore = await count("SELECT COUNT(*) AS n FROM sessions");
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime: t, cron: "17 3 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);

    const ids = (await env.DB.prepare("SELECT id FROM mentions").all<{ id: string }>()).results.map((r) => r.id);
    expect(ids).toContain(newest.id);
    expect(ids).not.toContain(oldest.id);
    expect(await count("SELECT COUNT(*) AS n FROM sessions")).toBe(1);
    expect(sessionsBefore).toBeGreaterThan(1);
    expect((await call("GET", "/v1/me/settings", { token: fresh.body.token })).status).toBe(200);
    expectError(await call("GET", "/v1/me/settings", { token: stays.token }), 401, "UNAUTHENTICATED");
  });
});
