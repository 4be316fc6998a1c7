import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { PortTakenError, freePort, migrateLocal, newAdminToken, startDev, waitForServer } from "../../scripts/lib.mjs";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { seed } from "../../scripts/seed.mjs";

export interface TestServer {
  origin: string;
  /** The operator token of this server (for /internal routes). */
  adminToken: string;
  persistTo: string;
  stop(): Promise<void>;
}

/**
 * A real local Lore, as `npm start` runs it: migrated, the shipped data loaded, on a free port
 * with its own temporary state, so test files can run side by side. Stop it in afterAll.
 */
export async function startServer(
  opts: {
    seed?: boolean;
    /** Load the offline advisory snapshots too (slower). */
    advisories?: boolean;
    /** More Worker variables (the Stripe configuration, for instance). */
    vars?: Record<string, string>;
    /** Runs after the migrations, before the server starts (rows a test needs in the local D1). */
    beforeStart?: (persistTo: string) => void;
  } = {},
): Promise<TestServer> {
  const persistTo = mkdtempSync(path.join(tmpdir(), "lore-e2e-"));
  migrateLocal(persistTo, { quiet: true });
  opts.beforeStart?.(persistTo);
  const adminToken = newAdminToken();
  // freePort's port is free when asked, not when wrangler binds it: with servers starting side by
  // side another one can take it first. waitForServer knows this server by its admin token; a port
  // lost that way is tried again with a new one rather than testing someone else's server.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = startDev({
      port,
      persistTo,
      quiet: true,
      vars: { ...opts.vars, ADMIN_TOKEN: adminToken },
      inspectorPort: await freePort(),
    });
    const origin = `http://127.0.0.1:${port}`;
    const kill = async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGINT");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
    };
    const stop = async () => {
      await kill();
      rmSync(persistTo, { recursive: true, force: true });
    };
    try {
      await waitForServer(origin, 120_000, { adminToken, child });
      // The advisory snapshots (8,118 records) serve no end-to-end test: left out unless asked for.
      if (opts.seed !== false)
        await seed(origin, adminToken, { skip: (name: string) => !opts.advisories && name.startsWith("advisories-") });
    } catch (e) {
      if (e instanceof PortTakenError && attempt < 3) {
        await kill();
        continue;
      }
      await stop();
      throw e;
    }
    return { origin, adminToken, persistTo, stop };
  }
}
