// Freshness, deprecations, topics, tracking requests, models and the functions sync calls, through
// the real Worker with the shipped data loaded by its seed loaders (the ingest: ingest.test.ts).
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, mcpClient, newAgent, toolJson, type TestAgent } from "../helpers";
import { mockFetch } from "../fixtures/mock";
import { setClock } from "../../src/core/clock";
import { advisoriesForStack, advisoriesSince, normaliseStack, releasesForStack } from "../../src/freshness/sync-api";
import models from "../../data/freshness/models.json?raw";
import { loadFreshnessData } from "./freshness-fixtures";

beforeAll(() => loadFreshnessData());

let mock: ReturnType<typeof mockFetch> | null = null;
afterEach(() => {
  mock?.restore();
  mock = null;
});

const get = (a: TestAgent, path: string) => call("GET", path, { key: a.key });
const usage = async (a: TestAgent) => (await call("GET", "/v1/usage/today", { key: a.key })).body.metrics.FRESHNESS_CALLS.used;
const versions = (b: { changes: { version: string }[] }) => b.changes.map((c) => c.version);

describe("GET /v1/freshness", () => {
  it("answers for the caller's version: releases in (version, latest], breaking counts, removed APIs (npm)", async () => {
    const a = await newAgent();
    const r = await get(a, "/v1/freshness?topic=react&version=18.2.0");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      topic: "react",
      ecosystem: "npm",
      tracked: true,
      latestVersion: "19.2.0",
      latestDate: "2025-10-01",
      yourVersion: "18.2.0",
    });
    expect(versions(r.body)).toEqual(["19.2.0", "19.0.0"]);
    expect(r.body.upgrade).toMatchObject({ from: "18.2.0", to: "19.2.0", releases: 2, breaking: 2, upToDate: false });
    expect(r.body.upgrade.removedDeprecations.map((d: { id: string }) => d.id).sort()).toEqual(["react-dom-hydrate", "react-dom-render"]);
    const major = r.body.changes[1];
    expect(major).toMatchObject({
      topic: "react",
      version: "19.0.0",
      date: "2024-12-05",
      asOfDate: "2026-11-22",
      breaking: 2,
      breakingBasis: "notes",
      source: "https://react.dev/blog/2024/12/05/react-19",
      changes: [
        { kind: "breaking", breaking: true, text: expect.stringContaining("ReactDOM.render removed") },
        { kind: "breaking", breaking: true, text: expect.any(String) },
      ],
    });
    // The latest Lore knows, but the shipped data is days old: nothing to read, and not claimed up to date.
    const cur = await get(a, "/v1/freshness?topic=react&version=19.2.0");
    expect(cur.body.upgrade).toMatchObject({
      releases: 0,
      breaking: 0,
      upToDate: null,
      versionKnown: true,
      note: expect.stringContaining("older than a day: a newer release may exist"),
    });
    expect(cur.body).toMatchObject({ dataAsOf: "2026-11-22T00:00:00.000Z", stale: true });
    expect(cur.body.changes).toEqual([]);
    // A version above every known release is not "up to date": Lore does not know it, and says so.
    const ahead = await get(a, "/v1/freshness?topic=react&version=20.0.0");
    expect(ahead.body.upgrade).toMatchObject({
      from: "20.0.0",
      to: "19.2.0",
      toDate: "2025-10-01",
      releases: 0,
      upToDate: null,
      versionKnown: false,
    });
    expect(ahead.body.upgrade.note).toContain(
      "20.0.0 is not a react release Lore knows: it is newer than the latest known release, 19.2.0 (2025-10-01). It may be a release Lore has not ingested yet, or a version that does not exist.",
    );
    // An unlisted version below the latest is still answered (Lore's release list may be partial).
    expect((await get(a, "/v1/freshness?topic=react&version=18.3.0")).body.upgrade).toMatchObject({
      releases: 2,
      upToDate: false,
      versionKnown: false,
      note: expect.stringContaining("older than a day"),
    });
    expect(await usage(a)).toBe(4);
    // On the day of the shipped data, 19.2.0 is up to date.
    setClock(() => Date.parse("2026-11-22T12:00:00Z"));
    const fresh = await get(await newAgent(), "/v1/freshness?topic=react&version=19.2.0");
    expect(fresh.body).toMatchObject({ stale: false, upgrade: { releases: 0, upToDate: true, versionKnown: true, note: null } });
  });

  it("answers from what is stored now: a release or a removal written after a read is in the next read (the views held per generation)", async () => {
    const a = await newAgent();
    const path = "/v1/freshness?topic=react&version=18.2.0";
    const before = await get(a, path);
    expect((await get(a, path)).body).toEqual(before.body);
    expect(before.body.latestVersion).toBe("19.2.0");
    const cols =
      "topic, ecosystem, package, date_basis, date_rank, as_of_date, title, summary_md, breaking, changes, prerelease, url, source, verification";
    await env.DB.prepare(
      `INSERT INTO fresh_releases (version, date, ingested_at, ${cols}) SELECT '19.3.0', '2026-11-20', ?1, ${cols} FROM fresh_releases WHERE topic = 'react' AND version = '19.2.0'`,
    )
      .bind(Date.now())
      .run();
    await env.DB.prepare(
      "INSERT INTO fresh_deprecations (id, topic, ecosystem, package, api, status, since, removed_in, as_of_date, source, ingested_at) VALUES ('react-test-removal', 'react', 'npm', 'react', 'React.testOnlyApi', 'removed', '19.0.0', '19.3.0', '2026-11-20', 'https://react.dev', ?1)",
    )
      .bind(Date.now())
      .run();
    try {
      const after = await get(a, path);
      expect(after.body.latestVersion).toBe("19.3.0");
      expect(versions(after.body)).toEqual(["19.3.0", "19.2.0", "19.0.0"]);
      expect(after.body.upgrade).toMatchObject({ to: "19.3.0", releases: 3 });
      expect(after.body.upgrade.removedDeprecations.map((d: { id: string }) => d.id)).toContain("react-test-removal");
      // A version asked for the first time at the new generation, and one the old generation held.
      expect((await get(a, "/v1/freshness?topic=react&version=19.2.0")).body.upgrade).toMatchObject({ to: "19.3.0", releases: 1 });
    } finally {
      // Lore never deletes these rows, so no trigger logs a deletion: the test logs its own, as a
      // change, so the next read (another test's) is at a new generation.
      await env.DB.batch([
        env.DB.prepare("DELETE FROM fresh_releases WHERE topic = 'react' AND version = '19.3.0'"),
        env.DB.prepare("DELETE FROM fresh_deprecations WHERE id = 'react-test-removal'"),
        env.DB.prepare("INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('release', 'react', '19.3.0', ?1)").bind(Date.now()),
      ]);
    }
  });

  it("resolves aliases (react-dom, @types/react, Next.js) and uses each ecosystem's order", async () => {
    const a = await newAgent();
    for (const t of ["react-dom", "@types/react", "ReactJS"])
      expect((await get(a, `/v1/freshness?topic=${encodeURIComponent(t)}`)).body.topic).toBe("react");
    expect((await get(a, "/v1/freshness?topic=Next.js")).body.topic).toBe("next");
    // PyPI, PEP 440: Django is not semver; 5.2 and 6.0 were not assessed, so the bump decides.
    const dj = await get(a, "/v1/freshness?topic=Django&ecosystem=pypi&version=4.2");
    expect(versions(dj.body)).toEqual(["6.0", "5.2", "5.0"]);
    expect(dj.body.changes.map((c: { breaking: number; breakingBasis: string }) => [c.breaking, c.breakingBasis])).toEqual([
      [1, "version"],
      [0, "version"],
      [3, "notes"],
    ]);
    expect(dj.body.upgrade).toMatchObject({ breaking: 4, removedDeprecations: [{ id: "django-timezone-utc", removedIn: "5.0" }] });
    // PEP 440: 1.10 < 2.0 (as numbers, not strings).
    const pyd = await get(a, "/v1/freshness?topic=pydantic&ecosystem=pypi&version=1.10");
    expect(versions(pyd.body)).toEqual(["2.12.0", "2.0"]);
    expect(pyd.body.upgrade.breaking).toBe(3);
    // 0.x: FastAPI's 0.137.0 breaks in a minor bump, from its notes.
    const fa = await get(a, "/v1/freshness?topic=fastapi&ecosystem=pypi&version=0.100.0");
    expect(fa.body.upgrade).toMatchObject({ releases: 1, breaking: 1 });
    // Go: v-prefixed semver.
    const gin = await get(a, "/v1/freshness?topic=github.com/gin-gonic/gin&ecosystem=go&version=v1.9.0");
    expect(gin.body).toMatchObject({ topic: "gin", latestVersion: "v1.11.0" });
    expect(versions(gin.body)).toEqual(["v1.11.0", "v1.10.0"]);
    expect((await get(a, "/v1/freshness?topic=github.com/gin-gonic/gin/v2&ecosystem=go&version=1.9.0")).body.topic).toBe("gin");
    // Cargo, 0.x rule: tokio 0.2 → 0.3 breaks, delay_for was removed (renamed) in 0.3.0.
    const tok = await get(a, "/v1/freshness?topic=tokio&ecosystem=cargo&version=0.2.22");
    expect(versions(tok.body)).toEqual(["1.48.0", "1.0.0", "0.3.0"]);
    expect(tok.body.upgrade).toMatchObject({ breaking: 2, removedDeprecations: [{ id: "tokio-delay-for" }] });
    // A breaking change in a minor release, from the notes (Express 5.2.0).
    const ex = await get(a, "/v1/freshness?topic=express&version=5.1.0");
    expect(ex.body.changes.map((c: { version: string; breaking: number }) => [c.version, c.breaking])).toEqual([
      ["5.2.1", 0],
      ["5.2.0", 1],
    ]);
    // A range pins its lowest version.
    expect((await get(a, "/v1/freshness?topic=next&version=%5E15.0.0")).body.yourVersion).toBe("15.0.0");
  });

  it("filters by since, lists recent changes without a topic, keeps unknown names as their own topic", async () => {
    const a = await newAgent();
    const n = await get(a, "/v1/freshness?topic=next&since=2025-01-01");
    expect(versions(n.body)).toEqual(["16.0.0"]);
    const recent = await get(a, "/v1/freshness?since=2025-10-01&perPage=50");
    expect(recent.body.topic).toBeNull();
    expect(recent.body.changes.every((c: { date: string }) => c.date >= "2025-10-01")).toBe(true);
    expect(recent.body.changes.map((c: { topic: string }) => c.topic)).toEqual(
      expect.arrayContaining(["react", "next", "tokio", "express"]),
    );
    // Inferred breaking counts look at the release before in the same topic (Django 5.2 → 6.0), not the previous row.
    expect(recent.body.changes.find((c: { topic: string; version: string }) => c.topic === "django" && c.version === "6.0")).toMatchObject({
      breaking: 1,
      breakingBasis: "version",
    });
    const page2 = await get(a, "/v1/freshness?since=2025-10-01&perPage=2&page=2");
    expect(page2.body.changes.map((c: { version: string }) => c.version)).toEqual(
      recent.body.changes.slice(2, 4).map((c: { version: string }) => c.version),
    );
    const unknown = await get(a, "/v1/freshness?topic=Left_Pad&ecosystem=pypi");
    expect(unknown.body).toMatchObject({
      topic: "left-pad",
      ecosystem: "pypi",
      tracked: false,
      changes: [],
      total: 0,
      latestVersion: null,
    });
  });

  it("rejects bad input with 400 and consumes nothing", async () => {
    const a = await newAgent();
    expectError(await get(a, "/v1/freshness?topic=react&version=not-a-version"), 400, "VALIDATION_FAILED");
    expectError(await get(a, "/v1/freshness?topic=django&ecosystem=pypi&version=1.2.3.4.5.x"), 400, "VALIDATION_FAILED");
    expectError(await get(a, "/v1/freshness?topic=react&since=yesterday"), 400, "VALIDATION_FAILED");
    expectError(await get(a, "/v1/freshness?topic=react&ecosystem=maven"), 400, "VALIDATION_FAILED");
    expectError(await get(a, "/v1/freshness?version=1.0.0"), 400, "VALIDATION_FAILED");
    expectError(await call("GET", "/v1/freshness?topic=react"), 401, "UNAUTHENTICATED");
    expect(await usage(a)).toBe(0);
  });
});

describe("GET /v1/freshness/deprecations", () => {
  it("full-text search over API names and replacements, by topic and status", async () => {
    const a = await newAgent();
    const r = await get(a, "/v1/freshness/deprecations?q=ReactDOM.render");
    expect(r.status).toBe(200);
    expect(r.body.items[0]).toMatchObject({
      id: "react-dom-render",
      topic: "react",
      api: "ReactDOM.render (import {render} from 'react-dom')",
      status: "removed",
      since: "18.0.0",
      removedIn: "19.0.0",
      replacement: expect.stringContaining("createRoot"),
      asOfDate: "2026-11-22",
      source: expect.stringContaining("react.dev"),
    });
    const byReplacement = await get(a, "/v1/freshness/deprecations?q=model_dump");
    expect(byReplacement.body.items.map((d: { id: string }) => d.id)).toContain("pydantic-dict");
    const topic = await get(a, "/v1/freshness/deprecations?topic=zod");
    expect(topic.body.total).toBe(4);
    const removed = await get(a, "/v1/freshness/deprecations?status=removed&perPage=100");
    expect(removed.body.items.every((d: { status: string }) => d.status === "removed")).toBe(true);
    for (const q of ['"', "AND(", "*", "NEAR(a b", "'; DROP TABLE fresh_deprecations; --"]) {
      const x = await get(a, `/v1/freshness/deprecations?q=${encodeURIComponent(q)}`);
      expect(x.status, q).toBe(200);
    }
    expect(await usage(a)).toBe(4 + 5);
  });
});

describe("topics and tracking requests", () => {
  it("lists tracked topics with ecosystems, aliases, sources and latest versions", async () => {
    const a = await newAgent();
    const r = await get(a, "/v1/freshness/topics?perPage=100");
    expect(r.status).toBe(200);
    const react = r.body.items.find((t: { topic: string }) => t.topic === "react");
    expect(react).toMatchObject({
      ecosystem: "npm",
      status: "tracked",
      packages: ["react", "react-dom"],
      aliases: expect.arrayContaining(["@types/react", "react-dom", "reactjs"]),
      sources: [
        { kind: "repo", url: "https://github.com/facebook/react" },
        { kind: "changelog", url: expect.any(String) },
      ],
      latestVersion: "19.2.0",
      releaseCount: 3,
      deprecationCount: 3,
    });
    expect((await get(a, "/v1/freshness/topics?ecosystem=pypi")).body.items.map((t: { topic: string }) => t.topic)).toEqual([
      "django",
      "fastapi",
      "pydantic",
    ]);
    expect((await get(a, "/v1/freshness/topics?q=nextjs")).body.items.map((t: { topic: string }) => t.topic)).toEqual(["next"]);
  });

  it("records a tracking request, merges duplicates, and refuses SSRF attempts without consuming quota", async () => {
    const a = await newAgent();
    const b = await newAgent();
    const body = { topic: "Drizzle-ORM", sources: [{ repoUrl: "https://github.com/drizzle-team/drizzle-orm" }] };
    const first = await call("POST", "/v1/freshness/topics", { key: a.key, body });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body).toMatchObject({
      merged: false,
      accepted: ["https://github.com/drizzle-team/drizzle-orm"],
      topic: {
        topic: "drizzle-orm",
        status: "requested",
        sources: [{ kind: "requested", url: "https://github.com/drizzle-team/drizzle-orm", requests: 1 }],
      },
    });
    const again = await call("POST", "/v1/freshness/topics", {
      key: b.key,
      body: { topic: "drizzle-orm", sources: [{ repoUrl: "https://GITHUB.com/drizzle-team/drizzle-orm.git" }] },
    });
    expect(again.body).toMatchObject({
      merged: true,
      topic: { sources: [{ url: "https://github.com/drizzle-team/drizzle-orm", requests: 2 }] },
    });
    expect((await get(a, "/v1/freshness/topics?status=requested")).body.items.map((t: { topic: string }) => t.topic)).toContain(
      "drizzle-orm",
    );
    const ssrf = [
      "http://github.com/a/b",
      "https://2130706433/a/b",
      "https://0x7f000001/a/b",
      "https://[::1]/a/b",
      "https://[0:0:0:0:0:ffff:a9fe:a9fe]/a/b",
      "https://localhost/a/b",
      "https://169.254.169.254/latest/meta-data",
      "https://user:token@github.com/a/b",
      "https://github.com:8080/a/b",
      "https://github.com.attacker.example/a/b",
    ];
    for (const repoUrl of ssrf) {
      const r = await call("POST", "/v1/freshness/topics", { key: a.key, body: { topic: "evil", sources: [{ repoUrl }] } });
      expect(expectError(r, 400, "VALIDATION_FAILED").error.details.issues[0].path, repoUrl).toBe("body.sources.0.repoUrl");
    }
    // A good and a bad URL together: nothing is written.
    const mixed = await call("POST", "/v1/freshness/topics", {
      key: a.key,
      body: { topic: "half", sources: [{ repoUrl: "https://github.com/a/b" }, { repoUrl: "https://10.0.0.1/a/b" }] },
    });
    expectError(mixed, 400, "VALIDATION_FAILED");
    expect((await get(a, "/v1/freshness/topics?q=half")).body.total).toBe(0);
    expectError(await call("POST", "/v1/freshness/topics", { key: a.key, body: { topic: "x", sources: [] } }), 400, "VALIDATION_FAILED");
    expect(await usage(a)).toBe(1 + 1 + 1);
  });
});

describe("GET /v1/models", () => {
  it("searches models with dated, sourced prices, limits, lifecycle and benchmarks", async () => {
    const a = await newAgent();
    const r = await get(a, "/v1/models?q=haiku");
    expect(r.status).toBe(200);
    expect(r.body.items.find((m: { id: string }) => m.id === "anthropic/claude-haiku-4-5-20251001")).toMatchObject({
      id: "anthropic/claude-haiku-4-5-20251001",
      name: "Claude Haiku 4.5",
      aliases: ["claude-haiku-4-5"],
      releaseDate: { value: "2025-10-15", asOf: "2026-11-22", source: expect.stringContaining("models.dev") },
      pricing: { currency: "USD", unit: "per million tokens", input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, asOf: "2026-11-22" },
      limits: { context: 200000, output: 64000, asOf: "2026-11-22" },
      lifecycle: { status: "active", retirementDate: null },
      benchmarks: [
        {
          name: "SWE-bench Verified",
          score: 73.3,
          metric: "% resolved",
          reportedBy: "vendor (Anthropic)",
          asOf: "2026-11-22",
          source: expect.stringContaining("anthropic.com"),
        },
      ],
      origin: "curated",
    });
    const gpt5 = (await get(a, "/v1/models?q=gpt-5&perPage=50")).body.items.find((m: { id: string }) => m.id === "openai/gpt-5");
    expect(gpt5).toMatchObject({
      id: "openai/gpt-5",
      lifecycle: {
        status: "deprecated",
        retirementDate: "2026-12-11",
        deprecationAnnounced: "2026-06-11",
        replacement: null,
        replacementNotes: expect.stringContaining("developers.openai.com"),
      },
    });
    expect((await get(a, "/v1/models?q=claude-sonnet-4-5")).body.items[0].id).toBe("anthropic/claude-sonnet-4-5-20250929");
    const retired = await get(a, "/v1/models?status=retired&perPage=100");
    expect(retired.body.items.length).toBeGreaterThan(3);
    expect(retired.body.items.every((m: { lifecycle: { status: string } }) => m.lifecycle.status === "retired")).toBe(true);
    expect((await get(a, "/v1/models?provider=google")).body.total).toBe(20);
    const tiered = (await get(a, "/v1/models?q=gemini 2.5 pro")).body.items[0];
    expect(tiered.pricing.tiers).toEqual([{ appliesWhen: "prompt > 200000 tokens", input: 2.5, output: 15, cacheRead: 0.25 }]);
    expect((await get(a, "/v1/models?q=nosuchmodelxyz")).body).toMatchObject({ items: [], total: 0 });
    expect(await usage(a)).toBe(7);
  });
});

describe("served data holds facts, not notes for Lore's own tests", () => {
  // Words that belong in a test, not in an answer (data/ once served "Useful test case: …" as express 5.2.0's notes).
  const NOTE = /\b(test cases?|fixtures?|negative controls?|for (?:local development and )?tests|expected targets?)\b/i;

  it("express 5.2.0's release data says what happened and nothing else", async () => {
    const a = await newAgent();
    const r = await get(a, "/v1/freshness?topic=express&version=5.0.0");
    const rel = r.body.changes.find((c: { version: string }) => c.version === "5.2.0");
    expect(rel.summaryMd).toMatch(/erroneous breaking change/);
    expect(rel.summaryMd).not.toMatch(NOTE);
  });

  it("no stored release, deprecation, model or advisory text reads like a test note", async () => {
    const texts = await env.DB.batch([
      env.DB.prepare(
        "SELECT topic || ' ' || version AS k, title || ' ' || summary_md || ' ' || changes || ' ' || coalesce(date_basis, '') AS t FROM fresh_releases",
      ),
      env.DB.prepare(
        "SELECT id AS k, api || ' ' || coalesce(replacement, '') || ' ' || coalesce(notes, '') || ' ' || coalesce(example_before, '') || ' ' || coalesce(example_after, '') AS t FROM fresh_deprecations",
      ),
      env.DB.prepare(
        "SELECT id AS k, name || ' ' || coalesce(release_date_notes, '') || ' ' || coalesce(pricing, '') || ' ' || lifecycle || ' ' || benchmarks || ' ' || facts_as_of AS t FROM models",
      ),
      env.DB.prepare(
        "SELECT id AS k, coalesce(summary, '') || ' ' || coalesce(details, '') AS t FROM advisories WHERE id NOT LIKE '%fixture%'",
      ),
    ]);
    const hits = texts.flatMap((r) =>
      (r.results as { k: string; t: string }[]).filter((x) => NOTE.test(x.t)).map((x) => `${x.k}: ${NOTE.exec(x.t)![0]}`),
    );
    expect(hits).toEqual([]);
  });
});

describe("the shipped models catalog", () => {
  // The list shipped before this catalog: 14 models, the newest Claude Opus 4.5 (2025-11-24).
  const PREVIOUS_NEWEST = "2025-11-24";

  it("is newer than the list it replaced, dated by the models.dev commit it was taken from", async () => {
    const a = await newAgent();
    const r = await get(a, "/v1/models?perPage=5");
    const newest = r.body.items[0];
    expect(newest.releaseDate.value > PREVIOUS_NEWEST).toBe(true);
    expect(newest).toMatchObject({
      origin: "models.dev",
      releaseDate: { asOf: "2026-07-02", source: expect.stringContaining("github.com/anomalyco/models.dev/blob/f3fc692") },
    });
    expect(JSON.parse(models).catalog).toMatchObject({ name: "models.dev", commit: expect.stringMatching(/^f3fc692/), date: "2026-07-02" });
    expect(r.body.total).toBeGreaterThan(80);
  });

  it("gives every deprecated or retired model its replacement: the one the provider named, or null with the reason", async () => {
    const a = await newAgent();
    const ended = [
      ...(await get(a, "/v1/models?status=deprecated&perPage=100")).body.items,
      ...(await get(a, "/v1/models?status=retired&perPage=100")).body.items,
    ];
    expect(ended.length).toBeGreaterThan(10);
    for (const m of ended) {
      expect(m.lifecycle, m.id).toHaveProperty("replacement");
      if (m.lifecycle.replacement === null) expect(m.lifecycle.replacementNotes, m.id).toMatch(/^No replacement recorded: .*https:\/\//);
      else expect(m.lifecycle.replacementNotes, m.id).toMatch(/names .*Source: https:\/\//);
    }
    const sonnet4 = ended.find((m) => m.id === "anthropic/claude-sonnet-4-20250514");
    expect(sonnet4.lifecycle).toMatchObject({ status: "retired", replacement: "anthropic/claude-sonnet-4-6" });
    // The named replacement is itself in the catalog, active.
    const target = (await get(a, "/v1/models?q=claude-sonnet-4-6")).body.items.find(
      (m: { id: string }) => m.id === "anthropic/claude-sonnet-4-6",
    );
    expect(target.lifecycle.status).toBe("active");
    for (const m of (await get(a, "/v1/models?status=active&perPage=100")).body.items)
      expect(m.lifecycle.replacementNotes, m.id).toBeNull();
  });
});

describe("quota: one FRESHNESS_CALLS per call; a refused or failed call consumes nothing", () => {
  it("counts every endpoint once, refuses at the daily limit with 429, and a 429 consumes nothing", async () => {
    const a = await newAgent();
    mock = mockFetch({});
    const base = Date.parse("2026-11-23T01:00:00Z");
    let i = 0;
    // FREE: 20 requests a minute, 50 FRESHNESS_CALLS a day: move the clock so only the daily limit bites.
    const tick = () => setClock(() => base + i++ * 4_000);
    const endpoints: [string, string, unknown?][] = [
      ["GET", "/v1/freshness?topic=react"],
      ["GET", "/v1/freshness/deprecations?q=render"],
      ["GET", "/v1/freshness/topics"],
      ["POST", "/v1/freshness/topics", { topic: "hono", sources: [{ repoUrl: "https://github.com/honojs/hono" }] }],
      ["GET", "/v1/models?q=gpt"],
      ["POST", "/v1/packages/check", { packages: [{ name: "rustdecimal", ecosystem: "cargo" }] }],
    ];
    for (const [n, [method, path, body]] of endpoints.entries()) {
      tick();
      const r = await call(method, path, { key: a.key, body });
      expect(r.status, path).toBeLessThan(300);
      expect(await usage(a), path).toBe(n + 1);
    }
    while ((await usage(a)) < 50) {
      tick();
      expect((await get(a, "/v1/freshness/topics?perPage=1")).status).toBe(200);
    }
    tick();
    const refused = expectError(await get(a, "/v1/models"), 429, "RATE_LIMITED");
    expect(refused.error.details).toMatchObject({ metric: "FRESHNESS_CALLS", limit: 50, plan: "FREE" });
    tick();
    expectError(await call("POST", "/v1/packages/check", { key: a.key, body: { packages: [{ name: "react" }] } }), 429, "RATE_LIMITED");
    expect(await usage(a)).toBe(50);
    // Other kinds of action keep working.
    tick();
    expect((await call("GET", "/v1/kb", { key: a.key })).status).toBe(200);
  });
});

describe("MCP tools", () => {
  it("service_freshness, service_deprecations, service_models: same answers; release notes in the untrusted envelope", async () => {
    const a = await newAgent();
    const client = await mcpClient(a.key);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(
      expect.arrayContaining(["service_freshness", "service_deprecations", "service_models", "service_check_packages"]),
    );
    const f = await client.callTool({ name: "service_freshness", arguments: { topic: "react", version: "18.2.0" } });
    expect(toolJson(f)).toMatchObject({ topic: "react", upgrade: { breaking: 2 } });
    expect((f.content as { text: string }[])[0]!.text).toContain("<untrusted-data>");
    expect((f._meta as Record<string, unknown>)["lore/untrusted"]).toBe(true);
    const d = toolJson(await client.callTool({ name: "service_deprecations", arguments: { q: "BaseModel.dict" } }));
    expect(d.items[0].id).toBe("pydantic-dict");
    const m = toolJson(await client.callTool({ name: "service_models", arguments: { q: "o3" } }));
    expect(m.items[0].id).toBe("openai/o3");
    const bad = toolJson(await client.callTool({ name: "service_freshness", arguments: { topic: "react", version: "nope" } }));
    expect(bad.error.code).toBe("VALIDATION_FAILED");
    await client.close();
    expect(await usage(a)).toBe(3);
  });
});

describe("functions for sync", () => {
  it("normalises a 500-entry stack to topics and answers releases and advisories in one batch each", async () => {
    const stack = [
      { name: "react", version: "18.2.0" },
      { name: "react-dom", version: "^18.3.1" },
      { name: "@types/react", version: "18.2.0" },
      { name: "Django", version: "4.2", ecosystem: "pypi" },
      { name: "github.com/gin-gonic/gin", version: "v1.9.0", ecosystem: "go" },
      { name: "tokio", version: "0.2.5", ecosystem: "cargo" },
      { name: "express", version: "4.19.1" },
      { name: "jinja2", version: "2.10.0", ecosystem: "pypi" },
      { name: "debug", version: "4.4.2" },
      { name: "left-pad", version: "1.3.0" },
      { name: "x", version: "1.0.0", ecosystem: "maven" },
      ...Array.from({ length: 489 }, (_, i) => ({ name: `lore-filler-${i}`, version: "1.0.0" })),
    ];
    const t0 = performance.now();
    const norm = await normaliseStack(env.DB, stack);
    expect(norm.length).toBe(499);
    expect(norm.slice(0, 4).map((e) => [e.topic, e.known, e.pinned])).toEqual([
      ["react", true, "18.2.0"],
      ["react", true, "18.3.1"],
      ["react", true, "18.2.0"],
      ["django", true, "4.2"],
    ]);
    expect(norm[9]).toMatchObject({ topic: "left-pad", known: false });
    const views = await releasesForStack(env.DB, norm);
    const react = views.find((v) => v.topic === "react")!;
    // 18.2.0 is not among the curated react releases (18.0.0, 19.0.0, 19.2.0): answered, and said to be unlisted.
    expect(react).toMatchObject({
      yourVersion: "18.2.0",
      latestVersion: "19.2.0",
      breaking: 2,
      upToDate: false,
      versionKnown: false,
      note: null,
    });
    expect(views.find((v) => v.topic === "gin")).toMatchObject({ releases: [{ version: "v1.10.0" }, { version: "v1.11.0" }], breaking: 0 });
    const vulns = await advisoriesForStack(env.DB, stack);
    const ids = vulns.map((v) => `${v.name}@${v.version}:${v.advisory.id}`).sort();
    expect(ids).toEqual([
      "debug@4.4.2:MAL-UNNUMBERED:npm:debug",
      "express@4.19.1:GHSA-qw6h-vgh9-j6wx",
      "express@4.19.1:GHSA-rv95-896h-c2vc",
      "github.com/gin-gonic/gin@v1.9.0:GO-fixture-1",
      "jinja2@2.10.0:PYSEC-fixture-1",
      "tokio@0.2.5:RUSTSEC-fixture-1",
    ]);
    expect(vulns.find((v) => v.advisory.id === "GHSA-rv95-896h-c2vc")).toMatchObject({
      fixedVersions: ["4.19.2", "5.0.0-beta.3"],
      advisory: { severity: "MODERATE", aliases: ["CVE-2024-29041"], cvssVector: expect.stringMatching(/^CVSS:3.1/) },
    });
    // The withdrawn record was never stored; last_affected is inclusive; limit bounds.
    const more = await advisoriesForStack(env.DB, [
      { name: "express", version: "3.21.2" },
      { name: "express", version: "4.20.0" },
      { name: "tokio", version: "0.3.0", ecosystem: "cargo" },
      { name: "tokio", version: "1.18.5", ecosystem: "cargo" },
    ]);
    expect(more.map((v) => `${v.version}:${v.advisory.id}`)).toEqual([
      "3.21.2:GHSA-fixture-last-affected",
      "3.21.2:GHSA-qw6h-vgh9-j6wx",
      "3.21.2:GHSA-rv95-896h-c2vc",
    ]);
    console.log(`[freshness.test] 500-entry stack: normalise + releases + advisories in ${(performance.now() - t0).toFixed(0)} ms`);
    const since = await advisoriesSince(env.DB, "2025-01-01");
    expect(since.map((x) => x.advisory.id)).toEqual(
      expect.arrayContaining(["GHSA-fixture-last-affected", "PYSEC-fixture-1", "GO-fixture-1", "RUSTSEC-fixture-1"]),
    );
    expect(since.map((x) => x.advisory.id)).not.toContain("GHSA-rv95-896h-c2vc");
    const forGin = await advisoriesSince(env.DB, "2020-01-01", { packages: [{ name: "github.com/gin-gonic/gin", ecosystem: "go" }] });
    expect(forGin.map((x) => x.advisory.id)).toEqual(["GO-fixture-1"]);
  });
});
