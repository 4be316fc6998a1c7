// `npm run fuzz:mcp`: throws bad and edge input at a running Lore's MCP endpoint (LORE_URL, or PORT
// on 127.0.0.1) and counts what a client must never see: HTTP 5xx, JSON-RPC -32603 internal
// errors, and tool results that are INTERNAL errors. Protocol messages with wrong-typed params,
// malformed envelopes and bodies, and for every tool in tools/list: each argument with values of
// every wrong type, boundary values, invisible characters, missing required arguments and extra
// ones. It makes its own accounts (EXPERT through the local billing provider, so the per-minute
// rate is no bottleneck). The e2e suite runs the same function against a fresh server.
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { createAgent, fail, fuzzMain, requestJson, statusCounts } from "./lib.mjs";

const WRONG = ["", "x".repeat(10_000), 0, -1, 1.5, 1e308, -0, true, false, null, [], [1, "a", null], {}, { a: { b: { c: [] } } }];
const TEXT_EDGE = [
  "\uFEFFbom",
  "zero\u200Bwidth",
  "\u202Eoverride",
  "nul\u0000char",
  "emoji 👩‍💻",
  "   ",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "'; DROP TABLE threads; --",
];
const NUMBER_EDGE = [0, -1, 2 ** 31, 2 ** 53 + 2, 1.5, "1", true, 101, 10_001];

/** Wrong and edge values for one JSON-Schema property. */
function valuesFor(schema) {
  const t = schema?.type ?? schema?.anyOf?.[0]?.type;
  const out = [...WRONG];
  if (t === "string") out.push(...TEXT_EDGE, ...(schema.enum ? [String(schema.enum[0]).toLowerCase(), `${schema.enum[0]} `] : []));
  if (t === "integer" || t === "number") out.push(...NUMBER_EDGE);
  if (t === "array")
    out.push(
      Array.from({ length: 200 }, () => "tag"),
      [""],
      [5],
      ["\u200B"],
    );
  return out;
}

/** A plausible valid value (so that one argument at a time is the bad one). */
function validFor(schema) {
  const s = schema?.anyOf?.find((x) => x.type !== "null") ?? schema;
  if (s?.enum) return s.enum[0];
  if (s?.default !== undefined) return s.default;
  switch (s?.type) {
    case "integer":
    case "number":
      return Math.max(1, s.minimum ?? 1);
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return "fuzz-value-long-enough-for-titles";
  }
}

function protocolMessages() {
  const msgs = [];
  const ids = [1, "s", 0, -1, 1.5, null, {}, [], true, "x".repeat(1000)];
  const params = [
    undefined,
    null,
    5,
    "x",
    true,
    [],
    {},
    { _meta: 5 },
    { _meta: [] },
    { cursor: {} },
    { cursor: 5 },
    { name: 5 },
    { name: null },
    { name: "" },
    { name: "n".repeat(5000) },
    { arguments: [] },
    { arguments: "x" },
    { protocolVersion: 1 },
    { protocolVersion: "1999-01-01", capabilities: {}, clientInfo: { name: "f", version: "1" } },
    { capabilities: "x" },
    { clientInfo: 5 },
    { clientInfo: { name: 5, version: [] } },
    { level: "loud" },
    { uri: 5 },
  ];
  const methods = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "notifications/initialized",
    "notifications/cancelled",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "logging/setLevel",
    "completion/complete",
    "no/such/method",
  ];
  for (const method of methods)
    for (const p of params) msgs.push({ jsonrpc: "2.0", id: 1, method, ...(p === undefined ? {} : { params: p }) });
  for (const id of ids) msgs.push({ jsonrpc: "2.0", id, method: "ping" });
  for (const jsonrpc of [undefined, "1.0", 2, null]) msgs.push({ ...(jsonrpc === undefined ? {} : { jsonrpc }), id: 1, method: "ping" });
  for (const method of [5, null, "", {}, []]) msgs.push({ jsonrpc: "2.0", id: 1, method });
  let deep = {};
  for (let i = 0; i < 200; i++) deep = { a: deep };
  msgs.push({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "service_usage", arguments: deep } });
  msgs.push([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: 2, method: "tools/list", params: 5 },
  ]);
  msgs.push({ jsonrpc: "2.0", id: 9, result: {} }, { jsonrpc: "2.0", id: 9, error: { code: 1, message: "x" } });
  return msgs;
}

const RAW_BODIES = [
  "",
  "{",
  "[]",
  "[1,2]",
  "null",
  '"x"',
  "5",
  '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}',
  '{"__proto__":{"polluted":1},"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1e999,"method":"ping"}',
];

export async function fuzzMcp(origin, { accounts = 6, concurrency = 8, log = () => {} } = {}) {
  const keys = [];
  for (let i = 0; i < accounts; i++) {
    const a = await createAgent(origin, {
      email: `fuzz-${randomBytes(6).toString("hex")}@example.com`,
      handle: `fuzz-${randomBytes(5).toString("hex")}`,
      password: "fuzz password long",
    });
    const up = await requestJson(origin, "/v1/billing/subscribe", { method: "POST", body: { plan: "EXPERT" }, token: a.token });
    if (up.status !== 200) fail(`could not move the fuzz account to EXPERT: ${up.status}`);
    keys.push(a.key);
  }
  let k = 0;
  const stats = { requests: 0, http5xx: 0, internal: 0, toolInternal: 0, statuses: {}, problems: [] };
  const send = async (body, raw) => {
    const key = keys[k++ % keys.length];
    const res = await fetch(`${origin}/v1/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: raw ?? JSON.stringify(body),
    });
    const text = await res.text();
    stats.requests++;
    stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
    const note = (what) =>
      stats.problems.length < 20 &&
      stats.problems.push(`${what}: ${(raw ?? JSON.stringify(body)).slice(0, 160)} → ${res.status} ${text.slice(0, 200)}`);
    if (res.status >= 500) {
      stats.http5xx++;
      note("5xx");
    }
    const payloads = res.headers.get("content-type")?.includes("event-stream")
      ? text.split(/\n\n/).flatMap((b) =>
          b
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5)),
        )
      : [text];
    for (const p of payloads) {
      let m;
      try {
        m = JSON.parse(p);
      } catch {
        continue;
      }
      for (const one of Array.isArray(m) ? m : [m]) {
        if (one?.error?.code === -32603) {
          stats.internal++;
          note("-32603");
        }
        const content = one?.result?.isError ? one.result.content?.[0]?.text : null;
        if (content && /"code":"INTERNAL"/.test(content)) {
          stats.toolInternal++;
          note("tool INTERNAL");
        }
      }
    }
    return text;
  };
  const jobs = [];
  for (const m of protocolMessages()) jobs.push(() => send(m));
  for (const raw of RAW_BODIES) jobs.push(() => send(null, raw));
  jobs.push(() => send(null, new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])));
  const list = await requestJson(origin, "/v1/mcp", {
    method: "POST",
    body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    headers: { accept: "application/json, text/event-stream", authorization: `Bearer ${keys[0]}` },
  });
  const tools = list.body?.result?.tools ?? fail(`tools/list failed: ${list.status}`);
  for (const tool of tools) {
    const props = tool.inputSchema?.properties ?? {};
    const required = tool.inputSchema?.required ?? [];
    const valid = Object.fromEntries(Object.entries(props).map(([n, s]) => [n, validFor(s)]));
    const call = (args) =>
      jobs.push(() =>
        send({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: tool.name, ...(args === undefined ? {} : { arguments: args }) },
        }),
      );
    for (const args of [undefined, null, [], "x", 5, {}, { ...valid, unexpected: true }]) call(args);
    for (const r of required) {
      const { [r]: _omit, ...rest } = valid;
      call(rest);
    }
    for (const [name, schema] of Object.entries(props)) for (const v of valuesFor(schema)) call({ ...valid, [name]: v });
  }
  log(`sending ${jobs.length} requests over ${tools.length} tools, ${keys.length} accounts, ${concurrency} at a time`);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) await jobs[next++]();
    }),
  );
  return stats;
}

/** The one-line summary the README and the e2e test print. */
export const fuzzLine = (s) =>
  `MCP fuzz: ${s.requests} requests, ${s.http5xx} 5xx, ${s.internal} JSON-RPC internal errors, ${s.toolInternal} INTERNAL tool results (HTTP ${statusCounts(s.statuses)})`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  fuzzMain(fuzzMcp, fuzzLine, (s) => s.http5xx + s.internal + s.toolInternal, "the MCP endpoint answered with internal errors (above)");
}
