// `npm run bench:context`: what one scripted agent session costs the agent's context window.
// Starts its own local server (wrangler dev, fresh state in a temp folder, the shipped data loaded
// as `npm start` loads it), writes a few forum threads so the forum has something to find, then
// runs one session through the MCP SDK client (Client + StreamableHTTPClientTransport on /v1/mcp):
// initialize, tools/list, service_sync of a 30-entry stack, service_check_packages for 10 names,
// a skill search and one skill, a forum search and one thread, the models of one provider.
//
// For each step it prints the bytes on the wire (the JSON-RPC response bodies) and what a model
// sees of it, in bytes and tokens:
// - tools/list: each tool's name, title, description and input schema (what most clients put
//   into the model's context on every turn; output schemas and annotations stay with the client);
// - tools/call: the result's text content (what clients hand the model; structuredContent repeats
//   it for programs).
// Tokens are counted with gpt-tokenizer (OpenAI's o200k_base encoding, a devDependency): other
// models' tokenizers differ by some percent, the ratios between steps hardly at all.
//
// Options (env): PORT (default: a free one), BENCH_JSON=1 prints the table as JSON too, BENCH_DUMP=<dir>
// writes each step's answer there (<step number>.json).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { fail, freePort, migrateLocal, startDev, waitForServer, createAgent, newAdminToken, runMain } from "./lib.mjs";
import { seed } from "./seed.mjs";
import { STACK } from "./agent-session.mjs";

const PORT = Number(process.env.PORT ?? (await freePort()));
const origin = `http://127.0.0.1:${PORT}`;

/** Ten names an agent might be about to install: real ones, a typo, a made-up one, other ecosystems. */
const PACKAGES = [
  { name: "react", ecosystem: "npm" },
  { name: "express", ecosystem: "npm" },
  { name: "lodash", ecosystem: "npm" },
  { name: "zod", ecosystem: "npm" },
  { name: "reqeusts", ecosystem: "pypi" },
  { name: "requests", ecosystem: "pypi" },
  { name: "fastapi", ecosystem: "pypi" },
  { name: "serde", ecosystem: "cargo" },
  { name: "react-hooks-utils-pro", ecosystem: "npm" },
  { name: "github.com/gin-gonic/gin", ecosystem: "go" },
];

/** Forum threads about caching, each with answers and comments, so search and read have real pages. */
const TOPICS = ["react", "next", "hono", "drizzle-orm", "vite", "wrangler", "fastapi", "django", "tokio", "express", "zod", "vitest"];
function threadText(i) {
  const lib = TOPICS[i % TOPICS.length];
  return {
    title: `Stale cache after upgrading ${lib} (case ${i + 1})`,
    bodyMd:
      `After upgrading ${lib} the build cache keeps serving old output. I cleared node_modules and the cache folder, ` +
      `but the first request after a deploy still returns the previous version.\n\n` +
      "```sh\nnpm run build && npm start\n```\n\nWhat invalidates this cache, and is there a setting for it?",
    categorySlug: "debugging",
    stackTags: [lib, "cache"],
  };
}
const answerText = (i, j) =>
  `The cache key does not include the lockfile hash in ${TOPICS[i % TOPICS.length]}'s default config (answer ${j + 1}). ` +
  "Add the lockfile to the key, or set the cache directory per build id. After that, a deploy starts cold once and then " +
  "hits the cache again. We measured the first request at 40 ms slower, the rest unchanged.";

async function rest(method, p, key, body) {
  const r = await fetch(origin + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  if (!r.ok) fail(`${method} ${p}: ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const tokens = (text) => encode(text).length;

async function main() {
  const state = mkdtempSync(path.join(tmpdir(), "lore-bench-context-"));
  migrateLocal(state, { quiet: true });
  const adminToken = newAdminToken();
  const dev = startDev({ port: PORT, persistTo: state, quiet: true, vars: { ADMIN_TOKEN: adminToken }, inspectorPort: await freePort() });
  try {
    await waitForServer(origin, 120_000, { adminToken, child: dev });
    await seed(origin, adminToken);

    // Two agents of two accounts on the highest plan: one writes the forum, the other is the session.
    const writer = await createAgent(origin, { email: "bench-context-writer@example.com", handle: "ctx-writer" });
    const helper = await createAgent(origin, { email: "bench-context-helper@example.com", handle: "ctx-helper" });
    const agent = await createAgent(origin, { email: "bench-context@example.com", handle: "ctx-agent" });
    for (const a of [writer, helper, agent]) await rest("POST", "/v1/billing/subscribe", a.token, { plan: "EXPERT" });
    for (let i = 0; i < 12; i++) {
      const t = await rest("POST", "/v1/threads", writer.key, threadText(i));
      const slug = t.thread?.slug ?? t.slug;
      for (let j = 0; j < 3; j++) {
        const a = await rest("POST", `/v1/threads/${slug}/posts`, helper.key, { bodyMd: answerText(i, j), type: "ANSWER" });
        const postId = a.post?.id ?? a.id;
        await rest("POST", `/v1/threads/${slug}/posts`, writer.key, {
          bodyMd: "Thanks, that fixed it for the dev server; the CI cache still misses.",
          type: "COMMENT",
          parentId: postId,
        });
      }
    }

    // The session. Every response body the transport receives is counted against the current step.
    let wire = 0;
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agent.key}` } },
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        const body = await res.arrayBuffer();
        wire += body.byteLength;
        return new Response(res.status === 202 || res.status === 204 ? null : body, {
          status: res.status,
          statusText: res.statusText,
          headers: res.headers,
        });
      },
    });
    const client = new Client({ name: "lore-bench-context", version: "1.0.0" });
    const rows = [];
    const step = async (name, run, visible) => {
      wire = 0;
      const out = await run();
      const text = visible(out);
      if (process.env.BENCH_DUMP) writeFileSync(path.join(process.env.BENCH_DUMP, `${rows.length}.json`), JSON.stringify(out, null, 1));
      rows.push({ step: name, wireBytes: wire, wireTokens: null, modelBytes: Buffer.byteLength(text), modelTokens: tokens(text) });
      return out;
    };
    const toolText = (r) => {
      if (r.isError) fail(`a tool call failed: ${JSON.stringify(r.content).slice(0, 300)}`);
      return r.content.map((c) => (c.type === "text" ? c.text : JSON.stringify(c))).join("\n");
    };
    const callTool = (name, args) => client.callTool({ name, arguments: args });

    await step(
      "initialize",
      () => client.connect(transport).then(() => client.getInstructions() ?? ""),
      (instructions) => instructions,
    );
    const listed = await step(
      "tools/list",
      () => client.listTools(),
      (r) => JSON.stringify(r.tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema }))),
    );
    const sync = await step(
      "service_sync (30-entry stack)",
      () => callTool("service_sync", { stack: STACK, installedSkills: ["lore", "lore-sync"] }),
      toolText,
    );
    await step("service_check_packages (10 names)", () => callTool("service_check_packages", { packages: PACKAGES }), toolText);
    const skills = await step('service_skills_search {q:"packages"}', () => callTool("service_skills_search", { q: "packages" }), toolText);
    const skillSlug = skills.structuredContent?.items?.[0]?.slug;
    if (!skillSlug) fail(`the skill search found nothing: ${toolText(skills).slice(0, 200)}`);
    await step(`service_skill_get {slug:"${skillSlug}"}`, () => callTool("service_skill_get", { slug: skillSlug }), toolText);
    const forum = await step('service_forum_search {q:"cache"}', () => callTool("service_forum_search", { q: "cache" }), toolText);
    const threadSlug = forum.structuredContent?.items?.[0]?.slug;
    if (!threadSlug) fail(`the forum search found nothing: ${toolText(forum).slice(0, 200)}`);
    await step("service_forum_read (3 answers, 3 comments)", () => callTool("service_forum_read", { slug: threadSlug }), toolText);
    await step('service_models {provider:"anthropic"}', () => callTool("service_models", { provider: "anthropic" }), toolText);
    await client.close();

    // The tools/list answer apart: what the model sees and what only the client reads.
    const all = Buffer.byteLength(JSON.stringify(listed.tools));
    const outputSchemas = listed.tools.reduce((n, t) => n + (t.outputSchema ? Buffer.byteLength(JSON.stringify(t.outputSchema)) : 0), 0);
    const largest = [...listed.tools].sort(
      (a, b) => JSON.stringify(b.outputSchema ?? {}).length - JSON.stringify(a.outputSchema ?? {}).length,
    )[0];

    const total = rows.reduce(
      (t, r) => ({
        wireBytes: t.wireBytes + r.wireBytes,
        modelBytes: t.modelBytes + r.modelBytes,
        modelTokens: t.modelTokens + r.modelTokens,
      }),
      { wireBytes: 0, modelBytes: 0, modelTokens: 0 },
    );
    const fmt = (n) => n.toLocaleString("en-US");
    console.log(
      `\nOne agent session through the MCP SDK client (${listed.tools.length} tools; sync mode ${sync.structuredContent?.mode ?? "?"}):\n`,
    );
    console.log("| step | wire bytes | model-visible bytes | model-visible tokens |");
    console.log("|---|---:|---:|---:|");
    for (const r of rows) console.log(`| ${r.step} | ${fmt(r.wireBytes)} | ${fmt(r.modelBytes)} | ${fmt(r.modelTokens)} |`);
    console.log(`| **total** | ${fmt(total.wireBytes)} | ${fmt(total.modelBytes)} | ${fmt(total.modelTokens)} |`);
    console.log(
      `\ntools/list: ${fmt(all)} bytes of tools, of which output schemas ${fmt(outputSchemas)} (largest: ${largest.name}, ` +
        `${fmt(JSON.stringify(largest.outputSchema ?? {}).length)}); model-visible part ${fmt(rows[1].modelBytes)} bytes.`,
    );
    console.log("tokens: gpt-tokenizer, o200k_base; wire bytes are the HTTP response bodies of the step.");
    if (process.env.BENCH_JSON) console.log(JSON.stringify({ rows, total, toolsBytes: all, outputSchemas }));
  } finally {
    dev.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 1000));
    if (dev.exitCode === null) dev.kill("SIGKILL");
    rmSync(state, { recursive: true, force: true });
  }
}

runMain(main, "[bench:context]");
