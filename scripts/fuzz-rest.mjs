// `npm run fuzz:rest`: throws odd requests at every route of a running Lore (LORE_URL, or PORT on
// 127.0.0.1): every operation of /v1/openapi.json with every credential kind (none, a made-up key,
// an agent key, a session token), odd path segments and query strings, and bodies that are
// malformed, wrong-typed, deeply nested, not UTF-8, in the wrong content type, empty, or oversized
// with a Content-Length and streamed (chunked, no length); the same for the dashboard's forms, the
// MCP endpoint, the Stripe webhook, the operator and discovery routes and unknown paths. It counts
// what a client must never see: a 5xx, an API error not in the contract's shape
// `{error: {code, message, details?}}`, an answer without an x-request-id, and a connection reset
// for a body the route should have answered. It makes its own accounts.
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { createAgent, fail, fuzzMain, requestJson, statusCounts } from "./lib.mjs";

const MiB = 1024 * 1024;

/** Odd values for a path segment. */
const SEGMENTS = [
  "x",
  "0",
  "-1",
  "%00",
  "%2e%2e",
  "..%2f..%2fetc",
  "a".repeat(600),
  "%F0%9F%91%A9",
  "%FF%FE",
  "null",
  "undefined",
  "1e999",
  "%E2%80%8B",
];
/** Odd query strings. */
const QUERIES = [
  "",
  "?page=0",
  "?page=-1&perPage=1000",
  "?perPage=abc",
  "?q=%00",
  `?q=${"x".repeat(5000)}`,
  "?days=1e9",
  "?unread=yes",
  "?after=%FF",
  "?a=1&a=2&a=3",
  "?__proto__[x]=1",
  "?%zz",
];

function bodies() {
  let deep = {};
  for (let i = 0; i < 400; i++) deep = { a: deep };
  return [
    { raw: "" },
    { raw: "{" },
    { raw: "null" },
    { raw: "[]" },
    { raw: "5" },
    { raw: '"x"' },
    { raw: "{}" },
    {
      raw: JSON.stringify({
        title: 5,
        body: [],
        content: null,
        name: {},
        email: true,
        password: 1,
        plan: "NOPE",
        files: "x",
        tools: 5,
        stack: {},
      }),
    },
    { raw: JSON.stringify(deep) },
    { raw: '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}' },
    { raw: JSON.stringify({ title: "\u202e\u200b".repeat(500), bodyMd: "\u0000".repeat(100), content: "x".repeat(200_000) }) },
    { raw: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
    { raw: "a=1&b=2", type: "application/x-www-form-urlencoded" },
    { raw: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n', type: "multipart/form-data; boundary=x" },
    { raw: "{}", type: "text/plain" },
    { raw: new Uint8Array(300 * 1024).fill(0x20) },
    { stream: 2 * MiB },
  ];
}

/** `total` bytes of spaces as a stream (no Content-Length: sent chunked). */
function streamOf(total) {
  const chunk = new Uint8Array(16 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      sent += chunk.length;
      c.enqueue(chunk);
    },
  });
}

export async function fuzzRest(origin, { concurrency = 6, log = () => {}, maxJobs = Infinity } = {}) {
  const a = await createAgent(origin, {
    email: `rest-fuzz-${randomBytes(6).toString("hex")}@example.com`,
    handle: `rfz-${randomBytes(5).toString("hex")}`,
    password: "fuzz password long",
  });
  const creds = {
    none: {},
    madeUpKey: { authorization: `Bearer lore_${"A".repeat(43)}${"b".repeat(22)}_own_nosuchaccount` },
    agent: { authorization: `Bearer ${a.key}` },
    session: { authorization: `Bearer ${a.token}` },
    cookie: { cookie: `lore_session=${a.token}` },
    malformed: { authorization: "Basic Zm9vOmJhcg==" },
  };
  const doc = await requestJson(origin, "/v1/openapi.json");
  if (doc.status !== 200) fail(`/v1/openapi.json answered ${doc.status}`);
  const routes = [];
  for (const [p, item] of Object.entries(doc.body.paths))
    for (const method of Object.keys(item)) routes.push({ method: method.toUpperCase(), path: `/v1${p}` });
  // Routes that are not operations.
  for (const path of [
    "/v1/mcp",
    "/v1/billing/webhooks/stripe",
    "/internal/seeds",
    "/internal/seeds/x",
    "/internal/ingest",
    "/login",
    "/signup",
    "/logout",
    "/dashboard/skills/publish",
    "/dashboard/agents",
    "/dashboard/billing/subscribe",
    "/dashboard/settings",
  ]) {
    routes.push({ method: "POST", path });
  }
  for (const path of [
    "/",
    "/.well-known/agent-skills/index.json",
    "/.well-known/skills/index.json",
    "/dashboard",
    "/connect",
    "/community/leaderboard",
    "/v1/does-not-exist",
    "/nowhere",
  ])
    routes.push({ method: "GET", path });

  const stats = { requests: 0, http5xx: 0, badShape: 0, noRequestId: 0, resets: 0, statuses: {}, problems: [] };
  const note = (what, req, detail) => stats.problems.length < 30 && stats.problems.push(`${what}: ${req} → ${detail}`);
  const send = async ({ method, path, headers, body }) => {
    const req = `${method} ${path.slice(0, 120)}`;
    let res;
    try {
      const init = { method, headers: { ...headers }, redirect: "manual" };
      if (body?.stream) Object.assign(init, { body: streamOf(body.stream), duplex: "half" });
      else if (body) {
        init.body = body.raw;
        if (body.type !== null) init.headers["content-type"] = body.type ?? "application/json";
      }
      res = await fetch(origin + path, init);
    } catch (e) {
      stats.requests++;
      stats.resets++;
      note("reset", `${req} ${body?.stream ? `(${body.stream} bytes streamed)` : ""}`, String(e?.cause?.code ?? e?.message));
      return;
    }
    const text = await res.text();
    stats.requests++;
    stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
    if (res.status >= 500) {
      stats.http5xx++;
      note("5xx", req, `${res.status} ${text.slice(0, 160)}`);
    }
    if (!res.headers.get("x-request-id")) {
      stats.noRequestId++;
      note("no x-request-id", req, `${res.status} ${text.slice(0, 120)}`);
    }
    // /v1/mcp answers JSON-RPC errors (or the contract's 401/413/429), as MCP clients expect.
    const api = path.startsWith("/v1/") && !/^\/v1\/mcp(?:\?|$)/.test(path);
    if (api && res.status >= 400 && res.status !== 405) {
      let ok = false;
      try {
        const j = JSON.parse(text);
        ok = Object.keys(j).join() === "error" && typeof j.error.code === "string" && typeof j.error.message === "string";
      } catch {
        ok = false;
      }
      if (!ok) {
        stats.badShape++;
        note("not the contract's error shape", req, `${res.status} ${text.slice(0, 160)}`);
      }
    }
  };

  const jobs = [];
  const fill = (p) => p.replace(/\{[^}]+\}/g, "some-id");
  for (const r of routes) {
    const path = fill(r.path);
    for (const headers of Object.values(creds))
      for (const q of QUERIES.slice(0, 4))
        jobs.push({ method: r.method, path: path + q, headers, body: r.method === "GET" ? null : { raw: "{}" } });
    for (const q of QUERIES)
      jobs.push({ method: r.method, path: path + q, headers: creds.agent, body: r.method === "GET" ? null : { raw: "{}" } });
    if (r.path.includes("{")) {
      for (const seg of SEGMENTS)
        jobs.push({
          method: r.method,
          path: r.path.replace(/\{[^}]+\}/g, seg),
          headers: creds.agent,
          body: r.method === "GET" ? null : { raw: "{}" },
        });
    }
    if (r.method !== "GET") {
      for (const body of bodies())
        for (const who of ["agent", "session", "none"]) jobs.push({ method: r.method, path, headers: creds[who], body });
    }
    // Methods the route does not take.
    for (const m of ["PUT", "DELETE", "PATCH", "OPTIONS"])
      if (m !== r.method) jobs.push({ method: m, path, headers: creds.agent, body: null });
  }
  // Interleaved (a fixed shuffle), so a run cut short still reaches every route.
  let seed = 42;
  for (let i = jobs.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [jobs[i], jobs[j]] = [jobs[j], jobs[i]];
  }
  const todo = jobs.slice(0, maxJobs);
  log(`sending ${todo.length} requests over ${routes.length} routes, ${concurrency} at a time`);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < todo.length) await send(todo[next++]);
    }),
  );
  return stats;
}

/** The one-line summary the README and the e2e test print. */
export const fuzzRestLine = (s) =>
  `REST fuzz: ${s.requests} requests, ${s.http5xx} 5xx, ${s.badShape} errors out of the contract's shape, ${s.noRequestId} without x-request-id, ${s.resets} connection resets (HTTP ${statusCounts(s.statuses)})`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  fuzzMain(
    fuzzRest,
    fuzzRestLine,
    (s) => s.http5xx + s.badShape + s.noRequestId + s.resets,
    "some answers were 5xx, out of the contract's shape, without a request id, or resets (above)",
  );
}
