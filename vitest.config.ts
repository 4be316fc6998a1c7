import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { build } from "esbuild";
import { defineConfig } from "vitest/config";

// wrangler.toml's [alias] (the MCP SDK's shims), so that the tests run the modules the deploy bundles.
const wranglerAlias = (parse(readFileSync("./wrangler.toml", "utf8")).alias ?? {}) as Record<string, string>;
const alias = Object.fromEntries(Object.entries(wranglerAlias).map(([from, to]) => [from, path.resolve(to)]));

/**
 * The scanner Worker (src/scan-worker/), built to one JS file: the main Worker's `SCANNER` service
 * binding reaches it in the tests as it does when deployed, and Vite does not process an auxiliary
 * Worker. Built with wrangler's own esbuild, as `wrangler deploy` would (not minified).
 */
async function buildScannerWorker() {
  const toml = parse(readFileSync("./src/scan-worker/wrangler.toml", "utf8")) as {
    name: string;
    main: string;
    compatibility_date: string;
    compatibility_flags?: string[];
  };
  const outfile = path.resolve(".wrangler/vitest/scanner-worker.js");
  await build({
    entryPoints: [path.resolve("src/scan-worker", toml.main)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2024",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    external: ["cloudflare:*"],
    sourcemap: "inline",
    logLevel: "warning",
  });
  return {
    name: toml.name,
    modules: true,
    scriptPath: outfile,
    compatibilityDate: toml.compatibility_date,
    compatibilityFlags: toml.compatibility_flags ?? [],
  };
}

export default defineConfig(async () => {
  const [migrations, scanner] = await Promise.all([readD1Migrations("./migrations"), buildScannerWorker()]);
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        // LORE_TRANSCRIPT=1 makes test/billing/billing.test.ts print the Stripe flow it runs.
        miniflare: {
          // The service binding SCANNER (wrangler.toml [[services]]) names this Worker.
          workers: [scanner],
          bindings: {
            TEST_MIGRATIONS: migrations,
            LORE_TRANSCRIPT: process.env.LORE_TRANSCRIPT ?? "",
            // What npm start sets too (scripts/lib.mjs localVars): the secrets, and the local billing provider said explicitly.
            KEY_SECRET: "test-key-secret",
            CURSOR_SECRET: "test-cursor-secret",
            BILLING_PROVIDER: "local",
            // The origin Lore's own skill is published for: the one the tests call the Worker at (test/helpers.ts BASE).
            PUBLIC_ORIGIN: "http://localhost",
          },
        },
      }),
    ],
    resolve: { alias },
    test: {
      include: ["test/**/*.test.ts"],
      exclude: ["test/e2e/**", "test/browser/**"],
      setupFiles: ["./test/setup.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  };
});
