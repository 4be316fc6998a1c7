import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { defineConfig } from "vitest/config";

// wrangler.toml's [alias] (the MCP SDK's shims), so that the tests run the modules the deploy bundles.
const wranglerAlias = (parse(readFileSync("./wrangler.toml", "utf8")).alias ?? {}) as Record<string, string>;
const alias = Object.fromEntries(Object.entries(wranglerAlias).map(([from, to]) => [from, path.resolve(to)]));

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        // LORE_TRANSCRIPT=1 makes test/billing/billing.test.ts print the Stripe flow it runs.
        miniflare: {
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
