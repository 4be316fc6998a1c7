#!/usr/bin/env node
// lore-setup: connects the coding agent harness of a project to Lore.
//
// Reads the project (its lockfiles or package.json for the stack, its instruction files, the
// skills already installed), asks Lore's advise endpoint what to write for the harness, shows the
// proposals as a diff, and applies them on confirmation or with --yes: the MCP configuration file,
// Lore's section of the instruction file, and skills through the `skills` CLI. --dry-run writes
// nothing. Node's standard library plus one bundled parser (smol-toml, inside the package). The
// key (LORE_API_KEY) is sent in a header and never printed or written.
//
// Neither the server nor the project is trusted with this machine. Which files may change comes
// from the harness data below (shipped inside this file), never from the answer: for each harness
// its MCP configuration file and its instruction files, and user-level files only with --user. The
// MCP entry and every command are built here from that data and Lore's address; the server's text
// is compared with them and printed with invisible characters made visible, and anything else it
// asks for is refused. Nothing of the project's runs: files are read and written through checked
// folders (no link, no second name, no FIFO), and the skills CLI is fetched by npm into a private
// folder at pinned integrities and run with this Node, from a PATH without the project's folders.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  constants as fsConstants,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
// Bundled in the package (package/node_modules/smol-toml): Codex's config.toml is parsed, not matched line by line.
import { parse as parseToml } from "smol-toml";

/** Raised by hand when the CLI's options or output change in a way a user would notice (the served version adds a digest of this file). */
export const BASE_VERSION = "0.3.0";

// ---- the harnesses ------------------------------------------------------------------------------
// BEGIN HARNESS DATA (generated from data/harnesses.json by `npm run build:setup`; test/e2e/setup-package.test.ts checks it)
// biome-ignore format: written by npm run build:setup as JSON
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

// BEGIN SKILLS LOCK (generated from package-lock.json by `npm run build:setup`; test/e2e/setup-package.test.ts checks it)
// biome-ignore format: written by npm run build:setup as JSON
export const SKILLS_LOCK = {
  "name": "lore-setup-skills",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "name": "lore-setup-skills",
      "dependencies": {
        "skills": "1.7.4"
      }
    },
    "node_modules/@isaacs/fs-minipass": {
      "version": "4.0.1",
      "integrity": "sha512-wgm9Ehl2jpeqP3zw/7mo3kRHFp5MEDhqAdwy1fTGkHAwnkGOVsgpvQhL8B5n1qlb01jV3n/bI0ZfZp5lWA1k4w==",
      "license": "ISC",
      "dependencies": {
        "minipass": "^7.0.4"
      },
      "engines": {
        "node": ">=18.0.0"
      }
    },
    "node_modules/chownr": {
      "version": "3.0.0",
      "integrity": "sha512-+IxzY9BZOQd/XuYPRmrvEVjF/nqj5kgT4kEq7VofrDoM1MxoRjEWkrCC3EtLi59TVawxTAn+orJwFQcrqEN1+g==",
      "license": "BlueOak-1.0.0",
      "engines": {
        "node": ">=18"
      }
    },
    "node_modules/minipass": {
      "version": "7.1.3",
      "integrity": "sha512-tEBHqDnIoM/1rXME1zgka9g6Q2lcoCkxHLuc7ODJ5BxbP5d4c2Z5cGgtXAku59200Cx7diuHTOYfSBD8n6mm8A==",
      "license": "BlueOak-1.0.0",
      "engines": {
        "node": ">=16 || 14 >=14.17"
      }
    },
    "node_modules/minizlib": {
      "version": "3.1.0",
      "integrity": "sha512-KZxYo1BUkWD2TVFLr0MQoM8vUUigWD3LlD83a/75BqC+4qE0Hb1Vo5v1FgcfaNXvfXzr+5EhQ6ing/CaBijTlw==",
      "license": "MIT",
      "dependencies": {
        "minipass": "^7.1.2"
      },
      "engines": {
        "node": ">= 18"
      }
    },
    "node_modules/skills": {
      "version": "1.7.4",
      "integrity": "sha512-lHZJksE8UImNAr+LL6unqq7jERjdFw5EJasm17srycwL7rXHGdCmgu1L1ttLxUO9i3rdH+QQig+px0icHqLmRw==",
      "license": "MIT",
      "dependencies": {
        "tar": "^7.5.20",
        "yaml": "^2.8.3"
      },
      "bin": {
        "add-skill": "bin/cli.mjs",
        "skills": "bin/cli.mjs"
      },
      "engines": {
        "node": ">=22.20.0"
      }
    },
    "node_modules/tar": {
      "version": "7.5.23",
      "integrity": "sha512-lkukzdoGngZHJZXxW4S/E4Fp9ghTDlyZXrQGRNoJ/LXvDKcXUTq2sg5yQe74po7Voea6n/IN09+wE/QvJMiifA==",
      "license": "BlueOak-1.0.0",
      "dependencies": {
        "@isaacs/fs-minipass": "^4.0.0",
        "chownr": "^3.0.0",
        "minipass": "^7.1.2",
        "minizlib": "^3.1.0",
        "yallist": "^5.0.0"
      },
      "engines": {
        "node": ">=18"
      }
    },
    "node_modules/yallist": {
      "version": "5.0.0",
      "integrity": "sha512-YgvUTfwqyc7UXVMrB+SImsVYSmTS8X/tSrtdNZMImM+n7+QTriRXyXim0mBrTXNeqzVF0KWGgHPeiyViFFrNDw==",
      "license": "BlueOak-1.0.0",
      "engines": {
        "node": ">=18"
      }
    },
    "node_modules/yaml": {
      "version": "2.9.1",
      "integrity": "sha512-3NxN8+78OdzbT7C/WjGsyfPAtJaN3FNDsWxv7Y7mcDsT/oOmgW8BpyQQFFBnvZE3j9Y2Sdz1ULFLezL7Eb2yFw==",
      "license": "ISC",
      "bin": {
        "yaml": "bin.mjs"
      },
      "engines": {
        "node": ">= 14.6"
      }
    }
  }
};
// END SKILLS LOCK

export const HARNESSES = HARNESS_DATA.map((h) => h.id);
const harnessOf = (id) => HARNESS_DATA.find((h) => h.id === id);

/** The `skills` CLI lore-setup runs: the version (and dependencies, by integrity) Lore's own lockfile pins and its e2e tests install. */
export const SKILLS_CLI = `skills@${SKILLS_LOCK.packages?.["node_modules/skills"]?.version}`;
/** The oldest Node that CLI runs on (its engines field). */
const SKILLS_NODE = [22, 20];
const MAX_STACK = 500;
/** What advise accepts per instruction file (larger ones are not sent, and so not changed). */
const MAX_FILE_BYTES = 256 * 1024;
/** An MCP configuration file or .aider.conf.yml larger than this is not read. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** A lockfile or package.json larger than this is not read. */
const MAX_LOCK_BYTES = 50 * 1024 * 1024;
/** Lore's section: no line longer than this (the diff shows every line whole). */
const MAX_SECTION_LINE = 1000;
/** Skill installs one answer may propose (Lore's own and five recommended ones, with room to spare). */
const MAX_SKILLS = 10;
/** Advise's answer nests a few levels; a deeper one is refused before anything walks it. */
const MAX_ANSWER_DEPTH = 32;

const USAGE = `Usage: lore-setup [options]

Connects this project's coding agent to Lore: the MCP server entry, Lore's section of the
instruction file, and Lore's skill plus the scan-passed skills that fit the project's stack.

Options:
  --harness <id>     ${HARNESSES.join(", ")}
                     (default: detected from the project's files)
  --dir <path>       the project folder (default: the current folder)
  --url <origin>     Lore's address (default: $LORE_URL, else http://127.0.0.1:8787, a Lore on this machine)
  --allow-http       accept a plain http address that is not this machine (the key would travel unencrypted)
  --yes, -y          apply without asking
  --dry-run          show what would change and write nothing
  --user             also edit the harness's own user-level files (~/...) and install skills the
                     harness only reads from the user level (-g); needed when the folder is your
                     home folder or inside a hidden folder of it
  --no-skills        do not install skills
  --help, -h         this text

Environment:
  LORE_API_KEY       the agent key (required; sent as a header, never printed or written)
  LORE_URL           Lore's address
  LORE_SKILLS_CLI    a local copy of the skills CLI (a .mjs/.js file run with this node) instead of
                     the one npm fetches`;

class CliError extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

// ---- what the terminal shows ----------------------------------------------------------------------

// Characters that show as nothing or as something else: control and format characters (escape
// sequences, bidi, zero-width, tags), separators other than the space, surrogates, private-use and
// unassigned code points, fillers that render blank, and variation selectors (a run of them after
// any character can carry bytes nobody sees). Combining marks are checked apart (eachHidden).
const HIDDEN_CHAR =
  /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0\u2800\u034F\u17B4\u17B5\u180B-\u180F\uFE00-\uFE0F\u{E0100}-\u{E01EF}\u{1D159}\u{1D173}-\u{1D17A}]/u;
const MARK = /\p{M}/u;
const MARK_BASE = /[\p{L}\p{N}]/u;
const EMOJI_BASE = /[\p{Extended_Pictographic}0-9#*]/u;

/**
 * Calls `hit(char, index)` for each character of `s` that shows as nothing or as something else:
 * HIDDEN_CHAR (an emoji's one presentation selector excepted), and combining marks with no letter
 * to combine with or stacked more than two deep. Tabs and newlines are reported too: callers decide.
 */
function eachHidden(s, hit) {
  let prev = "";
  let marks = 0;
  let based = false;
  for (let i = 0; i < s.length; ) {
    const c = String.fromCodePoint(s.codePointAt(i));
    let hidden = false;
    if ((c === "\uFE0F" || c === "\uFE0E") && EMOJI_BASE.test(prev)) hidden = false;
    else if (HIDDEN_CHAR.test(c)) hidden = true;
    else if (MARK.test(c)) hidden = !based || ++marks > 2;
    if (!MARK.test(c)) {
      marks = 0;
      based = MARK_BASE.test(c);
    }
    if (hidden && hit(c, i) === false) return;
    prev = c;
    i += c.length;
  }
}

const escaped = (c) => {
  const cp = c.codePointAt(0);
  return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, "0")}` : `\\u{${cp.toString(16)}}`;
};

/**
 * `s` as the terminal may show it: every hidden character as `\xHH` / `\u{HHHH}` (tabs kept, and
 * newlines with `lines`), runs of 16 or more spaces as `[N spaces]` (they could fake a line of
 * their own), and each line cut at `max` characters with the rest counted.
 */
export function visible(s, { lines = false, max = 1000 } = {}) {
  const one = (raw) => {
    const t = raw.replace(/ {16,}/g, (m) => ` [${m.length} spaces] `);
    const cut = t.length > max ? t.slice(0, max) : t;
    let out = "";
    let last = 0;
    eachHidden(cut, (c, i) => {
      if (c === "\t") return;
      out += cut.slice(last, i) + escaped(c);
      last = i + c.length;
    });
    out += cut.slice(last);
    return t.length > max ? `${out}… (${t.length - max} more characters)` : out;
  };
  const text = String(s);
  if (!lines) return one(text);
  const all = text.split("\n");
  const shown = all.slice(0, 400).map(one);
  if (all.length > 400) shown.push(`… (${all.length - 400} more lines)`);
  return shown.join("\n");
}

/** Whether text lore-setup would write holds a character the diff could not show as it is (CRLF, LF and tabs are fine). */
export function hasHidden(s) {
  let found = false;
  // Line ends and tabs are fine, and stand between what is on either side (a mark at a line's start has nothing to combine with).
  eachHidden(String(s).replace(/\r\n|[\n\t]/g, " "), () => {
    found = true;
    return false;
  });
  return found;
}

/** A key as the dashboard gives it: printable ASCII without spaces (anything else could end up in an error message). */
const KEY_FORMAT = /^[\x21-\x7e]{8,512}$/;

/** `text` with the key, in every spelling an error message could carry it, replaced by [key]. */
export function redact(text, key) {
  let out = String(text);
  if (!key) return out;
  const forms = new Set([key, visible(key, { max: Infinity }), JSON.stringify(key).slice(1, -1), encodeURIComponent(key)]);
  for (const f of forms) if (f.length >= 8) out = out.split(f).join("[key]");
  return out;
}

export function parseArgs(argv) {
  const opts = {
    yes: false,
    dryRun: false,
    user: false,
    skills: true,
    dir: process.cwd(),
    url: null,
    harness: null,
    help: false,
    allowHttp: false,
  };
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
    else if (a === "--allow-http") opts.allowHttp = true;
    else if (a === "--help" || a === "-h") opts.help = true;
    else if (a === "--harness") opts.harness = value();
    else if (a === "--dir") opts.dir = path.resolve(value());
    else if (a === "--url") opts.url = value();
    else throw new CliError(`Unknown option ${visible(a, { max: 100 })}\n\n${USAGE}`, 2);
  }
  if (opts.harness && !HARNESSES.includes(opts.harness)) throw new CliError(`--harness must be one of ${HARNESSES.join(", ")}`, 2);
  return opts;
}

/** Whether a URL's host is this machine (plain http stays on it). */
export const isLoopback = (host) => host === "localhost" || host === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(host);

/**
 * Lore's origin from --url / LORE_URL: scheme, host and port only (it goes into commands and files),
 * https unless the host is this machine or --allow-http says so.
 */
export function loreOrigin(raw, { allowHttp = false } = {}) {
  const s = String(raw).trim().replace(/\/+$/, "").replace(/\/v1$/, "");
  let u = null;
  try {
    u = new URL(s);
  } catch {
    /* reported below */
  }
  if (
    !u ||
    !/^https?:$/.test(u.protocol) ||
    u.username ||
    u.password ||
    u.search ||
    u.hash ||
    (u.pathname !== "/" && u.pathname !== "") ||
    !/^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(u.origin)
  ) {
    throw new CliError(`--url / LORE_URL must be an http(s) origin such as https://lore.example.com, not ${visible(s, { max: 200 })}`, 2);
  }
  if (u.protocol === "http:" && !isLoopback(u.hostname) && !allowHttp) {
    throw new CliError(
      `${u.origin} is plain http to another machine: the key, the project's instruction files and its stack would cross the network unencrypted, and the skills installed from it could be changed on the way. Use Lore's https address (or pass --allow-http to accept that).`,
      2,
    );
  }
  return u.origin;
}

/**
 * Why a folder holds user-level configuration rather than a project's (the home folder, a folder
 * the home folder is in, or a hidden folder of it such as ~/.claude or ~/.codex, where CLAUDE.md and
 * AGENTS.md apply to every project), or null.
 */
export function userLevelFolder(dir, home = homedir()) {
  const real = (p) => {
    try {
      return realpathSync.native(p);
    } catch {
      return path.resolve(p);
    }
  };
  const d = real(dir);
  const h = real(home);
  const down = path.relative(h, d);
  if (down === "") return "your home folder";
  const up = path.relative(d, h);
  if (!up.startsWith("..") && !path.isAbsolute(up)) return "a folder your home folder is in";
  const first = down.split(path.sep)[0];
  if (!down.startsWith("..") && !path.isAbsolute(down) && first.startsWith("."))
    return `inside ~/${visible(first, { max: 100 })}, where tools keep their user-level configuration`;
  return null;
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
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnpmrc",
  "pnpm-workspace.yaml",
  "bunfig.toml",
  ".bunfig.toml",
  "pip.conf",
  "pip.ini",
  ".pypirc",
  ".pydistutils.cfg",
  "pydistutils.cfg",
  ".condarc",
  "poetry.toml",
  "uv.toml",
  "pdm.toml",
  ".gemrc",
  ".netrc",
  "_netrc",
  ".gitconfig",
  ".gitmodules",
  ".gitattributes",
  ".git-credentials",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".bash_aliases",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".cshrc",
  ".tcshrc",
  ".login",
  ".logout",
  ".kshrc",
  ".mkshrc",
  ".envrc",
  ".env",
  ".inputrc",
  "config.fish",
  "authorized_keys",
  "known_hosts",
  ".curlrc",
  ".wgetrc",
  ".pgpass",
  ".vimrc",
  ".exrc",
  ".editorconfig",
  "package.json",
  "Makefile",
]);

/** Why lore-setup never writes `file` (a project-relative or `~/…` path), or null. */
export function neverWritten(file) {
  const parts = String(file)
    .replace(/\\/g, "/")
    .replace(/^~\//, "")
    .split("/")
    .filter((p) => p && p !== ".");
  const lower = parts.map((p) => p.toLowerCase());
  for (const p of lower.slice(0, -1)) if (NEVER_DIRS.has(p)) return NEVER_DIRS.get(p);
  for (let i = 0; i < lower.length - 1; i++)
    if (lower[i] === ".config" && NEVER_CONFIG_DIRS.includes(lower[i + 1])) return `${lower[i + 1]}'s configuration`;
  const base = lower.at(-1) ?? "";
  if (NEVER_FILES.has(base) || base.startsWith(".env.")) return "package-manager, shell, git or SSH configuration";
  if (NEVER_DIRS.has(base)) return NEVER_DIRS.get(base);
  return null;
}

// ---- reading and writing files ----------------------------------------------------------------------

// Everything lore-setup reads or writes goes through `locate` (to plan and to say why not) and then
// `inFolder` (to do it): a project may come from anyone (a cloned repo's `CLAUDE.md -> ~/.bashrc`,
// a hard link to it, a FIFO that never answers), and the paths in advise's answer are the server's,
// so both are treated as hostile. A path must stay inside its root (the project's real folder, or
// the home folder for `~/…`); no part of it below the root may be a symbolic link; the file must be
// a regular file with one name (a hard link is another file's name as well), no larger than a cap.

const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL } = fsConstants;
// O_NOFOLLOW refuses a link in the last place; O_NONBLOCK keeps a FIFO's open from waiting (POSIX; 0 on Windows).
const NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;
const NONBLOCK = fsConstants.O_NONBLOCK ?? 0;
const caseless = process.platform === "darwin" || process.platform === "win32";
const samePath = (a, b) => a === b || (caseless && a.toLowerCase() === b.toLowerCase());
const realRoot = (root) => realpathSync.native(root);
const LINK = "is a symbolic link; lore-setup never reads or writes through one";

/**
 * Where `rel` lands under `root`: `{target}`, or `{refused, link?}` saying why lore-setup will not
 * touch it. `shown` is how the path is named in messages (`~/…` for the home folder).
 */
export function locate(root, rel, shown = rel) {
  if (typeof rel !== "string" || rel.trim() === "" || rel.includes("\0"))
    return { refused: `${visible(JSON.stringify(rel) ?? String(rel), { max: 200 })} is not a file path` };
  shown = visible(shown, { max: 200 });
  const slashed = rel.replace(/\\/g, "/");
  if (path.isAbsolute(rel) || path.win32.isAbsolute(rel) || /^[A-Za-z]:/.test(slashed) || slashed.startsWith("~"))
    return { refused: `${shown} is not a path inside ${root}` };
  let base;
  try {
    base = realRoot(root);
  } catch {
    return { refused: `${root} does not exist` };
  }
  const target = path.resolve(base, slashed);
  const inside = path.relative(base, target);
  if (inside === "" || inside === ".." || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside))
    return { refused: `${shown} is outside ${root}` };
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
    const name = prefix + visible(path.relative(base, cur).split(path.sep).join("/"), { max: 200 });
    if (st.isSymbolicLink()) return { refused: `${name} ${LINK}`, link: true };
    if (cur !== target && !st.isDirectory()) return { refused: `${name} is not a folder` };
  }
  return { target, base, rel: inside };
}

/**
 * Runs `fn(name)` with the working folder set to the folder `rel` names under `root`, entered one
 * part at a time: each part must be a real folder (not a link) and, once entered, must be where it
 * was named (the working folder's real path says so), so a folder swapped for a link between the
 * check and the use is caught, and the file itself is then opened by its bare name in the folder
 * that was checked. Missing folders are created (`create`) or make `fn(null)` run. The working
 * folder is put back afterwards.
 */
function inFolder(root, rel, shown, create, fn) {
  const base = realRoot(root);
  const parts = path
    .normalize(rel)
    .split(path.sep)
    .filter((p) => p && p !== ".");
  const name = parts.pop();
  let back = null;
  try {
    back = process.cwd();
  } catch {
    /* the folder lore-setup started in is gone: stay where the work ends */
  }
  const prefix = shown.endsWith(rel.split(path.sep).join("/")) ? shown.slice(0, shown.length - rel.length) : "";
  try {
    process.chdir(base);
    let here = base;
    if (!samePath(process.cwd(), here)) return { refused: `${visible(root)} moved while lore-setup used it` };
    for (const [i, part] of parts.entries()) {
      here = path.join(here, part);
      const named = prefix + visible(parts.slice(0, i + 1).join("/"), { max: 200 });
      let st = null;
      try {
        st = lstatSync(part);
      } catch (e) {
        if (e.code !== "ENOENT") return { refused: `${named} cannot be checked (${e.code ?? e.message})` };
      }
      if (!st) {
        if (!create) return fn(null);
        try {
          mkdirSync(part, 0o755);
        } catch (e) {
          if (e.code !== "EEXIST") throw e;
        }
        st = lstatSync(part);
      }
      if (st.isSymbolicLink()) return { refused: `${named} ${LINK}`, link: true };
      if (!st.isDirectory()) return { refused: `${named} is not a folder` };
      process.chdir(part);
      if (!samePath(process.cwd(), here)) return { refused: `${named} was swapped for a link while lore-setup used it`, link: true };
    }
    return fn(name);
  } finally {
    if (back) {
      try {
        process.chdir(back);
      } catch {
        /* gone meanwhile */
      }
    }
  }
}

/** Why an open file is not one lore-setup reads or writes (not a regular file, a second name, replaced since it was opened), or null. */
function openedProblem(fd, name) {
  const st = fstatSync(fd);
  if (!st.isFile()) return { notFile: true, folder: st.isDirectory() };
  if (st.nlink > 1)
    return { refused: `it has ${st.nlink} names (hard links), so it is another file as well; lore-setup never reads or writes one` };
  let now;
  try {
    now = lstatSync(name);
  } catch {
    return { refused: "it moved while lore-setup opened it" };
  }
  if (now.isSymbolicLink() || now.dev !== st.dev || now.ino !== st.ino) return { refused: "it was replaced while lore-setup opened it" };
  return null;
}

/** At most `max` + 1 bytes of an open file from `position` (so a larger file shows as larger). */
function readUpTo(fd, max, position = 0) {
  const chunks = [];
  let size = 0;
  for (;;) {
    const buf = Buffer.alloc(Math.min(1024 * 1024, max + 1 - size));
    const n = readSync(fd, buf, 0, buf.length, position + size);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    size += n;
    if (size > max) break;
  }
  return Buffer.concat(chunks);
}

const sizeName = (n) => (n >= 1024 * 1024 ? `${n / 1024 / 1024} MiB` : `${n / 1024} KiB`);

/**
 * A file's text: `{text}` (null when there is none), `{notFile}` (a folder, FIFO or device: not
 * opened for reading), `{tooBig}`, or `{refused, link?}`. `max` caps what is read.
 */
export function readChecked(root, rel, max, shown = rel) {
  return inFolder(root, rel, shown, false, (name) => {
    if (name === null) return { text: null };
    let fd;
    try {
      fd = openSync(name, O_RDONLY | NOFOLLOW | NONBLOCK);
    } catch (e) {
      if (e.code === "ENOENT") return { text: null };
      if (e.code === "EISDIR") return { text: null, notFile: true, folder: true };
      if (e.code === "ENXIO" || e.code === "EAGAIN") return { text: null, notFile: true };
      if (e.code === "ELOOP" || e.code === "EMLINK") return { refused: `it ${LINK}`, link: true };
      throw e;
    }
    try {
      const problem = openedProblem(fd, name);
      if (problem) return problem.notFile ? { text: null, notFile: true, folder: problem.folder } : problem;
      if (fstatSync(fd).size > max) return { text: null, tooBig: true, refused: `it is larger than ${sizeName(max)}` };
      const bytes = readUpTo(fd, max);
      if (bytes.length > max) return { text: null, tooBig: true, refused: `it is larger than ${sizeName(max)}` };
      return { text: bytes.toString("utf8") };
    } finally {
      closeSync(fd);
    }
  });
}

/**
 * Writes `text` to a file through checked folders (created as needed): a new file only while it is
 * still absent (`before` null), an existing one only while it is the same file, with one name, still
 * holding `before` (what the diff was made from). Throws a CliError saying why not.
 */
export function writeChecked(root, rel, text, before, shown = rel) {
  const r = inFolder(root, rel, shown, true, (name) => {
    let fd;
    try {
      fd = openSync(name, before === null ? O_WRONLY | O_CREAT | O_EXCL | NOFOLLOW | NONBLOCK : O_RDWR | NOFOLLOW | NONBLOCK, 0o644);
    } catch (e) {
      if (e.code === "EEXIST") return { refused: "it appeared after lore-setup read the project; run lore-setup again" };
      if (e.code === "ENOENT") return { refused: "it was removed after lore-setup read it; run lore-setup again" };
      if (e.code === "ELOOP" || e.code === "EMLINK") return { refused: `it ${LINK}`, link: true };
      if (e.code === "ENXIO" || e.code === "EISDIR") return { refused: "it is not a regular file" };
      throw e;
    }
    try {
      const problem = openedProblem(fd, name);
      if (problem) return problem.notFile ? { refused: "it is not a regular file" } : problem;
      const bytes = Buffer.from(text, "utf8");
      if (before !== null) {
        const now = readUpTo(fd, Buffer.byteLength(before) + 1);
        if (now.toString("utf8") !== before) return { refused: "it changed after lore-setup read it; run lore-setup again" };
        ftruncateSync(fd, 0);
      }
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, at);
      return { ok: true };
    } finally {
      closeSync(fd);
    }
  });
  if (!r.ok) throw new CliError(`${visible(shown, { max: 200 })}: ${r.refused ?? "not written"}`);
}

/** A project (or home) file's text, or null; a refused or too large file is skipped and said in `skipped`. */
function readIn(root, rel, skipped, shown = rel, max = MAX_LOCK_BYTES) {
  const loc = locate(root, rel, shown);
  const r = loc.refused ? loc : readChecked(root, loc.rel, max, shown);
  if (r.refused) {
    skipped.push(`${visible(shown, { max: 200 })}: skipped, ${r.refused}`);
    return null;
  }
  // A folder where a file could be is a layout (Cline's .clinerules is one or the other), not news.
  if (r.notFile && !r.folder) skipped.push(`${visible(shown, { max: 200 })}: skipped, not a regular file`);
  return r.text;
}

// ---- reading the project --------------------------------------------------------------------------

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

/** Top-level keys of a small YAML mapping block, by indentation (enough for lockfiles' fixed shapes); no regex, so linear in the lines read. */
function yamlBlocks(lines, start, indent) {
  const out = [];
  for (let i = start; i < lines.length; i++) {
    const l = lines[i];
    const t = l.trim();
    if (!t || t.startsWith("#")) continue;
    const ind = l.length - l.trimStart().length;
    if (ind < indent) break;
    if (ind !== indent) continue;
    const colon = t.indexOf(":");
    out.push(colon < 0 ? { key: t, value: "", line: i } : { key: t.slice(0, colon), value: t.slice(colon + 1).trim(), line: i });
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
  if (
    /^(?:file|link|workspace|portal|patch|catalog|git|git\+[a-z]+|github|gitlab|bitbucket|gist|https?):/i.test(v) ||
    /^(?:\.{1,2}\/|~\/|\/)/.test(v) ||
    /^[^\s@/:]+\/[^\s]+$/.test(v)
  ) {
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
      for (const [n, d] of Object.entries(j.dependencies))
        if ((!names || names.includes(n)) && typeof d?.version === "string") out.push({ name: n, version: d.version, ecosystem: "npm" });
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
    // One pass over the file builds spec -> version; each dependency is then one lookup.
    const versions = new Map();
    let specs = null;
    for (const line of yarn.split(/\r?\n/)) {
      if (line && !/^[ \t#]/.test(line)) {
        specs = line
          .replace(/:[ \t]*$/, "")
          .split(",")
          .map(unquote);
        continue;
      }
      const v = specs && /^[ \t]+version:?[ \t]+"?([^"\s]+)"?/.exec(line)?.[1];
      if (v) {
        for (const s of specs) if (!versions.has(s)) versions.set(s, v);
        specs = null;
      }
    }
    for (const [name, range] of Object.entries(deps)) {
      const v = versions.get(`${name}@${range}`) ?? versions.get(`${name}@npm:${range}`);
      if (v) out.push({ name, version: v, ecosystem: "npm" });
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
  return {
    file: "package.json",
    entries: out,
    note: `version ranges, no lockfile${other.length ? ` lore-setup reads (${other.join(", ")} is not read)` : ""}`,
    skipped,
  };
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
  if (poetry)
    return {
      file: "poetry.lock",
      entries: tomlPackages(poetry).map((p) => ({ name: p.name, version: p.version, ecosystem: "pypi" })),
      note: "locked versions",
      skipped: [],
    };
  const uv = rd("uv.lock");
  if (uv) {
    // The project itself is a package of the lock too (an editable or virtual source): not a dependency.
    const pkgs = tomlPackages(uv).filter((p) => !/editable|virtual/.test(p.source ?? ""));
    return {
      file: "uv.lock",
      entries: pkgs.map((p) => ({ name: p.name, version: p.version, ecosystem: "pypi" })),
      note: "locked versions",
      skipped: [],
    };
  }
  const req = rd("requirements.txt");
  if (req) {
    const entries = [];
    const skipped = [];
    for (const raw of req.split(/\r?\n/)) {
      if (raw.length > 4096) {
        skipped.push(`${raw.slice(0, 40)}…: a line longer than 4096 characters`);
        continue;
      }
      const hash = raw.search(/\s#/);
      const l = (hash < 0 ? raw : raw.slice(0, hash)).split(";")[0].trim();
      if (!l || l.startsWith("#")) continue;
      if (l.startsWith("-") || /^[a-z]+:\/\//i.test(l) || l.includes(" @ ")) {
        skipped.push(`${l.slice(0, 80)}: an option, a path or a URL, not a registry version`);
        continue;
      }
      const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*((?:===|==|~=|>=|<=|!=|>|<).+)?$/.exec(l);
      if (m?.[2]) entries.push({ name: m[1], version: m[2].replace(/\s+/g, ""), ecosystem: "pypi" });
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
  return {
    file: "Cargo.lock",
    entries: tomlPackages(lock)
      .filter((p) => (p.source ?? "").includes("registry"))
      .map((p) => ({ name: p.name, version: p.version, ecosystem: "cargo" })),
    note: "locked versions",
    skipped: [],
  };
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
  const notRead = UNREAD_MANIFESTS.filter(
    ([file, instead]) => !found.some((f) => instead.includes(f.file)) && existsSync(path.join(dir, file)),
  ).map(([file, , why]) => `${file}: ${why}`);
  return {
    files: found.map((f) => f.file),
    read: found.map((f) => ({ file: f.file, count: f.entries.length, note: f.note })),
    entries: entries.slice(0, MAX_STACK),
    total: entries.length,
    notSent,
    notRead,
  };
}

const SKILL_DIRS = [
  ".agents/skills",
  ".claude/skills",
  ".openclaude/skills",
  ".cursor/skills",
  ".github/skills",
  ".windsurf/skills",
  ".cline/skills",
  ".clinerules/skills",
  ".gemini/skills",
  ".kimi/skills",
  ".opencode/skills",
];

/** Names of the skills installed in the project (folders with a SKILL.md), as advise accepts them. */
/** Whether `p` is a folder with a SKILL.md, both inside the project once links are followed. */
function isSkillFolder(base, p) {
  const inside = (q) => {
    const r = path.relative(base, q);
    return r !== "" && !r.startsWith("..") && !path.isAbsolute(r);
  };
  try {
    const folder = realpathSync.native(p);
    if (!inside(folder) || !statSync(folder).isDirectory()) return false;
    const md = realpathSync.native(path.join(folder, "SKILL.md"));
    return inside(md) && statSync(md).isFile();
  } catch {
    return false;
  }
}

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
    // Only the names are read (a skill may be a link the skills CLI made to .agents/skills, but
    // never one out of the project: whether some other folder holds a SKILL.md is not Lore's to learn).
    for (const n of list) {
      if (!isSkillFolder(loc.base, path.join(loc.target, n))) continue;
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
    const content = userLevel ? readIn(home, p.slice(2), skipped, p, MAX_FILE_BYTES) : readIn(dir, p, skipped, p, MAX_FILE_BYTES);
    if (content === null) continue;
    out.push({ path: p, content });
  }
  return out;
}

// ---- what to change -----------------------------------------------------------------------------------

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Whether a parsed value nests deeper than `max` (walked without recursion, so any depth is safe to ask about). */
export function tooDeep(v, max) {
  const stack = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop();
    if (x === null || typeof x !== "object") continue;
    if (d >= max) return true;
    for (const y of Array.isArray(x) ? x : Object.values(x)) stack.push([y, d + 1]);
  }
  return false;
}

/** A JSON config with `value` set at `keys` (the rest kept), or null when the file is not plain JSON (or nests too deep to rewrite). */
function mergeJson(text, keys, value) {
  let doc;
  try {
    doc = text.trim() ? JSON.parse(text) : {};
  } catch {
    return null;
  }
  if (!isObj(doc) || tooDeep(doc, 256)) return null;
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

/** A parsed TOML value in one spelling (keys sorted, dates as ISO text), to compare two documents. */
const tomlCanon = (v) =>
  JSON.stringify(v, (_k, x) =>
    typeof x === "bigint"
      ? `${x}n`
      : isObj(x)
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, x[k]]),
          )
        : x,
  );

/** A parsed TOML document without `mcp_servers.lore` (and without an `mcp_servers` table only that made). */
function withoutLore(doc) {
  const copy = { ...doc };
  if (isObj(copy.mcp_servers)) {
    const { lore: _lore, ...rest } = copy.mcp_servers;
    if (Object.keys(rest).length) copy.mcp_servers = rest;
    else delete copy.mcp_servers;
  }
  return copy;
}

/**
 * A TOML config with the `[mcp_servers.lore]` table set to `snippet`: `{text}` (replaced in place,
 * or appended), or `{problem}`. The file is parsed, not matched line by line: the edit is made on
 * the lines, then both versions are parsed and the result must hold exactly Lore's entry and
 * everything else the file held before. A multi-line string that looks like the table, another
 * spelling of it (`[mcp_servers."lore"]`, dotted keys, an inline table), or a file that is not
 * TOML is left to the user rather than guessed at.
 */
export function mergeToml(text, snippet) {
  let before;
  try {
    before = parseToml(text);
  } catch {
    return { problem: "is not valid TOML" };
  }
  const want = parseToml(snippet).mcp_servers.lore;
  const had = isObj(before.mcp_servers) ? before.mcp_servers.lore : undefined;
  if (had !== undefined && tomlCanon(had) === tomlCanon(want)) return { text };
  const header = snippet.split("\n")[0].trim();
  const lines = text.split("\n");
  const starts = lines.flatMap((l, i) => (l.trim() === header ? [i] : []));
  let after;
  if (starts.length > 1) return { problem: `has ${header} more than once` };
  if (starts.length === 1) {
    const start = starts[0];
    let end = start + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end])) end++;
    // Keep the blank lines that separated the table from the next one.
    while (end > start + 1 && lines[end - 1].trim() === "") end--;
    after = [...lines.slice(0, start), ...snippet.replace(/\n+$/, "").split("\n"), ...lines.slice(end)].join("\n");
  } else {
    after = text + (text === "" || text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n") + snippet;
  }
  let parsed;
  try {
    parsed = parseToml(after);
  } catch {
    parsed = null;
  }
  const ok =
    parsed &&
    isObj(parsed.mcp_servers) &&
    tomlCanon(parsed.mcp_servers.lore) === tomlCanon(want) &&
    tomlCanon(withoutLore(parsed)) === tomlCanon(withoutLore(before));
  if (!ok)
    return {
      problem:
        had === undefined
          ? "spells its tables in a way lore-setup does not edit (a multi-line string or an inline table where the entry would go)"
          : "defines mcp_servers.lore in a way lore-setup does not edit (another spelling of the table, dotted keys, an inline table or a multi-line string)",
    };
  return { text: after };
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

/**
 * The `<!-- service:begin … -->` and `<!-- service:end -->` markers of a text, found in one pass:
 * a begin marker is `<!--`, spaces or tabs, `service:begin` as a word, then anything but `>` up to
 * the first `-->` (what the regex /<!--[ \t]*service:begin\b[^>]*?-->/ matches, without its
 * backtracking: a text of repeated `<!-- service:begin ` took seconds).
 */
export function blockMarkers(text) {
  const begins = [];
  const ends = [];
  // The first ">" at or after a place, remembered: the places asked about only grow, so the text is scanned once.
  let gt = -2;
  const gtFrom = (at) => (gt === -1 || gt >= at ? gt : (gt = text.indexOf(">", at)));
  let from = 0;
  for (;;) {
    const open = text.indexOf("<!--", from);
    if (open < 0) break;
    from = open + 4;
    let i = open + 4;
    while (text[i] === " " || text[i] === "\t") i++;
    if (text.startsWith("service:begin", i)) {
      const after = i + 13;
      if (/\w/.test(text[after] ?? "")) continue;
      const close = gtFrom(after);
      if (close >= after + 2 && text[close - 1] === "-" && text[close - 2] === "-") begins.push({ index: open, end: close + 1 });
    } else if (text.startsWith("service:end", i)) {
      let j = i + 11;
      while (text[j] === " " || text[j] === "\t") j++;
      if (text.startsWith("-->", j)) ends.push({ index: open, end: j + 3 });
    }
  }
  return { begins, ends };
}

/** The one `<!-- service:begin … --> … <!-- service:end -->` block of a text, or null. */
function blockSpan(text) {
  const { begins: b, ends: e } = blockMarkers(text);
  if (b.length !== 1 || e.length !== 1 || e[0].index < b[0].index) return null;
  return { start: b[0].index, end: e[0].end, innerStart: b[0].end, innerEnd: e[0].index };
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
  if (section.split("\n").some((l) => l.length > MAX_SECTION_LINE))
    return `Lore's section has a line longer than ${MAX_SECTION_LINE} characters`;
  // Claude Code (`@path`), Gemini CLI and others load a file named after an `@` into the agent's
  // context, with or without a slash (`@.env`, `@secrets.txt`, `@C:\…`): no `@` may start a word.
  if (/@\S/.test(section))
    return "Lore's section has an @ followed by text, which harnesses load as a file (@path) into the agent's context";
  // A comment inside the section is hidden wherever the file is rendered, and still read by the agent.
  const inner = after.slice(a.innerStart, a.innerEnd);
  if (inner.includes("<!--") || inner.includes("-->"))
    return "Lore's section holds an HTML comment, which a rendered file hides and the agent still reads";
  if (before === null || before === "") {
    const frontMatter =
      /\.mdc$/.test(file) || file.startsWith(".windsurf/rules/") ? /^(?:---\n(?:[A-Za-z][\w-]*:[^\n]*\n){1,6}---\n\n)?$/ : /^$/;
    if (!frontMatter.test(pre) || hasHidden(pre) || pre.length > 2000) return "the new file holds more than Lore's section";
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
  const items = (inner) =>
    inner
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
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
    if (newLines.length !== oldLines.length || newLines.some((l, i) => i !== at && l !== oldLines[i]))
      return "it changes more than the read: entry";
    newLine = newLines[at];
  }
  if (newLine.length > MAX_SECTION_LINE) return `the new read: entry is longer than ${MAX_SECTION_LINE} characters`;
  const m = LINE.exec(newLine);
  if (!m || hasHidden(newLine)) return "the new read: entry is not a one-line list of files";
  const next = items(m[1]);
  if (!next.every(okItem) || !oldItems.every((i) => next.includes(i))) return "the new read: entry drops or adds odd entries";
  const added = next.filter((i) => !oldItems.includes(i));
  if (!added.every((i) => h.instructionFiles.includes(i)))
    return "the new read: entry names a file that is not the harness's instruction file";
  return null;
}

const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The install command as advise words it (the server's skill proposals must name exactly this; it is compared, never run). */
export const skillsCommandLine = (r) => `npx skills add ${r.source} --skill ${r.skill} -a ${r.agent}${r.global ? " -g" : ""} -y`;
/** What lore-setup runs for one install: the skills CLI's `add`, with these arguments. */
const skillsArgs = (r) => ["add", r.source, "--skill", r.skill, "-a", r.agent, ...(r.global ? ["-g"] : []), "-y"];
export const installLine = (r) => `skills ${skillsArgs(r).join(" ")}`;

/**
 * How to start the skills CLI for one install: this Node (by its absolute path, never looked up)
 * running the CLI's JS entry with arguments lore-setup built from validated parts (the Lore origin,
 * a skill name, the harness's agent id). No shell, on any platform.
 */
export function skillsSpawn(r, { entry, execPath = process.execPath }) {
  return { cmd: execPath, args: [entry, ...skillsArgs(r)], shell: false };
}

/**
 * PATH for the programs lore-setup starts, without what a project can put first on it: relative and
 * empty entries (the working folder), folders inside the project, and every `node_modules` folder
 * (npm exec puts each ancestor's node_modules/.bin first).
 */
export function safePath(value, { projectDir = null, platform = process.platform } = {}) {
  const p = platform === "win32" ? path.win32 : path.posix;
  const inProject = (e) => {
    if (!projectDir) return false;
    for (const [a, b] of [[projectDir, e], ...(platform === process.platform ? [[safeReal(projectDir), safeReal(e)]] : [])]) {
      const rel = p.relative(a, b);
      if (rel === "" || (!rel.startsWith("..") && !p.isAbsolute(rel))) return true;
    }
    return false;
  };
  const kept = [];
  for (const e of String(value ?? "").split(p.delimiter)) {
    if (!e || !p.isAbsolute(e) || kept.includes(e)) continue;
    if (e.split(/[\\/]/).some((part) => part.toLowerCase() === "node_modules")) continue;
    if (inProject(e)) continue;
    kept.push(e);
  }
  return kept.join(p.delimiter);
}

function safeReal(p) {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

// What a child may see of lore-setup's environment: where home, temporary and configuration folders
// are (the skills CLI installs into the harnesses' folders from them), the locale and terminal, and
// proxies and CA certificates (npm needs them to reach its registry). Not the key, not npm's
// exported configuration (npm_*: when npx started lore-setup it carries a project's .npmrc), not
// NODE_OPTIONS or anything else that changes how Node or npm start.
const CHILD_ENV =
  /^(?:HOME|USERPROFILE|HOMEDRIVE|HOMEPATH|APPDATA|LOCALAPPDATA|SYSTEMROOT|SYSTEMDRIVE|WINDIR|TMPDIR|TEMP|TMP|LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|COLORTERM|NO_COLOR|XDG_[A-Z]+_(?:HOME|DIRS|DIR)|HTTPS?_PROXY|NO_PROXY|ALL_PROXY|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|CLAUDE_CONFIG_DIR|CODEX_HOME|HERMES_HOME)$/i;

/**
 * The environment of the programs lore-setup starts (npm, the skills CLI): CHILD_ENV's variables,
 * PATH through safePath, and the skills CLI's telemetry off (it would send Lore's address and the
 * skill names to skills.sh).
 */
export function childEnv(env = process.env, { projectDir = null, platform = process.platform } = {}) {
  const out = {};
  for (const [k, v] of Object.entries(env)) if (CHILD_ENV.test(k) && typeof v === "string") out[k] = v;
  const pathKey = Object.keys(env).find((k) => /^path$/i.test(k)) ?? "PATH";
  out[pathKey] = safePath(env[pathKey], { projectDir, platform });
  out.DISABLE_TELEMETRY = "1";
  out.DO_NOT_TRACK = "1";
  return out;
}

/**
 * npm's own CLI script (npm-cli.js), to run with this Node (never a shell, never a shim): the one
 * the user's `npm` is, found on the safe PATH (on POSIX `npm` is a link to npm-cli.js; on Windows
 * npm.cmd sits beside node_modules\npm), else the one beside this Node as its installers lay it out
 * (`<prefix>/lib/node_modules/npm`, `node_modules\npm` beside node.exe). Never inside the project;
 * null when there is none.
 */
export function findNpmCli({
  execPath = process.execPath,
  platform = process.platform,
  pathValue = "",
  projectDir = null,
  exists = existsSync,
  realpath = safeReal,
} = {}) {
  const p = platform === "win32" ? path.win32 : path.posix;
  const script = (dir) => p.join(dir, "node_modules", "npm", "bin", "npm-cli.js");
  const candidates = [];
  for (const dir of safePath(pathValue, { projectDir, platform }).split(p.delimiter).filter(Boolean)) {
    if (platform === "win32") candidates.push(script(dir));
    else if (exists(p.join(dir, "npm"))) candidates.push(realpath(p.join(dir, "npm")));
  }
  candidates.push(platform === "win32" ? script(p.dirname(execPath)) : script(p.join(p.dirname(p.dirname(execPath)), "lib")));
  for (const c of candidates) {
    if (p.basename(c) !== "npm-cli.js" || !exists(c)) continue;
    if (projectDir) {
      const rel = p.relative(realpath(projectDir), realpath(c));
      if (!rel.startsWith("..") && !p.isAbsolute(rel)) continue;
    }
    return c;
  }
  return null;
}

/** The package.json and package-lock.json of the private folder the skills CLI is installed into. */
export function skillsFolderFiles() {
  const root = SKILLS_LOCK.packages[""];
  return {
    "package.json": `${JSON.stringify({ name: root.name, private: true, dependencies: root.dependencies }, null, 2)}\n`,
    "package-lock.json": `${JSON.stringify(SKILLS_LOCK, null, 2)}\n`,
  };
}

/**
 * How npm installs the skills CLI into `folder` (an empty folder of lore-setup's own): `npm ci`
 * from the lockfile this file ships, so every package comes at the version and SHA-512 integrity
 * Lore's own lockfile has, no install script runs, and the only configuration npm reads is the
 * user's (~/.npmrc) and the Node installation's: `--prefix` makes the folder npm's project (no
 * walking up into other folders' .npmrc or workspaces).
 */
export function npmInstallSpawn(folder, { npmCli, execPath = process.execPath, home = homedir(), platform = process.platform } = {}) {
  const p = platform === "win32" ? path.win32 : path.posix;
  const globalConfig =
    platform === "win32" ? p.join(p.dirname(execPath), "etc", "npmrc") : p.join(p.dirname(p.dirname(execPath)), "etc", "npmrc");
  return {
    cmd: execPath,
    args: [
      npmCli,
      "ci",
      "--prefix",
      folder,
      "--userconfig",
      p.join(home, ".npmrc"),
      "--globalconfig",
      globalConfig,
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--no-update-notifier",
      "--no-progress",
      "--loglevel=error",
    ],
    cwd: folder,
    shell: false,
  };
}

/**
 * The skills CLI's entry script, ready to run: LORE_SKILLS_CLI's file, or the CLI npm installs into
 * `folder`. `{entry}` or `{error}`.
 */
function prepareSkillsCli(folder, projectDir, key) {
  const local = process.env.LORE_SKILLS_CLI;
  if (local) return { entry: path.resolve(local) };
  const npmCli = findNpmCli({ pathValue: process.env.PATH ?? process.env.Path ?? "", projectDir });
  if (!npmCli) return { error: "npm's CLI (npm-cli.js) is neither beside this node nor on PATH outside the project" };
  for (const [f, text] of Object.entries(skillsFolderFiles())) writeFileSync(path.join(folder, f), text, { mode: 0o600 });
  const spec = npmInstallSpawn(folder, { npmCli });
  const res = spawnSync(spec.cmd, spec.args, {
    cwd: spec.cwd,
    env: childEnv(process.env, { projectDir }),
    encoding: "utf8",
    timeout: 300_000,
    shell: false,
    maxBuffer: 4 * 1024 * 1024,
  });
  if (res.status !== 0)
    return {
      error: `npm ci of ${SKILLS_CLI} failed (exit ${res.status ?? res.error?.code ?? "?"}):\n${visible(redact(`${res.stdout ?? ""}${res.stderr ?? ""}${res.error?.message ?? ""}`.trim(), key), { lines: true })}`,
    };
  const loc = locate(folder, "node_modules/skills/bin/cli.mjs");
  if (loc.refused || !existsSync(loc.target)) return { error: `npm installed no skills/bin/cli.mjs (${loc.refused ?? "missing"})` };
  return { entry: loc.target };
}

function runSkills(dir, r, key, entry) {
  const spec = skillsSpawn(r, { entry });
  const res = spawnSync(spec.cmd, spec.args, {
    cwd: realRoot(dir),
    env: childEnv(process.env, { projectDir: dir }),
    encoding: "utf8",
    timeout: 180_000,
    shell: false,
    maxBuffer: 4 * 1024 * 1024,
  });
  const out = redact(`${res.stdout ?? ""}${res.stderr ?? ""}${res.error && !res.stdout && !res.stderr ? res.error.message : ""}`, key);
  return { ok: res.status === 0, out: visible(out.trim(), { lines: true }), status: res.status ?? res.error?.code ?? res.error?.message };
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
  if (roleOf[kind] !== role)
    return {
      refused: `${h.name}'s ${role === "mcp" ? "MCP configuration" : role === "config" ? "configuration" : "instruction file"}, not a place for a ${visible(kind, { max: 100 })} proposal`,
    };
  if (file.startsWith("~/")) {
    if (!opts.user)
      return { manual: `${visible(file)} is a user-level file (run again with --user to let lore-setup edit it)`, user: true, role };
    const loc = locate(home, file.slice(2), file);
    return loc.refused ? { manual: loc.refused, link: loc.link, role } : { target: loc.target, root: home, rel: loc.rel, role };
  }
  const loc = locate(dir, file);
  return loc.refused ? { manual: loc.refused, link: loc.link, role } : { target: loc.target, root: dir, rel: loc.rel, role };
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
  const installed = new Set(opts.installedSkills ?? []);
  const proposedSkills = new Set();
  const notes = (p) => (Array.isArray(p.notes) ? p.notes.filter((n) => typeof n === "string") : []);
  const proposals = Array.isArray(advice.proposals) ? advice.proposals.filter(isObj) : [];
  for (const p of proposals) {
    const what = visible(p.file ?? p.id ?? p.kind ?? "?", { max: 200 });
    if (!["mcp_server", "skill", "instructions", "config"].includes(p.kind)) {
      refused.push({ proposal: p, what, why: `a ${visible(p.kind, { max: 100 })} proposal is not one lore-setup knows` });
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
      if (proposedSkills.has(name)) {
        refused.push({ proposal: p, what: `skill ${name}`, why: "proposed more than once" });
        continue;
      }
      proposedSkills.add(name);
      // The project's own skills are its own: a proposal for a name it has would replace one.
      if (installed.has(name)) {
        refused.push({
          proposal: p,
          what: `skill ${name}`,
          why: "this project has a skill of that name already; lore-setup never replaces one",
        });
        continue;
      }
      if (proposedSkills.size > MAX_SKILLS) {
        refused.push({ proposal: p, what: `skill ${name}`, why: `more than ${MAX_SKILLS} skills in one answer` });
        continue;
      }
      if (!h.skillsCli) {
        manual.push({ proposal: p, why: `${h.name} installs skills by hand`, todo: `see ${opts.lore}/connect/${h.id}` });
        continue;
      }
      const r = { source: opts.lore, skill: name, agent: h.skillsCli.agent, global: h.skillsCli.global };
      const line = skillsCommandLine(r);
      if (p.command !== line) {
        refused.push({
          proposal: p,
          what: `skill ${name}`,
          why: `its command is not the one lore-setup builds (${line}); the server's text is never run`,
          text: p.command,
        });
        continue;
      }
      if (r.global && !opts.user) {
        manual.push({
          proposal: p,
          why: "it installs into your user-level skills folder (run again with --user to let lore-setup do it)",
          todo: line,
        });
        continue;
      }
      const [major, minor] = String(opts.node ?? process.versions.node)
        .split(".")
        .map(Number);
      if (!opts.localSkillsCli && (major < SKILLS_NODE[0] || (major === SKILLS_NODE[0] && minor < SKILLS_NODE[1]))) {
        manual.push({
          proposal: p,
          why: `the skills CLI needs Node ${SKILLS_NODE.join(".")} or newer and this is Node ${visible(opts.node ?? process.versions.node, { max: 40 })}`,
          todo: `${line}    (with a newer Node)`,
        });
        continue;
      }
      // The skills CLI writes where the harness reads skills (and, for project installs, its own
      // .agents/skills): those folders must be free of links and of anything already there.
      const dirs = [`${h.skillsCli.dir}/${name}`, ...(r.global ? [] : [`.agents/skills/${name}`])];
      const located = dirs.map((d) => ({ d, loc: d.startsWith("~/") ? locate(home, d.slice(2), d) : locate(dir, d) }));
      const blocked = located.find(({ loc }) => loc.refused);
      if (blocked) {
        manual.push({ proposal: p, why: blocked.loc.refused, todo: null });
        continue;
      }
      const taken = located.find(({ loc }) => existsSync(loc.target));
      if (taken) {
        manual.push({ proposal: p, why: `${taken.d} exists already; lore-setup never replaces it`, todo: null });
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
    if (
      place.role === "mcp" &&
      (!mcp ||
        p.snippet !== mcp.snippet ||
        (p.merge != null && !same(p.merge, mcp.merge)) ||
        (p.content != null && p.content !== mcp.snippet))
    ) {
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
      const todo = place.user
        ? (ownStep ?? (typeof p.snippet === "string" ? p.snippet : null))
        : place.link && place.role === "instructions" && typeof p.snippet === "string"
          ? p.snippet
          : null;
      manual.push({ proposal: p, why: place.manual, todo });
      continue;
    }
    if (p.action === "manual") {
      manual.push({ proposal: p, why: notes(p)[0] ?? "needs a person", todo: ownStep });
      continue;
    }
    const read = readChecked(place.root, place.rel, place.role === "instructions" ? MAX_FILE_BYTES : MAX_CONFIG_BYTES, p.file);
    if (read.refused || read.notFile) {
      manual.push({ proposal: p, why: `${what}: ${read.refused ?? "not a regular file"}`, todo: null });
      continue;
    }
    const before = read.text;
    let after;
    if (place.role === "mcp") {
      let why = null;
      if (before === null) after = mcp.snippet.endsWith("\n") ? mcp.snippet : `${mcp.snippet}\n`;
      else if (mcp.merge) after = mergeJson(before, mcp.merge.path, mcp.merge.value);
      else if (mcp.format === "toml") ({ text: after = null, problem: why = null } = mergeToml(before, mcp.snippet));
      else after = null;
      if (after === null) {
        manual.push({
          proposal: p,
          why: `${what} ${why ?? `exists and is not plain ${mcp.format === "json" ? "JSON" : mcp.format}`}: merge the entry by hand`,
          todo: mcp.snippet,
        });
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

/** Writes one planned file through checked folders (see writeChecked): only if it is still what the diff was made from. */
export function applyWrite(w) {
  writeChecked(w.root, w.rel, w.after, w.before, w.file);
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
  // Lines lore-setup writes are at most MAX_SECTION_LINE long, so only the project's own old lines can be cut here.
  return lines.map((l) => visible(l, { max: MAX_SECTION_LINE + 1 })).join("\n");
}

// ---- talking to Lore ----------------------------------------------------------------------------------

/** This file's SHA-256 and version (BASE_VERSION plus the digest's first 12 hex digits, as the package is versioned). */
export function ownVersion(file = fileURLToPath(import.meta.url)) {
  const sha256 = createHash("sha256").update(readFileSync(file)).digest("hex");
  return { sha256, version: `${BASE_VERSION}-h${sha256.slice(0, 12)}` };
}

/**
 * The command that runs the package at `url` the safe way: from a fresh folder under ~/.cache (not
 * in the project, where npm would read its .npmrc and put its node_modules/.bin first on PATH; not
 * under /tmp, where anyone could plant a node_modules/.bin npm would put on PATH), on the project
 * named by --dir.
 */
export const npxCommand = (url, args = "--dry-run") =>
  `(mkdir -p ~/.cache && cd "$(mktemp -d ~/.cache/lore-setup.XXXXXX)" && npx --yes "${url}" --dir "$OLDPWD" ${args})`;

/** Reads a response body up to `max` bytes: a server cannot make lore-setup hold more. */
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
      throw new CliError(`Lore's answer is larger than ${sizeName(max)}: not read`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** What GET /v1/setup says of the package this Lore serves (`{version, sha256, sha512}`), or null when it cannot tell. */
async function servedCli(url) {
  try {
    const res = await fetch(`${url}/v1/setup`, {
      headers: { accept: "application/json", "user-agent": "lore-setup/1" },
      signal: AbortSignal.timeout(10_000),
      redirect: "manual",
    });
    const cli = res.ok ? JSON.parse(await readCapped(res, 1024 * 1024))?.cli : null;
    if (!isObj(cli) || typeof cli.version !== "string" || !/^[0-9A-Za-z.+-]{1,64}$/.test(cli.version)) return null;
    if (
      typeof cli.sourceSha256 !== "string" ||
      !/^[0-9a-f]{64}$/.test(cli.sourceSha256) ||
      typeof cli.sha512 !== "string" ||
      !/^[0-9a-f]{128}$/.test(cli.sha512)
    )
      return null;
    return { version: cli.version, sha256: cli.sourceSha256, sha512: cli.sha512 };
  } catch {
    return null;
  }
}

/** Advise's answer is read up to this size: a server cannot make lore-setup hold more. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

async function advise(url, key, body, version, defaulted) {
  let res;
  try {
    res = await fetch(`${url}/v1/agents/me/advise`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${key}`,
        "user-agent": `lore-setup/${version}`,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
      // The key goes to Lore only: a redirect elsewhere is not followed with it.
      redirect: "manual",
    });
  } catch (e) {
    throw new CliError(
      `Could not reach Lore at ${url} (${visible(e.cause?.code ?? e.message, { max: 200 })}).${defaulted ? " LORE_URL is not set, so lore-setup tried a Lore on this machine (the local default):" : ""} Set LORE_URL or --url to Lore's address.`,
    );
  }
  if (res.status >= 300 && res.status < 400)
    throw new CliError(
      `Lore answered ${res.status}, a redirect (to ${visible(res.headers.get("location") ?? "?", { max: 200 })}): lore-setup sends the key to ${url} only and follows no redirect. Check that ${url} is your Lore's address.`,
    );
  const text = await readCapped(res, MAX_ANSWER_BYTES);
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  if (tooDeep(json, MAX_ANSWER_DEPTH)) throw new CliError(`Lore's answer nests deeper than ${MAX_ANSWER_DEPTH} levels: not read`);
  if (res.ok && isObj(json)) return json;
  const err = isObj(json?.error) ? json.error : null;
  if (res.status === 401)
    throw new CliError(
      "Lore refused the key in LORE_API_KEY (401): it is unknown or revoked. Create a new one on the dashboard's Agents page.",
    );
  if (res.status === 429)
    throw new CliError(
      `Lore's quota is used up: ${visible(err?.message ?? "429", { max: 300 })}. Try again after ${visible(err?.details?.resetsAt ?? `${res.headers.get("retry-after")} s`, { max: 100 })}; do not retry in a loop.`,
    );
  throw new CliError(`Lore answered ${res.status}: ${visible(err?.message ?? text.slice(0, 300), { max: 300 })}`);
}

/** The stack lines of the summary: what each file gave, what was not sent, what was not read. */
function stackLines(stack) {
  const lines = [
    `  stack       ${stack.entries.length} dependencies${stack.read.length ? "" : " (no lockfile or package.json found)"}${stack.total > stack.entries.length ? ` (first ${stack.entries.length} of ${stack.total})` : ""}`,
  ];
  for (const r of stack.read) lines.push(`    read      ${r.file}: ${r.count} (${r.note})`);
  for (const s of stack.notSent.slice(0, 50)) lines.push(`    not sent  ${visible(s, { max: 300 })}`);
  if (stack.notSent.length > 50) lines.push(`    not sent  … and ${stack.notSent.length - 50} more`);
  for (const s of stack.notRead) lines.push(`    not read  ${s}`);
  return lines;
}

/** What advise said about the stack it was sent (ranges read as their lowest match, versions it could not read). */
function adviseStackLines(s) {
  if (!isObj(s)) return [];
  const show = (e) =>
    `${visible(e?.name, { max: 100 })} ${visible(e?.version, { max: 100 })}${e?.pinned ? ` -> ${visible(e.pinned, { max: 100 })}` : ""}`;
  const lines = [];
  const ranges = Array.isArray(s.ranges) ? s.ranges : [];
  const unpinned = Array.isArray(s.unpinned) ? s.unpinned : [];
  if (ranges.length)
    lines.push(
      `lore: ${ranges.length} range(s) read as their lowest match: ${ranges.slice(0, 20).map(show).join(", ")}${ranges.length > 20 ? ", …" : ""}`,
    );
  if (unpinned.length)
    lines.push(`lore: could not pin ${unpinned.length}: ${unpinned.slice(0, 20).map(show).join(", ")}${unpinned.length > 20 ? ", …" : ""}`);
  return lines;
}

// ---- main --------------------------------------------------------------------------------------------------

export async function main(
  argv = process.argv.slice(2),
  io = { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`) },
) {
  const opts = parseArgs(argv);
  if (opts.help) {
    io.out(USAGE);
    return 0;
  }
  const rawKey = process.env.LORE_API_KEY ?? "";
  if (!rawKey.trim())
    throw new CliError(
      "LORE_API_KEY is not set: put the agent key from the dashboard's Agents page in it (export LORE_API_KEY=…; never commit it).",
      2,
    );
  const key = rawKey.trim();
  if (!KEY_FORMAT.test(key))
    throw new CliError(
      "LORE_API_KEY does not hold a key: a key is 8 or more printable ASCII characters without spaces. Copy it again from the dashboard's Agents page.",
      2,
    );
  const given = opts.url ?? process.env.LORE_URL;
  const url = loreOrigin(given ?? "http://127.0.0.1:8787", { allowHttp: opts.allowHttp });
  if (!existsSync(opts.dir) || !statSync(opts.dir).isDirectory())
    throw new CliError(`${visible(opts.dir, { max: 300 })} is not a folder`, 2);
  const userLevel = userLevelFolder(opts.dir);
  if (userLevel && !opts.user) {
    throw new CliError(
      `${visible(opts.dir, { max: 300 })} is ${userLevel}: a harness's files there apply to every project (~/.claude/CLAUDE.md, ~/.codex/config.toml, ~/.codex/AGENTS.md…). Run again with --user to let lore-setup change them, or name a project's folder with --dir.`,
      2,
    );
  }

  const harness = opts.harness ?? detectHarness(opts.dir);
  if (!harness) throw new CliError(`Could not tell which harness this project uses: pass --harness (${HARNESSES.join(", ")}).`, 2);
  const h = harnessOf(harness);
  const skipped = [];
  const stack = readStack(opts.dir, skipped);
  const skills = installedSkills(opts.dir, skipped);
  const files = instructionFiles(opts.dir, h, { user: opts.user }, skipped);
  const self = ownVersion();
  io.out(`lore-setup ${self.version}: ${visible(opts.dir, { max: 300 })}`);
  io.out(`  harness     ${harness}${opts.harness ? "" : " (detected; --harness to choose another)"}`);
  for (const l of stackLines(stack)) io.out(l);
  io.out(`  skills      ${skills.length ? skills.join(", ") : "none installed"}`);
  io.out(
    `  files       ${[...allowedFiles(h).keys()].filter((f) => opts.user || !f.startsWith("~/")).join(", ") || "none in the project"} (the only files lore-setup may change for ${h.name}${opts.user ? "" : "; ~/… ones need --user"})`,
  );
  io.out(`  lore        ${url}${given === undefined ? " (LORE_URL is not set: the local default)" : ""} (key from LORE_API_KEY)`);
  for (const s of new Set(skipped)) io.out(`  not read    ${s}`);
  // npx started in the project: npm read its .npmrc and put its node_modules/.bin first on PATH before this file ran.
  if (process.env.npm_command === "exec") {
    const rel = path.relative(safeReal(opts.dir), safeReal(process.cwd()));
    if (!rel.startsWith("..") && !path.isAbsolute(rel))
      io.out(
        "  warning     npx started lore-setup inside the project: npm read the project's .npmrc and put its node_modules/.bin first on PATH. For a checkout you do not trust, start it from an empty folder with --dir (the README's command).",
      );
  }
  const served = await servedCli(url);
  if (served && served.sha256 !== self.sha256) {
    io.out(
      `  warning     this lore-setup (${self.version}) is not the one ${url} serves (${served.version}). The current one: ${npxCommand(`${url}/v1/setup/lore-setup/${served.sha512}.tgz`)}`,
    );
  }

  const advice = await advise(
    url,
    key,
    { harness, stack: stack.entries, installedSkills: skills, existingInstructionFiles: files },
    self.version,
    given === undefined,
  );
  const p = plan(opts.dir, advice, { ...opts, harness, lore: url, localSkillsCli: !!process.env.LORE_SKILLS_CLI, installedSkills: skills });
  io.out("");
  for (const l of adviseStackLines(advice.stack)) io.out(l);
  for (const n of (Array.isArray(advice.notes) ? advice.notes : []).slice(0, 20)) io.out(`note: ${visible(n, { max: 500 })}`);
  const title = (x) => `# ${visible(x.proposal.title ?? x.proposal.id, { max: 200 })}`;
  for (const w of p.writes) {
    io.out(`${title(w)}: ${visible(w.proposal.reason ?? "", { max: 500 })}`);
    // What the harness needs besides the file (approving a project server, trusting the folder…).
    if (w.proposal.kind === "mcp_server" && Array.isArray(w.proposal.notes))
      for (const n of w.proposal.notes.slice(0, 10)) io.out(`#   note: ${visible(n, { max: 500 })}`);
    io.out(unifiedDiff(w.file, w.before, w.after));
    io.out("");
  }
  if (p.runs.length)
    io.out(
      `(the skills CLI, ${SKILLS_CLI}: npm installs it and its dependencies at the integrities Lore's lockfile pins into a temporary folder, without install scripts; this Node runs it in the project, from a PATH without the project's folders)`,
    );
  for (const r of p.runs) {
    io.out(`${title(r)}: ${visible(r.proposal.reason ?? "", { max: 500 })}`);
    io.out(`$ ${installLine(r)}`);
    io.out("");
  }
  for (const m of p.manual) {
    io.out(`${title(m)} (not applied: ${visible(m.why, { max: 500 })})`);
    if (m.todo)
      io.out(
        visible(m.todo, { lines: true })
          .split("\n")
          .map((l) => `    ${l}`)
          .join("\n"),
      );
    io.out("");
  }
  for (const r of p.refused) {
    io.out(`! refused ${r.what}: ${r.why}`);
    if (typeof r.text === "string") io.out(`    the server sent: ${visible(r.text, { max: 300 })}`);
  }
  if (p.refused.length) io.out("");
  for (const u of p.unchanged) io.out(`= ${visible(u.file ?? u.id, { max: 200 })}: already up to date`);
  if (!p.writes.length && !p.runs.length) {
    io.out(
      p.manual.length
        ? "Nothing lore-setup can change by itself; the steps above are yours."
        : p.refused.length
          ? "Nothing to apply."
          : "Nothing to change: this project is set up.",
    );
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
      io.out(
        p.refused.length
          ? `Not applied: Lore's answer asked for ${p.refused.length} thing(s) lore-setup never does (marked ! above), so --yes does not apply the rest; run it in a terminal to decide.`
          : "Not applied: run again with --yes to apply, or in a terminal to be asked.",
      );
      return p.refused.length ? 1 : 0;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await rl.question(
      `Apply ${p.writes.length} file change(s) and ${p.runs.length} command(s)${p.refused.length ? ` (${p.refused.length} refused proposal(s) above are not among them)` : ""}? [y/N] `,
    );
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
      io.out(`wrote ${visible(w.file, { max: 200 })}`);
    } catch (e) {
      failed++;
      io.err(
        `could not write ${visible(w.file, { max: 200 })}: ${e instanceof CliError ? e.message : visible(e.code ?? e.message, { max: 300 })}`,
      );
    }
  }
  if (p.runs.length) {
    // A folder of lore-setup's own (0700) for npm to install the skills CLI into; removed afterwards.
    const folder = mkdtempSync(path.join(tmpdir(), "lore-setup-skills-"));
    try {
      const cli = prepareSkillsCli(folder, opts.dir, key);
      for (const r of p.runs) {
        const res = cli.entry
          ? runSkills(opts.dir, r, key, cli.entry)
          : { ok: false, status: "not run", out: `${cli.error}\n    by hand: ${r.line}` };
        if (res.ok) io.out(`installed ${r.skill}`);
        else {
          failed++;
          io.err(`could not install ${r.skill} (exit ${visible(res.status, { max: 100 })}):\n${res.out}`);
        }
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
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
      const msg = String(e instanceof CliError ? e.message : visible(e?.stack ?? e, { lines: true }));
      process.stderr.write(`lore-setup: ${redact(msg, process.env.LORE_API_KEY?.trim())}\n`);
      process.exit(e instanceof CliError ? e.code : 1);
    },
  );
}
