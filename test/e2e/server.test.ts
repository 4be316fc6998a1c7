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
