// `npm run bench`: starts its own local server (wrangler dev, fresh state in a temp folder),
// creates a pool of accounts, then measures requests/s and p50/p99 latency of each scenario
// against a bare route on the same server, printing the ratios. Not a test: budgets live here.
//
// Scenarios come from scripts/bench/*.mjs, each exporting `scenarios(ctx)` that returns
// `{name, method, path, headers?, body?}` templates; any field may be a function of the request
// index i. ctx.key(i) gives an agent key (round-robin over the pool, so one account's per-minute
// rate is never the bottleneck), ctx.pool[i].token a session token, ctx.origin the server. A file
// may also export `report(ctx)`, run after the scenarios, returning extra lines to print.
//
// Options (env): BENCH_REQUESTS (per scenario, default 1500), BENCH_CONCURRENCY (default 16),
// BENCH_ACCOUNTS (default 120), PORT (default: a free one), BENCH_ONLY (comma-separated name filter).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, freePort, migrateLocal, startDev, waitForServer, createAgent, newAdminToken, runMain } from "./lib.mjs";
import { seed } from "./seed.mjs";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 120);
// Other servers (tests, other benches) may run at the same time: never a fixed port by default.
const PORT = Number(process.env.PORT ?? (await freePort()));
const ONLY = process.env.BENCH_ONLY?.split(",").filter(Boolean);
const origin = `http://127.0.0.1:${PORT}`;

const at = (v, i) => (typeof v === "function" ? v(i) : v);

async function runScenario(s) {
  const lat = [];
  const statuses = new Map();
  let next = 0;
  const t0 = performance.now();
  async function worker() {
    while (next < REQUESTS) {
      const i = next++;
      const body = at(s.body, i);
      const headers = { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...at(s.headers, i) };
      const start = performance.now();
      const res = await fetch(origin + at(s.path, i), {
        method: at(s.method, i) ?? "GET",
        headers,
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      await res.arrayBuffer();
      lat.push(performance.now() - start);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const pct = (p) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))];
  return { name: s.name, rps: REQUESTS / secs, p50: pct(50), p99: pct(99), statuses: Object.fromEntries(statuses) };
}

async function main() {
  const state = mkdtempSync(path.join(tmpdir(), "lore-bench-"));
  migrateLocal(state);
  // The shipped data (data/) is loaded as npm start loads it, so scenarios read real data.
  const adminToken = newAdminToken();
  const dev = startDev({ port: PORT, persistTo: state, quiet: true, vars: { ADMIN_TOKEN: adminToken }, inspectorPort: await freePort() });
  try {
    await waitForServer(origin);
    const t0 = Date.now();
    await seed(origin, adminToken);
    console.log(`shipped data loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    console.log(`server up at ${origin}; creating ${ACCOUNTS} accounts…`);
    const pool = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const acct = await createAgent(origin, { email: `bench${a}@example.com`, handle: `bench-${a}` });
      // The highest plan, so per-account limits are as wide as the contract allows.
      await fetch(`${origin}/v1/billing/subscribe`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${acct.token}` },
        body: JSON.stringify({ plan: "EXPERT" }),
      });
      pool.push(acct);
    }
    const ctx = {
      origin,
      pool,
      key: (i) => pool[i % pool.length].key,
      auth: (i) => ({ authorization: `Bearer ${pool[i % pool.length].key}` }),
    };
    const mcpCall = (name, args) => (i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name, arguments: args },
    });
    const mcpHeaders = (i) => ({ ...ctx.auth(i), accept: "application/json, text/event-stream" });
    const scenarios = [
      { name: "bare GET / (no auth, no operation)", method: "GET", path: "/" },
      { name: "public operation GET /v1/plans", method: "GET", path: "/v1/plans" },
      { name: "MCP tools/call service_usage (free: auth, no quota)", method: "POST", path: "/v1/mcp", headers: mcpHeaders, body: mcpCall("service_usage", {}) },
      { name: "MCP tools/call service_kb_search (counted)", method: "POST", path: "/v1/mcp", headers: mcpHeaders, body: mcpCall("service_kb_search", { q: "react" }) },
    ];
    const dir = path.join(ROOT, "scripts", "bench");
    const reports = [];
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".mjs")).sort()) {
      const mod = await import(pathToFileURL(path.join(dir, f)).href);
      if (typeof mod.scenarios === "function") {
        for (const sc of await mod.scenarios({ ...ctx, mcpCall, mcpHeaders })) scenarios.push({ ...sc, file: f });
      }
      if (typeof mod.report === "function") reports.push({ file: f, report: mod.report });
    }
    // The bare route is always measured first: every ratio is against it.
    const chosen = ONLY ? scenarios.filter((s, i) => i === 0 || ONLY.some((o) => s.name.includes(o))) : scenarios;
    // Warm up the isolate and the Durable Objects before measuring.
    for (const s of chosen.slice(0, 4)) await runScenario({ ...s }).catch(() => {});
    const results = [];
    for (const s of chosen) {
      const r = await runScenario(s);
      results.push(r);
      console.log(`  ${r.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ${JSON.stringify(r.statuses)}`);
    }
    const bare = results[0];
    console.log(`\n${REQUESTS} requests per scenario, concurrency ${CONCURRENCY}, ${ACCOUNTS} accounts\n`);
    console.log("| scenario | req/s | p50 ms | p99 ms | req/s vs bare | p50 vs bare | statuses |");
    console.log("|---|---|---|---|---|---|---|");
    for (const r of results) {
      console.log(
        `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${(r.rps / bare.rps).toFixed(2)}× | ${(r.p50 / bare.p50).toFixed(2)}× | ${JSON.stringify(r.statuses)} |`,
      );
    }
    for (const r of reports) {
      if (!chosen.some((s) => s.file === r.file)) continue;
      console.log(await r.report(ctx));
    }
  } finally {
    dev.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 500));
    rmSync(state, { recursive: true, force: true });
  }
}

runMain(main, "[bench]");
