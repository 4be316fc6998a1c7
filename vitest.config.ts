import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        // LORE_TRANSCRIPT=1 makes test/billing.test.ts print the Stripe flow it runs.
        miniflare: { bindings: { TEST_MIGRATIONS: migrations, LORE_TRANSCRIPT: process.env.LORE_TRANSCRIPT ?? "" } },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      exclude: ["test/e2e/**", "test/browser/**"],
      setupFiles: ["./test/setup.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  };
});
