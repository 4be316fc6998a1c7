#!/usr/bin/env node
// Prints the project's direct dependencies as Lore's sync `stack`: [{name, version, ecosystem}].
// Reads only manifest files in the current folder; prints JSON to stdout; sends nothing anywhere.
// Versions are sent as written (a range such as ^4.19.1 too): Lore reads a range as its lowest match.
//   node stack.mjs           the stack
//   node stack.mjs --body    {"stack": [...]}, the body of POST /v1/agents/me/sync
//   node stack.mjs --url     Lore's address: LORE_URL, else http://127.0.0.1:8787
import { existsSync, readFileSync } from "node:fs";

// LORE_URL, else the local default. No configuration file is read: an MCP configuration can hold
// other servers' keys, and the agent knows Lore's URL (it calls Lore's tools there).
function loreUrl() {
  if (process.env.LORE_URL) return process.env.LORE_URL;
  process.stderr.write("stack.mjs: Lore at http://127.0.0.1:8787 (LORE_URL is not set: the local default)\n");
  return "http://127.0.0.1:8787";
}

if (process.argv.includes("--url")) {
  process.stdout.write(`${loreUrl().replace(/\/+$/, "")}\n`);
  process.exit(0);
}

const stack = [];
const add = (name, version, ecosystem) => {
  if (name && version) stack.push({ name, version: String(version).trim(), ecosystem });
};

if (existsSync("package.json")) {
  const pkg = JSON.parse(readFileSync("package.json", "utf8"));
  for (const deps of [pkg.dependencies, pkg.devDependencies]) {
    for (const [name, range] of Object.entries(deps ?? {})) {
      if (typeof range === "string" && !/^(?:file|link|workspace|git\+?|https?):/.test(range)) add(name, range, "npm");
    }
  }
}

if (existsSync("requirements.txt")) {
  for (const line of readFileSync("requirements.txt", "utf8").split("\n")) {
    const m = /^\s*([A-Za-z0-9._-]+)\s*(?:\[[^\]]*\])?\s*((?:===|==|~=|>=|>)\s*[^\s;#]+)/.exec(line);
    if (m) add(m[1].toLowerCase(), m[2].replace(/\s+/g, ""), "pypi");
  }
}

if (existsSync("pyproject.toml")) {
  const text = readFileSync("pyproject.toml", "utf8");
  for (const m of text.matchAll(/["']([A-Za-z0-9._-]+)\s*(?:\[[^\]]*\])?\s*((?:===|==|~=|>=)\s*[^"';,\s]+)["']/g)) add(m[1].toLowerCase(), m[2].replace(/\s+/g, ""), "pypi");
}

if (existsSync("go.mod")) {
  for (const m of readFileSync("go.mod", "utf8").matchAll(/^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+\/[^\s]+)\s+(v[^\s]+)/gm)) add(m[1], m[2], "go");
}

if (existsSync("Cargo.toml")) {
  const text = readFileSync("Cargo.toml", "utf8");
  const deps = /\[(?:dev-)?dependencies\]([\s\S]*?)(?:\n\[|$)/g;
  for (const section of text.matchAll(deps)) {
    for (const m of section[1].matchAll(/^\s*([A-Za-z0-9_-]+)\s*=\s*(?:"([^"]+)"|\{[^}]*version\s*=\s*"([^"]+)")/gm)) add(m[1], m[2] ?? m[3], "cargo");
  }
}

process.stdout.write(`${JSON.stringify(process.argv.includes("--body") ? { stack } : stack, null, 2)}\n`);
