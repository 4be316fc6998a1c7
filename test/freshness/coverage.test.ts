// Advisory coverage: every answer about vulnerabilities names the sources it consulted, as of
// when, and the entries no current, complete source answered for ("unchecked", never clean).
// The shipped advisory snapshots are loaded as npm start loads them; express's advisories come
// from a recorded OSV answer through the real ingest, which makes express the one npm package
// checked against a current source.
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, mcpClient, newAgent, toolJson, type TestAgent } from "../helpers";
import { json, mockFetch, osvNone } from "../fixtures/mock";
import { DAY_MS, setClock } from "../../src/core/clock";
import { HOUR, loadCoverageData, npmDoc, registries, T0 } from "./coverage-fixtures";

let mock: ReturnType<typeof mockFetch> | null = null;
afterEach(() => {
  mock?.restore();
  mock = null;
  setClock();
});

beforeAll(loadCoverageData, 120_000);

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
      expect.objectContaining({
        source: "OSV (api.osv.dev)",
        status: "current",
        complete: true,
        scope: "packages",
        packages: 1,
        asOf: new Date(T0 - HOUR).toISOString(),
      }),
      expect.objectContaining({
        source: expect.stringContaining("nodejs/security-wg"),
        status: "stale",
        complete: false,
        scope: "ecosystem",
        packages: 2,
        license: "MIT",
      }),
    ]),
  );
  // PyPI: the pypa/advisory-database snapshot of 2024-10-10 answered, two years old.
  expect(pypi).toMatchObject({ status: "stale", checked: 0, unchecked: 1, asOf: "2024-10-10T17:35:05.000Z" });
  expect(pypi.sources).toEqual([
    expect.objectContaining({
      source: expect.stringContaining("pypa/advisory-database"),
      status: "stale",
      complete: true,
      scope: "ecosystem",
      packages: 1,
      license: "CC-BY-4.0",
    }),
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
      advisory: {
        aliases: expect.arrayContaining(["CVE-2018-18074"]),
        source: expect.stringMatching(/^pypa\/advisory-database \(OSV\), snapshot of 2024-10-10 \(CC-BY-4\.0\)$/),
        asOf: "2024-10-10T17:35:05.000Z",
        url: "https://osv.dev/vulnerability/PYSEC-2018-28",
      },
    });
    expect(b.security.vulnerabilities.find((v: any) => v.advisory.id === "GHSA-rv95-896h-c2vc").advisory).toMatchObject({
      source: "https://osv.dev/vulnerability/GHSA-rv95-896h-c2vc",
      asOf: new Date(T0 - HOUR).toISOString(),
    });
    expectStackCoverage(b.security);
    expect(b.notices.join(" ")).toMatch(/2 of 3 stack entries were not checked against a current, complete advisory source/);
  });

  it("MCP: service_sync carries the same coverage and unchecked entries", async () => {
    setClock(() => T0);
    const a = await newAgent();
    const client = await mcpClient(a.key);
    const b = toolJson(await client.callTool({ name: "service_sync", arguments: { stack: STACK, detail: "full" } }));
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
    const b = await sync(a, {
      stack: [
        { name: "express", version: "4.21.2" },
        { name: "react", version: "nightly-build" },
      ],
    });
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

describe("the package check names a version's advisories and what they were looked up in", () => {
  const stack = [
    { name: "lodash", version: "4.17.20" },
    { name: "express", version: "4.17.1" },
    { name: "requests", ecosystem: "pypi", version: "2.19.0" },
  ];
  const versions = { lodash: ["4.17.20", "4.17.21"], express: ["4.17.1", "4.21.2"], requests: ["2.19.0", "2.32.3"] };

  it("OSV unreachable: snapshot advisories with severity and fixed versions, and 'advisories unchecked' (REST)", async () => {
    setClock(() => T0);
    const a = await newAgent();
    mock = mockFetch(registries(versions));
    const r = await call("POST", "/v1/packages/check", { key: a.key, body: { packages: stack } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [lodash, express, requests] = r.body.results;
    // lodash: nothing in the historical npm list for 4.17.20, which proves nothing.
    expect(lodash).toMatchObject({
      verdict: "warn",
      advisoryCheck: {
        status: "unavailable",
        version: "4.17.20",
        note: expect.stringMatching(/^OSV unreachable .*nodejs\/security-wg.*lists only some advisories/),
      },
    });
    expect(lodash.knownAdvisories).toBeUndefined();
    expect(lodash.reasons.map((x: any) => x.code)).toEqual(["ADVISORIES_UNCHECKED"]);
    expect(lodash.reasons[0].message).toMatch(/^advisories unchecked for 4\.17\.20: .*none found there does not mean none exist/);
    // express: checked against OSV an hour ago (the ingest), so current without OSV now.
    expect(express).toMatchObject({ verdict: "warn", advisoryCheck: { status: "current" } });
    expect(express.knownAdvisories.map((k: any) => k.id).sort()).toEqual(["GHSA-qw6h-vgh9-j6wx", "GHSA-rv95-896h-c2vc"]);
    expect(express.reasons.map((x: any) => x.code)).toEqual(["VULNERABLE", "VULNERABLE"]);
    // requests: the PyPI snapshot's advisories, named with severity and fix, and stale.
    expect(requests.advisoryCheck).toMatchObject({
      status: "stale",
      sources: [
        { source: expect.stringContaining("pypa/advisory-database"), asOf: "2024-10-10T17:35:05.000Z", status: "stale", complete: true },
      ],
    });
    expect(requests.knownAdvisories).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: "PYSEC-2018-28",
          fixedVersions: ["2.20.0"],
          aliases: expect.arrayContaining(["CVE-2018-18074"]),
          asOf: "2024-10-10T17:35:05.000Z",
        }),
        expect.objectContaining({ id: "PYSEC-2023-74", fixedVersions: ["2.31.0"] }),
      ]),
    );
    expect(requests.reasons.find((x: any) => x.code === "VULNERABLE" && x.message.includes("PYSEC-2018-28")).message).toMatch(
      /fixed in 2\.20\.0/,
    );
    expect(requests.reasons.at(-1)).toMatchObject({
      code: "ADVISORIES_UNCHECKED",
      message: expect.stringContaining("the 2 listed are what is known, not all there is"),
    });
  });

  it("an advisory an ingest corrects changes the next check's answer: what the check holds per isolate is keyed on the rows as read", async () => {
    setClock(() => T0);
    const a = await newAgent();
    mock = mockFetch(registries(versions));
    const check = async () => {
      const r = await call("POST", "/v1/packages/check", { key: a.key, body: { packages: [{ name: "express", version: "4.17.1" }] } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body.results[0].knownAdvisories ?? []).map((k: any) => k.id).sort();
    };
    expect(await check()).toEqual(["GHSA-qw6h-vgh9-j6wx", "GHSA-rv95-896h-c2vc"]);
    // The same advisory id, its range corrected: 4.17.1 is no longer affected.
    const fixedBefore4 = JSON.stringify([{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "4.0.0" }] }]);
    await env.DB.prepare(
      "UPDATE advisory_affected SET ranges = ?1, versions = '[]' WHERE advisory_id = 'GHSA-rv95-896h-c2vc' AND name = 'express'",
    )
      .bind(fixedBefore4)
      .run();
    expect(await check()).toEqual(["GHSA-qw6h-vgh9-j6wx"]);
  });
});

describe("a complete package check", () => {
  // 70 npm and 30 PyPI names nobody has checked: 130 registry subrequests, past the free plan's 50.
  const names = [
    ...Array.from({ length: 70 }, (_, i) => ({ name: `lore-cold-npm-${i}` })),
    ...Array.from({ length: 30 }, (_, i) => ({ name: `lore-cold-py-${i}`, ecosystem: "pypi" })),
  ];

  for (const via of ["REST", "MCP"] as const) {
    it(`a cold batch of 100 names is answered whole on the configured plan (${via})`, async () => {
      await env.DB.prepare("DELETE FROM registry_cache").run();
      setClock(() => T0);
      const a = await newAgent();
      mock = mockFetch({ ...registries(), "https://api.osv.dev/v1/querybatch": osvNone });
      const t0 = Date.now();
      let results: any[];
      if (via === "REST") {
        const r = await call("POST", "/v1/packages/check", { key: a.key, body: { packages: names } });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        results = r.body.results;
      } else {
        const client = await mcpClient(a.key);
        results = toolJson(
          await client.callTool({ name: "service_check_packages", arguments: { packages: names, detail: "full" } }),
        ).results;
        await client.close();
      }
      const ms = Date.now() - t0;
      const registryCalls = mock.calls.filter((u) => !u.startsWith("https://api.osv.dev/")).length;
      console.log(
        `[coverage.test] cold 100-name check (${via}): ${ms} ms, ${registryCalls} registry requests, ${mock.calls.length - registryCalls} OSV request`,
      );
      expect(results).toHaveLength(100);
      expect(results.filter((r) => r.reasons.some((x: any) => x.code === "NOT_CHECKED" || x.code === "REGISTRY_UNREACHABLE"))).toEqual([]);
      expect(results.every((r) => r.exists === true && r.verdict === "ok" && r.advisoryCheck?.status === "current")).toBe(true);
      expect(registryCalls).toBe(70 + 2 * 30);
    });
  }

  it("a registry that cannot be reached is said so by name, never as an internal error", async () => {
    await env.DB.prepare("DELETE FROM registry_cache").run();
    setClock(() => T0);
    const a = await newAgent();
    // No route for PyPI: the request fails as an unresolvable host does in workerd.
    mock = mockFetch({
      "https://registry.npmjs.org/": (req) => json(npmDoc(decodeURIComponent(new URL(req.url).pathname.slice(1))))(),
      "https://api.osv.dev/v1/querybatch": osvNone,
    });
    mock.spy.mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input as RequestInfo, init);
      if (req.url.startsWith("https://pypi.org/")) throw new Error("internal error; reference = 0123456789abcdefghijklmn");
      if (req.url.startsWith("https://api.osv.dev/")) return osvNone(req);
      return json(npmDoc(decodeURIComponent(new URL(req.url).pathname.slice(1))))();
    });
    const r = await call("POST", "/v1/packages/check", {
      key: a.key,
      body: { packages: [{ name: "lore-some-project", ecosystem: "pypi" }, { name: "lore-cold-npm-x" }] },
    });
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toMatchObject({
      verdict: "warn",
      exists: null,
      reasons: [
        {
          code: "REGISTRY_UNREACHABLE",
          message: "could not verify with PyPI: unreachable (the host could not be resolved or connected to)",
        },
      ],
    });
    expect(JSON.stringify(r.body)).not.toMatch(/internal error|reference =/);
    expect(r.body.results[1]).toMatchObject({ verdict: "ok", exists: true });
  });
});

describe("stale release data", () => {
  it("a sync that meets stale topics refreshes them from their registries, and says which it could not", async () => {
    // Five days after the shipped release data (2026-11-22): older than a day.
    const T = Date.parse("2026-11-27T10:00:00Z");
    setClock(() => T);
    const a = await newAgent();
    mock = mockFetch({
      "https://registry.npmjs.org/express": json(npmDoc("express", ["4.17.1", "5.2.1", "5.3.0"])),
      // PyPI cannot be reached (no route: fails as an unreachable host does).
    });
    const b = await sync(a, {
      stack: [
        { name: "express", version: "4.17.1" },
        { name: "django", version: "6.0", ecosystem: "pypi" },
      ],
    });
    const express = b.releases.find((r: any) => r.topic === "express");
    const django = b.releases.find((r: any) => r.topic === "django");
    expect(express).toMatchObject({
      latestVersion: "5.3.0",
      stale: false,
      refreshed: true,
      dataAsOf: new Date(T).toISOString(),
      upToDate: false,
    });
    expect(express.changes.map((c: any) => c.version)).toContain("5.3.0");
    // django 6.0 is the latest Lore knows, but its data is five days old: not claimed up to date.
    expect(django).toMatchObject({
      latestVersion: "6.0",
      stale: true,
      refreshed: false,
      dataAsOf: "2026-11-22T00:00:00.000Z",
      upToDate: null,
    });
    expect(django.note).toMatch(/as of 2026-11-22, older than a day, and could not be refreshed in this request \(pypi: unreachable/);
    expect(b.notices.join(" ")).toMatch(/refreshed from the registries in this request: express/);
    expect(b.notices.join(" ")).toMatch(/could not be refreshed in this request .*django/);
    expect(mock.calls.filter((u) => u.startsWith("https://registry.npmjs.org/"))).toEqual(["https://registry.npmjs.org/express"]);
    // Asked again a minute later: express is current now; PyPI, which just failed, is not asked again so soon.
    mock.calls.length = 0;
    setClock(() => T + 60_000);
    const c = await sync(a, { force: true });
    expect(c.releases.find((r: any) => r.topic === "express")).toMatchObject({ stale: false, refreshed: false });
    expect(c.releases.find((r: any) => r.topic === "django").note).toMatch(/its registry failed 1 min ago/);
    expect(mock.calls).toEqual([]);
  });

  it("freshness says how old a topic's data is and never calls stale data up to date", async () => {
    setClock(() => Date.parse("2026-11-27T10:00:00Z"));
    const a = await newAgent();
    const r = await call("GET", "/v1/freshness?topic=django&ecosystem=pypi&version=6.0", { key: a.key });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ topic: "django", dataAsOf: expect.any(String), stale: true });
    expect(r.body.upgrade).toMatchObject({ upToDate: null, note: expect.stringMatching(/older than a day/) });
  });
});

describe("documented where agents read", () => {
  it("the OpenAPI document and the MCP tools' output schemas carry coverage, unchecked entries and the advisory check", async () => {
    const doc = (await call("GET", "/v1/openapi.json")).body;
    const text = JSON.stringify(doc);
    const op = (path: string) => doc.paths[Object.keys(doc.paths).find((k) => k.endsWith(path))!];
    const syncOp = op("/agents/me/sync").post;
    expect(syncOp.description).toMatch(/security\.coverage/);
    const out = JSON.stringify(syncOp.responses["200"]);
    for (const k of ["coverage", "unchecked", "dataAsOf", "stale", "refreshed"]) expect(out, k).toContain(`"${k}"`);
    expect(text).toContain("ADVISORIES_UNCHECKED");
    expect(JSON.stringify(op("/packages/check").post.responses["200"])).toMatch(
      /advisoryCheck.*knownAdvisories|knownAdvisories.*advisoryCheck/,
    );
    expect(JSON.stringify(op("/freshness").get.responses["200"])).toContain('"security"');
    const a = await newAgent();
    const client = await mcpClient(a.key);
    const { tools } = await client.listTools();
    await client.close();
    const schema = JSON.stringify(tools.find((t) => t.name === "service_sync")!.outputSchema);
    expect(schema).toContain('"unchecked"');
    expect(schema).toMatch(/Advisory coverage of one ecosystem/);
    expect(JSON.stringify(tools.find((t) => t.name === "service_check_packages")!.outputSchema)).toContain('"advisoryCheck"');
  });
});
