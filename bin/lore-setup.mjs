#!/usr/bin/env node
// lore-setup: connects the coding agent harness of a project to Lore.
//
// Reads the project (its lockfiles for the stack, its instruction files, the skills already
// installed), asks Lore's advise endpoint what to write for the harness, shows the proposals as a
// diff, and applies them on confirmation or with --yes: the MCP configuration file, Lore's section
// of the instruction file, and skills through the `skills` CLI. --dry-run writes nothing. Node's
// standard library only. The key (LORE_API_KEY) is sent in a header and never printed or written.
import { spawnSync } from "node:child_process";
import { closeSync, constants as fsConstants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";

export const HARNESSES = ["claude-code", "openclaude", "hermes", "opencode", "kimi", "openclaw", "codex", "gemini", "cursor", "copilot", "windsurf", "cline", "aider"];
const MAX_STACK = 500;

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
  --user             also edit user-level files (~/...) the harness reads its MCP servers from,
                     and install skills the harness only reads from the user level (-g)
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
    else throw new CliError(`Unknown option ${a}\n\n${USAGE}`, 2);
  }
  if (opts.harness && !HARNESSES.includes(opts.harness)) throw new CliError(`--harness must be one of ${HARNESSES.join(", ")}`, 2);
  return opts;
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
  if (typeof rel !== "string" || rel.trim() === "" || rel.includes("\0")) return { refused: `${JSON.stringify(rel)} is not a file path` };
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
    const name = prefix + path.relative(base, cur).split(path.sep).join("/");
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
    skipped.push(`${shown}: skipped, ${r.refused}`);
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

function packageJsonDeps(rd) {
  const text = rd("package.json");
  if (!text) return null;
  try {
    const pkg = JSON.parse(text);
    return { ...pkg.optionalDependencies, ...pkg.peerDependencies, ...pkg.devDependencies, ...pkg.dependencies };
  } catch {
    return null;
  }
}

/** npm, pnpm and yarn lockfiles: the direct dependencies (from package.json) at their locked versions. */
function npmStack(rd) {
  const direct = packageJsonDeps(rd);
  const names = direct ? Object.keys(direct) : null;
  const out = [];
  const lock = rd("package-lock.json") ?? rd("npm-shrinkwrap.json");
  if (lock) {
    const j = JSON.parse(lock);
    if (j.packages) {
      const root = j.packages[""] ?? {};
      const wanted = names ?? Object.keys({ ...root.dependencies, ...root.devDependencies, ...root.optionalDependencies });
      for (const n of wanted) {
        const v = j.packages[`node_modules/${n}`]?.version;
        if (v) out.push({ name: n, version: v, ecosystem: "npm" });
      }
    } else if (j.dependencies) {
      for (const [n, d] of Object.entries(j.dependencies)) if ((!names || names.includes(n)) && d.version) out.push({ name: n, version: d.version, ecosystem: "npm" });
    }
    return { file: "package-lock.json", entries: out };
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
    return { file: "pnpm-lock.yaml", entries: out };
  }
  const yarn = rd("yarn.lock");
  if (yarn && direct) {
    // Entries: `"name@range", name@range2:` (v1) or `"name@npm:range":` (berry), then `version "x"` / `version: x`.
    const blocks = yarn.split(/\r?\n(?=\S)/);
    for (const [name, range] of Object.entries(direct)) {
      for (const b of blocks) {
        const head = b.split(/\r?\n/)[0];
        const specs = head.replace(/:$/, "").split(/,\s*/).map(unquote);
        if (!specs.some((s) => s === `${name}@${range}` || s === `${name}@npm:${range}`)) continue;
        const v = /^\s+version:?\s+"?([^"\s]+)"?/m.exec(b)?.[1];
        if (v) out.push({ name, version: v, ecosystem: "npm" });
        break;
      }
    }
    return { file: "yarn.lock", entries: out };
  }
  return null;
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
  if (poetry) return { file: "poetry.lock", entries: tomlPackages(poetry).map((p) => ({ name: p.name, version: p.version, ecosystem: "pypi" })) };
  const uv = rd("uv.lock");
  if (uv) {
    // The project itself is a package of the lock too (an editable or virtual source): not a dependency.
    const pkgs = tomlPackages(uv).filter((p) => !/editable|virtual/.test(p.source ?? ""));
    return { file: "uv.lock", entries: pkgs.map((p) => ({ name: p.name, version: p.version, ecosystem: "pypi" })) };
  }
  const req = rd("requirements.txt");
  if (req) {
    const entries = [];
    for (const raw of req.split(/\r?\n/)) {
      const l = raw.replace(/\s+#.*$/, "").split(";")[0].trim();
      if (!l || l.startsWith("#") || l.startsWith("-") || /^[a-z]+:\/\//i.test(l) || l.includes(" @ ")) continue;
      const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*((?:===|==|~=|>=|<=|!=|>|<).+)?$/.exec(l);
      if (m && m[2]) entries.push({ name: m[1], version: m[2].replace(/\s+/g, ""), ecosystem: "pypi" });
    }
    return { file: "requirements.txt", entries };
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
  return { file: "go.mod", entries: [...direct, ...indirect] };
}

function cargoStack(rd) {
  const lock = rd("Cargo.lock");
  if (!lock) return null;
  // Packages without a registry source are the workspace's own crates.
  return { file: "Cargo.lock", entries: tomlPackages(lock).filter((p) => (p.source ?? "").includes("registry")).map((p) => ({ name: p.name, version: p.version, ecosystem: "cargo" })) };
}

/** The project's dependencies from every lockfile found, direct ones first, at most 500. */
export function readStack(dir, skipped = []) {
  const rd = (rel) => readIn(dir, rel, skipped);
  const found = [npmStack(rd), pythonStack(rd), goStack(rd), cargoStack(rd)].filter(Boolean);
  const seen = new Set();
  const entries = [];
  for (const f of found) {
    for (const e of f.entries) {
      const k = `${e.ecosystem}\u0000${e.name.toLowerCase()}\u0000${e.version}`;
      if (seen.has(k)) continue;
      seen.add(k);
      entries.push(e);
    }
  }
  return { files: found.map((f) => f.file), entries: entries.slice(0, MAX_STACK), total: entries.length };
}

const SKILL_DIRS = [".agents/skills", ".claude/skills", ".openclaude/skills", ".cursor/skills", ".github/skills", ".windsurf/skills", ".cline/skills", ".clinerules/skills", ".gemini/skills", ".kimi/skills", ".opencode/skills"];

/** Names of the skills installed in the project (folders with a SKILL.md). */
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
    for (const n of list) if (existsSync(path.join(loc.target, n, "SKILL.md"))) names.add(n.toLowerCase());
  }
  return [...names].sort();
}

const INSTRUCTION_CANDIDATES = ["CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", ".github/copilot-instructions.md", "CONVENTIONS.md", ".hermes.md", ".kimi/AGENTS.md", ".openclaude/CLAUDE.md", ".cursor/rules/lore.mdc", ".windsurf/rules/lore.md", ".clinerules/lore.md", ".clinerules", ".aider.conf.yml"];

/** Instruction files outside the project (OpenClaw's workspace), read only with --user. */
const USER_INSTRUCTION_CANDIDATES = ["~/.openclaw/workspace/TOOLS.md", "~/.openclaw/workspace/AGENTS.md"];

/** The project's instruction files that exist (the ones advise may edit), as `{path, content}`. */
export function instructionFiles(dir, home = null, skipped = []) {
  const project = INSTRUCTION_CANDIDATES.flatMap((p) => {
    const content = readIn(dir, p, skipped);
    return content === null ? [] : [{ path: p, content }];
  });
  const user = home
    ? USER_INSTRUCTION_CANDIDATES.flatMap((p) => {
        const content = readIn(home, p.slice(2), skipped, p);
        return content === null ? [] : [{ path: p, content }];
      })
    : [];
  return [...project, ...user];
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

// The one command shape lore-setup runs: the source a bare http(s) origin, the names plain words.
// Nothing here can carry a shell metacharacter (Windows runs it through cmd.exe; see skillsSpawn).
const SKILLS_COMMAND = /^npx skills add (https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?) --skill ([a-z0-9][a-z0-9-]{0,63}) -a ([a-z0-9][a-z0-9-]{0,63})( -g)? -y$/;
const SAFE_ARG = /^(?:--?)?[A-Za-z0-9][A-Za-z0-9:/.\[\]-]*$/;

/**
 * How to start the skills CLI for one install: `{cmd, args, shell}`. On Windows `npx` is a batch
 * file, which Node (since the CVE-2024-27980 fix) starts only through a shell (EINVAL otherwise):
 * every argument is checked against SAFE_ARG first (no quote, space or cmd.exe metacharacter
 * passes), the call is refused rather than quoted, and the line is handed over whole (Node
 * deprecates args beside shell: true because it only concatenates them).
 */
export function skillsSpawn(r, { platform = process.platform, local = process.env.LORE_SKILLS_CLI, execPath = process.execPath } = {}) {
  const args = ["add", r.source, "--skill", r.skill, "-a", r.agent, ...(r.global ? ["-g"] : []), "-y"];
  if (local) return { cmd: execPath, args: [local, ...args], shell: false };
  if (platform !== "win32") return { cmd: "npx", args: ["--yes", "skills", ...args], shell: false };
  const bad = args.find((a) => !SAFE_ARG.test(a));
  if (bad !== undefined) throw new CliError(`refusing to run the skills CLI through the shell with the argument ${JSON.stringify(bad)}`);
  return { cmd: ["npx.cmd", "--yes", "skills", ...args].join(" "), args: [], shell: true };
}

const sameOrigin = (a, b) => {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const mergePathOk = (m) => Array.isArray(m?.path) && m.path.length >= 1 && m.path.length <= 8 && m.path.every((k) => typeof k === "string" && k !== "" && !UNSAFE_KEYS.has(k));

/**
 * Where a proposal's file is, decided here and never from the server's `scope`: `~/…` is the
 * user's home folder (only with --user), anything else must stay inside the project folder.
 */
export function placeFile(dir, file, opts, home = homedir()) {
  if (typeof file !== "string") return { refused: "the proposal names no file path" };
  if (file.startsWith("~/")) {
    if (!opts.user) return { refused: `${file} is a user-level file (run again with --user to let lore-setup edit it)`, user: true };
    return { ...locate(home, file.slice(2), file), root: home, rel: file.slice(2) };
  }
  return { ...locate(dir, file), root: dir, rel: file };
}

/**
 * The local actions for the advise proposals: files to write (with their old and new text) and
 * commands to run; proposals that need a person are listed with what to do. The answer is the
 * server's: every path and command in it is checked here before anything is read or run.
 */
export function plan(dir, advice, opts, home = homedir()) {
  const writes = [];
  const runs = [];
  const manual = [];
  const unchanged = [];
  const notes = (p) => (Array.isArray(p.notes) ? p.notes : []);
  for (const p of advice.proposals) {
    if (p.action === "none") {
      unchanged.push(p);
      continue;
    }
    if (p.kind === "skill") {
      if (!opts.skills) continue;
      const m = SKILLS_COMMAND.exec(p.command ?? "");
      if (!m) manual.push({ proposal: p, why: "this harness installs skills by hand", todo: p.command });
      else if (opts.lore && !sameOrigin(m[1], opts.lore)) manual.push({ proposal: p, why: `it installs from ${m[1]}, not from Lore at ${opts.lore}`, todo: null });
      else if (m[4] && !opts.user) manual.push({ proposal: p, why: "it installs into your user-level skills folder (run again with --user to let lore-setup do it)", todo: p.command });
      else runs.push({ proposal: p, source: m[1], skill: m[2], agent: m[3], global: !!m[4] });
      continue;
    }
    if (p.literalKey) {
      manual.push({ proposal: p, why: `${p.file} needs the key itself, which lore-setup never writes`, todo: p.command ?? `add the snippet to ${p.file}` });
      continue;
    }
    if (p.action === "manual" || !p.file) {
      manual.push({ proposal: p, why: notes(p)[0] ?? "needs a person", todo: p.command ?? p.snippet });
      continue;
    }
    const place = placeFile(dir, p.file, opts, home);
    if (place.refused) {
      // A link or a path out of the folder is not a step to hand on; a user-level file is.
      manual.push({ proposal: p, why: place.refused, todo: place.user ? (p.command ?? `add the snippet to ${p.file}`) : place.link ? p.snippet : null });
      continue;
    }
    const read = readTarget(place.target);
    if (read.refused || read.notFile) {
      manual.push({ proposal: p, why: `${p.file} ${read.refused ?? "is not a regular file"}`, todo: null });
      continue;
    }
    const before = read.text;
    let after;
    if (p.kind === "mcp_server") {
      if (typeof p.content !== "string" || (p.merge && !mergePathOk(p.merge))) {
        manual.push({ proposal: p, why: "the proposal's content or key path is not usable", todo: null });
        continue;
      }
      if (before === null) after = p.content.endsWith("\n") ? p.content : `${p.content}\n`;
      else if (p.merge) after = mergeJson(before, p.merge.path, p.merge.value);
      else if (p.format === "toml" && typeof p.snippet === "string") after = mergeToml(before, p.snippet);
      else after = null;
      if (after === null) {
        manual.push({ proposal: p, why: `${p.file} exists and is not plain ${p.format === "json" ? "JSON" : p.format}: merge the entry by hand`, todo: p.snippet });
        continue;
      }
    } else {
      // instructions / config: advise returned the whole new file (only Lore's block changed).
      if (p.action === "create" && before !== null) {
        manual.push({ proposal: p, why: `${p.file} appeared after it was read`, todo: "run lore-setup again" });
        continue;
      }
      if (typeof p.content !== "string") {
        manual.push({ proposal: p, why: "the proposal has no content", todo: null });
        continue;
      }
      after = p.content;
    }
    if (after === before) unchanged.push(p);
    else writes.push({ proposal: p, file: p.file, root: place.root, rel: place.rel, target: place.target, before, after });
  }
  return { writes, runs, manual, unchanged };
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

/** A unified diff of one changed region (common leading and trailing lines kept as context). */
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
  return lines.join("\n");
}

// ---- talking to Lore ----------------------------------------------------------------------------------

async function advise(url, key, body) {
  let res;
  try {
    res = await fetch(`${url}/v1/agents/me/advise`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${key}`, "user-agent": "lore-setup/1" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new CliError(`Could not reach Lore at ${url} (${e.cause?.code ?? e.message}). Set LORE_URL or --url to its address.`);
  }
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  if (res.ok && json) return json;
  const err = json?.error;
  if (res.status === 401) throw new CliError("Lore refused the key in LORE_API_KEY (401): it is unknown or revoked. Create a new one on the dashboard's Agents page.");
  if (res.status === 429) throw new CliError(`Lore's quota is used up: ${err?.message ?? "429"}. Try again after ${err?.details?.resetsAt ?? `${res.headers.get("retry-after")} s`}; do not retry in a loop.`);
  throw new CliError(`Lore answered ${res.status}: ${err?.message ?? text.slice(0, 300)}`);
}

function runSkills(dir, r, key) {
  let spec;
  try {
    spec = skillsSpawn(r);
  } catch (e) {
    return { ok: false, out: e.message, status: "refused" };
  }
  // The skills CLI needs no key: it reads the public discovery index. Keep it out of its environment.
  const env = { ...process.env };
  delete env.LORE_API_KEY;
  const res = spawnSync(spec.cmd, spec.args, { cwd: dir, env, encoding: "utf8", timeout: 180_000, shell: spec.shell });
  const raw = `${res.stdout ?? ""}${res.stderr ?? ""}${res.error && !res.stdout && !res.stderr ? res.error.message : ""}`;
  const out = key.length >= 8 ? raw.split(key).join("[key]") : raw;
  return { ok: res.status === 0, out: out.trim(), status: res.status ?? res.error?.code ?? res.error?.message };
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
  const url = (opts.url ?? process.env.LORE_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "").replace(/\/v1$/, "");
  if (!/^https?:\/\/[^/\s]+$/.test(url)) throw new CliError(`--url / LORE_URL must be an http(s) origin such as https://lore.example.com, not ${url}`, 2);
  if (!existsSync(opts.dir) || !statSync(opts.dir).isDirectory()) throw new CliError(`${opts.dir} is not a folder`, 2);

  const harness = opts.harness ?? detectHarness(opts.dir);
  if (!harness) throw new CliError(`Could not tell which harness this project uses: pass --harness (${HARNESSES.join(", ")}).`, 2);
  const skipped = [];
  const stack = readStack(opts.dir, skipped);
  const skills = installedSkills(opts.dir, skipped);
  const files = instructionFiles(opts.dir, opts.user ? homedir() : null, skipped);
  io.out(`lore-setup: ${opts.dir}`);
  io.out(`  harness     ${harness}${opts.harness ? "" : " (detected; --harness to choose another)"}`);
  io.out(`  stack       ${stack.entries.length} dependencies${stack.files.length ? ` from ${stack.files.join(", ")}` : " (no lockfile found)"}${stack.total > stack.entries.length ? ` (first ${stack.entries.length} of ${stack.total})` : ""}`);
  io.out(`  skills      ${skills.length ? skills.join(", ") : "none installed"}`);
  io.out(`  lore        ${url} (key from LORE_API_KEY)`);
  for (const s of new Set(skipped)) io.out(`  not read    ${s}`);

  const advice = await advise(url, key, { harness, stack: stack.entries, installedSkills: skills, existingInstructionFiles: files });
  const p = plan(opts.dir, { proposals: Array.isArray(advice.proposals) ? advice.proposals : [] }, { ...opts, lore: url });
  io.out("");
  for (const n of Array.isArray(advice.notes) ? advice.notes : []) io.out(`note: ${n}`);
  for (const w of p.writes) {
    io.out(`# ${w.proposal.title}: ${w.proposal.reason}`);
    // What the harness needs besides the file (approving a project server, trusting the folder…).
    if (w.proposal.kind === "mcp_server") for (const n of w.proposal.notes) io.out(`#   note: ${n}`);
    io.out(unifiedDiff(w.file, w.before, w.after));
    io.out("");
  }
  for (const r of p.runs) {
    io.out(`# ${r.proposal.title}: ${r.proposal.reason}`);
    io.out(`$ ${r.proposal.command}`);
    io.out("");
  }
  for (const m of p.manual) {
    io.out(`# ${m.proposal.title} (not applied: ${m.why})`);
    if (m.todo) io.out(m.todo.split("\n").map((l) => `    ${l}`).join("\n"));
    io.out("");
  }
  for (const u of p.unchanged) io.out(`= ${u.file ?? u.id}: already up to date`);
  if (!p.writes.length && !p.runs.length) {
    io.out(p.manual.length ? "Nothing lore-setup can change by itself; the steps above are yours." : "Nothing to change: this project is set up.");
    return 0;
  }
  if (opts.dryRun) {
    io.out(`Dry run: ${p.writes.length} file(s) and ${p.runs.length} command(s) not applied.`);
    return 0;
  }
  if (!opts.yes) {
    if (!process.stdin.isTTY) {
      io.out("Not applied: run again with --yes to apply, or in a terminal to be asked.");
      return 0;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await rl.question(`Apply ${p.writes.length} file change(s) and ${p.runs.length} command(s)? [y/N] `);
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
      io.out(`wrote ${w.file}`);
    } catch (e) {
      failed++;
      io.err(`could not write ${w.file}: ${e instanceof CliError ? e.message : (e.code ?? e.message)}`);
    }
  }
  for (const r of p.runs) {
    const res = runSkills(opts.dir, r, key);
    if (res.ok) io.out(`installed ${r.skill}`);
    else {
      failed++;
      io.err(`could not install ${r.skill} (exit ${res.status}):\n${res.out}`);
    }
  }
  io.out(failed ? `Done, with ${failed} file write(s) or skill install(s) failed.` : "Done.");
  return failed ? 1 : 0;
}

// Run as a program (node bin/lore-setup.mjs, or npx lore-setup through its bin link), not when imported.
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
      const msg = String(e instanceof CliError ? e.message : (e?.stack ?? e));
      process.stderr.write(`lore-setup: ${key && key.length >= 8 ? msg.split(key).join("[key]") : msg}\n`);
      process.exit(e instanceof CliError ? e.code : 1);
    },
  );
}
