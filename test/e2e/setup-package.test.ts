import { describe, expect, it } from "vitest";
import { gunzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
// biome-ignore format: @ts-expect-error must sit on the line just before the module path
// @ts-expect-error plain JS helpers shared with the npm scripts
import { ASSET_PATH, build, buildPackage, cliHarnessData, CLI_PATH, GENERATED_PATH, skillsLock, withHarnessData } from "../../scripts/setup-package.mjs";
import { CLI_PACKAGE } from "../../src/setup/cli-package.generated";

/**
 * lore-setup as a package: the harness data inside the CLI is data/harnesses.json's, the tarball
 * the Worker serves is what a build of the current source gives (same bytes every build), and the
 * files each harness may touch are the ones listed in docs/behaviour-sync.md.
 */
const ROOT = path.resolve(path.dirname(CLI_PATH), "..");
const data = JSON.parse(readFileSync(path.join(ROOT, "data", "harnesses.json"), "utf8"));

/** The entries of a .tgz: name → {mode, bytes}. */
function untar(tgz: Uint8Array) {
  const tar = gunzipSync(tgz);
  const out = new Map<string, { mode: number; mtime: number; uid: number; bytes: Buffer }>();
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const field = (from: number, len: number) =>
      h
        .subarray(from, from + len)
        .toString("latin1")
        .replace(/\0.*$/s, "")
        .trim();
    const size = parseInt(field(124, 12), 8);
    out.set(field(0, 100), {
      mode: parseInt(field(100, 8), 8),
      mtime: parseInt(field(136, 12), 8),
      uid: parseInt(field(108, 8), 8),
      bytes: Buffer.from(tar.subarray(at + 512, at + 512 + size)),
    });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe("lore-setup's package", () => {
  it("the CLI's harness data is data/harnesses.json's, and the committed CLI and tarball are what a build gives (npm run build:setup)", async () => {
    const cli: any = await import(pathToFileURL(CLI_PATH).href);
    expect(cli.HARNESS_DATA).toEqual(cliHarnessData(data));
    expect(cli.HARNESSES).toEqual(data.harnesses.map((h: { id: string }) => h.id));
    const fresh = build();
    expect(readFileSync(CLI_PATH, "utf8") === fresh.cli, "bin/lore-setup.mjs is stale: run npm run build:setup").toBe(true);
    expect(
      readFileSync(GENERATED_PATH, "utf8") === fresh.module,
      "src/setup/cli-package.generated.ts is stale: run npm run build:setup",
    ).toBe(true);
    expect(readFileSync(ASSET_PATH).equals(fresh.asset), "data/assets/setup/lore-setup.tgz is stale: run npm run build:setup").toBe(true);
    // A change to the data shows in the CLI: the block is written, not hand-kept.
    const changed = structuredClone(data);
    changed.harnesses[0].instructionFiles.push("EXTRA.md");
    expect(withHarnessData(fresh.cli, changed)).toContain('"EXTRA.md"');
  });

  it("the skills CLI's lockfile inside the CLI is Lore's own: skills and each of its dependencies at the version and integrity of package-lock.json, nothing else", async () => {
    const cli: any = await import(pathToFileURL(CLI_PATH).href);
    const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
    expect(cli.SKILLS_LOCK).toEqual(skillsLock(lock));
    const names = Object.keys(cli.SKILLS_LOCK.packages).filter((k) => k);
    expect(names).toContain("node_modules/skills");
    for (const k of names) {
      expect(cli.SKILLS_LOCK.packages[k].integrity, k).toBe(lock.packages[k].integrity);
      expect(cli.SKILLS_LOCK.packages[k].version, k).toBe(lock.packages[k].version);
      expect(cli.SKILLS_LOCK.packages[k].integrity, k).toMatch(/^sha512-/);
    }
    // Every dependency of every package in it is in it (npm ci would otherwise fetch something unpinned).
    for (const k of names)
      for (const d of Object.keys(cli.SKILLS_LOCK.packages[k].dependencies ?? {}))
        expect(
          names.some((n) => n === `node_modules/${d}` || n.endsWith(`/node_modules/${d}`)),
          `${k} -> ${d}`,
        ).toBe(true);
    expect(cli.SKILLS_LOCK.packages[""]).toEqual({
      name: "lore-setup-skills",
      dependencies: { skills: lock.packages["node_modules/skills"].version },
    });
    expect(cli.skillsFolderFiles()["package-lock.json"]).toBe(`${JSON.stringify(cli.SKILLS_LOCK, null, 2)}\n`);
  });

  it("the same source gives the same bytes; the tarball holds package.json, the CLI and smol-toml, with fixed times, owners and modes", async () => {
    const source = readFileSync(CLI_PATH, "utf8");
    const a = buildPackage(source);
    const b = buildPackage(source);
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(a.integrity).toBe(CLI_PACKAGE.integrity);
    expect(readFileSync(ASSET_PATH).equals(Buffer.from(a.bytes))).toBe(true);
    expect(CLI_PACKAGE.size).toBe(a.bytes.length);
    // A different source is a different version and integrity.
    const other = buildPackage(`${source}\n`);
    expect(other.version).not.toBe(a.version);
    expect(other.integrity).not.toBe(a.integrity);

    const entries = untar(a.bytes);
    const toml = readdirSync(path.join(ROOT, "node_modules", "smol-toml", "dist"))
      .filter((f) => /\.(?:js|cjs)$/.test(f))
      .sort();
    expect([...entries.keys()]).toEqual([
      "package/package.json",
      "package/bin/lore-setup.mjs",
      "package/node_modules/smol-toml/package.json",
      "package/node_modules/smol-toml/LICENSE",
      ...toml.map((f) => `package/node_modules/smol-toml/dist/${f}`),
    ]);
    expect(entries.get("package/bin/lore-setup.mjs")!.bytes.toString("utf8")).toBe(source);
    expect(entries.get("package/bin/lore-setup.mjs")!.mode).toBe(0o755);
    for (const f of toml)
      expect(
        entries
          .get(`package/node_modules/smol-toml/dist/${f}`)!
          .bytes.equals(readFileSync(path.join(ROOT, "node_modules", "smol-toml", "dist", f))),
        f,
      ).toBe(true);
    for (const e of entries.values()) expect([e.mtime, e.uid]).toEqual([499162500, 0]);
    const pkg = JSON.parse(entries.get("package/package.json")!.bytes.toString("utf8"));
    const tomlVersion = JSON.parse(readFileSync(path.join(ROOT, "node_modules", "smol-toml", "package.json"), "utf8")).version;
    expect(pkg).toMatchObject({
      name: "lore-setup",
      version: CLI_PACKAGE.version,
      bin: { "lore-setup": "bin/lore-setup.mjs" },
      type: "module",
    });
    // Its one dependency travels inside it: installing it asks no registry for anything.
    expect(pkg.dependencies).toEqual({ "smol-toml": tomlVersion });
    expect(pkg.bundleDependencies).toEqual(["smol-toml"]);
    expect(pkg.scripts).toBeUndefined();
    expect(CLI_PACKAGE.version).toMatch(/^\d+\.\d+\.\d+-h[0-9a-f]{12}$/);
    // The version and digests the CLI computes of its own file are the package's.
    const cli: any = await import(pathToFileURL(CLI_PATH).href);
    expect(cli.ownVersion()).toEqual({ sha256: CLI_PACKAGE.sourceSha256, version: CLI_PACKAGE.version });
    expect(createHash("sha512").update(a.bytes).digest("hex")).toBe(CLI_PACKAGE.sha512);
    // A tarball to publish under a scope the project owns carries that name and version.
    const named = buildPackage(source, { name: "@example/lore-setup", version: "1.2.3" });
    expect(JSON.parse(untar(named.bytes).get("package/package.json")!.bytes.toString("utf8"))).toMatchObject({
      name: "@example/lore-setup",
      version: "1.2.3",
    });
  });

  it("each harness may touch only its MCP configuration and instruction files (~/… ones with --user), none of them a file lore-setup never writes; the skills CLI it runs is the one the e2e suite tests", async () => {
    const cli: any = await import(pathToFileURL(CLI_PATH).href);
    const table = Object.fromEntries((cli.HARNESSES as string[]).map((h) => [h, Object.fromEntries(cli.allowedFiles(h))]));
    expect(table).toEqual({
      "claude-code": { "CLAUDE.md": "instructions", ".claude/CLAUDE.md": "instructions", ".mcp.json": "mcp" },
      openclaude: { "AGENTS.md": "instructions", "CLAUDE.md": "instructions", ".openclaude/CLAUDE.md": "instructions", ".mcp.json": "mcp" },
      hermes: { "AGENTS.md": "instructions", ".hermes.md": "instructions", "~/.hermes/config.yaml": "mcp" },
      opencode: { "AGENTS.md": "instructions", "CLAUDE.md": "instructions", "opencode.json": "mcp" },
      kimi: { "AGENTS.md": "instructions", ".kimi/AGENTS.md": "instructions", "~/.kimi/mcp.json": "mcp" },
      openclaw: {
        "~/.openclaw/workspace/TOOLS.md": "instructions",
        "~/.openclaw/workspace/AGENTS.md": "instructions",
        "~/.openclaw/openclaw.json": "mcp",
      },
      codex: { "AGENTS.md": "instructions", "AGENTS.override.md": "instructions", ".codex/config.toml": "mcp" },
      gemini: { "GEMINI.md": "instructions", ".gemini/settings.json": "mcp" },
      cursor: { "AGENTS.md": "instructions", ".cursor/rules/lore.mdc": "instructions", ".cursor/mcp.json": "mcp" },
      copilot: { ".github/copilot-instructions.md": "instructions", "AGENTS.md": "instructions", "~/.copilot/mcp-config.json": "mcp" },
      windsurf: { "AGENTS.md": "instructions", ".windsurf/rules/lore.md": "instructions", "~/.codeium/windsurf/mcp_config.json": "mcp" },
      cline: {
        ".clinerules/lore.md": "instructions",
        "AGENTS.md": "instructions",
        ".clinerules": "instructions",
        "~/.cline/data/settings/cline_mcp_settings.json": "mcp",
      },
      aider: { "CONVENTIONS.md": "instructions", ".aider.conf.yml": "config" },
    });
    for (const files of Object.values(table)) for (const f of Object.keys(files)) expect(cli.neverWritten(f), f).toBeNull();
    // docs/behaviour-sync.md lists the same files.
    const doc = readFileSync(path.join(ROOT, "docs", "behaviour-sync.md"), "utf8");
    for (const [h, files] of Object.entries(table)) {
      const row = doc.split("\n").find((l) => l.startsWith(`| ${h} |`));
      expect(row, h).toBeDefined();
      for (const f of Object.keys(files)) expect(row, `${h} ${f}`).toContain(`\`${f}\``);
    }
    const skills = JSON.parse(readFileSync(path.join(ROOT, "node_modules", "skills", "package.json"), "utf8"));
    expect(cli.SKILLS_CLI).toBe(`skills@${skills.version}`);
  });

  it("reads every lockfile kind it knows, and package.json's ranges without one; says what it read, did not send and did not read", async () => {
    const cli: any = await import(pathToFileURL(CLI_PATH).href);
    const project = (files: Record<string, string>) => {
      const dir = mkdtempSync(path.join(tmpdir(), "lore-setup-stack-"));
      for (const [f, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        writeFileSync(path.join(dir, f), text);
      }
      try {
        return cli.readStack(dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const pkg = JSON.stringify({ dependencies: { react: "^18.2.0" }, devDependencies: { vitest: "^1.6.0" } });
    const cases: [Record<string, string>, string, { name: string; version: string; ecosystem: string }[]][] = [
      [
        {
          "package.json": pkg,
          "package-lock.json": JSON.stringify({
            lockfileVersion: 1,
            dependencies: { react: { version: "18.2.0" }, vitest: { version: "1.6.1" }, "loose-envify": { version: "1.4.0" } },
          }),
        },
        "package-lock.json",
        [
          { name: "react", version: "18.2.0", ecosystem: "npm" },
          { name: "vitest", version: "1.6.1", ecosystem: "npm" },
        ],
      ],
      [
        {
          "package.json": pkg,
          "pnpm-lock.yaml":
            "lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      react:\n        specifier: ^18.2.0\n        version: 18.2.0\n    devDependencies:\n      vitest:\n        specifier: ^1.6.0\n        version: 1.6.1(@types/node@20.0.0)\n",
        },
        "pnpm-lock.yaml",
        [
          { name: "react", version: "18.2.0", ecosystem: "npm" },
          { name: "vitest", version: "1.6.1", ecosystem: "npm" },
        ],
      ],
      [
        { "package.json": pkg, "yarn.lock": 'react@^18.2.0:\n  version "18.2.0"\n\nvitest@^1.6.0:\n  version "1.6.1"\n' },
        "yarn.lock",
        [
          { name: "vitest", version: "1.6.1", ecosystem: "npm" },
          { name: "react", version: "18.2.0", ecosystem: "npm" },
        ],
      ],
      [
        { "package.json": pkg, "yarn.lock": '"react@npm:^18.2.0":\n  version: 18.2.0\n\n"vitest@npm:^1.6.0":\n  version: 1.6.1\n' },
        "yarn.lock",
        [
          { name: "vitest", version: "1.6.1", ecosystem: "npm" },
          { name: "react", version: "18.2.0", ecosystem: "npm" },
        ],
      ],
      [
        { "poetry.lock": '[[package]]\nname = "django"\nversion = "4.2"\n' },
        "poetry.lock",
        [{ name: "django", version: "4.2", ecosystem: "pypi" }],
      ],
      [
        {
          "uv.lock":
            '[[package]]\nname = "shop"\nversion = "0.1.0"\nsource = { editable = "." }\n\n[[package]]\nname = "requests"\nversion = "2.31.0"\nsource = { registry = "https://pypi.org/simple" }\n',
        },
        "uv.lock",
        [{ name: "requests", version: "2.31.0", ecosystem: "pypi" }],
      ],
      [
        { "package.json": pkg },
        "package.json",
        [
          { name: "vitest", version: "^1.6.0", ecosystem: "npm" },
          { name: "react", version: "^18.2.0", ecosystem: "npm" },
        ],
      ],
    ];
    for (const [files, file, entries] of cases) {
      const s = project(files);
      expect(s.files, file).toEqual([file]);
      expect(s.entries, file).toEqual(entries);
    }
    // Without a lockfile: ranges as written, aliases by their real name, nothing that is not a registry version.
    const loose = project({
      "package.json": JSON.stringify({
        dependencies: {
          a: "~1.2.3",
          b: "npm:real-b@^2.0.0",
          c: "file:../c",
          d: "workspace:*",
          e: "github:user/e",
          f: "user/f",
          g: "https://x/g.tgz",
          h: "latest",
          i: "",
        },
      }),
      "bun.lock": "{}",
      "pyproject.toml": "[project]\n",
      "Cargo.toml": "[package]\n",
    });
    expect(loose.entries).toEqual([
      { name: "a", version: "~1.2.3", ecosystem: "npm" },
      { name: "real-b", version: "^2.0.0", ecosystem: "npm" },
      { name: "h", version: "latest", ecosystem: "npm" },
    ]);
    expect(loose.read).toEqual([
      { file: "package.json", count: 3, note: "version ranges, no lockfile lore-setup reads (bun.lock is not read)" },
    ]);
    expect(loose.notSent).toEqual([
      "package.json: c: file:../c is not a registry version",
      "package.json: d: workspace:* is not a registry version",
      "package.json: e: github:user/e is not a registry version",
      "package.json: f: user/f is not a registry version",
      "package.json: g: https://x/g.tgz is not a registry version",
      "package.json: i: no version",
    ]);
    expect(loose.notRead).toEqual([
      "pyproject.toml: Python: lore-setup reads poetry.lock, uv.lock or requirements.txt",
      "Cargo.toml: Rust: lore-setup reads Cargo.lock (run cargo generate-lockfile)",
    ]);
    // A version advise would refuse (too long, invisible characters) is not sent, rather than failing the whole request.
    const odd = project({
      "package.json": JSON.stringify({ dependencies: { ok: "1.0.0", long: `^1.0.0 || ${"1".repeat(130)}`, "bi\u202edi": "1.0.0" } }),
    });
    expect(odd.entries).toEqual([{ name: "ok", version: "1.0.0", ecosystem: "npm" }]);
    expect(odd.notSent).toEqual([
      "package.json: long: longer than Lore accepts",
      "package.json: bi\u202edi: has control or invisible characters",
    ]);
  });
});
