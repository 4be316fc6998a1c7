// The scheduled ingest, through the real Worker: in its own file because it changes the shared
// data (new releases, models, advisories) every other freshness test reads as shipped.
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, newAgent, type TestAgent } from "../helpers";
import { json, mockFetch, text } from "../fixtures/mock";
import { now, setClock } from "../../src/core/clock";
import { loadReleases } from "../../src/freshness/freshness.seed";
import { changesSince } from "../../src/freshness/sync-api";
import { INGEST_CRON, runIngest } from "../../src/freshness/ingest";
import worker from "../../src/index";
import releases from "../../data/freshness/releases.json?raw";
import osvExpress2 from "../fixtures/osv/express.query.page2.json?raw";
import osvMal from "../fixtures/osv/MAL-2026-99999.json?raw";
import osvCsv from "../fixtures/osv/npm.modified_id.csv?raw";
import honoReleases from "../fixtures/github/hono.releases.json?raw";
import expressHistory from "../fixtures/changelog/express-history.md?raw";
import modelsDev from "../fixtures/modelsdev/api.json?raw";
import { loadFreshnessData } from "./freshness-fixtures";

beforeAll(() => loadFreshnessData());

let mock: ReturnType<typeof mockFetch> | null = null;
afterEach(() => {
  mock?.restore();
  mock = null;
});

const get = (a: TestAgent, path: string) => call("GET", path, { key: a.key });
const versions = (b: { changes: { version: string }[] }) => b.changes.map((c) => c.version);

describe("scheduled ingest", () => {
  const reactPackument = {
    name: "react",
    "dist-tags": { latest: "19.3.0" },
    versions: { "19.0.0": {}, "19.2.0": {}, "19.3.0": {}, "19.4.0-canary-abc": {} },
    time: {
      created: "2011-10-26T17:46:21.942Z",
      modified: "2026-11-20T00:00:00.000Z",
      "19.0.0": "2024-12-06T00:00:00.000Z",
      "19.2.0": "2025-10-01T16:00:00.000Z",
      "19.3.0": "2026-11-10T12:00:00.000Z",
      "19.4.0-canary-abc": "2026-11-21T00:00:00.000Z",
    },
  };

  it("ingests every source with recorded responses; a failing source never stops the others; dates keep their rank", async () => {
    // After the seeds' real load time, so "changed since" sees this ingest only.
    const T = Math.ceil((Date.now() + 86_400_000) / 60_000) * 60_000;
    setClock(() => T);
    const cursor = now() - 1;
    mock = mockFetch({
      // The registry answers; only react and express have documents here.
      "https://registry.npmjs.org/": json({ error: "Not found" }, 404),
      "https://api.github.com/": json({ message: "Not Found" }, 404),
      "https://raw.githubusercontent.com/": text("404: Not Found", 404),
      "https://registry.npmjs.org/react": json(reactPackument),
      "https://registry.npmjs.org/express": json({
        name: "express",
        "dist-tags": { latest: "5.2.1" },
        versions: { "5.2.1": {} },
        time: { created: "2010-12-29T19:38:25.450Z", modified: "2025-12-01T00:00:00.000Z", "5.2.1": "2025-12-01T20:00:00.000Z" },
      }),
      "https://api.github.com/repos/honojs/hono/releases": json(honoReleases),
      "https://raw.githubusercontent.com/expressjs/express/master/History.md": text(expressHistory),
      "https://api.osv.dev/v1/query": async (req) => {
        const body = (await req.json()) as { package: { name: string } };
        return json(body.package.name === "express" ? { vulns: JSON.parse(osvExpress2).vulns } : {})();
      },
      "https://osv-vulnerabilities.storage.googleapis.com/npm/modified_id.csv": text(osvCsv),
      "https://api.osv.dev/v1/vulns/MAL-2026-99999": json(osvMal),
      "https://models.dev/api.json": json(modelsDev),
      "https://pypi.org/": text("service unavailable", 503),
    });
    const report = await runIngest(env, now(), { maxTopics: 50 });
    const by = Object.fromEntries(report.sources.map((s) => [s.source, s]));
    expect(by.npm!.ok).toBeGreaterThanOrEqual(2);
    expect(by.pypi!.failed).toBe(3);
    expect(by.pypi!.errors[0]).toContain("503");
    expect(by.github!.items).toBeGreaterThan(0);
    expect(by["models.dev"]).toMatchObject({ ok: 1, items: 3 });
    expect(by["osv-malicious"]!.items).toBe(1);

    const a = await newAgent();
    const react = await get(a, "/v1/freshness?topic=react&version=19.0.0");
    // The curated blog date (2024-12-05) wins over the registry's time (2024-12-06); a registry-only release keeps the registry date.
    expect(
      (await get(a, "/v1/freshness?topic=react&version=18.3.1")).body.changes.find((c: { version: string }) => c.version === "19.0.0"),
    ).toMatchObject({ date: "2024-12-05", dateBasis: expect.stringContaining("blog") });
    expect(react.body).toMatchObject({ latestVersion: "19.3.0" });
    expect(react.body.changes[0]).toMatchObject({
      version: "19.3.0",
      date: "2026-11-10",
      dateBasis: "npm registry publish time",
      breakingBasis: "version",
      breaking: 0,
    });
    expect(versions(react.body)).not.toContain("19.4.0-canary-abc");
    // The changelog (rank 2) dates and counts Express 5.0.0's breaking items.
    const ex = await get(a, "/v1/freshness?topic=express&version=4.21.0");
    expect(ex.body.changes.find((c: { version: string }) => c.version === "4.21.1")).toMatchObject({
      date: "2024-10-08",
      dateBasis: "changelog heading",
    });
    // GitHub release notes: items parsed, third-party text kept as data; the curated 4.0.0 record
    // (equal rank) keeps its facts, so the sources never take turns.
    const hono = await get(a, "/v1/freshness?topic=hono&version=3.0.0");
    const h4 = hono.body.changes.find((c: { version: string }) => c.version === "4.0.0");
    expect(h4).toMatchObject({ breaking: 3, changes: [{ text: "c.jsonT() removed (use c.json())" }, {}, {}] });
    const h46 = hono.body.changes.find((c: { version: string }) => c.version === "4.6.0");
    expect(h46).toMatchObject({
      date: "2024-09-11",
      dateBasis: "GitHub release published_at",
      breaking: 0,
      breakingBasis: "notes",
      changes: [{ kind: "changed", text: "feat(jsx): add `useActionState`" }, {}],
    });
    expect(h46.summaryMd).toContain("IGNORE ALL PREVIOUS INSTRUCTIONS");
    expect(versions(hono.body)).not.toContain("5.0.0-rc.1");
    // models.dev merged under curated facts, and new models added.
    const haiku = (await get(a, "/v1/models?q=haiku")).body.items.find(
      (m: { id: string }) => m.id === "anthropic/claude-haiku-4-5-20251001",
    );
    expect(haiku).toMatchObject({ origin: "curated", releaseDate: { value: "2025-10-15" }, benchmarks: [{ score: 73.3 }] });
    expect(
      (await get(a, "/v1/models?q=fixture")).body.items.map((m: { id: string; lifecycle: { status: string } }) => [
        m.id,
        m.lifecycle.status,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ["anthropic/claude-fixture-new", "unknown"],
        ["openai/gpt-fixture-old", "deprecated"],
      ]),
    );
    // Per-topic status and errors.
    const topics = (await get(a, "/v1/freshness/topics?ecosystem=pypi")).body.items;
    expect(topics.every((t: { lastIngestError: string | null }) => !!t.lastIngestError)).toBe(true);
    const pypiStatus = await env.DB.prepare(
      "SELECT topic, last_error, last_ok_at FROM ingest_status WHERE source = 'pypi' ORDER BY topic",
    ).all();
    expect(pypiStatus.results).toEqual(
      ["django", "fastapi", "pydantic"].map((topic) => ({ topic, last_error: expect.stringContaining("503"), last_ok_at: null })),
    );
    expect((await get(a, "/v1/freshness/topics?q=react")).body.items[0].lastIngestAt).toBe(new Date(T).toISOString());
    // The malicious feed reached the check's data.
    const mal = await env.DB.prepare(
      "SELECT versions, mal_id FROM malicious_packages WHERE ecosystem = 'npm' AND name_key = 'lore-fixture-evil'",
    ).first();
    expect(mal).toEqual({ versions: "*", mal_id: "MAL-2026-99999" });

    // "What changed since T": this ingest's rows only, and nothing on an identical rerun.
    const changed = await changesSince(env.DB, cursor);
    expect(changed.releases.map((r) => `${r.topic}@${r.version}`)).toEqual(expect.arrayContaining(["react@19.3.0", "hono@4.6.0"]));
    expect(changed.releases.map((r) => `${r.topic}@${r.version}`)).not.toContain("react@18.0.0");
    expect(changed.releases.find((r) => r.version === "19.3.0")).toMatchObject({ breaking: 0, breakingBasis: "version" });
    expect(changed.advisories.map((x) => x.advisory.id)).toEqual(expect.arrayContaining(["MAL-2026-99999"]));
    setClock(() => T + 6 * 3600_000);
    await runIngest(env, now(), { maxTopics: 50, sources: ["npm", "github", "changelog", "osv"] });
    const again = await changesSince(env.DB, changed.cursor);
    expect(again.releases).toEqual([]);
    expect(again.advisories).toEqual([]);
    expect(again.cursor).toBe(changed.cursor);
    // Reloading the unchanged seed changes nothing either.
    await loadReleases(env, releases);
    expect((await changesSince(env.DB, changed.cursor)).releases).toEqual([]);
  });

  it("the Worker's scheduled handler runs the ingest on its cron and the maintenance otherwise", async () => {
    mock = mockFetch({});
    const waits: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => waits.push(p), passThroughOnException() {} } as unknown as ExecutionContext;
    await worker.scheduled!({ cron: INGEST_CRON, scheduledTime: Date.now(), noRetry() {} } as ScheduledController, env, ctx);
    const report = (await waits[0]) as { sources: { source: string; failed: number }[] };
    expect(report.sources.map((s) => s.source)).toContain("osv-malicious");
    expect(report.sources.every((s) => s.failed >= 0)).toBe(true);
    await worker.scheduled!({ cron: "17 3 * * *", scheduledTime: Date.now(), noRetry() {} } as ScheduledController, env, ctx);
    expect(await waits[1]).toMatchObject({ sessions: expect.any(Number) });
  });
});
