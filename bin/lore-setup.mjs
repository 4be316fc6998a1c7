#!/usr/bin/env node
// lore-setup: connects the coding agent harness of a project to Lore.
//
// Reads the project (its lockfiles or package.json for the stack, its instruction files, the
// skills already installed), asks Lore's advise endpoint what to write for the harness, shows the
// proposals as a diff, and applies them on confirmation or with --yes: the MCP configuration file,
// Lore's section of the instruction file, and skills through the `skills` CLI. --dry-run writes
// nothing. Node's standard library only. The key (LORE_API_KEY) is sent in a header and never
// printed or written.
//
// The server is not trusted with this machine. Which files may change comes from the harness data
// below (shipped inside this file), never from the answer: for each harness its MCP configuration
// file and its instruction files, and user-level files only with --user. The MCP entry and every
// command are built here from that data and Lore's address; the server's text is compared with
// them and printed with control characters made visible, and anything else it asks for is refused.
import { spawnSync } from "node:child_process";
import { closeSync, constants as fsConstants, existsSync, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";

// ---- the harnesses ------------------------------------------------------------------------------
// BEGIN HARNESS DATA (generated from data/harnesses.json by `npm run build:setup`; test/e2e/setup-package.test.ts checks it)
export const HARNESS_DATA = [
  {
    "id": "claude-code",
    "name": "Claude Code",
    "instructionFiles": [
      "CLAUDE.md",
      ".claude/CLAUDE.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": ".mcp.json",
      "format": "json",
      "snippet": "{\n  \"mcpServers\": {\n    \"lore\": {\n      \"type\": \"http\",\n      \"url\": \"{{MCP_URL}}\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${LORE_API_KEY}\"\n      }\n    }\n  }\n}",
      "cli": "claude mcp add --transport http --scope user lore {{MCP_URL}} --header 'Authorization: Bearer ${LORE_API_KEY}'"
    },
    "skillsCli": {
      "agent": "claude-code",
      "global": false,
      "dir": ".claude/skills"
    }
  },
  {
    "id": "openclaude",
    "name": "OpenClaude",
    "instructionFiles": [
      "AGENTS.md",
      "CLAUDE.md",
      ".openclaude/CLAUDE.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": ".mcp.json",
      "format": "json",
      "snippet": "{\n  \"mcpServers\": {\n    \"lore\": {\n      \"type\": \"http\",\n      \"url\": \"{{MCP_URL}}\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${LORE_API_KEY}\"\n      }\n    }\n  }\n}",
      "cli": "openclaude mcp add --transport http -s user lore {{MCP_URL}} -H 'Authorization: Bearer ${LORE_API_KEY}'"
    },
    "skillsCli": null
  },
  {
    "id": "hermes",
    "name": "Hermes Agent",
    "instructionFiles": [
      "AGENTS.md",
      ".hermes.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": "~/.hermes/config.yaml",
      "format": "yaml",
      "snippet": "mcp_servers:\n  lore:\n    url: \"{{MCP_URL}}\"\n    headers:\n      Authorization: \"Bearer ${LORE_API_KEY}\"\n",
      "cli": "hermes mcp add lore --url {{MCP_URL}} --auth header"
    },
    "skillsCli": {
      "agent": "hermes-agent",
      "global": true,
      "dir": "~/.hermes/skills"
    }
  },
  {
    "id": "opencode",
    "name": "OpenCode",
    "instructionFiles": [
      "AGENTS.md",
      "CLAUDE.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": "opencode.json",
      "format": "json",
      "snippet": "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {\n    \"lore\": {\n      \"type\": \"remote\",\n      \"url\": \"{{MCP_URL}}\",\n      \"enabled\": true,\n      \"oauth\": false,\n      \"headers\": {\n        \"Authorization\": \"Bearer {env:LORE_API_KEY}\"\n      }\n    }\n  }\n}",
      "cli": "opencode mcp add lore --url {{MCP_URL}} --header \"Authorization=Bearer $LORE_API_KEY\" --scope user"
    },
    "skillsCli": {
      "agent": "opencode",
      "global": false,
      "dir": ".agents/skills"
    }
  },
  {
    "id": "kimi",
    "name": "Kimi Code CLI",
    "instructionFiles": [
      "AGENTS.md",
      ".kimi/AGENTS.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": "~/.kimi/mcp.json",
      "format": "json",
      "snippet": "{\n  \"mcpServers\": {\n    \"lore\": {\n      \"url\": \"{{MCP_URL}}\",\n      \"transport\": \"http\",\n      \"headers\": {\n        \"Authorization\": \"Bearer <your-api-key>\"\n      }\n    }\n  }\n}",
      "cli": "kimi mcp add --transport http lore {{MCP_URL}} --header \"Authorization: Bearer $LORE_API_KEY\""
    },
    "skillsCli": {
      "agent": "kimi-code-cli",
      "global": false,
      "dir": ".agents/skills"
    }
  },
  {
    "id": "openclaw",
    "name": "OpenClaw",
    "instructionFiles": [
      "~/.openclaw/workspace/TOOLS.md",
      "~/.openclaw/workspace/AGENTS.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": "~/.openclaw/openclaw.json",
      "format": "json5",
      "snippet": "{\n  mcp: {\n    servers: {\n      lore: {\n        url: \"{{MCP_URL}}\",\n        transport: \"streamable-http\",\n        headers: { Authorization: \"Bearer ${LORE_API_KEY}\" },\n      },\n    },\n  },\n}\n",
      "cli": "openclaw mcp add lore --url {{MCP_URL}} --transport streamable-http --header 'Authorization: Bearer ${LORE_API_KEY}'"
    },
    "skillsCli": {
      "agent": "openclaw",
      "global": true,
      "dir": "~/.openclaw/skills"
    }
  },
  {
    "id": "codex",
    "name": "OpenAI Codex",
    "instructionFiles": [
      "AGENTS.md",
      "AGENTS.override.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": ".codex/config.toml",
      "format": "toml",
      "snippet": "[mcp_servers.lore]\nurl = \"{{MCP_URL}}\"\nbearer_token_env_var = \"LORE_API_KEY\"\n",
      "cli": "codex mcp add lore --url {{MCP_URL}} --bearer-token-env-var LORE_API_KEY"
    },
    "skillsCli": {
      "agent": "codex",
      "global": false,
      "dir": ".agents/skills"
    }
  },
  {
    "id": "gemini",
    "name": "Gemini CLI",
    "instructionFiles": [
      "GEMINI.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": ".gemini/settings.json",
      "format": "json",
      "snippet": "{\n  \"mcpServers\": {\n    \"lore\": {\n      \"url\": \"{{MCP_URL}}\",\n      \"type\": \"http\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${LORE_API_KEY}\"\n      }\n    }\n  }\n}",
      "cli": "gemini mcp add --transport http --scope user lore {{MCP_URL}} -H 'Authorization: Bearer ${LORE_API_KEY}'"
    },
    "skillsCli": {
      "agent": "gemini-cli",
      "global": false,
      "dir": ".agents/skills"
    }
  },
  {
    "id": "cursor",
    "name": "Cursor",
    "instructionFiles": [
      "AGENTS.md",
      ".cursor/rules/lore.mdc"
    ],
    "setupFiles": [],
    "mcp": {
      "file": ".cursor/mcp.json",
      "format": "json",
      "snippet": "{\n  \"mcpServers\": {\n    \"lore\": {\n      \"url\": \"{{MCP_URL}}\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${env:LORE_API_KEY}\"\n      }\n    }\n  }\n}",
      "cli": null
    },
    "skillsCli": {
      "agent": "cursor",
      "global": false,
      "dir": ".agents/skills"
    }
  },
  {
    "id": "copilot",
    "name": "GitHub Copilot",
    "instructionFiles": [
      ".github/copilot-instructions.md",
      "AGENTS.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": "~/.copilot/mcp-config.json",
      "format": "json",
      "snippet": "{\n  \"mcpServers\": {\n    \"lore\": {\n      \"type\": \"http\",\n      \"url\": \"{{MCP_URL}}\",\n      \"headers\": {\n        \"Authorization\": \"Bearer <your-api-key>\"\n      },\n      \"tools\": [\n        \"*\"\n      ]\n    }\n  }\n}",
      "cli": "copilot mcp add --transport http --header \"Authorization: Bearer $LORE_API_KEY\" lore {{MCP_URL}}"
    },
    "skillsCli": {
      "agent": "github-copilot",
      "global": false,
      "dir": ".agents/skills"
    }
  },
  {
    "id": "windsurf",
    "name": "Windsurf",
    "instructionFiles": [
      "AGENTS.md",
      ".windsurf/rules/lore.md"
    ],
    "setupFiles": [],
    "mcp": {
      "file": "~/.codeium/windsurf/mcp_config.json",
      "format": "json",
      "snippet": "{\n  \"mcpServers\": {\n    \"lore\": {\n      \"serverUrl\": \"{{MCP_URL}}\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${env:LORE_API_KEY}\"\n      }\n    }\n  }\n}",
      "cli": null
    },
    "skillsCli": {
      "agent": "windsurf",
      "global": false,
      "dir": ".windsurf/skills"
    }
  },
  {
    "id": "cline",
    "name": "Cline",
    "instructionFiles": [
      ".clinerules/lore.md",
      "AGENTS.md"
    ],
    "setupFiles": [
      {
        "path": ".clinerules",
        "role": "instructions"
      }
    ],
    "mcp": {
      "file": "~/.cline/data/settings/cline_mcp_settings.json",
      "format": "json",
      "snippet": "{\n  \"mcpServers\": {\n    \"lore\": {\n      \"type\": \"streamableHttp\",\n      \"url\": \"{{MCP_URL}}\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${env:LORE_API_KEY}\"\n      },\n      \"disabled\": false,\n      \"autoApprove\": []\n    }\n  }\n}",
      "cli": "cline mcp add lore {{MCP_URL}} --transport http --header \"Authorization: Bearer $LORE_API_KEY\""
    },
    "skillsCli": {
      "agent": "cline",
      "global": false,
      "dir": ".agents/skills"
    }
  },
  {
    "id": "aider",
    "name": "Aider",
    "instructionFiles": [
      "CONVENTIONS.md"
    ],
    "setupFiles": [
      {
        "path": ".aider.conf.yml",
        "role": "config"
      }
    ],
    "mcp": {
      "file": null,
      "format": null,
      "snippet": null,
      "cli": null
    },
    "skillsCli": null
  }
];
// END HARNESS DATA

export const HARNESSES = HARNESS_DATA.map((h) => h.id);
const harnessOf = (id) => HARNESS_DATA.find((h) => h.id === id);

/** The `skills` CLI lore-setup runs: pinned to the version Lore's end-to-end tests install with. */
export const SKILLS_CLI = "skills@1.7.4";
/** The oldest Node that CLI runs on (its engines field). */
const SKILLS_NODE = [22, 20];
const MAX_STACK = 500;
/** What advise accepts per instruction file (larger ones are not sent, and so not changed). */
const MAX_FILE_BYTES = 256 * 1024;

const USAGE = `Usage: lore-setup [options]

Connects this project's coding agent to Lore: the MCP server entry, Lore's section of the
instruction file, and Lore's skill plus the scan-passed skills that fit the project's stack.

Options:
  --harness <id>     ${HARNESSES.join(", ")}
                     (default: detected from the project's files)
  --dir <path>       the project folder (default: the current folder)
  --url <origin>     Lore's address (default: $LORE_URL, else http://127.0.0.1:8787)
  --yes, -y          apply without asking
  --dry-run          show what would change and write nothing
  --user             also edit the harness's own user-level files (~/...) and install skills the
                     harness only reads from the user level (-g)
  --no-skills        do not install skills
  --help, -h         this text

Environment:
  LORE_API_KEY       the agent key (required; sent as a header, never printed or written)
  LORE_URL           Lore's address
  LORE_SKILLS_CLI    a local copy of the skills CLI (a .mjs/.js file run with node) instead of npx`;

class CliError extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

// ---- what the terminal shows ----------------------------------------------------------------------

// Control, format (bidi, zero-width), separator and lone surrogate characters: none of them may
// reach the terminal from the server (an escape sequence can erase or rewrite the lines above a
// prompt). Tabs stay; newlines stay only where a text is printed as several lines.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/** `s` with every hidden character shown as `\xHH` or `\u{HHHH}`. */
export function visible(s, { lines = false } = {}) {
  return String(s).replace(HIDDEN, (c) => {
    if (c === "\t" || (lines && c === "\n")) return c;
    const cp = c.codePointAt(0);
    return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, "0")}` : `\\u{${cp.toString(16)}}`;
  });
}

/** Whether text lore-setup would write holds a character the diff could not show as it is (CRLF and tabs are fine). */
const hasHidden = (s) => /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u.test(s.replace(/\r\n|[\n\t]/g, ""));

export function parseArgs(argv) {
  const opts = { yes: false, dryRun: false, user: false, skills: true, dir: process.cwd(), url: null, harness: null, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new CliError(`${a} needs a value\n\n${USAGE}`, 2);
      return v;
    };
    if (a === "--yes" || a === "-y") opts.yes = true;
    else if (a === "--dry-run") opts.dryRun = true;
    else if (a === "--user") opts.user = true;
    else if (a === "--no-skills") opts.skills = false;
    else if (a === "--help" || a === "-h") opts.help = true;
    else if (a === "--harness") opts.harness = value();
    else if (a === "--dir") opts.dir = path.resolve(value());
    else if (a === "--url") opts.url = value();
    else throw new CliError(`Unknown option ${visible(a)}\n\n${USAGE}`, 2);
  }
  if (opts.harness && !HARNESSES.includes(opts.harness)) throw new CliError(`--harness must be one of ${HARNESSES.join(", ")}`, 2);
  return opts;
}

/** Lore's origin from --url / LORE_URL: scheme, host and port only (it goes into commands and files). */
export function loreOrigin(raw) {
  const s = String(raw).trim().replace(/\/+$/, "").replace(/\/v1$/, "");
  let u = null;
  try {
    u = new URL(s);
  } catch {
    /* reported below */
  }
  if (!u || !/^https?:$/.test(u.protocol) || u.username || u.password || u.search || u.hash || (u.pathname !== "/" && u.pathname !== "") || !/^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(u.origin)) {
    throw new CliError(`--url / LORE_URL must be an http(s) origin such as https://lore.example.com, not ${visible(s)}`, 2);
  }
  return u.origin;
}

// ---- which files lore-setup may touch -------------------------------------------------------------

/**
 * The files lore-setup may create or change for a harness, from the harness data in this file:
 * path → role (`mcp`: its MCP configuration, `instructions`: a file it reads instructions from,
 * `config`: Aider's .aider.conf.yml). `~/…` paths are user-level: written only with --user.
 */
export function allowedFiles(harness) {
  const h = typeof harness === "string" ? harnessOf(harness) : harness;
  const out = new Map();
  if (!h) return out;
  for (const f of h.instructionFiles) out.set(f, "instructions");
  for (const f of h.setupFiles) out.set(f.path, f.role);
  if (h.mcp.file) out.set(h.mcp.file, "mcp");
  return out;
}

// Whatever the harness data says, never these: a file here runs commands or grants access the
// next time git, a package manager, a shell or ssh starts.
const NEVER_DIRS = new Map([
  [".git", "git's own files (hooks and config run commands)"],
  [".ssh", "SSH configuration and keys"],
  [".gnupg", "GnuPG keys"],
  [".aws", "cloud credentials"],
  [".kube", "cluster credentials"],
  [".docker", "Docker configuration"],
  [".cargo", "Cargo's configuration"],
  [".pip", "pip's configuration"],
  [".m2", "Maven's configuration"],
  [".gradle", "Gradle's configuration"],
  [".bundle", "Bundler's configuration"],
  [".husky", "git hooks"],
]);
const NEVER_CONFIG_DIRS = ["pip", "uv", "pnpm", "yarn", "npm", "fish", "git", "nushell", "direnv", "containers", "gh"];
const NEVER_FILES = new Set([
  ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmrc", "pnpm-workspace.yaml", "bunfig.toml", ".bunfig.toml", "pip.conf", "pip.ini", ".pypirc", ".pydistutils.cfg",
  "pydistutils.cfg", ".condarc", "poetry.toml", "uv.toml", "pdm.toml", ".gemrc", ".netrc", "_netrc", ".gitconfig", ".gitmodules", ".gitattributes",
  ".git-credentials", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
  ".zlogout", ".cshrc", ".tcshrc", ".login", ".logout", ".kshrc", ".mkshrc", ".envrc", ".env", ".inputrc", "config.fish", "authorized_keys", "known_hosts",
  ".curlrc", ".wgetrc", ".pgpass", ".vimrc", ".exrc", ".editorconfig", "package.json", "Makefile",
]);

/** Why lore-setup never writes `file` (a project-relative or `~/…` path), or null. */
export function neverWritten(file) {
  const parts = String(file).replace(/\\/g, "/").replace(/^~\//, "").split("/").filter((p) => p && p !== ".");
  const lower = parts.map((p) => p.toLowerCase());
  for (const p of lower.slice(0, -1)) if (NEVER_DIRS.has(p)) return NEVER_DIRS.get(p);
  for (let i = 0; i < lower.length - 1; i++) if (lower[i] === ".config" && NEVER_CONFIG_DIRS.includes(lower[i + 1])) return `${lower[i + 1]}'s configuration`;
  const base = lower.at(-1) ?? "";
  if (NEVER_FILES.has(base) || base.startsWith(".env.")) return "package-manager, shell, git or SSH configuration";
  if (NEVER_DIRS.has(base)) return NEVER_DIRS.get(base);
  return null;
}

// ---- reading the project --------------------------------------------------------------------------

// Everything lore-setup reads or writes goes through `locate`: a project may come from anyone (a
// cloned repo's `CLAUDE.md -> ~/.bashrc`), and the paths in advise's answer are the server's, so
// both are treated as hostile. A path must stay inside its root (the project's real folder, or the
// home folder for `~/…`), and no part of it below the root may be a symbolic link: lore-setup never
// reads or writes through one.

// O_NOFOLLOW also refuses a link that appears between the check and the open (POSIX; 0 on Windows).
const NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;

/**
 * Where `rel` lands under `root`: `{target}`, or `{refused, link?}` saying why lore-setup will not
 * touch it. `shown` is how the path is named in messages (`~/…` for the home folder).
 */
export function locate(root, rel, shown = rel) {
  if (typeof rel !== "string" || rel.trim() === "" || rel.includes("\0")) return { refused: `${visible(JSON.stringify(rel) ?? String(rel))} is not a file path` };
  shown = visible(shown);
  const slashed = rel.replace(/\\/g, "/");
  if (path.isAbsolute(rel) || path.win32.isAbsolute(rel) || /^[A-Za-z]:/.test(slashed) || slashed.startsWith("~")) return { refused: `${shown} is not a path inside ${root}` };
  let base;
  try {
    base = realpathSync(root);
  } catch {
    return { refused: `${root} does not exist` };
  }
  const target = path.resolve(base, slashed);
  const inside = path.relative(base, target);
  if (inside === "" || inside === ".." || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) return { refused: `${shown} is outside ${root}` };
  const prefix = shown.endsWith(rel) ? shown.slice(0, shown.length - rel.length) : "";
  let cur = base;
  for (const part of inside.split(path.sep)) {
    cur = path.join(cur, part);
    let st;
    try {
      st = lstatSync(cur);
    } catch (e) {
      if (e.code === "ENOENT") break; // the rest does not exist yet: the write creates it
      return { refused: `${shown} cannot be checked (${e.code ?? e.message})` };
    }
    const name = prefix + visible(path.relative(base, cur).split(path.sep).join("/"));
    if (st.isSymbolicLink()) return { refused: `${name} is a symbolic link; lore-setup never reads or writes through one`, link: true };
    if (cur !== target && !st.isDirectory()) return { refused: `${name} is not a folder` };
  }
  return { target };
}

/** The text of a located file (null when there is none); a link that appeared since `locate` is refused. */
function readTarget(target) {
  let fd;
  try {
    fd = openSync(target, fsConstants.O_RDONLY | NOFOLLOW);
  } catch (e) {
    if (e.code === "ENOENT") return { text: null };
    if (e.code === "EISDIR") return { text: null, notFile: true };
    if (e.code === "ELOOP" || e.code === "EMLINK") return { refused: "it is a symbolic link; lore-setup never reads or writes through one", link: true };
    throw e;
  }
  try {
    return fstatSync(fd).isFile() ? { text: readFileSync(fd, "utf8") } : { text: null, notFile: true };
  } finally {
    closeSync(fd);
  }
}

/** Writes a located file without following a link; a new file only while it is still absent. */
function writeTarget(target, text, create) {
  const { O_WRONLY, O_CREAT, O_EXCL, O_TRUNC } = fsConstants;
  const fd = openSync(target, create ? O_WRONLY | O_CREAT | O_EXCL : O_WRONLY | O_TRUNC | NOFOLLOW, 0o644);
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** A project (or home) file's text, or null; a refused path is skipped and said in `skipped`. */
function readIn(root, rel, skipped, shown = rel) {
  const loc = locate(root, rel, shown);
  const r = loc.refused ? loc : readTarget(loc.target);
  if (r.refused) {
    skipped.push(`${visible(shown)}: skipped, ${r.refused}`);
    return null;
  }
  return r.text;
}

/** Which harness the project is set up for, from the files each one reads (first match wins). */
export function detectHarness(dir) {
  const has = (rel) => existsSync(path.join(dir, rel));
  const rules = [
    ["claude-code", [".claude", "CLAUDE.md", ".mcp.json"]],
    ["openclaude", [".openclaude"]],
    ["cursor", [".cursor"]],
    ["windsurf", [".windsurf", ".windsurfrules"]],
    ["cline", [".clinerules", ".cline"]],
    ["copilot", [".github/copilot-instructions.md", ".github/skills"]],
    ["gemini", ["GEMINI.md", ".gemini"]],
    ["opencode", ["opencode.json", "opencode.jsonc", ".opencode"]],
    ["kimi", [".kimi"]],
    ["hermes", [".hermes.md", "HERMES.md"]],
    ["aider", [".aider.conf.yml", "CONVENTIONS.md"]],
    ["codex", [".codex", "AGENTS.md"]],
  ];
  return rules.find(([, files]) => files.some(has))?.[0] ?? null;
}

/** Top-level keys of a small YAML mapping block, by indentation (enough for lockfiles' fixed shapes). */
function yamlBlocks(lines, start, indent) {
  const out = [];
  for (let i = start; i < lines.length; i++) {
    const l = lines[i];
    if (!l.trim() || l.trim().startsWith("#")) continue;
    const ind = l.length - l.trimStart().length;
    if (ind < indent) break;
    if (ind === indent) out.push({ key: l.trim().replace(/:\s*(.*)$/, ""), value: /:\s*(.*)$/.exec(l.trim())?.[1] ?? "", line: i });
  }
  return out;
}
const unquote = (s) => s.trim().replace(/^['"]|['"]$/g, "");

/** package.json's dependencies of every kind, or null (`bad` when it is there but not JSON). */
function packageJsonDeps(rd) {
  const text = rd("package.json");
  if (text === null) return null;
  try {
    const pkg = JSON.parse(text);
    const deps = {};
    for (const k of ["optionalDependencies", "peerDependencies", "devDependencies", "dependencies"]) {
      const d = pkg?.[k];
      if (d && typeof d === "object" && !Array.isArray(d)) for (const [n, v] of Object.entries(d)) if (n !== "__proto__") deps[n] = v;
    }
    return deps;
  } catch {
    return { bad: true };
  }
}

/**
 * A package.json dependency as a stack entry, `{entry}` or `{skip: why}`: a registry range or
 * version is sent as it is (the service pins what it can and says what it could not); a path, a
 * workspace link, a git or tarball URL names no registry version and is not sent.
 */
export function npmSpecEntry(name, spec) {
  if (typeof spec !== "string" || !spec.trim()) return { skip: "no version" };
  let n = name;
  let v = spec.trim();
  const alias = /^npm:((?:@[^/@\s]+\/)?[^@\s]+)(?:@(.*))?$/.exec(v);
  if (alias) {
    n = alias[1];
    v = alias[2]?.trim() || "*";
  }
  if (/^(?:file|link|workspace|portal|patch|catalog|git|git\+[a-z]+|github|gitlab|bitbucket|gist|https?):/i.test(v) || /^(?:\.{1,2}\/|~\/|\/)/.test(v) || /^[^\s@/:]+\/[^\s]+$/.test(v)) {
    return { skip: `${v} is not a registry version` };
  }
  return { entry: { name: n, version: v, ecosystem: "npm" } };
}

/** npm, pnpm and yarn lockfiles (the direct dependencies at their locked versions), else package.json's ranges. */
function npmStack(rd) {
  const direct = packageJsonDeps(rd);
  if (direct?.bad) return { file: "package.json", entries: [], note: "not valid JSON: not read", skipped: [] };
  const deps = direct ?? {};
  const names = direct ? Object.keys(deps) : null;
  const out = [];
  const missing = (file) => (names ? names.filter((n) => !out.some((e) => e.name === n)).map((n) => `${n}: not in ${file}`) : []);
  const lock = rd("package-lock.json") ?? rd("npm-shrinkwrap.json");
  if (lock) {
    let j;
    try {
      j = JSON.parse(lock);
    } catch {
      return { file: "package-lock.json", entries: [], note: "not valid JSON: not read", skipped: [] };
    }
    if (j?.packages) {
      const root = j.packages[""] ?? {};
      const wanted = names ?? Object.keys({ ...root.dependencies, ...root.devDependencies, ...root.optionalDependencies });
      for (const n of wanted) {
        const v = j.packages[`node_modules/${n}`]?.version;
        if (typeof v === "string") out.push({ name: n, version: v, ecosystem: "npm" });
      }
    } else if (j?.dependencies) {
      for (const [n, d] of Object.entries(j.dependencies)) if ((!names || names.includes(n)) && typeof d?.version === "string") out.push({ name: n, version: d.version, ecosystem: "npm" });
    }
    return { file: "package-lock.json", entries: out, note: "locked versions", skipped: missing("package-lock.json") };
  }
  const pnpm = rd("pnpm-lock.yaml");
  if (pnpm) {
    const lines = pnpm.split(/\r?\n/);
    const importers = lines.findIndex((l) => /^importers:\s*$/.test(l));
    const collect = (from, indent) => {
      for (const section of yamlBlocks(lines, from, indent)) {
        if (!["dependencies", "devDependencies", "optionalDependencies"].includes(section.key)) continue;
        for (const dep of yamlBlocks(lines, section.line + 1, indent + 2)) {
          const name = unquote(dep.key);
          let version = unquote(dep.value);
          if (!version) version = unquote(yamlBlocks(lines, dep.line + 1, indent + 4).find((b) => b.key === "version")?.value ?? "");
          version = version.replace(/\(.*$/, "");
          if (name && /^\d/.test(version)) out.push({ name, version, ecosystem: "npm" });
        }
      }
    };
    if (importers >= 0) {
      const root = yamlBlocks(lines, importers + 1, 2).find((b) => b.key === "." || b.key === "'.'");
      if (root) collect(root.line + 1, 4);
    } else collect(0, 0);
    return { file: "pnpm-lock.yaml", entries: out, note: "locked versions", skipped: missing("pnpm-lock.yaml") };
  }
  const yarn = rd("yarn.lock");
  if (yarn && direct) {
    // Entries: `"name@range", name@range2:` (v1) or `"name@npm:range":` (berry), then `version "x"` / `version: x`.
    const blocks = yarn.split(/\r?\n(?=\S)/);
    for (const [name, range] of Object.entries(deps)) {
      for (const b of blocks) {
        const head = b.split(/\r?\n/)[0];
        const specs = head.replace(/:$/, "").split(/,\s*/).map(unquote);
        if (!specs.some((s) => s === `${name}@${range}` || s === `${name}@npm:${range}`)) continue;
        const v = /^\s+version:?\s+"?([^"\s]+)"?/m.exec(b)?.[1];
        if (v) out.push({ name, version: v, ecosystem: "npm" });
        break;
      }
    }
    return { file: "yarn.lock", entries: out, note: "locked versions", skipped: missing("yarn.lock") };
  }
  if (!direct) return null;
  // No lockfile this reads: package.json's own ranges (the service pins each to its lowest match).
  const skipped = [];
  for (const [name, spec] of Object.entries(deps)) {
    const r = npmSpecEntry(name, spec);
    if (r.entry) out.push(r.entry);
    else skipped.push(`${name}: ${r.skip}`);
  }
  const other = ["bun.lock", "bun.lockb"].filter((f) => rd(f) !== null);
  return { file: "package.json", entries: out, note: `version ranges, no lockfile${other.length ? ` lore-setup reads (${other.join(", ")} is not read)` : ""}`, skipped };
}

/** `[[package]]` tables of a TOML lockfile (poetry.lock, uv.lock, Cargo.lock): name, version, source. */
function tomlPackages(text) {
  const out = [];
  for (const chunk of text.split(/^\[\[package\]\]\s*$/m).slice(1)) {
    const body = chunk.split(/^\[(?!\[package\]\])/m)[0];
    const get = (k) => new RegExp(`^${k}\\s*=\\s*"([^"]*)"`, "m").exec(body)?.[1] ?? null;
    out.push({ name: get("name"), version: get("version"), source: /^source\s*=\s*(.+)$/m.exec(body)?.[1] ?? null });
  }
  return out.filter((p) => p.name && p.version);
}

function pythonStack(rd) {
  const poetry = rd("poetry.lock");
  if (poetry) return { file: "poetry.lock", entries: tomlPackages(poetry).map((p) => ({ name: p.name, version: p.version, ecosystem: "pypi" })), note: "locked versions", skipped: [] };
  const uv = rd("uv.lock");
  if (uv) {
    // The project itself is a package of the lock too (an editable or virtual source): not a dependency.
    const pkgs = tomlPackages(uv).filter((p) => !/editable|virtual/.test(p.source ?? ""));
    return { file: "uv.lock", entries: pkgs.map((p) => ({ name: p.name, version: p.version, ecosystem: "pypi" })), note: "locked versions", skipped: [] };
  }
  const req = rd("requirements.txt");
  if (req) {
    const entries = [];
    const skipped = [];
    for (const raw of req.split(/\r?\n/)) {
      const l = raw.replace(/\s+#.*$/, "").split(";")[0].trim();
      if (!l || l.startsWith("#")) continue;
      if (l.startsWith("-") || /^[a-z]+:\/\//i.test(l) || l.includes(" @ ")) {
        skipped.push(`${l.slice(0, 80)}: an option, a path or a URL, not a registry version`);
        continue;
      }
      const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*((?:===|==|~=|>=|<=|!=|>|<).+)?$/.exec(l);
      if (m && m[2]) entries.push({ name: m[1], version: m[2].replace(/\s+/g, ""), ecosystem: "pypi" });
      else skipped.push(`${l.slice(0, 80)}: no version`);
    }
    return { file: "requirements.txt", entries, note: "pins and ranges", skipped };
  }
  return null;
}

function goStack(rd) {
  const mod = rd("go.mod");
  if (!mod) return null;
  const direct = [];
  const indirect = [];
  const add = (line) => {
    const m = /^\s*([^\s()]+)\s+(v[^\s]+)(\s*\/\/\s*indirect)?/.exec(line);
    if (m && m[1] !== "require") (m[3] ? indirect : direct).push({ name: m[1], version: m[2], ecosystem: "go" });
  };
  let inBlock = false;
  for (const line of mod.split(/\r?\n/)) {
    if (/^require\s*\($/.test(line.trim())) inBlock = true;
    else if (inBlock && line.trim() === ")") inBlock = false;
    else if (inBlock) add(line);
    else if (/^require\s+\S+\s+v/.test(line.trim())) add(line.trim().replace(/^require\s+/, ""));
  }
  return { file: "go.mod", entries: [...direct, ...indirect], note: "required versions", skipped: [] };
}

function cargoStack(rd) {
  const lock = rd("Cargo.lock");
  if (!lock) return null;
  // Packages without a registry source are the workspace's own crates.
  return { file: "Cargo.lock", entries: tomlPackages(lock).filter((p) => (p.source ?? "").includes("registry")).map((p) => ({ name: p.name, version: p.version, ecosystem: "cargo" })), note: "locked versions", skipped: [] };
}

// Manifests seen but not read, with what lore-setup reads instead (so a missing stack is explained).
const UNREAD_MANIFESTS = [
  ["pyproject.toml", ["poetry.lock", "uv.lock", "requirements.txt"], "Python: lore-setup reads poetry.lock, uv.lock or requirements.txt"],
  ["Pipfile.lock", ["poetry.lock", "uv.lock", "requirements.txt"], "Python: lore-setup reads poetry.lock, uv.lock or requirements.txt"],
  ["Cargo.toml", ["Cargo.lock"], "Rust: lore-setup reads Cargo.lock (run cargo generate-lockfile)"],
];

/** Advise's limits on one entry (a longer or invisible name or version would fail the whole request). */
function sendable(e) {
  if (e.name.length > 214 || e.version.length > 128) return "longer than Lore accepts";
  if (hasHidden(e.name) || hasHidden(e.version) || /[\t\r\n]/.test(e.name + e.version)) return "has control or invisible characters";
  return null;
}

/**
 * The project's dependencies from every lockfile found (or package.json's ranges without one),
 * direct ones first, at most 500; `read` says what each file gave and `skipped` what was not sent.
 */
export function readStack(dir, skipped = []) {
  const rd = (rel) => readIn(dir, rel, skipped);
  const found = [npmStack(rd), pythonStack(rd), goStack(rd), cargoStack(rd)].filter(Boolean);
  const seen = new Set();
  const entries = [];
  const notSent = [];
  for (const f of found) {
    for (const s of f.skipped) notSent.push(`${f.file}: ${s}`);
    for (const e of f.entries) {
      const bad = sendable(e);
      if (bad) {
        notSent.push(`${f.file}: ${e.name.slice(0, 80)}: ${bad}`);
        continue;
      }
      const k = `${e.ecosystem}\u0000${e.name.toLowerCase()}\u0000${e.version}`;
      if (seen.has(k)) continue;
      seen.add(k);
      entries.push(e);
    }
  }
  const notRead = UNREAD_MANIFESTS.filter(([file, instead]) => !found.some((f) => instead.includes(f.file)) && existsSync(path.join(dir, file))).map(([file, , why]) => `${file}: ${why}`);
  return {
    files: found.map((f) => f.file),
    read: found.map((f) => ({ file: f.file, count: f.entries.length, note: f.note })),
    entries: entries.slice(0, MAX_STACK),
    total: entries.length,
    notSent,
    notRead,
  };
}

const SKILL_DIRS = [".agents/skills", ".claude/skills", ".openclaude/skills", ".cursor/skills", ".github/skills", ".windsurf/skills", ".cline/skills", ".clinerules/skills", ".gemini/skills", ".kimi/skills", ".opencode/skills"];

/** Names of the skills installed in the project (folders with a SKILL.md), as advise accepts them. */
export function installedSkills(dir, skipped = []) {
  const names = new Set();
  for (const d of SKILL_DIRS) {
    const loc = locate(dir, d);
    if (loc.refused) {
      skipped.push(`${d}: skipped, ${loc.refused}`);
      continue;
    }
    let list = [];
    try {
      list = readdirSync(loc.target);
    } catch {
      continue;
    }
    // Only the names are read (a skill may be a link the skills CLI made to .agents/skills).
    for (const n of list) {
      if (!existsSync(path.join(loc.target, n, "SKILL.md"))) continue;
      if (n.length > 64 || hasHidden(n) || /\s/.test(n)) skipped.push(`${d}/${visible(n)}: skipped, not a skill name Lore accepts`);
      else names.add(n.toLowerCase());
    }
  }
  return [...names].sort().slice(0, 200);
}

/**
 * The harness's instruction files (and Aider's .aider.conf.yml) that exist, as `{path, content}`,
 * for advise to return their new text. Only these are sent: the project's other files stay here.
 */
export function instructionFiles(dir, harness, { user = false, home = homedir() } = {}, skipped = []) {
  const out = [];
  for (const [p, role] of allowedFiles(harness)) {
    if (role === "mcp") continue;
    const userLevel = p.startsWith("~/");
    if (userLevel && !user) continue;
    const content = userLevel ? readIn(home, p.slice(2), skipped, p) : readIn(dir, p, skipped);
    if (content === null) continue;
    if (Buffer.byteLength(content) > MAX_FILE_BYTES) {
      skipped.push(`${p}: skipped, larger than 256 KiB (not sent, so not changed)`);
      continue;
    }
    out.push({ path: p, content });
  }
  return out;
}

// ---- what to change -----------------------------------------------------------------------------------

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** A JSON config with `value` set at `keys` (the rest kept), or null when the file is not plain JSON. */
function mergeJson(text, keys, value) {
  let doc;
  try {
    doc = text.trim() ? JSON.parse(text) : {};
  } catch {
    return null;
  }
  if (!isObj(doc)) return null;
  let cur = doc;
  for (const k of keys.slice(0, -1)) {
    if (!isObj(cur[k])) cur[k] = {};
    cur = cur[k];
  }
  const last = keys.at(-1);
  if (same(cur[last], value)) return text;
  cur[last] = value;
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** A TOML config with the `[mcp_servers.lore]` table set to `snippet` (replaced in place, or appended). */
function mergeToml(text, snippet) {
  const header = snippet.split("\n")[0].trim();
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.trim() === header);
  if (start < 0) return text + (text === "" || text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n") + snippet;
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end])) end++;
  // Keep the blank lines that separated the table from the next one.
  while (end > start + 1 && lines[end - 1].trim() === "") end--;
  const table = snippet.replace(/\n+$/, "").split("\n");
  if (same(lines.slice(start, end), table)) return text;
  return [...lines.slice(0, start), ...table, ...lines.slice(end)].join("\n");
}

/**
 * Lore's MCP entry for a harness, built here from the harness data and Lore's origin: the snippet,
 * and for JSON the key path and value to merge. The server's proposal must say the same.
 */
export function mcpEntry(harness, lore) {
  const h = typeof harness === "string" ? harnessOf(harness) : harness;
  if (!h?.mcp.snippet || !h.mcp.file) return null;
  const fill = (s) => (s === null ? null : s.replaceAll("{{MCP_URL}}", `${lore}/v1/mcp`));
  const snippet = fill(h.mcp.snippet);
  let merge = null;
  if (h.mcp.format === "json") {
    const doc = JSON.parse(snippet);
    const top = Object.keys(doc).find((k) => k !== "$schema" && isObj(doc[k]));
    merge = { path: [top, "lore"], value: doc[top].lore };
  }
  return { file: h.mcp.file, format: h.mcp.format, snippet, merge, cli: fill(h.mcp.cli), literalKey: snippet.includes("<your-api-key>") };
}

const BLOCK_BEGIN = /<!--[ \t]*service:begin\b[^>]*?-->/g;
const BLOCK_END = /<!--[ \t]*service:end[ \t]*-->/g;

/** The one `<!-- service:begin … --> … <!-- service:end -->` block of a text, or null. */
function blockSpan(text) {
  const b = [...text.matchAll(BLOCK_BEGIN)];
  const e = [...text.matchAll(BLOCK_END)];
  if (b.length !== 1 || e.length !== 1 || e[0].index < b[0].index) return null;
  return { start: b[0].index, end: e[0].index + e[0][0].length };
}

/**
 * Why an instruction file's new text is more than Lore's section changing, or null when it is not:
 * every byte outside the block stays as it was (a new file may start with the front matter Cursor's
 * and Windsurf's rule files need), and the block shows as it will be written.
 */
export function instructionChangeProblem(file, before, after) {
  const a = blockSpan(after);
  if (!a) return "the new text has no single Lore section";
  const pre = after.slice(0, a.start);
  const post = after.slice(a.end);
  const section = after.slice(a.start, a.end);
  if (hasHidden(section)) return "Lore's section holds control or invisible characters";
  // Claude Code loads `@path` (and `@~/path`) of an instruction file into the agent's context.
  if (/(?:^|[\s(])@(?:~|\.{0,2}\/|[\w.-]+\/)/m.test(section)) return "Lore's section imports a file (@path), which the harness would load into the agent's context";
  if (before === null || before === "") {
    const frontMatter = /\.mdc$/.test(file) || file.startsWith(".windsurf/rules/") ? /^(?:---\n(?:[A-Za-z][\w-]*:[^\n]*\n){1,6}---\n\n)?$/ : /^$/;
    if (!frontMatter.test(pre) || hasHidden(pre)) return "the new file holds more than Lore's section";
    return /^(?:\r?\n)?$/.test(post) ? null : "the new file holds more than Lore's section";
  }
  const b = blockSpan(before);
  if (b) return before.slice(0, b.start) === pre && before.slice(b.end) === post ? null : "it changes text outside Lore's section";
  if (!pre.startsWith(before)) return "it changes text outside Lore's section";
  return /^(?:\r?\n){0,2}$/.test(pre.slice(before.length)) && /^(?:\r?\n)?$/.test(post) ? null : "it adds more than Lore's section";
}

/** Why a .aider.conf.yml change is more than adding an instruction file to `read:`, or null. */
export function aiderConfigProblem(harness, before, after) {
  const h = typeof harness === "string" ? harnessOf(harness) : harness;
  const LINE = /^read:[ \t]*\[([^\]\r\n]*)\][ \t]*$/;
  const items = (inner) => inner.split(",").map((s) => s.trim()).filter(Boolean);
  const okItem = (s) => /^[A-Za-z0-9._/-]+$/.test(s) && !s.split("/").includes("..");
  const had = before ?? "";
  const oldLines = had.split("\n");
  const at = oldLines.findIndex((l) => /^read:/.test(l));
  let oldItems = [];
  let newLine;
  if (at < 0) {
    const base = had === "" || had.endsWith("\n") ? had : `${had}\n`;
    if (!after.startsWith(base) || !after.endsWith("\n")) return "it changes more than the read: entry";
    newLine = after.slice(base.length, -1);
    if (newLine.includes("\n")) return "it changes more than the read: entry";
  } else {
    const m = LINE.exec(oldLines[at]);
    if (!m) return "the existing read: entry is not a one-line list";
    oldItems = items(m[1]);
    const newLines = after.split("\n");
    if (newLines.length !== oldLines.length || newLines.some((l, i) => i !== at && l !== oldLines[i])) return "it changes more than the read: entry";
    newLine = newLines[at];
  }
  const m = LINE.exec(newLine);
  if (!m || hasHidden(newLine)) return "the new read: entry is not a one-line list of files";
  const next = items(m[1]);
  if (!next.every(okItem) || !oldItems.every((i) => next.includes(i))) return "the new read: entry drops or adds odd entries";
  const added = next.filter((i) => !oldItems.includes(i));
  if (!added.every((i) => h.instructionFiles.includes(i))) return "the new read: entry names a file that is not the harness's instruction file";
  return null;
}

const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
// What cmd.exe passes through untouched (see skillsSpawn): no quote, space, % ^ & | < > ( ) ! ; , =.
const SAFE_ARG = /^(?:--?)?[A-Za-z0-9][A-Za-z0-9:/.@\[\]-]*$/;

/** The install command as lore-setup shows it (the server's skill proposals must name exactly this). */
export const skillsCommandLine = (r) => `npx skills add ${r.source} --skill ${r.skill} -a ${r.agent}${r.global ? " -g" : ""} -y`;

/**
 * How to start the skills CLI for one install: `{cmd, args, shell}`, from a fixed program name
 * and the arguments lore-setup validated (the Lore origin, a skill name, the harness's agent id).
 * npx runs with `--prefix` set to an empty folder of lore-setup's own, so npm reads no project
 * configuration (a project `.npmrc` could name another registry, a script shell or node options),
 * while the skills CLI still installs into the project (the working folder).
 * On Windows `npx` is a batch file, which Node (since the CVE-2024-27980 fix) starts only through a
 * shell: npm's own npx-cli.js beside node.exe is run with node instead where it is; otherwise every
 * argument must pass SAFE_ARG (the prefix folder is quoted), or the call is refused.
 */
export function skillsSpawn(r, { platform = process.platform, local = process.env.LORE_SKILLS_CLI, execPath = process.execPath, prefix, exists = existsSync } = {}) {
  const args = ["add", r.source, "--skill", r.skill, "-a", r.agent, ...(r.global ? ["-g"] : []), "-y"];
  if (local) return { cmd: execPath, args: [local, ...args], shell: false };
  const npx = ["--prefix", prefix, "--yes", SKILLS_CLI, ...args];
  if (platform !== "win32") return { cmd: "npx", args: npx, shell: false };
  const npxCli = path.win32.join(path.win32.dirname(execPath), "node_modules", "npm", "bin", "npx-cli.js");
  if (exists(npxCli)) return { cmd: execPath, args: [npxCli, ...npx], shell: false };
  const bad = args.find((a) => !SAFE_ARG.test(a));
  if (bad !== undefined) throw new CliError(`refusing to run the skills CLI through the shell with the argument ${visible(JSON.stringify(bad))}`);
  if (/["%!^\r\n]/.test(prefix) || hasHidden(prefix)) throw new CliError(`refusing to run the skills CLI through the shell from the folder ${visible(JSON.stringify(prefix))}`);
  return { cmd: ["npx.cmd", "--prefix", `"${prefix}"`, "--yes", SKILLS_CLI, ...args].join(" "), args: [], shell: true };
}

/**
 * The skills CLI's environment: lore-setup's own, without the key and without npm's exported
 * configuration (`npm_*`: when npx started lore-setup, these carry the project's .npmrc, which
 * would follow npx into the prefix folder).
 */
export function childEnv(env = process.env) {
  const out = {};
  for (const [k, v] of Object.entries(env)) if (!/^npm_/i.test(k) && k !== "LORE_API_KEY") out[k] = v;
  return out;
}

/**
 * Where a file may be written: one of the harness's own files (allowedFiles), never a file of
 * NEVER_FILES/NEVER_DIRS, `~/…` only with --user, and through `locate` inside its root.
 * `refused` means the server asked for something lore-setup never does; `manual` is a step for the
 * user (a user-level file without --user, a symbolic link in the way).
 */
export function placeFile(dir, file, kind, opts, home = homedir()) {
  const h = harnessOf(opts.harness);
  const allowed = allowedFiles(h);
  const roleOf = { mcp_server: "mcp", instructions: "instructions", config: "config" };
  if (typeof file !== "string") return { refused: "the proposal names no file path" };
  const never = neverWritten(file);
  if (never) return { refused: `${never}: lore-setup never writes it` };
  const role = allowed.get(file);
  if (!role) return { refused: `not a file lore-setup writes for ${h.name} (${[...allowed.keys()].join(", ") || "none"})` };
  if (roleOf[kind] !== role) return { refused: `${h.name}'s ${role === "mcp" ? "MCP configuration" : role === "config" ? "configuration" : "instruction file"}, not a place for a ${visible(kind)} proposal` };
  if (file.startsWith("~/")) {
    if (!opts.user) return { manual: `${shown} is a user-level file (run again with --user to let lore-setup edit it)`, user: true, role };
    const loc = locate(home, file.slice(2), file);
    return loc.refused ? { manual: loc.refused, link: loc.link, role } : { target: loc.target, root: home, rel: file.slice(2), role };
  }
  const loc = locate(dir, file);
  return loc.refused ? { manual: loc.refused, link: loc.link, role } : { target: loc.target, root: dir, rel: file, role };
}

/**
 * The local actions for advise's proposals: files to write (old and new text), skill installs to
 * run, steps left to the user (`manual`), and what the server asked for that lore-setup never does
 * (`refused`). The answer is the server's: every path, entry and command in it is checked against
 * what this file builds itself before anything is read, shown or run.
 */
export function plan(dir, advice, opts, home = homedir()) {
  const h = harnessOf(opts.harness);
  const writes = [];
  const runs = [];
  const manual = [];
  const unchanged = [];
  const refused = [];
  const mcp = mcpEntry(h, opts.lore);
  const notes = (p) => (Array.isArray(p.notes) ? p.notes.filter((n) => typeof n === "string") : []);
  const proposals = Array.isArray(advice.proposals) ? advice.proposals.filter(isObj) : [];
  for (const p of proposals) {
    const what = visible(p.file ?? p.id ?? p.kind ?? "?");
    if (!["mcp_server", "skill", "instructions", "config"].includes(p.kind)) {
      refused.push({ proposal: p, what, why: `a ${visible(p.kind)} proposal is not one lore-setup knows` });
      continue;
    }
    if (p.kind === "skill") {
      if (!opts.skills) continue;
      const name = /^skill:(.*)$/s.exec(typeof p.id === "string" ? p.id : "")?.[1] ?? "";
      if (!SKILL_NAME.test(name)) {
        refused.push({ proposal: p, what, why: "not a skill name lore-setup installs" });
        continue;
      }
      if (p.action === "none") continue;
      if (!h.skillsCli) {
        manual.push({ proposal: p, why: `${h.name} installs skills by hand`, todo: `see ${opts.lore}/connect/${h.id}` });
        continue;
      }
      const r = { source: opts.lore, skill: name, agent: h.skillsCli.agent, global: h.skillsCli.global };
      const line = skillsCommandLine(r);
      if (p.command !== line) {
        refused.push({ proposal: p, what: `skill ${name}`, why: `its command is not the one lore-setup builds (${line}); the server's text is never run`, text: p.command });
        continue;
      }
      if (r.global && !opts.user) {
        manual.push({ proposal: p, why: "it installs into your user-level skills folder (run again with --user to let lore-setup do it)", todo: line });
        continue;
      }
      const [major, minor] = String(opts.node ?? process.versions.node).split(".").map(Number);
      if (!opts.localSkillsCli && (major < SKILLS_NODE[0] || (major === SKILLS_NODE[0] && minor < SKILLS_NODE[1]))) {
        manual.push({ proposal: p, why: `the skills CLI needs Node ${SKILLS_NODE.join(".")} or newer and this is Node ${visible(opts.node ?? process.versions.node)}`, todo: `${line}    (with a newer Node)` });
        continue;
      }
      // The skills CLI writes where the harness reads skills (and, for project installs, its own .agents/skills).
      const dirs = [`${h.skillsCli.dir}/${name}`, ...(r.global ? [] : [`.agents/skills/${name}`])];
      const blocked = dirs.map((d) => (d.startsWith("~/") ? locate(home, d.slice(2), d) : locate(dir, d))).find((l) => l.refused);
      if (blocked) {
        manual.push({ proposal: p, why: blocked.refused, todo: null });
        continue;
      }
      runs.push({ proposal: p, ...r, line });
      continue;
    }
    const place = placeFile(dir, p.file, p.kind, opts, home);
    if (place.refused) {
      refused.push({ proposal: p, what, why: place.refused });
      continue;
    }
    // The MCP entry is lore-setup's own; a server that proposes another one is refused.
    if (place.role === "mcp" && (!mcp || p.snippet !== mcp.snippet || (p.merge != null && !same(p.merge, mcp.merge)) || (p.content != null && p.content !== mcp.snippet))) {
      refused.push({ proposal: p, what, why: `its entry is not the one lore-setup builds for ${h.name} from its own harness data` });
      continue;
    }
    if (p.action === "none") {
      unchanged.push(p);
      continue;
    }
    const ownStep = place.role === "mcp" ? (mcp.cli ?? `add this to ${mcp.file}:\n${mcp.snippet}`) : null;
    if (place.role === "mcp" && mcp.literalKey) {
      manual.push({ proposal: p, why: `${what} needs the key itself, which lore-setup never writes`, todo: ownStep });
      continue;
    }
    if (place.manual) {
      // A user-level file is a step to hand on; so is the section for an instruction file behind a link.
      const todo = place.user ? (ownStep ?? (typeof p.snippet === "string" ? p.snippet : null)) : place.link && place.role === "instructions" && typeof p.snippet === "string" ? p.snippet : null;
      manual.push({ proposal: p, why: place.manual, todo });
      continue;
    }
    if (p.action === "manual") {
      manual.push({ proposal: p, why: notes(p)[0] ?? "needs a person", todo: ownStep });
      continue;
    }
    const read = readTarget(place.target);
    if (read.refused || read.notFile) {
      manual.push({ proposal: p, why: `${what} ${read.refused ?? "is not a regular file"}`, todo: null });
      continue;
    }
    const before = read.text;
    let after;
    if (place.role === "mcp") {
      if (before === null) after = mcp.snippet.endsWith("\n") ? mcp.snippet : `${mcp.snippet}\n`;
      else if (mcp.merge) after = mergeJson(before, mcp.merge.path, mcp.merge.value);
      else if (mcp.format === "toml") after = mergeToml(before, mcp.snippet);
      else after = null;
      if (after === null) {
        manual.push({ proposal: p, why: `${what} exists and is not plain ${mcp.format === "json" ? "JSON" : mcp.format}: merge the entry by hand`, todo: mcp.snippet });
        continue;
      }
    } else {
      // instructions / config: advise returned the whole new file; only Lore's part may differ.
      if (p.action === "create" && before !== null) {
        manual.push({ proposal: p, why: `${what} appeared after it was read`, todo: "run lore-setup again" });
        continue;
      }
      if (typeof p.content !== "string") {
        refused.push({ proposal: p, what, why: "the proposal has no content" });
        continue;
      }
      after = p.content;
      const problem = place.role === "config" ? aiderConfigProblem(h, before, after) : instructionChangeProblem(p.file, before, after);
      if (problem) {
        refused.push({ proposal: p, what, why: problem });
        continue;
      }
    }
    if (after === before) unchanged.push(p);
    else writes.push({ proposal: p, file: p.file, root: place.root, rel: place.rel, target: place.target, before, after });
  }
  return { writes, runs, manual, unchanged, refused };
}

/** Writes one planned file, checking its path again first (the folder may have changed since). */
export function applyWrite(w) {
  const again = locate(w.root, w.rel, w.file);
  if (again.refused) throw new CliError(again.refused);
  mkdirSync(path.dirname(again.target), { recursive: true });
  // mkdir may have met a folder swapped for a link: once more, then open without following one.
  const final = locate(w.root, w.rel, w.file);
  if (final.refused) throw new CliError(final.refused);
  writeTarget(final.target, w.after, w.before === null);
}

/** A unified diff of one changed region (common leading and trailing lines kept as context), every line shown as it is. */
export function unifiedDiff(file, before, after, context = 3) {
  const crlf = (before ?? after).includes("\r\n");
  const split = (t) => (t === null || t === "" ? [] : t.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n"));
  const a = split(before);
  const b = split(after);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const from = Math.max(0, pre - context);
  const aEnd = Math.min(a.length, a.length - suf + context);
  const bEnd = Math.min(b.length, b.length - suf + context);
  const lines = [
    `--- ${before === null ? "/dev/null" : `a/${file}`}`,
    `+++ b/${file}${crlf ? " (CRLF line endings kept)" : ""}`,
    `@@ -${a.length ? from + 1 : 0},${aEnd - from} +${b.length ? from + 1 : 0},${bEnd - from} @@`,
    ...a.slice(from, pre).map((l) => ` ${l}`),
    ...a.slice(pre, a.length - suf).map((l) => `-${l}`),
    ...b.slice(pre, b.length - suf).map((l) => `+${l}`),
    ...a.slice(a.length - suf, aEnd).map((l) => ` ${l}`),
  ];
  return lines.map((l) => visible(l)).join("\n");
}

// ---- talking to Lore ----------------------------------------------------------------------------------

/** This copy's version when it runs from Lore's package (its package.json beside bin/), else null. */
function ownVersion() {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    return pkg.name === "lore-setup" && typeof pkg.version === "string" ? pkg.version : null;
  } catch {
    return null;
  }
}

/** The version of lore-setup this Lore serves (GET /v1/setup), or null when it cannot tell. */
async function servedVersion(url) {
  try {
    const res = await fetch(`${url}/v1/setup`, { headers: { accept: "application/json", "user-agent": "lore-setup/1" }, signal: AbortSignal.timeout(10_000) });
    const v = res.ok ? (await res.json())?.cli?.version : null;
    return typeof v === "string" && /^[0-9A-Za-z.+-]{1,64}$/.test(v) ? v : null;
  } catch {
    return null;
  }
}

/** Advise's answer is read up to this size: a server cannot make lore-setup hold more. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

async function readCapped(res, max) {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      throw new CliError(`Lore's answer is larger than ${max / 1024 / 1024} MiB: not read`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function advise(url, key, body, version) {
  let res;
  try {
    res = await fetch(`${url}/v1/agents/me/advise`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${key}`, "user-agent": `lore-setup/${version ?? "1"}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
      // The key goes to Lore only: a redirect elsewhere is not followed with it.
      redirect: "manual",
    });
  } catch (e) {
    throw new CliError(`Could not reach Lore at ${url} (${visible(e.cause?.code ?? e.message)}). Set LORE_URL or --url to its address.`);
  }
  if (res.status >= 300 && res.status < 400) throw new CliError(`Lore answered ${res.status} (a redirect to ${visible(res.headers.get("location") ?? "?")}): lore-setup sends the key to ${url} only. Set LORE_URL to the address it redirects to, if that is your Lore.`);
  const text = await readCapped(res, MAX_ANSWER_BYTES);
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  if (res.ok && isObj(json)) return json;
  const err = isObj(json?.error) ? json.error : null;
  if (res.status === 401) throw new CliError("Lore refused the key in LORE_API_KEY (401): it is unknown or revoked. Create a new one on the dashboard's Agents page.");
  if (res.status === 429) throw new CliError(`Lore's quota is used up: ${visible(err?.message ?? "429")}. Try again after ${visible(err?.details?.resetsAt ?? `${res.headers.get("retry-after")} s`)}; do not retry in a loop.`);
  throw new CliError(`Lore answered ${res.status}: ${visible(err?.message ?? text.slice(0, 300))}`);
}

function runSkills(dir, r, key, prefix) {
  let spec;
  try {
    spec = skillsSpawn(r, { prefix });
  } catch (e) {
    return { ok: false, out: e.message, status: "refused" };
  }
  const res = spawnSync(spec.cmd, spec.args, { cwd: dir, env: childEnv(), encoding: "utf8", timeout: 180_000, shell: spec.shell });
  const raw = `${res.stdout ?? ""}${res.stderr ?? ""}${res.error && !res.stdout && !res.stderr ? res.error.message : ""}`;
  const out = key.length >= 8 ? raw.split(key).join("[key]") : raw;
  return { ok: res.status === 0, out: visible(out.trim(), { lines: true }), status: res.status ?? res.error?.code ?? res.error?.message };
}

/** The stack lines of the summary: what each file gave, what was not sent, what was not read. */
function stackLines(stack) {
  const lines = [`  stack       ${stack.entries.length} dependencies${stack.read.length ? "" : " (no lockfile or package.json found)"}${stack.total > stack.entries.length ? ` (first ${stack.entries.length} of ${stack.total})` : ""}`];
  for (const r of stack.read) lines.push(`    read      ${r.file}: ${r.count} (${r.note})`);
  for (const s of stack.notSent) lines.push(`    not sent  ${visible(s)}`);
  for (const s of stack.notRead) lines.push(`    not read  ${s}`);
  return lines;
}

/** What advise said about the stack it was sent (ranges read as their lowest match, versions it could not read). */
function adviseStackLines(s) {
  if (!isObj(s)) return [];
  const show = (e) => `${visible(e?.name)} ${visible(e?.version)}${e?.pinned ? ` -> ${visible(e.pinned)}` : ""}`;
  const lines = [];
  const ranges = Array.isArray(s.ranges) ? s.ranges : [];
  const unpinned = Array.isArray(s.unpinned) ? s.unpinned : [];
  if (ranges.length) lines.push(`lore: ${ranges.length} range(s) read as their lowest match: ${ranges.slice(0, 20).map(show).join(", ")}${ranges.length > 20 ? ", …" : ""}`);
  if (unpinned.length) lines.push(`lore: could not pin ${unpinned.length}: ${unpinned.slice(0, 20).map(show).join(", ")}${unpinned.length > 20 ? ", …" : ""}`);
  return lines;
}

// ---- main --------------------------------------------------------------------------------------------------

export async function main(argv = process.argv.slice(2), io = { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`) }) {
  const opts = parseArgs(argv);
  if (opts.help) {
    io.out(USAGE);
    return 0;
  }
  const key = process.env.LORE_API_KEY?.trim();
  if (!key) throw new CliError("LORE_API_KEY is not set: put the agent key from the dashboard's Agents page in it (export LORE_API_KEY=…; never commit it).", 2);
  const url = loreOrigin(opts.url ?? process.env.LORE_URL ?? "http://127.0.0.1:8787");
  if (!existsSync(opts.dir) || !statSync(opts.dir).isDirectory()) throw new CliError(`${visible(opts.dir)} is not a folder`, 2);

  const harness = opts.harness ?? detectHarness(opts.dir);
  if (!harness) throw new CliError(`Could not tell which harness this project uses: pass --harness (${HARNESSES.join(", ")}).`, 2);
  const h = harnessOf(harness);
  const skipped = [];
  const stack = readStack(opts.dir, skipped);
  const skills = installedSkills(opts.dir, skipped);
  const files = instructionFiles(opts.dir, h, { user: opts.user }, skipped);
  const version = ownVersion();
  io.out(`lore-setup${version ? ` ${version}` : ""}: ${visible(opts.dir)}`);
  io.out(`  harness     ${harness}${opts.harness ? "" : " (detected; --harness to choose another)"}`);
  for (const l of stackLines(stack)) io.out(l);
  io.out(`  skills      ${skills.length ? skills.join(", ") : "none installed"}`);
  io.out(`  files       ${[...allowedFiles(h).keys()].filter((f) => opts.user || !f.startsWith("~/")).join(", ") || "none in the project"} (the only files lore-setup may change for ${h.name}${opts.user ? "" : "; ~/… ones need --user"})`);
  io.out(`  lore        ${url} (key from LORE_API_KEY)`);
  for (const s of new Set(skipped)) io.out(`  not read    ${s}`);
  if (version) {
    const served = await servedVersion(url);
    if (served && served !== version) {
      io.out(`  warning     this lore-setup is ${version}; ${url} serves ${served} (npx reuses what it first downloaded from a URL). The current one: npx --yes "${url}/v1/setup/lore-setup.tgz?v=${served}"`);
    }
  }

  const advice = await advise(url, key, { harness, stack: stack.entries, installedSkills: skills, existingInstructionFiles: files }, version);
  const p = plan(opts.dir, advice, { ...opts, harness, lore: url, localSkillsCli: !!process.env.LORE_SKILLS_CLI });
  io.out("");
  for (const l of adviseStackLines(advice.stack)) io.out(l);
  for (const n of Array.isArray(advice.notes) ? advice.notes : []) io.out(`note: ${visible(n)}`);
  const title = (x) => `# ${visible(x.proposal.title ?? x.proposal.id)}`;
  for (const w of p.writes) {
    io.out(`${title(w)}: ${visible(w.proposal.reason ?? "")}`);
    // What the harness needs besides the file (approving a project server, trusting the folder…).
    if (w.proposal.kind === "mcp_server" && Array.isArray(w.proposal.notes)) for (const n of w.proposal.notes) io.out(`#   note: ${visible(n)}`);
    io.out(unifiedDiff(w.file, w.before, w.after));
    io.out("");
  }
  for (const r of p.runs) {
    io.out(`${title(r)}: ${visible(r.proposal.reason ?? "")}`);
    io.out(`$ ${r.line}`);
    io.out("");
  }
  for (const m of p.manual) {
    io.out(`${title(m)} (not applied: ${visible(m.why)})`);
    if (m.todo) io.out(visible(m.todo, { lines: true }).split("\n").map((l) => `    ${l}`).join("\n"));
    io.out("");
  }
  for (const r of p.refused) {
    io.out(`! refused ${r.what}: ${r.why}`);
    if (typeof r.text === "string") io.out(`    the server sent: ${visible(r.text)}`);
  }
  if (p.refused.length) io.out("");
  for (const u of p.unchanged) io.out(`= ${visible(u.file ?? u.id)}: already up to date`);
  if (!p.writes.length && !p.runs.length) {
    io.out(p.manual.length ? "Nothing lore-setup can change by itself; the steps above are yours." : p.refused.length ? "Nothing to apply." : "Nothing to change: this project is set up.");
    return p.refused.length ? 1 : 0;
  }
  if (opts.dryRun) {
    io.out(`Dry run: ${p.writes.length} file(s) and ${p.runs.length} command(s) not applied.`);
    return p.refused.length ? 1 : 0;
  }
  // A server that asked for something refused above does not get the rest applied unseen.
  const ask = !opts.yes || p.refused.length > 0;
  if (ask) {
    if (!process.stdin.isTTY) {
      io.out(p.refused.length ? `Not applied: Lore's answer asked for ${p.refused.length} thing(s) lore-setup never does (marked ! above), so --yes does not apply the rest; run it in a terminal to decide.` : "Not applied: run again with --yes to apply, or in a terminal to be asked.");
      return p.refused.length ? 1 : 0;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await rl.question(`Apply ${p.writes.length} file change(s) and ${p.runs.length} command(s)${p.refused.length ? ` (${p.refused.length} refused proposal(s) above are not among them)` : ""}? [y/N] `);
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.out("Nothing applied.");
      return 0;
    }
  }
  let failed = 0;
  for (const w of p.writes) {
    try {
      applyWrite(w);
      io.out(`wrote ${visible(w.file)}`);
    } catch (e) {
      failed++;
      io.err(`could not write ${visible(w.file)}: ${e instanceof CliError ? e.message : visible(e.code ?? e.message)}`);
    }
  }
  if (p.runs.length) {
    // An empty folder of our own for npm's prefix: no .npmrc of the project's is read (see skillsSpawn).
    const prefix = mkdtempSync(path.join(tmpdir(), "lore-setup-npm-"));
    try {
      for (const r of p.runs) {
        const res = runSkills(opts.dir, r, key, prefix);
        if (res.ok) io.out(`installed ${r.skill}`);
        else {
          failed++;
          io.err(`could not install ${r.skill} (exit ${visible(res.status)}):\n${res.out}`);
        }
      }
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  }
  io.out(failed ? `Done, with ${failed} file write(s) or skill install(s) failed.` : "Done.");
  return failed || p.refused.length ? 1 : 0;
}

// Run as a program (node bin/lore-setup.mjs, or npx through the package's bin link), not when imported.
const invoked = (() => {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();
if (invoked) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      const key = process.env.LORE_API_KEY;
      const msg = String(e instanceof CliError ? e.message : visible(e?.stack ?? e, { lines: true }));
      process.stderr.write(`lore-setup: ${key && key.length >= 8 ? msg.split(key).join("[key]") : msg}\n`);
      process.exit(e instanceof CliError ? e.code : 1);
    },
  );
}
