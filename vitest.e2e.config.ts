import { defineConfig } from "vitest/config";

/**
 * End-to-end tests in Node against a real `wrangler dev` (test/e2e/server.ts starts one per file on
 * a free port with a temporary state folder): the real clients that cannot run inside workerd (the
 * `skills` CLI, the setup CLI, the MCP conformance suite) talk to it over HTTP.
 */
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Each file starts its own wrangler dev; two cores run at most two at once.
    maxWorkers: 2,
  },
});
