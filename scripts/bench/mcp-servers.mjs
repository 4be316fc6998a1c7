// MCP servers scenarios for scripts/bench.mjs: directory search (FTS5, bm25) and a filtered list,
// one server's detail (its tools, findings and the 13 harness configurations rendered), and the
// tool-poisoning scan of a 30-tool server (REST and MCP). The directory is the shipped seed
// (data/mcp-servers.json, loaded by the bench's seed step); the 30 tools are Playwright's published
// tool names with descriptions and input schemas of the size real servers send.
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../lib.mjs";

const WORDS = ["github", "browser", "search", "database", "files", "kubernetes", "docs", "payments"];

function thirtyTools() {
  const seed = JSON.parse(readFileSync(path.join(ROOT, "data", "mcp-servers.json"), "utf8"));
  const playwright = seed.find((s) => s.name === "io.github.microsoft/playwright-mcp");
  const base = playwright.tools.slice(0, 29);
  const tools = [...base, { name: "browser_pdf_save", description: "Saves the page as PDF." }].map((t, i) => ({
    name: t.name,
    title: t.name.replace(/_/g, " "),
    description: `${t.description} ${"Use the element reference from the latest snapshot; the page must be open. ".repeat(3)}Returns a short status and, where it applies, the new snapshot.`,
    inputSchema: {
      type: "object",
      properties: {
        element: {
          type: "string",
          description: "Human-readable element description used to obtain permission to interact with the element",
        },
        ref: { type: "string", description: "Exact target element reference from the page snapshot" },
        timeout: { type: "number", description: "Milliseconds to wait before failing", default: 5000 + i },
        mode: { type: "string", enum: ["fast", "full"], description: "How much of the page to capture" },
      },
      required: ["ref"],
    },
    annotations: { title: t.name, readOnlyHint: i % 2 === 0 },
  }));
  return { instructions: "Browser automation for agents: open pages, read accessibility snapshots, click and type.", tools };
}

export async function scenarios(ctx) {
  const auth = (i) => ({ authorization: `Bearer ${ctx.key(i)}` });
  const list = await fetch(`${ctx.origin}/v1/mcp-servers?perPage=100`, { headers: auth(0) }).then((r) => r.json());
  if (!list.items?.length) throw new Error(`bench: the MCP directory is empty (${JSON.stringify(list).slice(0, 200)})`);
  const slugs = list.items.map((x) => x.slug);
  const scanBody = thirtyTools();
  let fresh = 0;
  const check = await fetch(`${ctx.origin}/v1/mcp-servers/scan`, {
    method: "POST",
    headers: { ...auth(0), "content-type": "application/json" },
    body: JSON.stringify(scanBody),
  });
  const checked = await check.json();
  if (check.status !== 200 || checked.securityStatus !== "passed")
    throw new Error(`bench: the 30-tool fixture should pass the scan: ${check.status} ${JSON.stringify(checked).slice(0, 300)}`);
  return [
    {
      name: "MCP directory search GET /v1/mcp-servers?q=<word>",
      method: "GET",
      path: (i) => `/v1/mcp-servers?q=${WORDS[i % WORDS.length]}`,
      headers: auth,
    },
    {
      name: "MCP directory list GET /v1/mcp-servers?security=passed&transport=stdio",
      method: "GET",
      path: "/v1/mcp-servers?security=passed&transport=stdio&perPage=50",
      headers: auth,
    },
    {
      name: "MCP server detail GET /v1/mcp-servers/:slug (13 harness configs)",
      method: "GET",
      path: (i) => `/v1/mcp-servers/${slugs[i % slugs.length]}`,
      headers: auth,
    },
    {
      name: "MCP scan POST /v1/mcp-servers/scan (30 tools, the same list: the held verdict)",
      method: "POST",
      path: "/v1/mcp-servers/scan",
      headers: auth,
      body: scanBody,
    },
    {
      // One description differs per request: every request is scanned.
      name: "MCP scan POST /v1/mcp-servers/scan (30 tools, a new list each time)",
      method: "POST",
      path: "/v1/mcp-servers/scan",
      headers: auth,
      body: () => ({
        ...scanBody,
        tools: scanBody.tools.map((t, k) => (k === 0 ? { ...t, description: `${t.description} (${++fresh})` } : t)),
      }),
    },
    {
      name: "MCP tools/call service_mcp_scan (30 tools, the same list)",
      method: "POST",
      path: "/v1/mcp",
      headers: ctx.mcpHeaders,
      body: ctx.mcpCall("service_mcp_scan", scanBody),
    },
  ];
}

/** One request at a time (p50 of 40 each): what a request costs without contention, beside the bare route. */
export async function report(ctx) {
  const auth = { authorization: `Bearer ${ctx.key(0)}` };
  const body = JSON.stringify(thirtyTools());
  const res = await fetch(`${ctx.origin}/v1/mcp-servers?perPage=1`, { headers: auth });
  const list = await res.json();
  // A small pool (BENCH_ACCOUNTS) can leave this key at its per-minute limit after the scenarios.
  if (!res.ok || !list.items?.length)
    return `
MCP servers, one request at a time: skipped (the list answered ${res.status} ${list.error?.code ?? ""})`;
  const slug = list.items[0].slug;
  const cases = [
    ["bare GET /", () => fetch(`${ctx.origin}/`)],
    ["search ?q=browser", () => fetch(`${ctx.origin}/v1/mcp-servers?q=browser`, { headers: auth })],
    ["detail (13 configs)", () => fetch(`${ctx.origin}/v1/mcp-servers/${slug}`, { headers: auth })],
    [
      "scan, 30 tools",
      () => fetch(`${ctx.origin}/v1/mcp-servers/scan`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body }),
    ],
  ];
  const lines = ["\n| MCP servers, one request at a time | p50 ms | vs bare |", "|---|---|---|"];
  let bare = 0;
  for (const [name, f] of cases) {
    const lat = [];
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      const r = await f();
      await r.arrayBuffer();
      lat.push(performance.now() - t);
    }
    lat.sort((a, b) => a - b);
    const p50 = lat[20];
    if (!bare) bare = p50;
    lines.push(`| ${name} | ${p50.toFixed(1)} | ${(p50 / bare).toFixed(1)}× |`);
  }
  return lines.join("\n");
}
