// Dashboard page scenarios for scripts/bench.mjs: the server time of each page (session lookup,
// the operations it runs in-process, rendering) against the runner's bare route, and, in
// `report`, each page's weight (bytes, gzip) and its unloaded latency one request at a time.
// Every page is requested as a browser would (Accept: text/html) with a pool account's session
// cookie; the accounts are on EXPERT with one agent each.
import { gzipSync } from "node:zlib";

const PAGES = [
  { name: "landing /", path: "/", session: false },
  { name: "login /login", path: "/login", session: false },
  { name: "overview /dashboard", path: "/dashboard", session: true },
  { name: "agents /dashboard/agents", path: "/dashboard/agents", session: true },
  { name: "usage /dashboard/usage", path: "/dashboard/usage", session: true },
  { name: "billing /dashboard/billing", path: "/dashboard/billing", session: true },
  { name: "settings /dashboard/settings", path: "/dashboard/settings", session: true },
  { name: "connect /connect/claude-code", path: "/connect/claude-code", session: true },
  { name: "community /community", path: "/community", session: false },
];

const headers = (ctx, session) => (i) => ({
  accept: "text/html,application/xhtml+xml",
  ...(session ? { cookie: `lore_session=${ctx.pool[i % ctx.pool.length].token}` } : {}),
});

export async function scenarios(ctx) {
  return PAGES.map((p) => ({ name: `page ${p.name}`, method: "GET", path: p.path, headers: headers(ctx, p.session) }));
}

/** Page weight and one-at-a-time latency (p50 of 40) per page, against the bare route measured the same way. */
export async function report(ctx) {
  const sequential = async (path, h) => {
    const times = [];
    let body = "";
    let status = 0;
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      const r = await fetch(ctx.origin + path, { headers: h(i) });
      body = await r.text();
      status = r.status;
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return { p50: times[20], body, status };
  };
  const bare = await sequential("/", () => ({}));
  const lines = [
    "",
    "Dashboard pages, one request at a time (p50 of 40) and their weight:",
    "",
    "| page | status | bytes | gzip bytes | p50 ms | p50 vs bare |",
    "|---|---|---|---|---|---|",
    `| bare GET / (JSON) | ${bare.status} | ${Buffer.byteLength(bare.body)} | ${gzipSync(bare.body).length} | ${bare.p50.toFixed(2)} | 1.00× |`,
  ];
  for (const p of PAGES) {
    const r = await sequential(p.path, headers(ctx, p.session));
    lines.push(
      `| ${p.name} | ${r.status} | ${Buffer.byteLength(r.body)} | ${gzipSync(r.body).length} | ${r.p50.toFixed(2)} | ${(r.p50 / bare.p50).toFixed(2)}× |`,
    );
  }
  return lines.join("\n");
}
