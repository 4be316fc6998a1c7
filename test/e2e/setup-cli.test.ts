import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, type TestServer } from "./server";

/**
 * `npx lore-setup` (bin/lore-setup.mjs) end to end: a temporary project with lockfiles and an
 * instruction file, a real local Lore, the real `skills` CLI for the installs, and every network
 * call outside the local server refused by a preloaded guard. LORE_SETUP_TRANSCRIPT=1 prints what
 * the CLI showed.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(ROOT, "bin", "lore-setup.mjs");
const SKILLS = path.join(ROOT, "node_modules", "skills", "bin", "cli.mjs");
const GUARD = path.join(ROOT, "test", "e2e", "fixtures", "no-network.mjs");

let server: TestServer;
let key: string;
const temp: string[] = [];
const transcript: string[] = [];
const hono = `hono-routes-${Date.now().toString(36)}`;

function tmp(prefix: string) {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  temp.push(d);
  return d;
}

async function api(method: string, p: string, body?: unknown, token?: string) {
  const r = await fetch(server.origin + p, { method, headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}

async function run(cwd: string, args: string[], extraEnv: Record<string, string> = {}) {
  const home = tmp("lore-setup-home-");
  const log = path.join(home, "blocked.log");
  const child = spawn(process.execPath, ["--import", GUARD, CLI, ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      LORE_API_KEY: key,
      LORE_URL: server.origin,
      LORE_SKILLS_CLI: SKILLS,
      // The guard is inherited by the skills CLI the setup command starts.
      NODE_OPTIONS: `--import ${GUARD}`,
      NO_NETWORK_LOG: log,
      DISABLE_TELEMETRY: "1",
      DO_NOT_TRACK: "1",
      NO_COLOR: "1",
      ...extraEnv,
    },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
  const code = await new Promise<number | null>((r) => child.on("close", r));
  clearTimeout(timer);
  const blocked = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
  transcript.push(`$ npx lore-setup ${args.join(" ")}\n${out}(exit ${code})`);
  return { code, out, blocked };
}

/** Every file under a folder with its bytes (to prove a run changed nothing). */
function snapshot(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir)) {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) Object.assign(out, snapshot(p, base));
    else out[path.relative(base, p)] = readFileSync(p).toString("base64");
  }
  return out;
}

const CLAUDE_MD = "# Shop\r\n\r\nRun `pnpm test` before every commit.\r\nNever edit generated files.\r\n";

function sampleProject() {
  const dir = tmp("lore-setup-project-");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "shop", dependencies: { react: "^18.2.0", hono: "^4.0.0" }, devDependencies: { vitest: "^1.0.0" } }, null, 2));
  writeFileSync(
    path.join(dir, "package-lock.json"),
    JSON.stringify({
      name: "shop",
      lockfileVersion: 3,
      packages: {
        "": { name: "shop", dependencies: { react: "^18.2.0", hono: "^4.0.0" }, devDependencies: { vitest: "^1.0.0" } },
        "node_modules/react": { version: "18.2.0" },
        "node_modules/hono": { version: "4.0.0" },
        "node_modules/vitest": { version: "1.6.0" },
        "node_modules/loose-envify": { version: "1.4.0" },
      },
    }),
  );
  writeFileSync(path.join(dir, "requirements.txt"), "# tools\ndjango==4.2\nrequests>=2.31 ; python_version >= '3.8'\n-e .\n");
  writeFileSync(path.join(dir, "go.mod"), "module example.com/shop\n\ngo 1.22\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.9.0\n\tgolang.org/x/net v0.20.0 // indirect\n)\n");
  writeFileSync(path.join(dir, "Cargo.lock"), 'version = 3\n\n[[package]]\nname = "shop-cli"\nversion = "0.1.0"\n\n[[package]]\nname = "tokio"\nversion = "1.38.0"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n');
  writeFileSync(path.join(dir, "CLAUDE.md"), CLAUDE_MD);
  return dir;
}

beforeAll(async () => {
  server = await startServer();
  const signup = await api("POST", "/v1/auth/signup", { email: `setup-cli-${Date.now()}@example.com`, password: "correct horse battery" });
  const agent = await api("POST", "/v1/agents", { handle: `setup-cli-${Date.now().toString(36)}` }, signup.body.token);
  key = agent.body.apiKey;
  const publisher = await api("POST", "/v1/auth/signup", { email: `setup-pub-${Date.now()}@example.com`, password: "correct horse battery" });
  const md = `---\nname: ${hono}\ndescription: Writes Hono routes with typed validators\n---\n\n# ${hono}\n\nUse zValidator for every body.\n`;
  const pub = await api("POST", "/v1/me/skills", { category: "backend", tags: ["hono"], files: [{ path: "SKILL.md", content: md }] }, publisher.body.token);
  expect(pub.status, JSON.stringify(pub.body)).toBe(201);
});

afterAll(async () => {
  if (process.env.LORE_SETUP_TRANSCRIPT) console.log(transcript.join("\n\n"));
  await server?.stop();
  for (const d of temp) rmSync(d, { recursive: true, force: true });
});

describe("npx lore-setup", () => {
  it("dry run writes nothing; --yes writes the MCP config, the instruction block and the skills; a second run changes nothing", async () => {
    const dir = sampleProject();
    const before = snapshot(dir);

    const dry = await run(dir, ["--dry-run"]);
    expect(dry.code, dry.out).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    expect(dry.out).toContain("harness     claude-code (detected");
    expect(dry.out).toMatch(/stack {7}8 dependencies from package-lock\.json, requirements\.txt, go\.mod, Cargo\.lock/);
    expect(dry.out).toContain("+++ b/.mcp.json");
    expect(dry.out).toContain("+++ b/CLAUDE.md (CRLF line endings kept)");
    expect(dry.out).toContain("+<!-- service:begin v1 updated=");
    expect(dry.out).toContain(`$ npx skills add ${server.origin} --skill lore -a claude-code -y`);
    expect(dry.out).toContain(`--skill ${hono} -a claude-code -y`);
    expect(dry.out).toMatch(/Dry run: 2 file\(s\) and 2 command\(s\) not applied/);
    expect(dry.out).not.toContain(key);

    const yes = await run(dir, ["--yes"]);
    expect(yes.code, yes.out).toBe(0);
    expect(yes.blocked).toEqual([]);
    expect(yes.out).not.toContain(key);
    const mcp = JSON.parse(readFileSync(path.join(dir, ".mcp.json"), "utf8"));
    expect(mcp).toEqual({ mcpServers: { lore: { type: "http", url: `${server.origin}/v1/mcp`, headers: { Authorization: "Bearer ${LORE_API_KEY}" } } } });
    const claude = readFileSync(path.join(dir, "CLAUDE.md"), "utf8");
    expect(claude.startsWith(CLAUDE_MD)).toBe(true);
    expect(claude).toMatch(/\r\n<!-- service:begin v1 updated=\d{4}-\d{2}-\d{2} -->\r\n## Lore\r\n/);
    expect(claude.endsWith("<!-- service:end -->\r\n")).toBe(true);
    const start = await (await fetch(`${server.origin}/v1/start-here.md`)).text();
    expect(readFileSync(path.join(dir, ".claude/skills/lore/SKILL.md"), "utf8")).toBe(start);
    expect(readFileSync(path.join(dir, `.claude/skills/${hono}/SKILL.md`), "utf8")).toContain("zValidator");
    // The key is in no file the setup wrote.
    for (const [f, b64] of Object.entries(snapshot(dir))) expect(Buffer.from(b64, "base64").toString("utf8"), f).not.toContain(key);

    const after = snapshot(dir);
    const again = await run(dir, ["--yes"]);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain("Nothing to change: this project is set up.");
    expect(snapshot(dir)).toEqual(after);
  });

  it("codex: merges into an existing config.toml and AGENTS.md, keeps what was there; refuses a file with two blocks", async () => {
    const dir = tmp("lore-setup-codex-");
    mkdirSync(path.join(dir, ".codex"));
    const toml = 'model = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other-mcp"\n';
    writeFileSync(path.join(dir, ".codex/config.toml"), toml);
    writeFileSync(path.join(dir, "AGENTS.md"), "# Agents\n\nBe brief.\n");
    const r = await run(dir, ["--harness", "codex", "--yes", "--no-skills"]);
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(dir, ".codex/config.toml"), "utf8")).toBe(`${toml}\n[mcp_servers.lore]\nurl = "${server.origin}/v1/mcp"\nbearer_token_env_var = "LORE_API_KEY"\n`);
    expect(readFileSync(path.join(dir, "AGENTS.md"), "utf8")).toMatch(/^# Agents\n\nBe brief\.\n\n<!-- service:begin v1 updated=/);
    const again = await run(dir, ["--harness", "codex", "--yes", "--no-skills"]);
    expect(again.out).toContain("Nothing to change");

    writeFileSync(path.join(dir, "AGENTS.md"), `${readFileSync(path.join(dir, "AGENTS.md"), "utf8")}\n<!-- service:begin v1 updated=2030-01-01 -->\nold\n<!-- service:end -->\n`);
    const bad = await run(dir, ["--harness", "codex", "--yes", "--no-skills"]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/Lore answered 400: AGENTS\.md has 2 service blocks/);
  });

  it("a refused key and a missing key are one clear line each, without the key", async () => {
    const dir = sampleProject();
    const refused = await run(dir, ["--dry-run"], { LORE_API_KEY: "lore_thisKeyDoesNotExistAnywhere0000000000000000" });
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/refused the key in LORE_API_KEY \(401\)/);
    expect(refused.out).not.toContain("lore_thisKeyDoesNotExist");
    const missing = await run(dir, ["--dry-run"], { LORE_API_KEY: "" });
    expect(missing.code).toBe(2);
    expect(missing.out).toMatch(/LORE_API_KEY is not set/);
  });
});
