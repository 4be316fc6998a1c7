// Shared by start, bench, seed, agent-key and the e2e tests: run wrangler from this project's own install.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The project's own wrangler; LORE_WRANGLER points elsewhere (the deploy test uses a recorded stand-in). */
export const WRANGLER = process.env.LORE_WRANGLER ?? path.join(ROOT, "node_modules", ".bin", "wrangler");

/**
 * A failure whose message is the whole story for the person running a script: what went wrong and
 * what to do next. runMain prints it as one line.
 */
export class ScriptError extends Error {}
export const fail = (message) => {
  throw new ScriptError(message);
};

/**
 * Runs a script's main function. A failure prints one line to stderr (never a stack trace, never
 * a secret) and exits 1; DEBUG=1 prints the stack as well.
 */
export function runMain(main, prefix = "[lore]") {
  Promise.resolve()
    .then(main)
    .catch((e) => {
      if (process.env.DEBUG) console.error(e);
      const line = e instanceof ScriptError ? e.message : `${String(e?.message ?? e).split("\n")[0]} (run again with DEBUG=1 for details)`;
      console.error(`${prefix} ${line}`);
      process.exit(1);
    });
}

/** The origin a local server is on, and how to say so when nothing answers there. */
export function localOrigin() {
  const origin = (process.env.LORE_URL || `http://127.0.0.1:${process.env.PORT ?? 8787}`).replace(/\/+$/, "");
  const hint = process.env.LORE_URL
    ? `is Lore running at ${origin} (LORE_URL)?`
    : `is \`npm start\` running on port ${process.env.PORT ?? 8787}? (set PORT or LORE_URL if it runs elsewhere)`;
  return { origin, hint };
}

/**
 * A JSON request to a Lore server. Connection failures become a ScriptError with `hint`; the
 * answer is `{status, body}` with the body parsed (null when it is not JSON).
 */
export async function requestJson(origin, p, { method = "GET", body, token, headers = {}, hint } = {}) {
  let res;
  try {
    res = await fetch(origin + p, {
      method,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  } catch (e) {
    fail(
      `could not reach ${origin} (${e?.cause?.code ?? e?.cause?.errors?.[0]?.code ?? e?.cause?.message ?? e?.message ?? e}): ${hint ?? "is the server running?"}`,
    );
  }
  const text = await res.text();
  let parsed = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, text };
}

/** The contract's error message from a response body, or a short description of what came back. */
export const errorMessage = (r) =>
  r.body?.error?.message ?? (r.body ? JSON.stringify(r.body).slice(0, 200) : `HTTP ${r.status}: ${r.text.slice(0, 120)}`);

const WRANGLER_ENV = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };

/** Applies every migration in migrations/ to the local D1 (idempotent). */
export function migrateLocal(persistTo, { quiet = false } = {}) {
  const args = ["d1", "migrations", "apply", "DB", "--local", ...(persistTo ? ["--persist-to", persistTo] : [])];
  const r = spawnSync(WRANGLER, args, { cwd: ROOT, stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit", env: WRANGLER_ENV });
  if (r.status !== 0) {
    if (quiet) process.stderr.write(String(r.stderr ?? ""));
    fail(`migrating the local D1 failed (wrangler's output is above): delete .wrangler/state for a clean slate and try again`);
  }
}

export { WRANGLER_ENV };

/** Runs one SQL file against the local D1 (`wrangler d1 execute --local`), in `persistTo` when given. */
export function executeLocalSql(file, persistTo) {
  const a = ["d1", "execute", "DB", "--local", "--file", file, "--yes", ...(persistTo ? ["--persist-to", persistTo] : [])];
  const r = spawnSync(WRANGLER, a, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"], env: WRANGLER_ENV });
  if (r.status !== 0) fail(`wrangler ${a.join(" ")} failed`);
}

/** mulberry32: a small, fast, deterministic PRNG, so seeded data is the same on every run. */
export function prng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A TCP port nobody listens on right now (for parallel servers: tests, bench, helpers). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** A fresh operator token for one local run (never written to disk). */
export const newAdminToken = () => `lore_admin_${randomBytes(24).toString("hex")}`;

/** A fresh random secret (256 bits, hex) for KEY_SECRET or CURSOR_SECRET. */
export const newSecret = () => randomBytes(32).toString("hex");

/**
 * What a local server needs that a deployment gets from its secrets and configuration: KEY_SECRET
 * and CURSOR_SECRET, made once per state folder and kept beside its data
 * (`<state>/lore-local-secrets.json`, so keys made before a restart keep working and a clean slate
 * starts afresh), and BILLING_PROVIDER=local, the explicit choice of the local billing provider.
 */
export function localVars(persistTo) {
  const dir = persistTo ?? path.join(ROOT, ".wrangler", "state");
  const file = path.join(dir, "lore-local-secrets.json");
  let saved = {};
  try {
    saved = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    /* first start */
  }
  let made = false;
  for (const name of ["KEY_SECRET", "CURSOR_SECRET"]) {
    if (typeof saved[name] !== "string" || !saved[name]) {
      saved[name] = newSecret();
      made = true;
    }
  }
  if (made) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  }
  return { KEY_SECRET: saved.KEY_SECRET, CURSOR_SECRET: saved.CURSOR_SECRET, BILLING_PROVIDER: "local" };
}

/**
 * The Workers `wrangler dev` runs, primary first: Lore, the scanner Worker its SCANNER service
 * binding calls (src/scan-worker/) and the MCP SDK Worker its MCP_SDK binding calls (src/mcp-worker/).
 * Paths relative to ROOT.
 */
export const DEV_CONFIGS = ["wrangler.toml", "src/scan-worker/wrangler.toml", "src/mcp-worker/wrangler.toml"];

/**
 * Starts `wrangler dev` with local D1, R2 and Durable Objects and the local variables (localVars),
 * all three Workers in one session (DEV_CONFIGS). `vars` become Worker variables too (`--var K:V`);
 * `inspectorPort` keeps parallel servers off each other's devtools port.
 */
export function startDev({ port, persistTo, quiet = false, vars = {}, inspectorPort, minify } = {}) {
  const args = [
    "dev",
    ...DEV_CONFIGS.flatMap((c) => ["-c", c]),
    "--local",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--show-interactive-dev-session=false",
  ];
  // wrangler.toml minifies (as deployed); a CPU profile is read by function names, so it can ask not to.
  if (minify === false) args.push("--minify=false");
  if (persistTo) args.push("--persist-to", persistTo);
  if (inspectorPort) args.push("--inspector-port", String(inspectorPort));
  for (const [k, v] of Object.entries({ ...localVars(persistTo), ...vars })) args.push("--var", `${k}:${v}`);
  const child = spawn(WRANGLER, args, {
    cwd: ROOT,
    stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    env: WRANGLER_ENV,
  });
  // Quiet still drains: an unread pipe fills (64 KiB of request log lines) and stalls wrangler.
  if (quiet) {
    child.stdout.resume();
    child.stderr.resume();
  }
  return child;
}

/** A server that is not the one started answered on its port (it was taken between freePort and the bind). */
export class PortTakenError extends ScriptError {}

/**
 * Waits until the server at `origin` answers. With `adminToken`, it must be the server started with
 * that token: a free port found by `freePort` can be taken by another process before wrangler binds
 * it, and then someone else's server answers here (a test would talk to the wrong database). With
 * `child`, waiting ends as soon as wrangler exits.
 */
export async function waitForServer(origin, timeoutMs = 60_000, { adminToken, child } = {}) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (child && child.exitCode !== null) {
      throw new PortTakenError(`wrangler dev for ${origin} exited (code ${child.exitCode}) before it answered`);
    }
    try {
      const r = await fetch(`${origin}/v1/plans`);
      if (r.ok) {
        if (!adminToken) return;
        const who = await fetch(`${origin}/internal/seeds`, { headers: { authorization: `Bearer ${adminToken}` } });
        await who.body?.cancel();
        if (who.ok) return;
        throw new PortTakenError(`another server answers on ${origin} (it refused this run's admin token: ${who.status})`);
      }
    } catch (e) {
      if (e instanceof PortTakenError) throw e;
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`the server at ${origin} did not answer within ${Math.round(timeoutMs / 1000)} s (wrangler's output is above)`);
}

/**
 * Signs up an owner (or logs in when the email has an account) and creates an agent; returns the
 * key (shown once). Every refusal is a ScriptError saying what to change.
 */
export async function createAgent(origin, { email, handle, password = "local-dev-password", name, hint } = {}) {
  const post = (p, body, token) => requestJson(origin, p, { method: "POST", body, token, hint });
  let s = await post("/v1/auth/signup", { email, password });
  let loggedIn = false;
  if (s.status === 409) {
    s = await post("/v1/auth/login", { email, password });
    loggedIn = true;
    if (s.status === 401) fail(`an account for ${email} exists with another password: pass that one with --password, or use another email`);
  }
  if (s.status === 429) fail(`${errorMessage(s)} (${s.body?.error?.details?.metric ?? "throttled"})`);
  if (s.status === 400) fail(`the server refused ${email}: ${issues(s)}`);
  if (s.status >= 300 || !s.body?.token)
    fail(`${loggedIn ? "login" : "sign-up"} failed: ${errorMessage(s)}; ${hint ?? "is this a Lore server?"}`);
  const a = await post("/v1/agents", { handle, ...(name ? { name } : {}) }, s.body.token);
  if (a.status === 409 && a.body?.error?.details?.field === "handle") fail(`the handle @${handle} is taken: pick another with --handle`);
  if (a.status === 400) fail(`the handle "${handle}" was refused (${issues(a)}): pick another with --handle`);
  if (a.status >= 300) fail(`creating the agent failed: ${errorMessage(a)}`);
  return {
    token: s.body.token,
    ownerId: s.body.owner.id,
    agentId: a.body.agent.id,
    handle: a.body.agent.handle,
    key: a.body.apiKey,
    loggedIn,
  };
}

const issues = (r) =>
  r.body?.error?.details?.issues?.map((i) => `${i.path.replace(/^body\./, "")}: ${i.message}`).join("; ") ?? errorMessage(r);

/** `200×12, 400×3`: how many answers had each HTTP status, for the fuzzers' summary lines. */
export const statusCounts = (statuses) =>
  Object.entries(statuses)
    .map(([k, v]) => `${k}×${v}`)
    .join(", ");

/**
 * A fuzzer run from the command line against the local server: its summary line, each problem
 * found, and a failed exit when `bad` counts any.
 */
export function fuzzMain(run, line, bad, message) {
  runMain(async () => {
    const { origin, hint } = localOrigin();
    await requestJson(origin, "/v1/plans", { hint });
    const s = await run(origin, { log: (l) => console.log(`[fuzz] ${l}`) });
    console.log(`[fuzz] ${line(s)}`);
    for (const p of s.problems) console.log(`  ${p}`);
    if (bad(s) > 0) fail(message);
  }, "[fuzz]");
}

/** A source map's `mappings` with each segment's generated column moved: `shift(line, column)` → column. */
async function shiftMappings(mappings, shift) {
  const { decode, encode } = await import("@jridgewell/sourcemap-codec");
  return encode(decode(mappings).map((segs, l) => segs.map(([col, ...rest]) => [shift(l, col), ...rest])));
}

/**
 * Lore's script as `npm run deploy` uploads it: wrangler's build (`wrangler deploy --dry-run
 * --outdir`, in `from`) with esbuild's module wrappers written as `function` expressions rather than
 * arrow functions, to `to` (index.js, and its source map with the columns moved to match). Why: V8
 * parses an arrow function that sits at a script's top level in full when it compiles the script,
 * a `function` expression's body only pre-parses until it is first called; esbuild, when it
 * minifies, wraps each module loaded with `import()` (nearly all of Lore: src/index.ts defers the
 * app) in `w(() => {…})`, and CommonJS ones in `Ye((exports, module) => {…})`, so every cold isolate
 * fully parsed some 700 KB of code it would not run. The wrappers are called as plain functions in
 * strict (module) code, where neither form has a `this`, and no module body reads `arguments`, so
 * the two forms behave the same. Only esbuild's own helpers' call sites change: the helpers are found
 * by their exact shape, every call of theirs must be a wrapper, and the result must parse, or the
 * build fails (an esbuild upgrade that changes them needs this updated). Measured: README, "Deploy
 * to Cloudflare".
 */
export async function functionsForArrows(from, to) {
  const { transform } = await import("esbuild");
  const code = readFileSync(path.join(from, "index.js"), "utf8");
  const map = JSON.parse(readFileSync(path.join(from, "index.js.map"), "utf8"));
  const id = "[A-Za-z_$][\\w$]*";
  // __esm: var w=(e,t,n)=>()=>{if(n)throw n[0];try{return e&&(t=e(e=0)),t}catch(r){throw n=[r],r}}
  const esm = new RegExp(
    `var (${id})=\\((${id}),(${id}),(${id})\\)=>\\(\\)=>\\{if\\(\\4\\)throw \\4\\[0\\];try\\{return \\2&&\\(\\3=\\2\\(\\2=0\\)\\),\\3\\}catch\\((${id})\\)\\{throw \\4=\\[\\5\\],\\5\\}\\}`,
  ).exec(code)?.[1];
  // __commonJS: var Ye=(e,t)=>()=>{try{return t||e((t={exports:{}}).exports,t),t.exports}catch(n){throw t=0,n}}
  const cjs = new RegExp(
    `var (${id})=\\((${id}),(${id})\\)=>\\(\\)=>\\{try\\{return \\3\\|\\|\\2\\(\\(\\3=\\{exports:\\{\\}\\}\\)\\.exports,\\3\\),\\3\\.exports\\}catch\\((${id})\\)\\{throw \\3=0,\\4\\}\\}`,
  ).exec(code)?.[1];
  if (!esm) fail(`${from}/index.js has no esbuild module wrapper helper (__esm) of the shape functionsForArrows knows: update it`);
  const esc = (name) => name.replace(/\$/g, "\\$");
  const sites = [
    [new RegExp(`=${esc(esm)}\\(\\(\\)=>\\{`, "g"), () => `=${esm}(function(){`],
    ...(cjs
      ? [
          [new RegExp(`=${esc(cjs)}\\(\\((${id}),(${id})\\)=>\\{`, "g"), (_, a, b) => `=${cjs}(function(${a},${b}){`],
          [new RegExp(`=${esc(cjs)}\\((${id})=>\\{`, "g"), (_, a) => `=${cjs}(function(${a}){`],
        ]
      : []),
  ];
  const moves = []; // per line: [column in wrangler's line, characters added] in column order
  const lines = code.split("\n").map((line, l) => {
    const edits = [];
    for (const [re, to] of sites) for (const m of line.matchAll(re)) edits.push({ at: m.index, old: m[0], new: to(...m) });
    edits.sort((a, b) => a.at - b.at);
    moves[l] = edits.map((e) => [e.at, e.new.length - e.old.length]);
    let out = "";
    let last = 0;
    for (const e of edits) {
      out += line.slice(last, e.at) + e.new;
      last = e.at + e.old.length;
    }
    return out + line.slice(last);
  });
  const rewritten = moves.reduce((n, m) => n + m.length, 0);
  // A call is the helper's name not preceded by a name character, a dot or a backslash (`\b(` in a
  // regular expression literal is no call when the helper is minified to `b`).
  const calls = [esm, cjs]
    .filter(Boolean)
    .reduce((n, h) => n + (code.match(new RegExp(`(?<![\\w$.\\\\])${esc(h)}\\(`, "g"))?.length ?? 0), 0);
  if (rewritten !== calls)
    fail(
      `${from}/index.js: ${calls} calls of esbuild's module wrappers, ${rewritten} of them of the shape functionsForArrows knows: update it`,
    );
  const out = lines.join("\n");
  await transform(out, {
    format: "esm",
    loader: "js",
    target: "es2024",
    supported: { "import-source": true, using: true },
    logLevel: "silent",
  }).catch((e) => fail(`functionsForArrows made a script that does not parse: ${String(e.message).split("\n")[0]}`));
  map.mappings = await shiftMappings(
    map.mappings,
    (l, col) => col + (moves[l] ?? []).reduce((n, [at, add]) => n + (at < col ? add : 0), 0),
  );
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  writeFileSync(path.join(to, "index.js"), out);
  writeFileSync(path.join(to, "index.js.map"), JSON.stringify(map));
  return { file: path.join(to, "index.js"), rewritten };
}

/**
 * Builds a Worker the way `npm run deploy` uploads it into `dir`: `dir/wrangler/` holds wrangler's
 * build (and `metafile`, when given, its esbuild metafile); with `functions` (Lore's; the scanner
 * Worker is uploaded as wrangler builds it) it then goes through functionsForArrows into
 * `dir/upload/`. Returns the folder uploaded and wrangler's output.
 */
export async function buildForUpload(config, dir, { metafile, functions = false } = {}) {
  const built = path.join(dir, "wrangler");
  const r = spawnSync(
    WRANGLER,
    ["deploy", "--dry-run", "--config", config, "--outdir", built, ...(metafile ? ["--metafile", metafile] : [])],
    { cwd: ROOT, env: WRANGLER_ENV, encoding: "utf8" },
  );
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ""}${r.stderr ?? ""}`);
    fail(`the Worker does not build (\`wrangler deploy --dry-run --config ${config}\`, output above)`);
  }
  if (!functions) return { folder: built, out: r.stdout ?? "" };
  await functionsForArrows(built, path.join(dir, "upload"));
  return { folder: path.join(dir, "upload"), out: r.stdout ?? "" };
}

/**
 * The workerd process that runs the Worker under a `wrangler dev` started at `rootPid` (not the one
 * serving wrangler's proxy on `port`): whose CPU the bench and the experiments read.
 */
export function workerdPid(rootPid, port) {
  const children = new Map();
  for (const d of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone */
    }
  }
  const found = [];
  const walk = (pid) => {
    for (const c of children.get(pid) ?? []) {
      let cmd = "";
      try {
        cmd = readFileSync(`/proc/${c}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {
        continue;
      }
      if (/\/workerd\s+serve\b/.test(cmd) && !cmd.includes(`--socket-addr=entry=127.0.0.1:${port} `)) found.push(c);
      walk(c);
    }
  };
  walk(rootPid);
  if (found.length !== 1) fail(`expected one workerd process running the Worker under wrangler (pid ${rootPid}), found ${found.length}`);
  return found[0];
}

const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim() || 100);
/** CPU time (user + system) the process has used so far, in ms. */
export function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), counted from the state field (3).
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
