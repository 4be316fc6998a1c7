// `npm run lint:openapi`: lints the OpenAPI document a running Lore serves (LORE_URL, or PORT on
// 127.0.0.1) with Redocly CLI (`recommended`) and Spectral (`spectral:oas`, .spectral.yaml), and
// fails unless both report 0 errors and 0 warnings. The e2e suite runs the same function.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, fail, localOrigin, requestJson, runMain } from "./lib.mjs";

const bin = (name) => path.join(ROOT, "node_modules", ".bin", name);
// Neither tool may phone home from here: Redocly's telemetry and update check are off.
const ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  SCARF_ANALYTICS: "false",
  DO_NOT_TRACK: "1",
};

function json(cmd, args) {
  const r = spawnSync(bin(cmd), args, { cwd: ROOT, env: ENV, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const out = r.stdout ?? "";
  const start = out.search(/[[{]/);
  try {
    return JSON.parse(out.slice(start));
  } catch {
    fail(`${cmd} did not run: ${(r.stderr || out).trim().split("\n")[0]}`);
  }
}

/** Lints a document (the parsed JSON); returns each tool's errors, warnings and the problems. */
export function lintOpenApi(doc) {
  const dir = mkdtempSync(path.join(tmpdir(), "lore-openapi-"));
  const file = path.join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(doc, null, 2));
  try {
    const redocly = json("redocly", ["lint", file, "--extends", "recommended", "--format", "json"]);
    const spectral = json("spectral", ["lint", file, "--ruleset", path.join(ROOT, ".spectral.yaml"), "--format", "json", "--quiet"]);
    const sev = (n) => spectral.filter((p) => p.severity === n);
    return {
      redocly: {
        errors: redocly.totals.errors,
        warnings: redocly.totals.warnings,
        problems: redocly.problems.map((p) => `${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer ?? ""})`),
      },
      spectral: {
        errors: sev(0).length,
        warnings: sev(1).length,
        problems: spectral.filter((p) => p.severity <= 1).map((p) => `${p.code}: ${p.message} (${p.path.join(".")})`),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runMain(async () => {
    const { origin, hint } = localOrigin();
    const r = await requestJson(origin, "/v1/openapi.json", { hint });
    if (r.status !== 200) fail(`${origin}/v1/openapi.json answered ${r.status}`);
    const res = lintOpenApi(r.body);
    for (const [tool, x] of Object.entries(res)) {
      console.log(`[lint] ${tool}: ${x.errors} errors, ${x.warnings} warnings`);
      for (const p of x.problems.slice(0, 20)) console.log(`  ${p}`);
    }
    if (res.redocly.errors + res.redocly.warnings + res.spectral.errors + res.spectral.warnings > 0)
      fail("the OpenAPI document is not lint-clean (problems above)");
  }, "[lint]");
}
