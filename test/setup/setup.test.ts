// Setup data for the 13 harnesses, start-here.md (Lore's own skill), the instruction block, and
// advise (POST /v1/agents/me/advise and service_advise), through the real Worker.
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, expectError, mcpClient, newAgent, signup, toolJson, type TestAgent } from "../helpers";
import { OPERATIONS } from "../../src/operations";
import { applyBlock, blockMarkers, BlockError, findBlock } from "../../src/setup/instruction-block";
import { HARNESS_IDS } from "../../src/harnesses/setup.data";
import { scanSkill } from "../../src/skills/scanner";
import { loadStarterSkills } from "../../src/skills/seed";
import { starterSkillsPayload } from "../data-helpers";
import { setClock } from "../../src/core/clock";
import { CLI_PACKAGE } from "../../src/setup/cli-package.generated";

beforeAll(async () => {
  await loadStarterSkills(env, starterSkillsPayload());
});

const MCP = `${BASE}/v1/mcp`;

/** Each harness as ../shared/reference/harnesses.md describes it ("suggested values" and the snippets). */
const EXPECTED: Record<
  string,
  {
    instruction: string;
    skillsDir: string | null;
    file: string | null;
    format: string | null;
    key: string | null;
    cli: RegExp | null;
    scope: "project" | "user" | null;
    literalKey?: boolean;
  }
> = {
  "claude-code": {
    instruction: "CLAUDE.md",
    skillsDir: ".claude/skills",
    file: ".mcp.json",
    format: "json",
    key: '"Authorization": "Bearer ${LORE_API_KEY}"',
    cli: /^claude mcp add --transport http --scope user lore \S+ --header 'Authorization: Bearer \$\{LORE_API_KEY\}'$/,
    scope: "project",
  },
  openclaude: {
    instruction: "AGENTS.md",
    skillsDir: ".openclaude/skills",
    file: ".mcp.json",
    format: "json",
    key: '"Authorization": "Bearer ${LORE_API_KEY}"',
    cli: /^openclaude mcp add --transport http -s user lore \S+ -H 'Authorization: Bearer \$\{LORE_API_KEY\}'$/,
    scope: "project",
  },
  hermes: {
    instruction: "AGENTS.md",
    skillsDir: "~/.hermes/skills",
    file: "~/.hermes/config.yaml",
    format: "yaml",
    key: 'Authorization: "Bearer ${LORE_API_KEY}"',
    cli: /^hermes mcp add lore --url \S+ --auth header$/,
    scope: "user",
  },
  opencode: {
    instruction: "AGENTS.md",
    skillsDir: ".agents/skills",
    file: "opencode.json",
    format: "json",
    key: '"Authorization": "Bearer {env:LORE_API_KEY}"',
    cli: /^opencode mcp add lore --url \S+ --header "Authorization=Bearer \$LORE_API_KEY" --scope user$/,
    scope: "project",
  },
  kimi: {
    instruction: "AGENTS.md",
    skillsDir: ".agents/skills",
    file: "~/.kimi/mcp.json",
    format: "json",
    key: '"Authorization": "Bearer <your-api-key>"',
    cli: /^kimi mcp add --transport http lore \S+ --header "Authorization: Bearer \$LORE_API_KEY"$/,
    scope: "user",
    literalKey: true,
  },
  openclaw: {
    instruction: "~/.openclaw/workspace/TOOLS.md",
    skillsDir: "~/.openclaw/workspace/skills",
    file: "~/.openclaw/openclaw.json",
    format: "json5",
    key: 'Authorization: "Bearer ${LORE_API_KEY}"',
    cli: /^openclaw mcp add lore --url \S+ --transport streamable-http --header 'Authorization: Bearer \$\{LORE_API_KEY\}'$/,
    scope: "user",
  },
  codex: {
    instruction: "AGENTS.md",
    skillsDir: ".agents/skills",
    file: ".codex/config.toml",
    format: "toml",
    key: 'bearer_token_env_var = "LORE_API_KEY"',
    cli: /^codex mcp add lore --url \S+ --bearer-token-env-var LORE_API_KEY$/,
    scope: "project",
  },
  gemini: {
    instruction: "GEMINI.md",
    skillsDir: ".agents/skills",
    file: ".gemini/settings.json",
    format: "json",
    key: '"Authorization": "Bearer ${LORE_API_KEY}"',
    cli: /^gemini mcp add --transport http --scope user lore \S+ -H 'Authorization: Bearer \$\{LORE_API_KEY\}'$/,
    scope: "project",
  },
  cursor: {
    instruction: "AGENTS.md",
    skillsDir: ".cursor/skills",
    file: ".cursor/mcp.json",
    format: "json",
    key: '"Authorization": "Bearer ${env:LORE_API_KEY}"',
    cli: null,
    scope: "project",
  },
  copilot: {
    instruction: ".github/copilot-instructions.md",
    skillsDir: ".github/skills",
    file: "~/.copilot/mcp-config.json",
    format: "json",
    key: '"Authorization": "Bearer <your-api-key>"',
    cli: /^copilot mcp add --transport http --header "Authorization: Bearer \$LORE_API_KEY" lore \S+$/,
    scope: "user",
    literalKey: true,
  },
  windsurf: {
    instruction: "AGENTS.md",
    skillsDir: ".windsurf/skills",
    file: "~/.codeium/windsurf/mcp_config.json",
    format: "json",
    key: '"Authorization": "Bearer ${env:LORE_API_KEY}"',
    cli: null,
    scope: "user",
  },
  cline: {
    instruction: ".clinerules/lore.md",
    skillsDir: ".agents/skills",
    file: "~/.cline/data/settings/cline_mcp_settings.json",
    format: "json",
    key: '"Authorization": "Bearer ${env:LORE_API_KEY}"',
    cli: /^cline mcp add lore \S+ --transport http --header "Authorization: Bearer \$LORE_API_KEY"$/,
    scope: "user",
  },
  aider: { instruction: "CONVENTIONS.md", skillsDir: null, file: null, format: null, key: null, cli: null, scope: null },
};

/** What each JSON snippet's server entry must look like for the harness's transport. */
const TRANSPORT: Record<string, Record<string, unknown>> = {
  "claude-code": { type: "http", url: MCP },
  openclaude: { type: "http", url: MCP },
  opencode: { type: "remote", url: MCP, enabled: true, oauth: false },
  kimi: { url: MCP, transport: "http" },
  gemini: { url: MCP, type: "http" },
  cursor: { url: MCP },
  copilot: { type: "http", url: MCP, tools: ["*"] },
  windsurf: { serverUrl: MCP },
  cline: { type: "streamableHttp", url: MCP, disabled: false },
};

describe("GET /v1/setup and /v1/setup/<harness>", () => {
  it("lists the 13 harnesses with what each supports", async () => {
    const r = await call("GET", "/v1/setup");
    expect(r.body.items.map((h: any) => h.harness)).toEqual([...HARNESS_IDS]);
    expect(r.body.items.find((h: any) => h.harness === "aider")).toEqual({
      harness: "aider",
      name: "Aider",
      url: `${BASE}/v1/setup/aider`,
      mcp: false,
      skills: false,
    });
    expect(r.body.items.filter((h: any) => h.mcp)).toHaveLength(12);
  });

  it("serves lore-setup as an npm package at an address naming its SHA-512 (any other name is a 404) and at the stable one; the bytes match what GET /v1/setup gives", async () => {
    const list = await call("GET", "/v1/setup");
    const cli = list.body.cli;
    const pinned = `${BASE}/v1/setup/lore-setup/${CLI_PACKAGE.sha512}.tgz`;
    expect(cli).toEqual({
      name: "lore-setup",
      version: CLI_PACKAGE.version,
      url: pinned,
      stableUrl: `${BASE}/v1/setup/lore-setup.tgz`,
      integrity: CLI_PACKAGE.integrity,
      sha512: CLI_PACKAGE.sha512,
      sourceSha256: CLI_PACKAGE.sourceSha256,
      size: CLI_PACKAGE.size,
      command: `(mkdir -p ~/.cache && cd "$(mktemp -d ~/.cache/lore-setup.XXXXXX)" && npx --yes "${pinned}" --dir "$OLDPWD" --dry-run)`,
    });
    expect(cli.sha512).toMatch(/^[0-9a-f]{128}$/);
    expect(cli.sourceSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(cli.version.endsWith(`-h${cli.sourceSha256.slice(0, 12)}`)).toBe(true);
    for (const url of [cli.url, cli.stableUrl, `${cli.stableUrl}?v=1`]) {
      const res = await (exports as any).default.fetch(new Request(url));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/gzip");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.length).toBe(cli.size);
      // gzip magic, and the SHA-512 npm would record for it (the hex the address names).
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", bytes));
      expect(`sha512-${btoa(String.fromCharCode(...digest))}`).toBe(cli.integrity);
      expect([...digest].map((b) => b.toString(16).padStart(2, "0")).join("")).toBe(cli.sha512);
    }
    // The content address never serves other bytes: another digest, a prefix of this one, another extension.
    const other = `${"0".repeat(128)}.tgz`;
    for (const name of [other, `${cli.sha512.slice(0, 64)}.tgz`, `${cli.sha512}.tar`, `${cli.sha512.toUpperCase()}.tgz`, cli.sha512]) {
      const r = await call("GET", `/v1/setup/lore-setup/${name}`);
      expect(r.status, name).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }
    // Not taken for a harness named "lore-setup.tgz"; the harness route still answers 404 for unknown ones.
    expect((await call("GET", "/v1/setup/lore-setup.tar")).status).toBe(404);
    const doc = (await call("GET", "/v1/openapi.json")).body;
    expect(doc.paths["/setup/lore-setup.tgz"].get.responses["200"].content["application/gzip"]).toBeDefined();
    expect(doc.paths["/setup/lore-setup/{file}"].get.responses["200"].content["application/gzip"]).toBeDefined();
  });

  for (const id of HARNESS_IDS) {
    it(`${id}: instruction file, skills folder, MCP file, format, snippet and CLI as the reference says`, async () => {
      const r = await call("GET", `/v1/setup/${id}`);
      expect(r.status).toBe(200);
      const x = EXPECTED[id]!;
      const b = r.body;
      expect(Object.keys(b).sort()).toEqual([
        "asOfDate",
        "harness",
        "instructionFiles",
        "mcp",
        "name",
        "notes",
        "skillInstall",
        "skillsDir",
      ]);
      expect(b.instructionFiles[0]).toBe(x.instruction);
      expect(b.skillsDir).toBe(x.skillsDir);
      expect(b.mcp).toMatchObject({ file: x.file, format: x.format, scope: x.scope, literalKey: !!x.literalKey, url: x.file ? MCP : null });
      if (x.key === null) {
        expect(b.mcp).toMatchObject({ snippet: null, cli: null, url: null });
        expect(b.skillInstall).toBeNull();
        return;
      }
      expect(b.mcp.snippet).toContain(x.key);
      expect(b.mcp.snippet).toContain(MCP);
      expect(b.mcp.snippet).not.toMatch(/lore_[A-Za-z0-9]{20,}/);
      expect(b.mcp.snippet).not.toContain("{{");
      if (x.cli) expect(b.mcp.cli).toMatch(x.cli);
      else expect(b.mcp.cli).toBeNull();
      if (b.mcp.cli) expect(b.mcp.cli).toContain(MCP);
      if (x.format === "json") {
        const doc = JSON.parse(b.mcp.snippet);
        const servers = doc.mcpServers ?? doc.mcp;
        expect(servers.lore).toMatchObject(TRANSPORT[id]!);
      }
      if (x.format === "toml") expect(b.mcp.snippet).toBe(`[mcp_servers.lore]\nurl = "${MCP}"\nbearer_token_env_var = "LORE_API_KEY"\n`);
      if (x.format === "yaml")
        expect(b.mcp.snippet).toMatch(/^mcp_servers:\n {2}lore:\n {4}url: "[^"]+"\n {4}headers:\n {6}Authorization: /);
      expect(typeof b.skillInstall).toBe("string");
      expect(b.notes.length).toBeGreaterThan(0);
    });
  }
});

describe("start-here.md, Lore's own skill", () => {
  it("tells an agent everything it needs, names every MCP tool, and passes the skill scanner", async () => {
    const res = await call("GET", "/v1/start-here.md");
    expect(res.headers.get("content-type")).toMatch(/^text\/markdown/);
    const text = res.body as string;
    for (const must of [
      "LORE_API_KEY",
      "Authorization: Bearer",
      "Sync first",
      "service_sync",
      "since",
      "Check packages before you install",
      "block",
      "data",
      "RATE_LIMITED",
      "resetsAt",
      "retryAfterSeconds",
      `${BASE}/v1/mcp`,
      "untrusted-data",
    ]) {
      expect(text, must).toContain(must);
    }
    const tools = OPERATIONS.flatMap((o) => (o.mcp ? [o.mcp.tool] : []));
    for (const t of tools) expect(text, t).toContain(`\`${t}\``);
    for (const h of HARNESS_IDS) expect(text).toContain(`/v1/setup/${h}`);
    const bytes = new TextEncoder().encode(text);
    const scan = scanSkill([{ path: "SKILL.md", bytes, text }]);
    expect(scan.findings).toEqual([]);
    expect(scan.status).toBe("passed");
    // The same bytes are the skill `lore` in the discovery index.
    const idx = await call("GET", "/.well-known/skills/index.json");
    expect(idx.body.skills.map((s: any) => s.name)).toContain("lore");
    const file = await call("GET", "/.well-known/skills/lore/SKILL.md");
    expect(file.body).toBe(text);
  });
});

describe("the instruction block", () => {
  const body = "## Lore\n\n- sync first\n- check packages";
  const day = "2031-03-10";

  it("appends to a file without it, after a blank line, keeping every byte before it", () => {
    const text = "# Project\n\nUse pnpm.\n";
    const e = applyBlock(text, body, day);
    expect(e.action).toBe("append");
    expect(e.content.startsWith(text)).toBe(true);
    expect(e.content).toBe(
      `${text}\n<!-- service:begin v1 updated=${day} -->\n## Lore\n\n- sync first\n- check packages\n<!-- service:end -->\n`,
    );
    // No final newline: one is added before the separating blank line; an empty or new file is the block alone.
    expect(applyBlock("# P", body, day).content.startsWith("# P\n\n<!-- service:begin")).toBe(true);
    expect(applyBlock(null, body, day).content).toBe(`<!-- service:begin v1 updated=${day} -->\n${body}\n<!-- service:end -->\n`);
  });

  it("replaces only the block: byte-identical outside it, idempotent, CRLF kept", () => {
    const before = "# Title\r\n\r\nKeep   these  bytes\t exactly.\r\n\r\n";
    const after = "\r\n## Later section\r\nMore text without final newline";
    const old = `${before}<!-- service:begin v1 updated=2030-01-01 -->\r\nold words\r\n<!-- service:end -->${after}`;
    const e = applyBlock(old, body, day);
    expect(e.action).toBe("update");
    expect(e.content.startsWith(before)).toBe(true);
    expect(e.content.endsWith(after)).toBe(true);
    const block = e.content.slice(before.length, e.content.length - after.length);
    expect(block).toBe(
      `<!-- service:begin v1 updated=${day} -->\r\n## Lore\r\n\r\n- sync first\r\n- check packages\r\n<!-- service:end -->`,
    );
    expect(block).not.toMatch(/[^\r]\n/);
    // A second run with the same body changes nothing at all, not even the date.
    const again = applyBlock(e.content, body, "2031-12-31");
    expect(again).toEqual({ action: "none", content: e.content });
    // A CRLF file without the block gets a CRLF block.
    const crlf = applyBlock("a\r\nb\r\n", body, day);
    expect(crlf.content).toBe(
      `a\r\nb\r\n\r\n<!-- service:begin v1 updated=${day} -->\r\n## Lore\r\n\r\n- sync first\r\n- check packages\r\n<!-- service:end -->\r\n`,
    );
  });

  it("refuses two blocks, a broken block and another format version", () => {
    const b = (v = "v1") => `<!-- service:begin ${v} updated=2030-01-01 -->\nx\n<!-- service:end -->\n`;
    const cases: [string, string][] = [
      [`${b()}\n${b()}`, "two_blocks"],
      ["<!-- service:begin v1 updated=2030-01-01 -->\nno end\n", "broken_block"],
      ["text\n<!-- service:end -->\n", "broken_block"],
      ["<!-- service:end -->\n<!-- service:begin v1 -->\n", "broken_block"],
      [b("v2"), "other_version"],
    ];
    for (const [text, problem] of cases) {
      let err: unknown;
      try {
        applyBlock(text, body, day);
      } catch (e) {
        err = e;
      }
      expect(err, text).toBeInstanceOf(BlockError);
      expect((err as BlockError).problem).toBe(problem);
    }
    expect(findBlock("nothing here")).toBeNull();
  });

  it("finds the markers in one pass: the same as the markers' regexes on odd texts, and linear on texts built to make those backtrack", () => {
    const BEGIN = /<!--[ \t]*service:begin\b([^>]*?)-->/g;
    const END = /<!--[ \t]*service:end[ \t]*-->/g;
    const odd = [
      "<!-- service:begin v1 -->x<!-- service:end -->",
      "<!--service:begin-->",
      "<!--\t service:begin v1 updated=2030 --><!-- service:end \t-->",
      "<!-- service:beginning v1 -->",
      "<!-- service:begin v1 > -->",
      "<!-- service:begin v1 --",
      "<!-- <!-- service:begin v1 --> -->",
      "<!-- service:begin -->",
      "<!-- service:begin--->",
      "<!-- service:end-->",
      "<!-- service:end x -->",
      "<!-- service:begin v1 updated=1 --><!-- service:begin v1 -->",
    ];
    for (const t of odd) {
      const m = blockMarkers(t);
      expect(
        m.begins.map((b) => [b.index, b.end, b.attrs]),
        t,
      ).toEqual([...t.matchAll(BEGIN)].map((x) => [x.index, x.index! + x[0].length, x[1]]));
      expect(
        m.ends.map((e) => [e.index, e.end]),
        t,
      ).toEqual([...t.matchAll(END)].map((x) => [x.index, x.index! + x[0].length]));
    }
    // 256 KiB of repeated begins with no ">" (and with a late one): the regex spent seconds on each.
    for (const text of [
      "<!-- service:begin ".repeat(14_000),
      `${"<!-- service:begin ".repeat(14_000)}-->`,
      `${"<!-- ".repeat(50_000)}service:end`,
    ]) {
      const t0 = performance.now();
      blockMarkers(text);
      try {
        findBlock(text);
      } catch {
        /* two blocks: refused, which is the point */
      }
      expect(performance.now() - t0, text.slice(0, 30)).toBeLessThan(2000);
    }
  });
});

describe("POST /v1/agents/me/advise", () => {
  const advise = (a: TestAgent, body: Record<string, unknown>) => call("POST", "/v1/agents/me/advise", { key: a.key, body });
  const usage = async (a: TestAgent) => (await call("GET", "/v1/usage/today", { key: a.key })).body.metrics.FRESHNESS_CALLS.used;

  it("claude-code: the MCP entry to merge, Lore's skill and the stack's skills to install, the instruction file's new content", async () => {
    setClock(() => Date.parse("2031-03-10T09:00:00Z"));
    const a = await newAgent();
    const publisher = await signup();
    const fits = `hono-helper-${Date.now().toString(36)}`;
    const pub = await call("POST", "/v1/me/skills", {
      token: publisher.token,
      body: {
        category: "backend",
        tags: ["hono"],
        files: [
          {
            path: "SKILL.md",
            content: `---\nname: ${fits}\ndescription: Helps with Hono routes in a project\n---\n\n# ${fits}\n\nRead the Hono docs.\n`,
          },
        ],
      },
    });
    expect(pub.status, JSON.stringify(pub.body)).toBe(201);
    const claudeMd = "# My project\r\n\r\nAlways run `pnpm test`.\r\n";
    const before = await usage(a);
    const r = await advise(a, {
      harness: "claude-code",
      stack: [{ name: "hono", version: "4.0.0" }],
      installedSkills: [],
      existingInstructionFiles: [{ path: "CLAUDE.md", content: claudeMd }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await usage(a)).toBe(before + 1);
    expect(r.body).toMatchObject({ harness: "claude-code", name: "Claude Code", mcpUrl: MCP });
    const byId = new Map(r.body.proposals.map((p: any) => [p.id, p]));
    expect([...byId.keys()]).toEqual(["mcp", "skill:lore", `skill:${fits}`, "instructions:CLAUDE.md"]);
    expect(byId.get("mcp")).toMatchObject({
      kind: "mcp_server",
      action: "merge",
      file: ".mcp.json",
      scope: "project",
      format: "json",
      merge: { path: ["mcpServers", "lore"], value: { type: "http", url: MCP, headers: { Authorization: "Bearer ${LORE_API_KEY}" } } },
      command: expect.stringMatching(/^claude mcp add/),
      literalKey: false,
    });
    expect(byId.get("skill:lore")).toMatchObject({
      kind: "skill",
      action: "run",
      command: `npx skills add ${BASE} --skill lore -a claude-code -y`,
      file: ".claude/skills/lore",
      official: true,
    });
    expect(byId.get(`skill:${fits}`)).toMatchObject({
      command: `npx skills add ${BASE} --skill ${fits} -a claude-code -y`,
      reason: expect.stringContaining("hono"),
      // Published by an account, not Lore: a reader tells it from Lore's own by this flag, as in the skill list.
      official: false,
    });
    expect(byId.get("mcp")).not.toHaveProperty("official");
    const ins: any = byId.get("instructions:CLAUDE.md");
    expect(ins).toMatchObject({ kind: "instructions", action: "append", file: "CLAUDE.md", format: "markdown" });
    expect(ins.content.startsWith(claudeMd)).toBe(true);
    expect(ins.content).toContain("<!-- service:begin v1 updated=2031-03-10 -->\r\n## Lore\r\n");
    expect(ins.content).toContain("`service_sync` (MCP)");
    // Applying it and asking again: nothing left to do for the file; installed skills drop out.
    const r2 = await advise(a, {
      harness: "claude-code",
      stack: [{ name: "hono", version: "4.0.0" }],
      installedSkills: ["lore", fits],
      existingInstructionFiles: [{ path: "CLAUDE.md", content: ins.content }],
    });
    const ids2 = r2.body.proposals.map((p: any) => `${p.id}:${p.action}`);
    expect(ids2).toEqual(["mcp:merge", "instructions:CLAUDE.md:none"]);
    expect(r2.body.proposals[1].content).toBe(ins.content);
  });

  it("a stack of ranges: each read as its lowest match, and what it could not pin is said (stack: null without one)", async () => {
    const a = await newAgent();
    const stack = [
      { name: "express", version: "^4.19.1", ecosystem: "npm" },
      { name: "react", version: "18.2.0", ecosystem: "npm" },
      { name: "next", version: "latest", ecosystem: "npm" },
      { name: "requests", version: ">=2.31,<3", ecosystem: "pypi" },
      { name: "tokio", version: "1.38", ecosystem: "cargo" },
    ];
    const r = await advise(a, { harness: "codex", stack, installedSkills: [] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.stack).toEqual({
      entries: 5,
      ranges: [
        { name: "express", ecosystem: "npm", version: "^4.19.1", pinned: "4.19.1" },
        { name: "requests", ecosystem: "pypi", version: ">=2.31,<3", pinned: "2.31" },
        { name: "tokio", ecosystem: "cargo", version: "1.38", pinned: "1.38.0" },
      ],
      unpinned: [{ name: "next", ecosystem: "npm", version: "latest" }],
    });
    expect((await advise(a, { harness: "codex" })).body.stack).toBeNull();
  });

  it("a file with two blocks or a broken block is a 400 naming the file, and costs nothing", async () => {
    const a = await newAgent();
    const before = await usage(a);
    const two =
      "<!-- service:begin v1 updated=2030-01-01 -->\nx\n<!-- service:end -->\n<!-- service:begin v1 updated=2030-01-01 -->\ny\n<!-- service:end -->\n";
    const e = expectError(
      await advise(a, {
        harness: "codex",
        existingInstructionFiles: [
          { path: "README.md", content: "hi" },
          { path: "AGENTS.md", content: two },
        ],
      }),
      400,
      "VALIDATION_FAILED",
    );
    expect(e.error.message).toMatch(/^AGENTS\.md has 2 service blocks/);
    expect(e.error.details).toMatchObject({
      file: "AGENTS.md",
      problem: "two_blocks",
      issues: [{ path: "body.existingInstructionFiles.1.content" }],
    });
    const broken = expectError(
      await advise(a, {
        harness: "codex",
        existingInstructionFiles: [{ path: "AGENTS.md", content: "<!-- service:begin v1 -->\nno end\n" }],
      }),
      400,
      "VALIDATION_FAILED",
    );
    expect(broken.error.details.problem).toBe("broken_block");
    expectError(await advise(a, { harness: "notepad" }), 400, "VALIDATION_FAILED");
    expectError(
      await advise(a, { harness: "codex", existingInstructionFiles: [{ path: "../../etc/passwd", content: "" }] }),
      400,
      "VALIDATION_FAILED",
    );
    expect(await usage(a)).toBe(before);
  });

  it("per harness: TOML for codex, a literal-key harness is never written for you, hermes's .hermes.md, aider without MCP", async () => {
    const a = await newAgent();
    const codex = (await advise(a, { harness: "codex", installedSkills: ["lore"] })).body;
    expect(codex.proposals.map((p: any) => p.id)).toEqual(["mcp", "instructions:AGENTS.md"]);
    expect(codex.proposals[0]).toMatchObject({
      format: "toml",
      merge: null,
      action: "merge",
      snippet: expect.stringContaining("[mcp_servers.lore]"),
    });
    expect(codex.proposals[1]).toMatchObject({ action: "create", notes: [expect.stringMatching(/was not sent/)] });

    const kimi = (await advise(a, { harness: "kimi", installedSkills: ["lore"] })).body;
    expect(kimi.proposals[0]).toMatchObject({ action: "manual", literalKey: true, file: "~/.kimi/mcp.json", scope: "user" });
    expect(kimi.proposals[0].notes.join(" ")).toMatch(/never written for you/);

    const hermes = (
      await advise(a, {
        harness: "hermes",
        installedSkills: ["lore"],
        existingInstructionFiles: [{ path: ".hermes.md", content: "# Hermes\n" }],
      })
    ).body;
    expect(hermes.proposals.find((p: any) => p.kind === "instructions")).toMatchObject({ file: ".hermes.md", action: "append" });

    const aider = (
      await advise(a, {
        harness: "aider",
        existingInstructionFiles: [{ path: ".aider.conf.yml", content: "model: x\nread: [NOTES.md]\n" }],
      })
    ).body;
    expect(aider.mcpUrl).toBeNull();
    expect(aider.proposals.map((p: any) => `${p.id}:${p.action}`)).toEqual([
      "instructions:CONVENTIONS.md:create",
      "config:.aider.conf.yml:update",
    ]);
    expect(aider.proposals[0].content).toContain(`curl -s -X POST ${BASE}/v1/agents/me/sync -H "Authorization: Bearer $LORE_API_KEY"`);
    expect(aider.proposals[1].content).toBe("model: x\nread: [NOTES.md, CONVENTIONS.md]\n");
    expect(aider.notes.join(" ")).toMatch(/no MCP client/);

    const cursor = (
      await advise(a, { harness: "cursor", installedSkills: ["lore"], existingInstructionFiles: [{ path: "AGENTS.md", content: "x\n" }] })
    ).body;
    expect(cursor.proposals.find((p: any) => p.kind === "instructions").file).toBe("AGENTS.md");
  });

  it("a block another harness wrote into a file this harness does not read does not count: Claude Code and Gemini still get theirs", async () => {
    const a = await newAgent();
    const instructions = (r: any) =>
      r.body.proposals.filter((p: any) => p.kind === "instructions").map((p: any) => `${p.file}:${p.action}`);
    const codex = await advise(a, {
      harness: "codex",
      installedSkills: ["lore"],
      existingInstructionFiles: [{ path: "AGENTS.md", content: "# Agents\n" }],
    });
    const agentsMd = codex.body.proposals.find((p: any) => p.kind === "instructions").content as string;
    expect(agentsMd).toMatch(/^# Agents\n\n<!-- service:begin v1 /);
    const sent = [{ path: "AGENTS.md", content: agentsMd }];
    expect(instructions(await advise(a, { harness: "codex", installedSkills: ["lore"], existingInstructionFiles: sent }))).toEqual([
      "AGENTS.md:none",
    ]);
    // Neither reads AGENTS.md: the block there is no reason to leave their own file without it.
    expect(instructions(await advise(a, { harness: "claude-code", installedSkills: ["lore"], existingInstructionFiles: sent }))).toEqual([
      "CLAUDE.md:create",
    ]);
    expect(
      instructions(
        await advise(a, {
          harness: "gemini",
          installedSkills: ["lore"],
          existingInstructionFiles: [...sent, { path: "GEMINI.md", content: "# G\n" }],
        }),
      ),
    ).toEqual(["GEMINI.md:append"]);
    // Their own file with the block is found as before; AGENTS.md (and its block) is left alone.
    const claude = await advise(a, {
      harness: "claude-code",
      installedSkills: ["lore"],
      existingInstructionFiles: [...sent, { path: ".claude/CLAUDE.md", content: agentsMd }],
    });
    expect(instructions(claude)).toEqual([".claude/CLAUDE.md:none"]);
    // Hermes reads AGENTS.md, unless a .hermes.md shadows it.
    expect(instructions(await advise(a, { harness: "hermes", installedSkills: ["lore"], existingInstructionFiles: sent }))).toEqual([
      "AGENTS.md:none",
    ]);
    expect(
      instructions(
        await advise(a, {
          harness: "hermes",
          installedSkills: ["lore"],
          existingInstructionFiles: [...sent, { path: ".hermes.md", content: "# H\n" }],
        }),
      ),
    ).toEqual([".hermes.md:append"]);
  });

  it("reuses the stack and skills the agent last reported; service_advise takes the contract's argument and marks the result untrusted", async () => {
    const a = await newAgent();
    expect(
      (
        await call("POST", "/v1/agents/me/sync", {
          key: a.key,
          body: { stack: [{ name: "hono", version: "4.0.0" }], installedSkills: ["lore"] },
        })
      ).status,
    ).toBe(200);
    const r = (await advise(a, { harness: "gemini" })).body;
    expect(r.proposals.map((p: any) => p.id)).not.toContain("skill:lore");
    expect(r.proposals.some((p: any) => p.id.startsWith("skill:hono-helper-"))).toBe(true);
    const client = await mcpClient(a.key);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "service_advise")!;
    expect(tool.inputSchema.required).toEqual(["harness"]);
    const res = await client.callTool({ name: "service_advise", arguments: { harness: "cursor" } });
    expect(toolJson(res)).toMatchObject({ harness: "cursor", proposals: expect.any(Array) });
    expect((res._meta as any)["lore/untrusted"]).toBe(true);
    await client.close();
  });
});
