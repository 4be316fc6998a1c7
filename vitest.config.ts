import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { build } from "esbuild";
import { defineConfig } from "vitest/config";

type AuxToml = { name: string; main: string; compatibility_date: string; compatibility_flags?: string[]; alias?: Record<string, string> };

/** A Worker config's [alias], its paths resolved from the config's folder (as wrangler resolves them). */
const aliasOf = (config: string) => {
  const toml = parse(readFileSync(config, "utf8")) as AuxToml;
  return Object.fromEntries(Object.entries(toml.alias ?? {}).map(([from, to]) => [from, path.resolve(path.dirname(config), to)]));
};

/**
 * The MCP SDK Worker's [alias] (the SDK's shims) applies to the tests too: they build the SDK's
 * server (test/mcp/mcp-sdk-worker.test.ts) with the modules that Worker bundles.
 */
const alias = aliasOf("./src/mcp-worker/wrangler.toml");

/**
 * A Worker the main Worker reaches over a service binding (the scanner, src/scan-worker/; the MCP
 * SDK, src/mcp-worker/), built to one JS file: the binding reaches it in the tests as it does when
 * deployed, and Vite does not process an auxiliary Worker. Built with wrangler's own esbuild and the
 * config's [alias], as `wrangler deploy` would (not minified).
 */
async function buildAuxWorker(config: string) {
  const toml = parse(readFileSync(config, "utf8")) as AuxToml;
  const outfile = path.resolve(`.wrangler/vitest/${toml.name}.js`);
  await build({
    entryPoints: [path.resolve(path.dirname(config), toml.main)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2024",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    external: ["cloudflare:*", "node:*"],
    alias: aliasOf(config),
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
  const [migrations, scanner, mcpSdk] = await Promise.all([
    readD1Migrations("./migrations"),
    buildAuxWorker("./src/scan-worker/wrangler.toml"),
    buildAuxWorker("./src/mcp-worker/wrangler.toml"),
  ]);
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        // LORE_TRANSCRIPT=1 makes test/billing/billing.test.ts print the Stripe flow it runs.
        miniflare: {
          // The service bindings SCANNER and MCP_SDK (wrangler.toml [[services]]) name these Workers.
          workers: [scanner, mcpSdk],
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
