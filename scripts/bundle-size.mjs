// `npm run check:bundle` (and .ci/run): builds the three Workers exactly as `npm run deploy` uploads them
// (`wrangler deploy --dry-run --outdir`, then for Lore lib.mjs's functionsForArrows), and fails when a build fails or a gzipped size passes
// its budget. Lore (wrangler.toml): 400 KiB, because every cold isolate parses the whole bundle
// before its first answer; the budget sits a little above what the Worker is, to catch a large
// dependency coming in. The scanner Worker (src/scan-worker/wrangler.toml), which holds the content
// rules and starts only when something is scanned: 3 MiB, Cloudflare's limit on the free plan (10 MiB
// on paid plans). Lore's build must also hold none of the rules: its esbuild metafile is read, and
// any module of src/scan, src/skills/scanner or src/mcp-servers/scanner outside the light ones below
// (types, ruleset versions, the RPC clients, toolsHash, the rug-pull diff, the judge) fails the check.
// The MCP SDK Worker (src/mcp-worker/wrangler.toml) holds the MCP SDK and the agents package, which
// Lore's build must not hold either (HELPER_ONLY_PACKAGES below names them): 1 MiB, well above it.
// Large data belongs in D1 through the seed mechanism, never in a bundle.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { buildForUpload, fail, runMain } from "./lib.mjs";

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

const WORKERS = [
  { name: "lore", config: "wrangler.toml", functions: true, budget: Number(process.env.BUNDLE_BUDGET_KIB ?? 400) * 1024 },
  { name: "lore-scanner", config: "src/scan-worker/wrangler.toml", budget: Number(process.env.SCANNER_BUNDLE_BUDGET_KIB ?? 3072) * 1024 },
  { name: "lore-mcp-sdk", config: "src/mcp-worker/wrangler.toml", budget: Number(process.env.MCP_SDK_BUNDLE_BUDGET_KIB ?? 1024) * 1024 },
];

/** The scanner folders' modules Lore itself may bundle: none of them holds a rule. */
const LIGHT = new Set([
  "src/scan/types.ts",
  "src/scan/text.ts",
  "src/scan/files.ts",
  "src/scan/base64.ts",
  "src/scan/uncertain.ts",
  "src/scan/limits.ts",
  "src/scan/judge.ts",
  "src/scan/workers-ai-judge.ts",
  "src/scan/remote.ts",
  "src/skills/scanner/ruleset.ts",
  "src/skills/scanner/types.ts",
  "src/skills/scanner/remote.ts",
  "src/mcp-servers/scanner/ruleset.ts",
  "src/mcp-servers/scanner/types.ts",
  "src/mcp-servers/scanner/remote.ts",
  "src/mcp-servers/scanner/rugpull.ts",
  "src/mcp-servers/scanner/hash.ts",
]);
const RULES = /^src\/(?:scan|skills\/scanner|mcp-servers\/scanner)\//;

/**
 * Packages only the helper Workers run: js-yaml reads SKILL.md front matter in the scanner Worker
 * (src/skills/scanner/front-matter.ts; the main Worker writes its YAML with src/harnesses/yaml.ts);
 * the MCP SDK's server and the agents package serve in the MCP SDK Worker (src/mcp-worker/; the main
 * Worker checks messages with the SDK's core package, src/mcp/spec.ts).
 */
const HELPER_ONLY_PACKAGES = /^node_modules\/(?:js-yaml|@modelcontextprotocol\/server|agents)\//;

/** Modules of the rule folders (and scanner-only packages) in Lore's build that are not in LIGHT, with their bytes in the output. */
function rulesIn(metafile) {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint);
  return Object.entries(out?.inputs ?? {})
    .filter(([file, v]) => (RULES.test(file) || HELPER_ONLY_PACKAGES.test(file)) && !LIGHT.has(file) && v.bytesInOutput > 0)
    .map(([file, v]) => `${file} (${v.bytesInOutput} B)`);
}

async function measure(w, out) {
  const meta = path.join(out, `${w.name}.meta.json`);
  const { folder: dir, out: stdout } = await buildForUpload(w.config, path.join(out, w.name), { metafile: meta, functions: w.functions });
  // Every module wrangler would upload (source maps and the README it writes are not uploaded).
  const files = readdirSync(dir).filter((f) => /\.(m?js|cjs|wasm|bin|txt|html|json|sql)$/.test(f) && !f.endsWith(".map"));
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const bytes = readFileSync(path.join(dir, f));
    raw += bytes.length;
    gz += gzipSync(bytes).length;
  }
  const reported = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(stdout);
  console.log(
    `[bundle] ${w.name}: ${files.length} module(s): ${kib(raw)}, gzip ${kib(gz)} (budget ${kib(w.budget)})` +
      (reported ? `; wrangler's build ${reported[1]} KiB / gzip ${reported[2]} KiB` : ""),
  );
  return { gz, metafile: JSON.parse(readFileSync(meta, "utf8")) };
}

runMain(async () => {
  const out = mkdtempSync(path.join(tmpdir(), "lore-bundle-"));
  try {
    const over = [];
    for (const w of WORKERS) {
      const { gz, metafile } = await measure(w, out);
      if (gz > w.budget) over.push(`${w.name} is ${kib(gz)} gzipped, over its ${kib(w.budget)} budget`);
      if (w.name === "lore") {
        const rules = rulesIn(metafile);
        if (rules.length)
          fail(
            `Lore's bundle holds scanner rules or a helper Worker's package, which belong in that Worker (import the light modules instead: src/scan/types.ts, ruleset.ts, remote.ts; src/core/mcp-sdk-rpc.ts): ${rules.join(", ")}`,
          );
      }
    }
    if (over.length)
      fail(
        `${over.join("; ")}: move data out of the bundle (data/ + src/seeds.ts), drop a dependency, or move rarely used code to the scanner Worker`,
      );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, "[bundle]");
