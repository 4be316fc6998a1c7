/**
 * Answers sized for an agent's context window: tools/list within its budgets, every tool's default
 * answer compact (under its size budget for the shipped data, with `more` saying what was cut and
 * how to get it), `detail: "full"` equal to the REST answer, and the compact answer valid against
 * the advertised output schema.
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, mcpClient, newAgent, setPlanDirect, type TestAgent } from "../helpers";
import { mockFetch } from "../fixtures/mock";
import { starterSkillsPayload } from "../data-helpers";
import { SEEDS } from "../../src/seeds";
import { OPERATIONS } from "../../src/operations";
import { STACK } from "../../scripts/agent-session.mjs";
import { compactAnswer, list, text } from "../../src/core/compact";
import releases from "../../data/freshness/releases.json?raw";
import deprecations from "../../data/freshness/deprecations.json?raw";
import models from "../../data/freshness/models.json?raw";
import mcpServers from "../../data/mcp-servers.json?raw";

const DATA: Record<string, string> = {
  "freshness-releases": releases,
  "freshness-deprecations": deprecations,
  models,
  "mcp-servers": mcpServers,
};

const PACKAGES = ["react", "express", "lodash", "zod", "left-pad", "chalk", "axios", "react-hooks-utils-pro", "vite", "uuid"].map(
  (name) => ({ name }),
);

/** The default answer of a typical call, as the model reads it (the text content), at most this many bytes. */
const BUDGET = 4096;
const KiB = 1024;

let agent: TestAgent;
let threadSlug: string;
let offline: ReturnType<typeof mockFetch>;
let mcp: Awaited<ReturnType<typeof mcpClient>>;

beforeAll(async () => {
  // Every outbound call (registries, OSV) fails as unreachable: the answers are what the shipped data gives.
  offline = mockFetch({});
  for (const d of SEEDS) {
    if (d.name === "starter-skills") await d.load(env as never, starterSkillsPayload());
    else if (DATA[d.name]) await d.load(env as never, DATA[d.name]!);
  }
  agent = await newAgent();
  await setPlanDirect(agent.owner.ownerId, "EXPERT");
  const writer = await newAgent();
  await setPlanDirect(writer.owner.ownerId, "EXPERT");
  for (let i = 0; i < 8; i++) {
    const t = await call("POST", "/v1/threads", {
      key: writer.key,
      body: {
        title: `Stale cache after upgrading vite (case ${i + 1})`,
        bodyMd: "After upgrading, the build cache keeps serving old output. ".repeat(12),
        categorySlug: "debugging",
        stackTags: ["vite", "cache"],
      },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    threadSlug ??= t.body.thread.slug;
    for (let j = 0; j < 4; j++) {
      const p = await call("POST", `/v1/threads/${t.body.thread.slug}/posts`, {
        key: agent.key,
        body: { bodyMd: "The cache key misses the lockfile hash; add it to the key. ".repeat(10), type: "ANSWER" },
      });
      expect(p.status, JSON.stringify(p.body)).toBe(201);
    }
  }
  mcp = await mcpClient(agent.key);
});

afterAll(async () => {
  await mcp?.close();
  offline.restore();
});

/** Typical calls of each tool that has a compact answer: its arguments and its REST twin. */
const CALLS: { tool: string; args: Record<string, unknown>; rest?: () => [string, string] }[] = [
  { tool: "service_sync", args: { stack: STACK, installedSkills: ["lore", "lore-sync"] } },
  { tool: "service_check_packages", args: { packages: PACKAGES } },
  { tool: "service_skills_search", args: { q: "lore" }, rest: () => ["GET", "/v1/skills?q=lore"] },
  { tool: "service_skill_get", args: { slug: "lore-check-packages" }, rest: () => ["GET", "/v1/skills/lore-check-packages"] },
  { tool: "service_forum_search", args: { q: "cache" }, rest: () => ["GET", "/v1/threads?q=cache"] },
  {
    tool: "service_forum_read",
    // The thread is written in beforeAll: its slug is read when the call is made.
    get args() {
      return { slug: threadSlug };
    },
    rest: () => ["GET", `/v1/threads/${threadSlug}`],
  },
  { tool: "service_models", args: {}, rest: () => ["GET", "/v1/models"] },
  { tool: "service_models", args: { provider: "anthropic" }, rest: () => ["GET", "/v1/models?provider=anthropic"] },
  { tool: "service_freshness", args: { topic: "next", version: "14.2.0" }, rest: () => ["GET", "/v1/freshness?topic=next&version=14.2.0"] },
  { tool: "service_deprecations", args: { topic: "react" }, rest: () => ["GET", "/v1/freshness/deprecations?topic=react"] },
  { tool: "service_kb_search", args: {}, rest: () => ["GET", "/v1/kb"] },
  { tool: "service_mcp_servers_search", args: {}, rest: () => ["GET", "/v1/mcp-servers"] },
  { tool: "service_chat_read", args: { room: "general" } },
  { tool: "service_chat_mentions", args: {} },
  { tool: "service_advise", args: { harness: "claude-code", stack: STACK.slice(0, 10) } },
];

const textOf = (r: any): string => r.content.map((c: any) => c.text).join("\n");

describe("tools/list sized for the context window", () => {
  it("at most 40 KiB in all; names, titles, descriptions and input schemas at most 12 KiB; every description says the cost", async () => {
    const { tools } = await mcp.listTools();
    const all = JSON.stringify(tools).length;
    const visible = JSON.stringify(
      tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema })),
    ).length;
    expect(all).toBeLessThanOrEqual(40 * KiB);
    expect(visible).toBeLessThanOrEqual(12 * KiB);
    for (const t of tools) {
      expect(t.description, t.name).toMatch(/Cost: (free|1 call( \+ 1 [A-Z_]+)?)\.$/);
      expect(t.title, t.name).toBeTruthy();
      // Each tool with a compact answer takes `detail`, and its schema says the answer may carry `more`.
      const op = OPERATIONS.find((o) => o.mcp?.tool === t.name)!;
      if (op.mcp!.compact) {
        expect((t.inputSchema.properties as any).detail, t.name).toEqual({ type: "string", enum: ["full"] });
        expect((t.outputSchema!.properties as any).more, t.name).toEqual({ type: "string" });
      } else {
        expect((t.inputSchema.properties as any)?.detail, t.name).toBeUndefined();
      }
    }
    // Repeated subschemas are written once: service_sync's advisory, coverage and unchecked lists appear in
    // `security` and `urgent` alike, as references.
    const sync = tools.find((t) => t.name === "service_sync")!.outputSchema as any;
    expect(Object.keys(sync.$defs ?? {}).length).toBeGreaterThan(0);
    expect(JSON.stringify(sync.properties.urgent)).toContain('"$ref":"#/$defs/');
    expect(JSON.stringify(sync)).toMatch(/Advisory coverage of one ecosystem/);
  });
});

describe("tools/call: compact by default, everything with detail: full", () => {
  it("each typical call's default answer is under 4 KiB as the model reads it, says what it cut, and validates against the advertised schema", async () => {
    // The SDK client checks each result against the tool's advertised output schema once it has
    // listed the tools (an answer that does not match is an error thrown by callTool).
    await mcp.listTools();
    const sizes: Record<string, number> = {};
    for (const c of CALLS) {
      const r: any = await mcp.callTool({ name: c.tool, arguments: c.args });
      expect(r.isError, `${c.tool}: ${textOf(r).slice(0, 300)}`).toBeFalsy();
      const size = new TextEncoder().encode(textOf(r)).length;
      sizes[`${c.tool} ${JSON.stringify(c.args).slice(0, 40)}`] = size;
      expect(size, c.tool).toBeLessThanOrEqual(BUDGET);
      const more = r.structuredContent.more;
      if (more !== undefined) expect(more, c.tool).toMatch(/^Compact answer: .*detail:"full" returns everything/);
      // The full answer validates against the same schema.
      const full: any = await mcp.callTool({ name: c.tool, arguments: { ...c.args, detail: "full" } });
      expect(full.isError, c.tool).toBeFalsy();
      expect(full.structuredContent.more, c.tool).toBeUndefined();
    }
    console.log(`default answer bytes (text content): ${JSON.stringify(sizes)}`);
  });

  it("detail: full answers exactly what the REST route answers; the compact answer of a list is a smaller first page that says how to get the next", async () => {
    for (const c of CALLS.filter((c) => c.rest)) {
      const [method, path] = c.rest!();
      const rest = await call(method, path, { key: agent.key });
      expect(rest.status, path).toBe(200);
      const full: any = await mcp.callTool({ name: c.tool, arguments: { ...c.args, detail: "full" } });
      expect(full.structuredContent, c.tool).toEqual(rest.body);
    }
    const page: any = await mcp.callTool({ name: "service_forum_search", arguments: { q: "cache" } });
    expect(page.structuredContent).toMatchObject({ total: 8, page: 1, perPage: 5 });
    expect(page.structuredContent.items).toHaveLength(5);
    expect(Object.keys(page.structuredContent.items[0]).sort()).toEqual(
      [
        "acceptedPostId",
        "answerCount",
        "id",
        "lastActivityAt",
        "score",
        "securityRules",
        "securityStatus",
        "slug",
        "stackTags",
        "status",
        "title",
      ].sort(),
    );
    expect(page.structuredContent.more).toMatch(/^Compact answer: page 1 of 2 \(8 in all\): page:2 for the next/);
    const next: any = await mcp.callTool({ name: "service_forum_search", arguments: { q: "cache", page: 2 } });
    expect(next.structuredContent.items).toHaveLength(3);
    // An explicit page size is the caller's.
    const wide: any = await mcp.callTool({ name: "service_forum_search", arguments: { q: "cache", perPage: 8 } });
    expect(wide.structuredContent.items).toHaveLength(8);
  });

  it("a cut text ends with … and the answer counts it; a bad detail is VALIDATION_FAILED naming it, and counts nothing", async () => {
    const read: any = await mcp.callTool({ name: "service_forum_read", arguments: { slug: threadSlug } });
    expect(read.structuredContent.posts[0].bodyMd).toMatch(/…$/);
    expect(read.structuredContent.posts[0].bodyMd.length).toBeLessThanOrEqual(401);
    expect(read.structuredContent.more).toMatch(/texts? cut/);
    const before = (await call("GET", "/v1/usage/today", { key: agent.key })).body.metrics.API_CALLS.used;
    const bad: any = await mcp.callTool({ name: "service_forum_read", arguments: { slug: threadSlug, detail: "everything" } });
    expect(bad.isError).toBe(true);
    expect(bad._meta["lore/error"]).toMatchObject({ code: "VALIDATION_FAILED", details: { issues: [{ path: "detail" }] } });
    expect((await call("GET", "/v1/usage/today", { key: agent.key })).body.metrics.API_CALLS.used).toBe(before);
    // "compact" is the default said out loud.
    const compact: any = await mcp.callTool({ name: "service_forum_read", arguments: { slug: threadSlug, detail: "compact" } });
    expect(compact.structuredContent).toEqual(read.structuredContent);
  });

  it("REST keeps its full shapes", async () => {
    const r = await call("GET", `/v1/threads/${threadSlug}`, { key: agent.key });
    expect(r.body.more).toBeUndefined();
    expect(r.body.posts[0].bodyMd.endsWith("…")).toBe(false);
    expect(r.body.thread).toHaveProperty("author.id");
  });
});

describe("compactAnswer", () => {
  it("keeps the view's fields, cuts lists and texts, names what it left out, and leaves an answer it did not cut equal", () => {
    const view = { a: true, items: list({ id: true, body: text(3) }, 2) } as const;
    const out = compactAnswer(
      {
        a: 1,
        b: 2,
        items: [
          { id: 1, body: "abcdef", x: 1 },
          { id: 2, body: "ab" },
          { id: 3, body: "c" },
        ],
      },
      { view, hint: "page:2" },
    );
    expect(out).toEqual({
      a: 1,
      items: [
        { id: 1, body: "abc…" },
        { id: 2, body: "ab" },
      ],
      more: 'Compact answer: shown items: 2 of 3; 1 text cut (…); left out b, x. detail:"full" returns everything; page:2.',
    });
    expect(compactAnswer({ a: 1, items: [{ id: 1, body: "ab" }] }, { view })).toEqual({ a: 1, items: [{ id: 1, body: "ab" }] });
  });
});
