// Advisory coverage: every answer about vulnerabilities names the sources it consulted, as of
// when, and the entries no current, complete source answered for ("unchecked", never clean).
// The shipped advisory snapshots are loaded as npm start loads them; express's advisories come
// from a recorded OSV answer through the real ingest, which makes express the one npm package
// checked against a current source.
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, mcpClient, newAgent, toolJson, type TestAgent } from "./helpers";
import { json, mockFetch } from "./fixtures/mock";
import { DAY_MS, setClock } from "../src/core/clock";
import { loadReleases } from "../src/freshness/freshness.seed";
import { runIngest } from "../src/freshness/ingest";
import { loadAdvisorySnapshots } from "./data-helpers";
import releases from "../data/freshness/releases.json?raw";
import osvExpress from "./fixtures/osv/express.query.json?raw";
import osvExpress2 from "./fixtures/osv/express.query.page2.json?raw";

/** A week after the newest snapshot (Go and RustSec, 2026-08-21) was taken: every snapshot is stale. */
const T0 = Date.parse("2026-11-20T09:00:00Z");
const HOUR = 3_600_000;

let mock: ReturnType<typeof mockFetch> | null = null;
afterEach(() => {
  mock?.restore();
  mock = null;
  setClock();
});

beforeAll(async () => {
  setClock(() => T0 - 2 * DAY_MS);
  await loadReleases(env, releases);
  await loadAdvisorySnapshots(env);
  // The OSV ingest an hour ago: express has advisories, every other tracked package none.
  mock = mockFetch({
    "https://api.osv.dev/v1/query": async (req) => {
      const body = (await req.json()) as { package: { name: string } };
      return json(body.package.name === "express" ? { vulns: [...JSON.parse(osvExpress).vulns, ...JSON.parse(osvExpress2).vulns] } : {})();
    },
  });
  const report = await runIngest(env, T0 - HOUR, { sources: ["osv"], maxTopics: 50 });
  expect(report.sources[0]).toMatchObject({ source: "osv", failed: 0 });
  mock.restore();
  mock = null;
}, 120_000);

const STACK = [
  { name: "lodash", version: "4.17.20" },
  { name: "express", version: "4.17.1" },
  { name: "requests", version: "==2.19.0", ecosystem: "pypi" },
];

async function sync(a: TestAgent, body: Record<string, unknown>) {
  const r = await call("POST", "/v1/agents/me/sync", { key: a.key, body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

const ids = (vulns: { name: string; advisory: { id: string } }[]) => vulns.map((v) => `${v.name}:${v.advisory.id}`).sort();

/** What the lodash/express/requests stack must say, in a full answer (security) or an up_to_date one (urgent). */
function expectStackCoverage(part: { coverage: any[]; unchecked: any[] }) {
  const npm = part.coverage.find((c) => c.ecosystem === "npm");
  const pypi = part.coverage.find((c) => c.ecosystem === "pypi");
  // npm: express checked against OSV an hour ago; lodash only in the historical reports, which prove nothing.
  expect(npm).toMatchObject({ status: "unavailable", checked: 1, unchecked: 1, asOf: new Date(T0 - HOUR).toISOString() });
  expect(npm.sources).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ source: "OSV (api.osv.dev)", status: "current", complete: true, scope: "packages", packages: 1, asOf: new Date(T0 - HOUR).toISOString() }),
      expect.objectContaining({ source: expect.stringContaining("nodejs/security-wg"), status: "stale", complete: false, scope: "ecosystem", packages: 2, license: "MIT" }),
    ]),
  );
  // PyPI: the pypa/advisory-database snapshot of 2024-10-10 answered, two years old.
  expect(pypi).toMatchObject({ status: "stale", checked: 0, unchecked: 1, asOf: "2024-10-10T17:35:05.000Z" });
  expect(pypi.sources).toEqual([
    expect.objectContaining({ source: expect.stringContaining("pypa/advisory-database"), status: "stale", complete: true, scope: "ecosystem", packages: 1, license: "CC-BY-4.0" }),
  ]);
  expect(part.unchecked).toEqual(
    expect.arrayContaining([
      { name: "lodash", ecosystem: "npm", version: "4.17.20", reason: "incomplete" },
      { name: "requests", ecosystem: "pypi", version: "==2.19.0", reason: "stale" },
    ]),
  );
  expect(part.unchecked).toHaveLength(2);
}

describe("the lodash / express / requests stack", () => {
  it("REST: PyPI advisories from the snapshot, express's from OSV, lodash unchecked, coverage per ecosystem", async () => {
    setClock(() => T0);
    const a = await newAgent();
    const b = await sync(a, { stack: STACK });
    expect(b.mode).toBe("full");
    expect(ids(b.security.vulnerabilities)).toEqual([
      "express:GHSA-qw6h-vgh9-j6wx",
      "express:GHSA-rv95-896h-c2vc",
      "requests:PYSEC-2018-28",
      "requests:PYSEC-2023-74",
    ]);
    const req = b.security.vulnerabilities.find((v: any) => v.advisory.id === "PYSEC-2018-28");
    expect(req).toMatchObject({
      ecosystem: "pypi",
      version: "2.19.0",
      fixedVersions: ["2.20.0"],
      advisory: { aliases: expect.arrayContaining(["CVE-2018-18074"]), source: expect.stringMatching(/^pypa\/advisory-database \(OSV\), snapshot of 2024-10-10 \(CC-BY-4\.0\)$/), asOf: "2024-10-10T17:35:05.000Z", url: "https://osv.dev/vulnerability/PYSEC-2018-28" },
    });
    expect(b.security.vulnerabilities.find((v: any) => v.advisory.id === "GHSA-rv95-896h-c2vc").advisory).toMatchObject({ source: "https://osv.dev/vulnerability/GHSA-rv95-896h-c2vc", asOf: new Date(T0 - HOUR).toISOString() });
    expectStackCoverage(b.security);
    expect(b.notices.join(" ")).toMatch(/2 of 3 stack entries were not checked against a current, complete advisory source/);
  });

  it("MCP: service_sync carries the same coverage and unchecked entries", async () => {
    setClock(() => T0);
    const a = await newAgent();
    const client = await mcpClient(a.key);
    const b = toolJson(await client.callTool({ name: "service_sync", arguments: { stack: STACK } }));
    expect(ids(b.security.vulnerabilities)).toContain("requests:PYSEC-2023-74");
    expectStackCoverage(b.security);
    await client.close();
  });

  it("up_to_date answers carry the coverage of their urgent advisories", async () => {
    setClock(() => T0);
    const a = await newAgent();
    await sync(a, { stack: STACK });
    setClock(() => T0 + HOUR);
    const b = await sync(a, {});
    expect(b.mode).toBe("up_to_date");
    expect(b.urgent.advisories).toEqual([]);
    expectStackCoverage(b.urgent);
  });

  it("a stack checked against current sources only is not unchecked; an unreadable version is", async () => {
    setClock(() => T0);
    const a = await newAgent();
    const b = await sync(a, { stack: [{ name: "express", version: "4.21.2" }, { name: "react", version: "nightly-build" }] });
    expect(b.security.vulnerabilities).toEqual([]);
    expect(b.security.coverage).toEqual([expect.objectContaining({ ecosystem: "npm", checked: 1, unchecked: 1 })]);
    expect(b.security.unchecked).toEqual([{ name: "react", ecosystem: "npm", version: "nightly-build", reason: "unreadable_version" }]);
    // A day later the OSV answer is stale too: nothing is checked any more.
    setClock(() => T0 + 2 * DAY_MS);
    const c = await sync(a, { force: true });
    expect(c.security.coverage[0]).toMatchObject({ ecosystem: "npm", status: "stale", checked: 0, unchecked: 2 });
  });

  it("an ecosystem without any advisory source is unavailable", async () => {
    setClock(() => T0);
    await env.DB.prepare("DELETE FROM advisory_sources WHERE ecosystem = 'go'").run();
    const a = await newAgent();
    const b = await sync(a, { stack: [{ name: "github.com/gin-gonic/gin", version: "v1.9.0", ecosystem: "go" }] });
    expect(b.security.coverage).toEqual([{ ecosystem: "go", status: "unavailable", asOf: null, checked: 0, unchecked: 1, sources: [] }]);
    expect(b.security.unchecked).toEqual([{ name: "github.com/gin-gonic/gin", ecosystem: "go", version: "v1.9.0", reason: "unavailable" }]);
  });
});
