// `npm run check:bundle` (and .ci/run): builds the Worker exactly as `wrangler deploy` would upload
// it (`wrangler deploy --dry-run --outdir`), and fails when the build fails or its gzipped size
// passes the project's budget of 516 KiB (Cloudflare's own limit is 3 MiB on the free plan, 10 MiB
// on paid plans; every cold isolate parses the whole bundle before its first answer, so the budget
// sits a little above what the Worker is, to catch a large dependency coming in). Large data belongs
// in D1 through the seed mechanism, never in the bundle.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { gzipSync } from "node:zlib";
import { ROOT, WRANGLER, WRANGLER_ENV, fail, runMain } from "./lib.mjs";

const BUDGET = Number(process.env.BUNDLE_BUDGET_KIB ?? 516) * 1024;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

runMain(() => {
  const out = mkdtempSync(path.join(tmpdir(), "lore-bundle-"));
  try {
    const r = spawnSync(WRANGLER, ["deploy", "--dry-run", "--outdir", out], { cwd: ROOT, env: WRANGLER_ENV, encoding: "utf8" });
    if (r.status !== 0) {
      process.stderr.write(`${r.stdout ?? ""}${r.stderr ?? ""}`);
      fail("the Worker does not build (`wrangler deploy --dry-run`, output above)");
    }
    // Every module wrangler would upload (source maps and the README it writes are not uploaded).
    const files = readdirSync(out).filter((f) => /\.(m?js|cjs|wasm|bin|txt|html|json|sql)$/.test(f) && !f.endsWith(".map"));
    let raw = 0;
    let gz = 0;
    for (const f of files) {
      const bytes = readFileSync(path.join(out, f));
      raw += bytes.length;
      gz += gzipSync(bytes).length;
    }
    const reported = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(r.stdout ?? "");
    console.log(
      `[bundle] ${files.length} module(s): ${kib(raw)}, gzip ${kib(gz)} (budget ${kib(BUDGET)})` +
        (reported ? `; wrangler reports ${reported[1]} KiB / gzip ${reported[2]} KiB` : ""),
    );
    if (gz > BUDGET)
      fail(
        `the gzipped bundle is ${kib(gz)}, over the ${kib(BUDGET)} budget: move data out of the bundle (data/ + src/seeds.ts) or drop a dependency`,
      );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, "[bundle]");
