// The package check through the real Worker (and its service with a stubbed registry where a test
// needs many names), with the shipped offline data loaded by the seed loaders themselves.
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, mcpClient, newAgent, toolJson, type TestAgent } from "./helpers";
import { hang, json, mockFetch, text } from "./fixtures/mock";
import { setClock } from "../src/core/clock";
import { loadHallucinated, loadMalicious, popularLoader } from "../src/packages/packages.seed";
import { checkPackages, SUBREQUEST_BUDGET, type Lookuper } from "../src/packages/packages.service";
import { SourceError, type PackageFacts } from "../src/sources/http";
import type { Ecosystem } from "../src/freshness/versions";
import malicious from "../data/packages/malicious.tsv?raw";
import popularNpm from "../data/packages/popular-npm.txt?raw";
import popularPypi from "../data/packages/popular-pypi.txt?raw";
import popularCargo from "../data/packages/popular-cargo.txt?raw";
import popularGo from "../data/packages/popular-go.txt?raw";
import hallucinated from "../data/packages/hallucinated.json?raw";
import packageChecks from "../data/freshness/package-checks.json?raw";
import crossenv from "./fixtures/npm/crossenv.json?raw";
import reactMirror from "./fixtures/npm/react.mirror.json?raw";
import request from "./fixtures/npm/request.json?raw";
import newPackage from "./fixtures/npm/new-package.json?raw";
import crossenvMirror from "./fixtures/npm/crossenv.mirror.json?raw";
import npmNotFound from "./fixtures/npm/not-found.json?raw";
import requestsJson from "./fixtures/pypi/requests.json?raw";
import requestsSimple from "./fixtures/pypi/requests.simple.json?raw";
import quarantined from "./fixtures/pypi/quarantined.simple.json?raw";
import pypiNotFound from "./fixtures/pypi/not-found.json?raw";
import serde from "./fixtures/crates/serde.json?raw";
import ginList from "./fixtures/goproxy/gin.list?raw";
import ginLatest from "./fixtures/goproxy/gin.latest.json?raw";
import ginInfo from "./fixtures/goproxy/gin.v1.7.7.info.json?raw";
import ginMod from "./fixtures/goproxy/gin.mod?raw";

const chunks = (t: string, n: number) => {
  const lines = t.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += n) out.push(lines.slice(i, i + n).join("\n"));
  return out;
};

let loadMs = 0;
beforeAll(async () => {
  const t0 = Date.now();
  for (const c of chunks(malicious, 4000)) await loadMalicious(env, c);
  await popularLoader("npm")(env, popularNpm);
  await popularLoader("pypi")(env, popularPypi);
  await popularLoader("cargo")(env, popularCargo);
  await popularLoader("go")(env, popularGo);
  await loadHallucinated(env, hallucinated);
  loadMs = Date.now() - t0;
}, 120_000);

let mock: ReturnType<typeof mockFetch> | null = null;
afterEach(async () => {
  mock?.restore();
  mock = null;
  // Each test decides what the registries say: no answer cached by an earlier test.
  await env.DB.prepare("DELETE FROM registry_cache").run();
});

const check = (a: TestAgent, packages: unknown) => call("POST", "/v1/packages/check", { key: a.key, body: { packages } });
const usage = async (a: TestAgent) => (await call("GET", "/v1/usage/today", { key: a.key })).body.metrics.FRESHNESS_CALLS.used;
const codes = (r: { reasons: { code: string }[] }) => r.reasons.map((x) => x.code);

/** Registry facts for stubbed lookups: an old, clean package with a few versions. */
const facts = (name: string, over: Partial<PackageFacts> = {}): PackageFacts => ({
  name,
  latestVersion: "2.0.0",
  versions: ["1.0.0", "2.0.0"],
  firstPublished: "2015-01-01T00:00:00.000Z",
  datesTrusted: true,
  deprecated: {},
  packageDeprecated: null,
  yanked: {},
  installScripts: [],
  securityHolder: false,
  quarantined: false,
  source: `https://registry.example/${name}`,
  ...over,
});
const found: Lookuper = async (_eco, name) => ({ status: "found", facts: facts(name) });

describe("shipped offline data", () => {
  it("loads the whole malicious snapshot and the popular lists idempotently", async () => {
    const count = async () =>
      (await env.DB.prepare(
        "SELECT (SELECT COUNT(*) FROM malicious_packages) AS mal, (SELECT COUNT(*) FROM popular_names) AS pop, (SELECT COUNT(*) FROM popular_keys) AS keys, (SELECT COUNT(*) FROM hallucinated_names) AS hall",
      ).first<{ mal: number; pop: number; keys: number; hall: number }>())!;
    const before = await count();
    expect(before.mal).toBeGreaterThan(32_000);
    expect(before.pop).toBeGreaterThan(52_000);
    expect(before.hall).toBe(3);
    console.log(`[packages.test] offline data loaded in ${loadMs} ms: ${JSON.stringify(before)}`);
    await loadMalicious(env, malicious.split("\n").slice(0, 500).join("\n"));
    await popularLoader("go")(env, popularGo);
    expect(await count()).toEqual(before);
  });
});

describe("POST /v1/packages/check", () => {
  it("answers popular, malicious, missing and security-holder names with the right verdicts (one FRESHNESS_CALLS)", async () => {
    setClock(() => Date.parse("2026-11-23T12:00:00Z"));
    const a = await newAgent();
    mock = mockFetch({
      "https://registry.npmjs.org/react": json(reactMirror),
      "https://registry.npmjs.org/crossenv": json(crossenv),
      "https://registry.npmjs.org/expresss": json(npmNotFound, 404),
      "https://crates.io/api/v1/crates/serde": json(serde),
      "https://proxy.golang.org/github.com/gin-gonic/gin/@v/list": text(ginList),
      "https://proxy.golang.org/github.com/gin-gonic/gin/@latest": json(ginLatest),
      "https://proxy.golang.org/github.com/gin-gonic/gin/@v/v1.11.0.mod": text(ginMod),
      "https://proxy.golang.org/github.com/gin-gonic/gin/@v/v1.7.7.info": json(ginInfo),
      "https://pypi.org/pypi/requests/json": json(requestsJson),
      "https://pypi.org/simple/requests/": json(requestsSimple),
    });
    const r = await check(a, [
      { name: "react" },
      { name: "react", version: "99.0.0" },
      { name: "crossenv", ecosystem: "npm" },
      { name: "expresss" },
      { name: "rustdecimal", ecosystem: "cargo" },
      { name: "serde", ecosystem: "crates.io" },
      { name: "github.com/boltdb-go/bolt", ecosystem: "go" },
      { name: "github.com/gin-gonic/gin", ecosystem: "go" },
      { name: "Requests", ecosystem: "PyPI", version: "2.32.0" },
    ]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [react, react99, holder, missing, rustdecimal, serdeR, bolt, ginR, requests] = r.body.results;
    expect(react).toMatchObject({ name: "react", ecosystem: "npm", verdict: "ok", exists: true, latestVersion: "19.3.1", reasons: [], unverified: ["firstPublished", "deprecated"] });
    expect(react99).toMatchObject({ verdict: "block", reasons: [{ code: "VERSION_NOT_FOUND", message: expect.stringContaining("latest is 19.3.1") }] });
    expect(holder).toMatchObject({ verdict: "block", exists: true, imitates: "cross-env", suggestion: "cross-env" });
    expect(codes(holder)).toEqual(["SECURITY_HOLDER", "TYPOSQUAT"]);
    expect(missing).toMatchObject({ verdict: "block", exists: false, imitates: "express" });
    expect(codes(missing)).toEqual(["NOT_FOUND", "TYPOSQUAT"]);
    expect(rustdecimal).toMatchObject({ verdict: "block", advisories: ["MAL-2022-1"], imitates: "rust_decimal" });
    expect(codes(rustdecimal)[0]).toBe("MALICIOUS");
    expect(serdeR).toMatchObject({ ecosystem: "cargo", verdict: "ok", exists: true, latestVersion: "1.0.228", firstPublished: "2014-12-05T20:20:39.487Z" });
    expect(bolt).toMatchObject({ verdict: "block", advisories: ["MAL-2025-2545"], suggestion: "github.com/boltdb/bolt" });
    expect(ginR).toMatchObject({ verdict: "ok", latestVersion: "v1.11.0" });
    expect(requests).toMatchObject({ ecosystem: "pypi", verdict: "warn", reasons: [{ code: "YANKED", message: expect.stringContaining("CVE-2024-35195") }] });
    // Offline facts decided these two: no registry call for them.
    expect(mock.calls.some((u) => u.includes("rustdecimal") || u.includes("boltdb-go"))).toBe(false);
    expect(await usage(a)).toBe(1);
  });

  it("malicious versions: a compromised release blocks, other versions warn; unknown versions of a popular name warn", async () => {
    const a = await newAgent();
    mock = mockFetch({
      "https://registry.npmjs.org/debug": json({ name: "debug", "dist-tags": { latest: "4.4.3" }, versions: { "4.4.1": {}, "4.4.2": {}, "4.4.3": {} }, time: { created: "2011-01-01T00:00:00Z", modified: "2025-09-09T00:00:00Z" } }),
      "https://pypi.org/pypi/litellm/json": json({ info: { name: "litellm", version: "1.70.0" }, releases: { "1.70.0": [{ upload_time_iso_8601: "2025-01-01T00:00:00Z" }] } }),
      "https://pypi.org/simple/litellm/": json({ name: "litellm", versions: ["1.70.0"], files: [] }),
    });
    const r = await check(a, [
      { name: "debug", version: "4.4.2" },
      { name: "debug", version: "4.4.1" },
      { name: "litellm", ecosystem: "pypi" },
    ]);
    const [bad, good, lite] = r.body.results;
    expect(bad.verdict).toBe("block");
    expect(codes(bad)).toEqual(["MALICIOUS"]);
    // 4.4.1 is not among the compromised releases: nothing to say about it.
    expect(good).toMatchObject({ verdict: "ok", reasons: [] });
    expect(lite).toMatchObject({ verdict: "warn", advisories: ["MAL-2026-2144"] });
  });

  it("hallucinated names block with the real package; homoglyph names are invalid and point at the real one", async () => {
    const a = await newAgent();
    mock = mockFetch({});
    const r = await check(a, [
      { name: "huggingface-cli", ecosystem: "pypi" },
      { name: "react-codeshift" },
      { name: "rеact" },
    ]);
    const [hf, rc, homoglyph] = r.body.results;
    expect(hf).toMatchObject({ verdict: "block", suggestion: "huggingface-hub" });
    expect(codes(hf)).toEqual(["HALLUCINATED"]);
    expect(rc).toMatchObject({ verdict: "block", suggestion: "jscodeshift" });
    expect(homoglyph).toMatchObject({ verdict: "block", exists: false, imitates: "react" });
    expect(codes(homoglyph)).toEqual(["INVALID_NAME", "TYPOSQUAT"]);
    expect(mock.calls).toEqual([]);
  });

  it("an unreachable registry gives warn, never ok and never block on a guess", async () => {
    const a = await newAgent();
    mock = mockFetch({
      "https://registry.npmjs.org/lodash": () => {
        throw new TypeError("fetch failed");
      },
      "https://pypi.org/pypi/requests/json": text("upstream error", 503),
      "https://pypi.org/simple/requests/": text("upstream error", 503),
      "https://crates.io/api/v1/crates/serde": text("<html>", 200),
    });
    const r = await check(a, [{ name: "lodash" }, { name: "requests", ecosystem: "pypi" }, { name: "serde", ecosystem: "cargo" }, { name: "left-pad-not-mocked" }, { name: "rustdecimal", ecosystem: "cargo" }]);
    const [lodash, requests, serdeR, unmocked, rust] = r.body.results;
    for (const x of [lodash, requests, serdeR, unmocked]) {
      expect(x.verdict, JSON.stringify(x)).toBe("warn");
      expect(x.exists).toBeNull();
      expect(codes(x)).toContain("REGISTRY_UNREACHABLE");
    }
    expect(serdeR.reasons[0].message).toContain("malformed");
    // An offline fact still decides: the snapshot says every version is malicious.
    expect(rust.verdict).toBe("block");
    // Errors are not cached: the next request asks again.
    const before = mock.calls.length;
    await check(a, [{ name: "lodash" }]);
    expect(mock.calls.length).toBe(before + 1);
  });

  it("warns about deprecated, new and install-script packages; PyPI quarantine blocks; mirror dates are not trusted", async () => {
    setClock(() => Date.parse("2026-11-23T12:00:00Z"));
    const a = await newAgent();
    mock = mockFetch({
      "https://registry.npmjs.org/request": json(request),
      "https://registry.npmjs.org/lore-fixture-brand-new": json(newPackage),
      "https://registry.npmjs.org/lore-fixture-mirror-only": json({ ...JSON.parse(crossenvMirror), name: "lore-fixture-mirror-only", "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": { version: "1.0.0" } } }),
      "https://pypi.org/pypi/lore-fixture-quarantined/json": json(pypiNotFound, 404),
      "https://pypi.org/simple/lore-fixture-quarantined/": json(quarantined),
    });
    const r = await check(a, [{ name: "request" }, { name: "lore-fixture-brand-new" }, { name: "lore-fixture-mirror-only" }, { name: "lore-fixture-quarantined", ecosystem: "pypi" }]);
    const [req, fresh, mirror, quar] = r.body.results;
    expect(req).toMatchObject({ verdict: "warn", reasons: [{ code: "DEPRECATED", message: expect.stringContaining("request has been deprecated") }] });
    expect(fresh).toMatchObject({ verdict: "warn", firstPublished: "2026-11-15T10:00:00.000Z" });
    expect(codes(fresh)).toEqual(["INSTALL_SCRIPTS", "NEW_PACKAGE"]);
    expect(mirror).toMatchObject({ verdict: "warn", unverified: ["firstPublished", "deprecated"] });
    expect(codes(mirror)).toEqual(["UNVERIFIED_DATES"]);
    expect(quar).toMatchObject({ verdict: "block", reasons: [{ code: "QUARANTINED" }] });
  });

  it("caches registry answers (found and missing) and reuses them", async () => {
    const a = await newAgent();
    mock = mockFetch({
      "https://registry.npmjs.org/react": json(reactMirror),
      "https://registry.npmjs.org/lore-fixture-nothing": json(npmNotFound, 404),
    });
    await checkPackages(env, [{ name: "react", ecosystem: "npm" }, { name: "lore-fixture-nothing", ecosystem: "npm" }]);
    expect(mock.calls.length).toBe(2);
    const r = await check(a, [{ name: "react" }, { name: "lore-fixture-nothing" }]);
    expect(r.body.results.map((x: { verdict: string }) => x.verdict)).toEqual(["ok", "block"]);
    expect(mock.calls.length).toBe(2);
    // Version questions are answered from the cached version list and per-version flags.
    mock.restore();
    mock = mockFetch({ "https://registry.npmjs.org/request": json(request), "https://registry.npmjs.org/lore-fixture-brand-new": json(newPackage) });
    await checkPackages(env, [{ name: "request", ecosystem: "npm" }, { name: "lore-fixture-brand-new", ecosystem: "npm" }]);
    const v = await check(a, [
      { name: "react", version: "18.2.0" },
      { name: "react", version: "v18.2.0" },
      { name: "react", version: "99.0.0" },
      { name: "request", version: "2.88.0" },
      { name: "lore-fixture-brand-new", version: "1.0.0" },
      { name: "lore-fixture-brand-new", version: "1.0.1" },
    ]);
    expect(v.body.results.map((x: { reasons: { code: string }[] }) => codes(x))).toEqual([[], [], ["VERSION_NOT_FOUND"], ["DEPRECATED"], ["NEW_PACKAGE"], ["INSTALL_SCRIPTS", "NEW_PACKAGE"]]);
    expect(mock.calls.length).toBe(2);
    // Ranges and dist-tags are judged at the version a fresh install would pick.
    const ranges = await check(a, [
      { name: "react", version: "^18.2.0" },
      { name: "react", version: "^99.0.0" },
      { name: "react", version: "latest" },
      { name: "request", version: "~2.88.0" },
      { name: "lore-fixture-brand-new", version: ">=1.0.0 <1.0.1" },
    ]);
    expect(ranges.body.results.map((x: { resolvedVersion?: string; reasons: { code: string }[] }) => [x.resolvedVersion ?? null, codes(x)])).toEqual([
      ["18.3.1", []],
      [null, ["VERSION_NOT_FOUND"]],
      ["19.3.1", []],
      ["2.88.2", ["DEPRECATED"]],
      ["1.0.0", ["NEW_PACKAGE"]],
    ]);
    expect(ranges.body.results[1].reasons[0].message).toContain("no published version satisfies ^99.0.0");
    // PyPI: `==` pins exactly (a yanked pin is reported); a range skips yanked releases, as pip does.
    mock.restore();
    mock = mockFetch({ "https://pypi.org/pypi/requests/json": json(requestsJson), "https://pypi.org/simple/requests/": json(requestsSimple) });
    const py = await check(a, [
      { name: "requests", ecosystem: "pypi", version: "==2.32.0" },
      { name: "requests", ecosystem: "pypi", version: ">=0.1,<2.32.2" },
      { name: "requests", ecosystem: "pypi", version: "~=2.32" },
    ]);
    expect(py.body.results.map((x: { resolvedVersion?: string; reasons: { code: string }[] }) => [x.resolvedVersion ?? null, codes(x)])).toEqual([
      [null, ["YANKED"]],
      ["0.2.0", []],
      ["2.32.3", []],
    ]);
  });

  it("validates input (1–100 packages, known ecosystems) with 400, consuming nothing; needs a key", async () => {
    const a = await newAgent();
    expectError(await check(a, []), 400, "VALIDATION_FAILED");
    expectError(await check(a, Array.from({ length: 101 }, (_, i) => ({ name: `p${i}` }))), 400, "VALIDATION_FAILED");
    const bad = expectError(await check(a, [{ name: "x", ecosystem: "maven" }]), 400, "VALIDATION_FAILED");
    expect(bad.error.details.issues[0].path).toBe("body.packages.0.ecosystem");
    expectError(await check(a, [{ name: "" }]), 400, "VALIDATION_FAILED");
    expectError(await call("POST", "/v1/packages/check", { key: a.key, raw: "{nope" }), 400, "VALIDATION_FAILED");
    expectError(await call("POST", "/v1/packages/check", { body: { packages: [{ name: "react" }] } }), 401, "UNAUTHENTICATED");
    expect(await usage(a)).toBe(0);
  });

  it("service_check_packages over MCP: same verdicts, one FRESHNESS_CALLS", async () => {
    const a = await newAgent();
    mock = mockFetch({ "https://registry.npmjs.org/react": json(reactMirror), "https://registry.npmjs.org/crossenv": json(crossenv) });
    const client = await mcpClient(a.key);
    const res = await client.callTool({ name: "service_check_packages", arguments: { packages: [{ name: "react" }, { name: "crossenv", version: "1.0.0" }] } });
    const body = toolJson(res);
    expect(body.results[0]).toMatchObject({ name: "react", verdict: "ok" });
    expect(body.results[1].verdict).toBe("block");
    const bad = toolJson(await client.callTool({ name: "service_check_packages", arguments: { packages: [] } }));
    expect(bad.error.code).toBe("VALIDATION_FAILED");
    await client.close();
    expect(await usage(a)).toBe(1);
  });
});

describe("typosquats against the popular lists", () => {
  it("catches the published typo cases with the expected target, and case-only differences pass", async () => {
    const cases = (JSON.parse(packageChecks) as { typo_cases: { ecosystem: string; candidate: string; expected_target: string | null }[] }).typo_cases;
    const { results } = await checkPackages(env, cases.map((c) => ({ name: c.candidate, ecosystem: "pypi" as Ecosystem })), { lookup: found });
    results.forEach((r, i) => {
      const want = cases[i]!.expected_target;
      // Some of them are also in the malicious snapshot (block); all of them name their target.
      if (want) expect(r, r.name).toMatchObject({ verdict: expect.stringMatching(/^(warn|block)$/), imitates: want });
      else expect(r, r.name).toMatchObject({ verdict: "ok" });
    });
  });

  it("never flags the popular names themselves (the top 600 of npm, PyPI and crates, and all of Go)", async () => {
    const top = (t: string, n: number) => t.split("\n").filter((l) => l && !l.startsWith("#")).slice(0, n);
    const lists: [Ecosystem, string[]][] = [["npm", top(popularNpm, 600)], ["pypi", top(popularPypi, 600)], ["cargo", top(popularCargo, 600)], ["go", top(popularGo, 100)]];
    let batches = 0;
    const t0 = performance.now();
    for (const [eco, names] of lists) {
      for (let i = 0; i < names.length; i += 100) {
        batches++;
        const { results } = await checkPackages(env, names.slice(i, i + 100).map((name) => ({ name, ecosystem: eco })), { lookup: found, budget: 1000 });
        // A popular name may carry a report of some compromised releases (litellm): that is not a false alarm.
        const flagged = results.filter((r) => r.reasons.some((x) => x.code !== "MALICIOUS_VERSIONS"));
        if (flagged.length) console.log(flagged.map((r) => `${r.name}: ${r.reasons.map((x) => x.code + " " + x.message).join("; ")}`).join("\n"));
        expect(flagged.map((r) => `${r.name}: ${r.reasons.map((x) => x.message).join("; ")}`), eco).toEqual([]);
      }
    }
    // The whole check (offline batch with the typo-key lookup, verdicts) for 100 names, stubbed registry.
    console.log(`[packages.test] check of 100 names with typo lookup: ${((performance.now() - t0) / batches).toFixed(1)} ms per request (mean of ${batches})`);
  });

  it("catches separator, scope, swapped-word, noise and Go owner tricks", async () => {
    const { results } = await checkPackages(
      env,
      [
        { name: "crossenv", ecosystem: "npm" },
        { name: "@typess/node", ecosystem: "npm" },
        { name: "lodash-js", ecosystem: "npm" },
        { name: "expres", ecosystem: "npm" },
        { name: "dateutil-python", ecosystem: "pypi" },
        { name: "serde-json", ecosystem: "cargo" },
        { name: "github.com/stretchr-go/testify", ecosystem: "go" },
      ],
      { lookup: found },
    );
    expect(results.map((r) => r.imitates ?? null)).toEqual(["cross-env", "@types/node", "lodash", "express", "python-dateutil", null, "github.com/stretchr/testify"]);
  });

  it("stays within the subrequest budget; the rest say they were not checked", async () => {
    let calls = 0;
    const counting: Lookuper = async (eco, name) => {
      calls++;
      return { status: "found", facts: facts(name) };
    };
    const names = Array.from({ length: 30 }, (_, i) => ({ name: `github.com/lore-fixture/mod${i}`, ecosystem: "go" as Ecosystem }));
    const { results } = await checkPackages(env, names, { lookup: counting });
    expect(calls).toBe(Math.floor(SUBREQUEST_BUDGET / 4));
    const unchecked = results.filter((r) => r.reasons.some((x) => x.code === "NOT_CHECKED"));
    expect(unchecked.length).toBe(30 - calls);
    expect(unchecked.every((r) => r.verdict === "warn")).toBe(true);
  });

  it("a lookup error of any kind is a warning with its reason", async () => {
    const failing: Lookuper = async () => {
      throw new SourceError("npm", "timeout", "no answer within 4000 ms");
    };
    mock = mockFetch({ "https://registry.npmjs.org/": hang });
    const { results } = await checkPackages(env, [{ name: "lore-fixture-timeout", ecosystem: "npm" }], { lookup: failing });
    expect(results[0]).toMatchObject({ verdict: "warn", exists: null, reasons: [{ code: "REGISTRY_UNREACHABLE", message: expect.stringContaining("no answer within") }] });
  });
});
