import { defineConfig } from "vitest/config";

/**
 * Browser tests (`npm run test:browser`): Node drives Debian's Chromium with playwright-core
 * against a real local server (test/e2e/server.ts). Screenshots go to test-results/screenshots/.
 */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // One browser and one server at a time: the machine has two cores.
    maxWorkers: 1,
    fileParallelism: false,
  },
});
