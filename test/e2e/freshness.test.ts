// The first hour on a fresh machine: `npm start`'s path (migrate, serve, load data/) answers
// freshness, model and package-check questions from the shipped data, with no registry needed
// for names the offline data decides.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { createAgent } from "../../scripts/lib.mjs";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { seed } from "../../scripts/seed.mjs";

let server: TestServer;
let key: string;
let seedMs = 0;
beforeAll(async () => {
  const t0 = Date.now();
  server = await startServer({ advisories: true });
  seedMs = Date.now() - t0;
  key = (await createAgent(server.origin, { email: "e2e-fresh@example.com", handle: "e2e-fresh" })).key;
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

const api = async (path: string, init: RequestInit = {}) => {
  const r = await fetch(server.origin + path, {
    ...init,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
  });
  return { status: r.status, body: (await r.json()) as any };
};

describe("shipped freshness and package data on a local server", () => {
  it("loads every dataset, and a second load skips them all", async () => {
    console.log(`[e2e] server start + migrations + shipped data: ${(seedMs / 1000).toFixed(1)} s`);
    const again = await seed(server.origin, server.adminToken);
    expect(again.every((d: { skipped: boolean }) => d.skipped)).toBe(true);
    expect(again.find((d: { name: string }) => d.name === "packages-malicious").rows).toBeGreaterThan(32_000);
  });

  it("a sync of requests==2.19.0 lists its PyPI advisories from the shipped snapshot, and says the snapshot is stale", async () => {
    const r = await api("/v1/agents/me/sync", {
      method: "POST",
      body: JSON.stringify({
        stack: [
          { name: "requests", version: "==2.19.0", ecosystem: "pypi" },
          { name: "lodash", version: "4.17.20" },
        ],
      }),
    });
    expect(r.status).toBe(200);
    const ids = r.body.security.vulnerabilities.map((v: { advisory: { id: string } }) => v.advisory.id);
    expect(ids).toEqual(expect.arrayContaining(["PYSEC-2018-28", "PYSEC-2023-74"]));
    expect(r.body.security.coverage.find((c: { ecosystem: string }) => c.ecosystem === "pypi")).toMatchObject({
      status: "stale",
      asOf: "2024-10-10T17:35:05.000Z",
    });
    // lodash is not in the historical npm reports: unchecked, not clean.
    expect(r.body.security.unchecked).toEqual(
      expect.arrayContaining([{ name: "lodash", ecosystem: "npm", version: "4.17.20", reason: "incomplete" }]),
    );
  });

  it("answers freshness, deprecations and models from the shipped data", async () => {
    const f = await api("/v1/freshness?topic=next&version=14.2.0");
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ topic: "next", latestVersion: "16.0.0", upgrade: { releases: 2, breaking: 4 } });
    expect(f.body.upgrade.removedDeprecations.map((d: { id: string }) => d.id)).toEqual(["next-sync-request-apis"]);
    const d = await api("/v1/freshness/deprecations?q=ioutil");
    expect(d.body.items[0]).toMatchObject({ topic: "go", replacement: expect.stringContaining("os.ReadFile") });
    const m = await api("/v1/models?q=opus");
    expect(m.body.items.map((x: { id: string }) => x.id)).toContain("anthropic/claude-opus-4-5-20251101");
  });

  it("a tracking request waits for an operator, who approves it through /internal/topics", async () => {
    const req = await api("/v1/freshness/topics", {
      method: "POST",
      body: JSON.stringify({ topic: "drizzle-orm", sources: [{ repoUrl: "https://github.com/drizzle-team/drizzle-orm" }] }),
    });
    expect(req.status).toBe(202);
    expect(req.body.topic.status).toBe("requested");
    const ok = await fetch(`${server.origin}/internal/topics`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        topic: "drizzle-orm",
        ecosystem: "npm",
        packages: ["drizzle-orm"],
        aliases: ["drizzle"],
        repo: "drizzle-team/drizzle-orm",
      }),
    });
    expect(ok.status).toBe(200);
    const t = (await api("/v1/freshness/topics?q=drizzle")).body.items[0];
    expect(t).toMatchObject({
      topic: "drizzle-orm",
      status: "tracked",
      aliases: expect.arrayContaining(["drizzle"]),
      sources: expect.arrayContaining([{ kind: "repo", url: "https://github.com/drizzle-team/drizzle-orm" }]),
    });
    const noToken = await fetch(`${server.origin}/internal/topics`, { method: "POST", body: "{}" });
    expect(noToken.status).toBe(401);
  });

  it("blocks malicious and hallucinated names from the offline data alone", async () => {
    const r = await api("/v1/packages/check", {
      method: "POST",
      body: JSON.stringify({
        packages: [
          { name: "rustdecimal", ecosystem: "cargo" },
          { name: "github.com/boltdb-go/bolt", ecosystem: "go" },
          { name: "huggingface-cli", ecosystem: "pypi" },
          { name: "0requests", ecosystem: "pypi", version: "0.0.1" },
        ],
      }),
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { verdict: string; suggestion?: string }) => [x.verdict, x.suggestion])).toEqual([
      ["block", "rust_decimal"],
      ["block", "github.com/boltdb/bolt"],
      ["block", "huggingface-hub"],
      [expect.stringMatching(/^(block|warn)$/), "requests"],
    ]);
  });
});
