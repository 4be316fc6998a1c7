import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server";

let server: TestServer;
// Everything npm start loads, the advisory snapshots included: slower on a busy machine.
beforeAll(async () => {
  server = await startServer({ advisories: true });
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

/** Shipped datasets every local server loads (src/seeds.ts lists them all). */
const SHIPPED = [
  "starter-skills",
  "freshness-releases",
  "freshness-deprecations",
  "models",
  "advisories-npm",
  "packages-malicious",
  "mcp-servers",
];

describe("a local server as npm start runs it", () => {
  it("serves the API and lists every shipped dataset as loaded", async () => {
    expect((await fetch(`${server.origin}/v1/plans`)).status).toBe(200);
    const r = await fetch(`${server.origin}/internal/seeds`, { headers: { authorization: `Bearer ${server.adminToken}` } });
    expect(r.status).toBe(200);
    const { items } = (await r.json()) as { items: { name: string; loadedDigest: string | null }[] };
    // Every dataset is listed (a loop over an empty list would pass), and each one loaded.
    expect(items.map((d) => d.name)).toEqual(expect.arrayContaining(SHIPPED));
    for (const d of items) expect(d.loadedDigest, d.name).toMatch(/^[0-9a-f]{64}$/);
  });

  it("keeps the operator routes closed without the token", async () => {
    const none = await fetch(`${server.origin}/internal/seeds`);
    expect(none.status).toBe(401);
    const wrong = await fetch(`${server.origin}/internal/seeds`, { headers: { authorization: "Bearer lore_admin_wrong" } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe("UNAUTHENTICATED");
  });
});

describe("waiting for the server just started", () => {
  it("refuses another server on its port: the wrong admin token is a PortTakenError, not a pass", async () => {
    // @ts-expect-error plain JS helpers shared with the npm scripts
    const { PortTakenError, waitForServer } = await import("../../scripts/lib.mjs");
    // The running Lore plays the other process that took the port: it answers /v1/plans but not this token.
    const err = await waitForServer(server.origin, 10_000, { adminToken: "lore_admin_notthisone" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortTakenError);
    await expect(waitForServer(server.origin, 10_000, { adminToken: server.adminToken })).resolves.toBeUndefined();
  });
});
