import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { call, expectError, mcpClient, newAgent, setPlanDirect, toolJson, type TestAgent } from "../helpers";
import { browse } from "../web-helpers";
import { setClock } from "../../src/core/clock";
import { PLANS, SKILL_VERSIONS_PER_DAY } from "../../src/quota/plans";
import type { Env } from "../../src/env";

/**
 * Heavy work is metered: skill publishes (REST and the dashboard's form) and MCP server scans (REST
 * and service_mcp_scan) count against the plan's daily SCANS limit, shown in usage; a skill gets at
 * most 10 versions a UTC day; an account keeps at most its plan's bytes of skill files.
 */

const E = env as unknown as Env;
const md = (name: string, body = "Run the tests with `npm test` and read the output.") =>
  `---\nname: ${name}\ndescription: Helps with ${name} tasks in a project\n---\n\n# ${name}\n\n${body}\n`;
let n = 0;
const skillName = () => `metered-${Date.now().toString(36)}-${n++}`;
const publish = (a: TestAgent, name: string, body?: string) =>
  call("POST", "/v1/me/skills", {
    token: a.owner.token,
    body: { category: "coding", files: [{ path: "SKILL.md", content: md(name, body) }] },
  });
const scans = async (a: TestAgent) => (await call("GET", "/v1/me/usage/today", { token: a.owner.token })).body.metrics.SCANS;
const mcpScan = (a: TestAgent) =>
  call("POST", "/v1/mcp-servers/scan", { key: a.key, body: { tools: [{ name: "read_file", description: "Reads a file." }] } });

function at(iso: string) {
  let t = Date.parse(iso);
  setClock(() => t);
  return { next: () => void (t += 86_400_000) };
}

function expect429(r: { status: number; body: any; headers: Headers }, metric: string, limit: number, plan: string) {
  const e = expectError(r, 429, "RATE_LIMITED");
  expect(e.error.details).toMatchObject({ metric, limit, plan, resetsAt: expect.stringMatching(/T00:00:00\.000Z$/) });
  expect(e.error.details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(r.headers.get("retry-after")).toBe(String(e.error.details.retryAfterSeconds));
  expect(e.error.message).toContain(metric);
  return e;
}

describe("SCANS: skill publishes and MCP scans count against a daily limit", () => {
  it("FREE: 10 a day, publishes and MCP scans together; the 11th is the contract's 429; usage shows it; a failed publish gives it back", async () => {
    at("2031-06-01T10:00:00.000Z");
    const a = await newAgent();
    expect(PLANS.FREE.daily.SCANS).toBe(10);
    for (let i = 0; i < 6; i++) expect((await publish(a, skillName())).status).toBe(201);
    // A publish that fails (no description in SKILL.md) takes nothing.
    const bad = await call("POST", "/v1/me/skills", {
      token: a.owner.token,
      body: { category: "coding", files: [{ path: "SKILL.md", content: "---\nname: x-y\n---\n" }] },
    });
    expect(bad.status).toBe(400);
    for (let i = 0; i < 2; i++) expect((await mcpScan(a)).status).toBe(200);
    const mcp = await mcpClient(a.key);
    for (let i = 0; i < 2; i++) {
      const r: any = await mcp.callTool({ name: "service_mcp_scan", arguments: { tools: [{ name: "t", description: "A tool." }] } });
      expect(r.isError).toBeFalsy();
      if (i === 1) expect(r._meta["lore/quota"]).toMatchObject({ metric: "SCANS", used: 10, limit: 10, remaining: 0 });
    }
    expect(await scans(a)).toMatchObject({ used: 10, limit: 10, label: expect.stringContaining("publish") });
    // The agent's own usage shows the same account's counter.
    expect((await call("GET", "/v1/usage/today", { key: a.key })).body.metrics.SCANS).toMatchObject({ used: 10, limit: 10 });
    expect429(await publish(a, skillName()), "SCANS", 10, "FREE");
    expect429(await mcpScan(a), "SCANS", 10, "FREE");
    const tool: any = await mcp.callTool({ name: "service_mcp_scan", arguments: { tools: [{ name: "t", description: "A tool." }] } });
    expect(toolJson(tool).error).toMatchObject({ code: "RATE_LIMITED", details: { metric: "SCANS", limit: 10, plan: "FREE" } });
    await mcp.close();
    // Other actions keep working.
    expect((await call("GET", "/v1/usage/history?days=1", { key: a.key })).status).toBe(200);
    // The dashboard's usage page lists it.
    const page = await browse("GET", "/dashboard/usage", { cookie: `lore_session=${a.owner.token}` });
    expect(page.html).toContain("Scans (skill publishes, MCP server scans)");
  });

  it("the dashboard's publish form counts too, and says so when the day's publishes are used up", async () => {
    at("2031-06-02T10:00:00.000Z");
    const a = await newAgent();
    for (let i = 0; i < 9; i++) expect((await publish(a, skillName())).status).toBe(201);
    const form = (name: string) => {
      const boundary = "----lore-metering";
      const body =
        `--${boundary}\r\nContent-Disposition: form-data; name="category"\r\n\r\ncoding\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="SKILL.md"\r\nContent-Type: text/markdown\r\n\r\n${md(name)}\r\n` +
        `--${boundary}--\r\n`;
      return browse("POST", "/dashboard/skills/publish", {
        cookie: `lore_session=${a.owner.token}`,
        raw: { body: new TextEncoder().encode(body), type: `multipart/form-data; boundary=${boundary}` },
      });
    };
    expect((await form(skillName())).status).toBe(303);
    expect(await scans(a)).toMatchObject({ used: 10 });
    const refused = await form(skillName());
    expect(refused.status).toBe(429);
    expect(refused.html).toContain("SCANS limit of 10 per day on plan FREE");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await scans(a)).toMatchObject({ used: 10 });
  });
});

describe("what publishing may store", () => {
  it(`a skill gets at most ${SKILL_VERSIONS_PER_DAY} versions a UTC day, whatever the plan; the next day it may publish again`, async () => {
    const clock = at("2031-06-03T10:00:00.000Z");
    const a = await newAgent();
    await setPlanDirect(a.owner.ownerId, "EXPERT");
    const name = skillName();
    for (let v = 0; v < SKILL_VERSIONS_PER_DAY; v++) expect((await publish(a, name, `version ${v}`)).status).toBe(201);
    const before = (await scans(a)).used;
    expect429(await publish(a, name, "one more"), "SKILL_VERSIONS", SKILL_VERSIONS_PER_DAY, "EXPERT");
    // Refused before the scan, and its SCANS unit given back.
    expect((await scans(a)).used).toBe(before);
    // Another skill of the account is not held back.
    expect((await publish(a, skillName())).status).toBe(201);
    clock.next();
    expect((await publish(a, name, "the next day")).status).toBe(201);
  });

  it("parallel publishes of one skill with one version of the day left: one is stored", async () => {
    at("2031-06-04T10:00:00.000Z");
    const a = await newAgent();
    await setPlanDirect(a.owner.ownerId, "EXPERT");
    const name = skillName();
    for (let v = 0; v < SKILL_VERSIONS_PER_DAY - 1; v++) expect((await publish(a, name, `version ${v}`)).status).toBe(201);
    const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => publish(a, name, `racing ${i}`)));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of rs.filter((r) => r.status !== 201)) expect([409, 429]).toContain(r.status);
    const stored = await E.DB.prepare("SELECT COUNT(*) AS n FROM skill_versions v JOIN skills s ON s.id = v.skill_id WHERE s.slug = ?")
      .bind(name)
      .first<number>("n");
    expect(stored).toBe(SKILL_VERSIONS_PER_DAY);
  });

  it("an account keeps at most its plan's bytes of skill files: past them, 409 STORAGE_LIMIT before the scan, nothing stored, nothing counted", async () => {
    at("2031-06-05T10:00:00.000Z");
    const a = await newAgent();
    const name = skillName();
    expect((await publish(a, name)).status).toBe(201);
    // As if the account's earlier versions held nearly all of FREE's 50 MiB.
    await E.DB.prepare("UPDATE skill_versions SET artifact_size = ? WHERE skill_id = (SELECT id FROM skills WHERE slug = ?)")
      .bind(PLANS.FREE.storageBytes - 100, name)
      .run();
    const before = (await scans(a)).used;
    const other = skillName();
    const r = expectError(await publish(a, other), 409, "CONFLICT");
    expect(r.error.details).toMatchObject({ reason: "STORAGE_LIMIT", limit: PLANS.FREE.storageBytes, plan: "FREE" });
    expect(r.error.message).toMatch(/over the .* bytes of plan FREE/);
    expect((await scans(a)).used).toBe(before);
    expect(await E.DB.prepare("SELECT COUNT(*) AS n FROM skills WHERE slug = ?").bind(other).first<number>("n")).toBe(0);
    // A larger plan keeps more.
    await setPlanDirect(a.owner.ownerId, "STARTER");
    expect((await publish(a, other)).status).toBe(201);
    // The plan catalog says how much each plan keeps.
    const plans = (await call("GET", "/v1/plans")).body.items;
    expect(plans.map((p: any) => p.storageBytes)).toEqual(
      ["FREE", "STARTER", "PRO", "EXPERT"].map((id) => PLANS[id as keyof typeof PLANS].storageBytes),
    );
  });
});
