// `npm run build:setup`: lore-setup as the npm package the Worker serves at /v1/setup/lore-setup.tgz.
//
//   1. writes the harness data into bin/lore-setup.mjs (between its HARNESS DATA markers), derived
//      from data/harnesses.json, the one source of truth: the CLI decides which files it may touch
//      from its own copy, never from the server's answer;
//   2. writes the skills CLI's lockfile into it (between its SKILLS LOCK markers): the `skills`
//      package and its dependencies at the versions and integrities of Lore's own package-lock.json,
//      which the CLI hands to `npm ci` in a private folder;
//   3. packs bin/lore-setup.mjs, a package.json and smol-toml (bundled: the CLI's one dependency,
//      no registry needed to install it) into a tarball that is the same bytes on every build and
//      machine (fixed order, times, modes and owners; gzip by fflate, not the platform's zlib), and
//      writes its bytes to data/assets/setup/lore-setup.tgz (served through the static-assets binding)
//      and its name, version and SHA-512 to src/setup/cli-package.generated.ts.
//
// `-- --check` changes nothing and fails when any of these files is stale (test/e2e/setup-package.test.ts
// runs the same check). `-- --name @scope/lore-setup --version 1.2.3 --out lore-setup.tgz` writes a
// tarball to publish under a scoped name (`npm publish lore-setup.tgz --access public`); the
// served one is not changed.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "fflate";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CLI_PATH = path.join(ROOT, "bin", "lore-setup.mjs");
export const GENERATED_PATH = path.join(ROOT, "src", "setup", "cli-package.generated.ts");
/** The tarball's bytes, served through the Worker's static-assets binding (not in the script: ~50 KiB of gzip saved). */
export const ASSET_PATH = path.join(ROOT, "data", "assets", "setup", "lore-setup.tgz");
const HARNESSES_PATH = path.join(ROOT, "data", "harnesses.json");
const LOCK_PATH = path.join(ROOT, "package-lock.json");
const TOML_DIR = path.join(ROOT, "node_modules", "smol-toml");

export const PACKAGE_NAME = "lore-setup";
// npm pack's own fixed time (1985-10-26T08:15:00Z), so the bytes do not depend on when they were built.
const MTIME = 499162500;

const BEGIN = /^\/\/ BEGIN HARNESS DATA.*$/m;
const END = /^\/\/ END HARNESS DATA$/m;
const LOCK_BEGIN = /^\/\/ BEGIN SKILLS LOCK.*$/m;
const LOCK_END = /^\/\/ END SKILLS LOCK$/m;

/** The CLI's BASE_VERSION (kept in the CLI, which prints its own version). */
export function baseVersionOf(cli) {
  const m = /^export const BASE_VERSION = "([0-9]+\.[0-9]+\.[0-9]+)";$/m.exec(cli);
  if (!m) throw new Error("bin/lore-setup.mjs has no BASE_VERSION");
  return m[1];
}

/**
 * The lockfile of a folder whose one dependency is the `skills` CLI: its entry and its dependencies'
 * from Lore's package-lock.json (version, integrity, dependencies, engines, bin), as `npm ci` takes it.
 */
export function skillsLock(lock) {
  const packages = lock.packages;
  const root = packages["node_modules/skills"];
  if (!root) throw new Error("package-lock.json has no node_modules/skills");
  // Where npm finds `name` for the package at `from`: its own node_modules, then each parent's.
  const resolve = (from, name) => {
    for (let base = from; ; ) {
      const here = `${base}/node_modules/${name}`;
      if (packages[here]) return here;
      const i = base.lastIndexOf("/node_modules/");
      if (i < 0) break;
      base = base.slice(0, i);
    }
    if (packages[`node_modules/${name}`]) return `node_modules/${name}`;
    throw new Error(`package-lock.json: ${name} (needed by ${from}) is missing`);
  };
  const out = { "": { name: "lore-setup-skills", dependencies: { skills: root.version } } };
  const queue = ["node_modules/skills"];
  while (queue.length) {
    const k = queue.shift();
    if (out[k]) continue;
    const e = packages[k];
    if (!e.integrity) throw new Error(`package-lock.json: ${k} has no integrity`);
    const kept = {};
    for (const f of ["version", "resolved", "integrity", "license", "dependencies", "optionalDependencies", "bin", "engines"])
      if (e[f] !== undefined) kept[f] = e[f];
    out[k] = kept;
    for (const d of Object.keys({ ...e.dependencies, ...e.optionalDependencies })) queue.push(resolve(k, d));
  }
  const sorted = Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((k) => [k, out[k]]),
  );
  return { name: "lore-setup-skills", lockfileVersion: 3, requires: true, packages: sorted };
}

/** What the CLI needs of each harness: its files, its MCP entry and how the skills CLI installs for it. */
export function cliHarnessData(data) {
  return data.harnesses.map((h) => ({
    id: h.id,
    name: h.name,
    instructionFiles: h.instructionFiles,
    setupFiles: (h.setupFiles ?? []).map((f) => ({ path: f.path, role: f.role })),
    mcp: { file: h.mcp.file, format: h.mcp.format, snippet: h.mcp.snippet, cli: h.mcp.cli },
    skillsCli: h.skillsCli,
  }));
}

function setBlock(source, begin, end, block, what) {
  const b = begin.exec(source);
  const e = end.exec(source);
  if (!b || !e || e.index < b.index) throw new Error(`bin/lore-setup.mjs has no ${what} markers`);
  const start = b.index + b[0].length + 1;
  return source.slice(0, start) + block + source.slice(e.index);
}

/** The CLI source with its harness data block set from data/harnesses.json. */
export function withHarnessData(source, data) {
  return setBlock(
    source,
    BEGIN,
    END,
    `// biome-ignore format: written by npm run build:setup as JSON\nexport const HARNESS_DATA = ${JSON.stringify(cliHarnessData(data), null, 2)};\n`,
    "HARNESS DATA",
  );
}

/** The CLI source with its skills lockfile block set from package-lock.json. */
export function withSkillsLock(source, lock) {
  return setBlock(
    source,
    LOCK_BEGIN,
    LOCK_END,
    `// biome-ignore format: written by npm run build:setup as JSON\nexport const SKILLS_LOCK = ${JSON.stringify(skillsLock(lock), null, 2)};\n`,
    "SKILLS LOCK",
  );
}

/** smol-toml's files as the package bundles them: its package.json, licence and built JS (no types, no README). */
export function tomlFiles(dir = TOML_DIR) {
  const names = [
    "package.json",
    "LICENSE",
    ...readdirSync(path.join(dir, "dist"))
      .filter((f) => /\.(?:js|cjs)$/.test(f))
      .sort()
      .map((f) => `dist/${f}`),
  ];
  return names.map((f) => ({ path: `node_modules/smol-toml/${f}`, bytes: new Uint8Array(readFileSync(path.join(dir, f))), mode: 0o644 }));
}

/** One ustar header block (paths under 100 bytes; owner root, fixed time). */
function tarHeader(name, size, mode) {
  const h = new Uint8Array(512);
  const put = (s, at, len) => {
    const bytes = new TextEncoder().encode(s);
    if (bytes.length > len) throw new Error(`tar field too long: ${s}`);
    h.set(bytes, at);
  };
  const octal = (n, len) => `${n.toString(8).padStart(len - 1, "0")}\0`;
  put(name, 0, 100);
  put(octal(mode, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(MTIME, 12), 136, 12);
  put("        ", 148, 8);
  put("0", 156, 1);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  return h;
}

function tar(files) {
  const parts = [];
  for (const f of files) {
    parts.push(tarHeader(`package/${f.path}`, f.bytes.length, f.mode));
    parts.push(f.bytes);
    const pad = (512 - (f.bytes.length % 512)) % 512;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(1024));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The version of a CLI source: its BASE_VERSION plus a digest of the source (h…: always a valid semver identifier); the CLI computes the same of itself. */
export const versionOf = (cli) => `${baseVersionOf(cli)}-h${createHash("sha256").update(cli).digest("hex").slice(0, 12)}`;

/** The package tarball for a CLI source: `{bytes, integrity, sha512, sourceSha256, version, name}`, the same bytes for the same source. */
export function buildPackage(cli, { name = PACKAGE_NAME, version = versionOf(cli), toml = tomlFiles() } = {}) {
  const tomlPkg = JSON.parse(new TextDecoder().decode(toml.find((f) => f.path === "node_modules/smol-toml/package.json").bytes));
  const pkg = {
    name,
    version,
    description: "Connects a project's coding agent harness to Lore: MCP server entry, instruction section, skills",
    type: "module",
    bin: { "lore-setup": "bin/lore-setup.mjs" },
    engines: { node: ">=20" },
    dependencies: { "smol-toml": tomlPkg.version },
    bundleDependencies: ["smol-toml"],
  };
  const files = [
    { path: "package.json", bytes: new TextEncoder().encode(`${JSON.stringify(pkg, null, 2)}\n`), mode: 0o644 },
    { path: "bin/lore-setup.mjs", bytes: new TextEncoder().encode(cli), mode: 0o755 },
    ...toml,
  ];
  const bytes = gzipSync(tar(files), { level: 9, mtime: 0 });
  const digest = createHash("sha512").update(bytes);
  const sha512 = digest.copy().digest("hex");
  const integrity = `sha512-${digest.digest("base64")}`;
  return { name, version, bytes, integrity, sha512, sourceSha256: createHash("sha256").update(cli).digest("hex") };
}

/** The TypeScript module the Worker serves the package from. */
export function generatedModule(p) {
  return `// Generated by \`npm run build:setup\` (scripts/setup-package.mjs) from bin/lore-setup.mjs: do not edit.
// test/e2e/setup-package.test.ts fails when it is not what a build of the current source gives.
export const CLI_PACKAGE = {
  name: ${JSON.stringify(p.name)},
  version: ${JSON.stringify(p.version)},
  integrity: ${JSON.stringify(p.integrity)},
  sha512: ${JSON.stringify(p.sha512)},
  sourceSha256: ${JSON.stringify(p.sourceSha256)},
  size: ${p.bytes.length},
} as const;
`;
}

/** What a build writes: the CLI with fresh harness data and skills lockfile, and the generated module. */
export function build() {
  const data = JSON.parse(readFileSync(HARNESSES_PATH, "utf8"));
  const lock = JSON.parse(readFileSync(LOCK_PATH, "utf8"));
  const cli = withSkillsLock(withHarnessData(readFileSync(CLI_PATH, "utf8"), data), lock);
  const pkg = buildPackage(cli);
  return { cli, pkg, module: generatedModule(pkg), asset: Buffer.from(pkg.bytes) };
}

function main(argv) {
  const arg = (k) => {
    const i = argv.indexOf(k);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const { cli, pkg, module, asset } = build();
  const out = arg("--out");
  if (out) {
    const named = buildPackage(cli, { name: arg("--name") ?? PACKAGE_NAME, version: arg("--version") ?? baseVersionOf(cli) });
    writeFileSync(out, named.bytes);
    console.log(`[build:setup] ${out}: ${named.name}@${named.version}, ${named.bytes.length} bytes, ${named.integrity}`);
    return;
  }
  const stale = [
    [CLI_PATH, cli],
    [GENERATED_PATH, module],
    [ASSET_PATH, asset],
  ].filter(([p, text]) => {
    try {
      return typeof text === "string" ? readFileSync(p, "utf8") !== text : !readFileSync(p).equals(text);
    } catch {
      return true;
    }
  });
  if (argv.includes("--check")) {
    if (stale.length) {
      console.error(`[build:setup] stale: ${stale.map(([p]) => path.relative(ROOT, p)).join(", ")}; run npm run build:setup`);
      process.exit(1);
    }
    console.log(`[build:setup] up to date: ${pkg.name}@${pkg.version}, ${pkg.bytes.length} bytes`);
    return;
  }
  for (const [p, text] of stale) {
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  console.log(
    `[build:setup] ${pkg.name}@${pkg.version}: ${pkg.bytes.length} bytes, ${pkg.integrity}${stale.length ? ` (wrote ${stale.map(([p]) => path.relative(ROOT, p)).join(", ")})` : " (unchanged)"}`,
  );
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) main(process.argv.slice(2));
