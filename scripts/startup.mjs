// `npm run check:startup`: Lore's start-up CPU against a bare Hono Worker's, measured in the same
// run on the same machine. Each round runs `wrangler check startup` (a CPU profile of the Worker's
// start-up, written as .cpuprofile) for a bare Hono Worker built in a temporary folder and for
// Lore, alternately; the median of the rounds is printed: the profile window (what the issue and
// the README call start-up) and its active CPU (samples that are not idle). Reports, budgets
// nothing: the machine's load moves both numbers, so compare the two columns of one run. The helper
// Workers (the scanner, src/scan-worker/, with the content rules; the MCP SDK, src/mcp-worker/) are
// profiled in the same rounds and shown beside them: each starts only when something is scanned or
// an MCP request needs the SDK, so Lore's own row is the one every request pays for.
// Lore is profiled as `npm run deploy` uploads it (lib.mjs's buildForUpload: wrangler's build, then its
// arrow functions written as `function` expressions), with `--no-bundle`; AS_BUILT=1 adds a row for
// wrangler's build as it is, to compare.
// ROUNDS=n (default 3); KEEP=1 keeps the profiles (their folder is printed) to open in DevTools.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { ROOT, WRANGLER, WRANGLER_ENV, buildForUpload, fail, runMain } from "./lib.mjs";

const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 3));

/** The profile window (ms) and the CPU (ms) of its samples that are not `(idle)`. */
export function summarize(profile) {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  let active = 0;
  for (let i = 0; i < (profile.samples ?? []).length; i++) if (!idle.has(profile.samples[i])) active += profile.timeDeltas[i + 1] ?? 0;
  return { windowMs: (profile.endTime - profile.startTime) / 1000, activeMs: active / 1000 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function profile(cwd, outfile, args = []) {
  const r = spawnSync(WRANGLER, ["check", "startup", "--outfile", outfile, ...args], { cwd, env: WRANGLER_ENV, encoding: "utf8" });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ""}${r.stderr ?? ""}`);
    fail(`\`wrangler check startup\` failed in ${cwd} (output above)`);
  }
  return summarize(JSON.parse(readFileSync(outfile, "utf8")));
}

runMain(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "lore-startup-"));
  try {
    const bare = path.join(dir, "bare");
    spawnSync("mkdir", ["-p", bare]);
    symlinkSync(path.join(ROOT, "node_modules"), path.join(bare, "node_modules"));
    writeFileSync(
      path.join(bare, "index.js"),
      `import { Hono } from "hono";\nconst app = new Hono();\napp.get("/", (c) => c.json({ ok: true }));\nexport default app;\n`,
    );
    const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
    const compat = /^compatibility_date\s*=.*$/m.exec(toml)?.[0] ?? 'compatibility_date = "2026-11-01"';
    writeFileSync(
      path.join(bare, "wrangler.toml"),
      `name = "bare"\nmain = "index.js"\n${compat}\ncompatibility_flags = ["nodejs_compat"]\n`,
    );
    const { folder } = await buildForUpload("wrangler.toml", path.join(dir, "lore"), { functions: true });
    // wrangler splits --args on spaces.
    if (/\s/.test(ROOT + folder)) fail(`${ROOT} or ${folder} has a space in it, which \`wrangler check startup --args\` cannot take`);
    const upload = [`--args=--no-bundle --minify=false --config ${path.join(ROOT, "wrangler.toml")} ${path.join(folder, "index.js")}`];
    const helpers = [
      ["scanner", "src/scan-worker/wrangler.toml"],
      ["mcp-sdk", "src/mcp-worker/wrangler.toml"],
    ];
    const runs = { bare: [], lore: [], built: [], ...Object.fromEntries(helpers.map(([name]) => [name, []])) };
    for (let r = 1; r <= ROUNDS; r++) {
      runs.bare.push(profile(bare, path.join(dir, `bare-${r}.cpuprofile`)));
      runs.lore.push(profile(ROOT, path.join(dir, `lore-${r}.cpuprofile`), upload));
      if (process.env.AS_BUILT) runs.built.push(profile(ROOT, path.join(dir, `built-${r}.cpuprofile`)));
      for (const [name, config] of helpers) runs[name].push(profile(ROOT, path.join(dir, `${name}-${r}.cpuprofile`), ["--config", config]));
    }
    const row = (name, xs) => {
      const w = median(xs.map((x) => x.windowMs));
      const a = median(xs.map((x) => x.activeMs));
      return {
        name,
        w,
        a,
        text: `${name.padEnd(7)} window ${w.toFixed(1)} ms, active CPU ${a.toFixed(1)} ms  (rounds: ${xs.map((x) => x.windowMs.toFixed(0)).join(", ")} ms)`,
      };
    };
    const b = row("bare", runs.bare);
    const l = row("lore", runs.lore);
    console.log(
      `[startup] median of ${ROUNDS} round(s) of \`wrangler check startup\`, bare Hono Worker, Lore and its helper Workers alternately`,
    );
    console.log(`[startup] ${b.text}`);
    console.log(`[startup] ${l.text}`);
    const asBuilt = process.env.AS_BUILT ? row("as-built", runs.built) : null;
    if (asBuilt) console.log(`[startup] ${asBuilt.text}  (wrangler's build, arrows kept: ${(asBuilt.w / b.w).toFixed(2)}×)`);
    for (const [name] of helpers) console.log(`[startup] ${row(name, runs[name]).text}`);
    // The bare Worker's profile holds a handful of samples, so only the windows are compared.
    console.log(`[startup] lore / bare window: ${(l.w / b.w).toFixed(2)}×`);
    if (process.env.KEEP) console.log(`[startup] profiles kept in ${dir}`);
  } finally {
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  }
}, "[startup]");
