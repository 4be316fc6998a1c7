// What sync holds per ingest generation (src/sync/views.ts) for a large mixed stack: the release
// views and the packages' advisory rows with their matches. An answer served from what is held is
// byte for byte the answer of a cold isolate (full, forced, a delta with `since`, up_to_date), the
// advisory list is the reference reader's, and an ingest (a new advisory, a withdrawal, a release)
// is in the next answer.
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, newAgent, setPlanDirect, type TestAgent } from "../helpers";
import { DAY_MS, setClock } from "../../src/core/clock";
import { runReads } from "../../src/core/batch";
import { advisoriesForStackRead, osvStatements } from "../../src/freshness/advisories";
import { clearPreparedStacks, normaliseStack, preparedStacks } from "../../src/freshness/sync-api";
import { resolveTopics, packageKey } from "../../src/ecosystems/topics";
import { parseEcosystem, pinnedVersion } from "../../src/ecosystems/versions";
import type { OsvRecord } from "../../src/sources/osv";
import { syncOut } from "../../src/sync/sync.schemas";
import { cachedAdvisoriesRead, clearViewCache, viewCacheSize } from "../../src/sync/views";
import { loadFreshnessData } from "../freshness/freshness-fixtures";
import { loadAdvisorySnapshots } from "../data-helpers";
import { mockFetch } from "../fixtures/mock";
import popular from "../../data/packages/popular-npm.txt?raw";

// Within a day of the shipped release data, so no sync tries to refresh it (a failed refresh is remembered and said).
const T0 = Date.parse("2026-11-22T12:00:00Z");

/** The curated topics, spellings of one pin, unknown names, unreadable versions, then popular npm names: 500 entries. */
const HEAD = [
  { name: "react", version: "18.2.0" },
  { name: "react-dom", version: "^18.2.0" },
  { name: "next", version: "14.2.0" },
  { name: "zod", version: "3.22.0" },
  { name: "express", version: "4.19.1" },
  { name: "express", version: "^4.19.1" },
  { name: "hono", version: "4.0.0" },
  { name: "debug", version: "4.4.2" },
  { name: "django", version: "4.2", ecosystem: "pypi" },
  { name: "pydantic", version: "1.10.0", ecosystem: "pypi" },
  { name: "fastapi", version: "0.100.0", ecosystem: "pypi" },
  { name: "github.com/gin-gonic/gin", version: "v1.9.0", ecosystem: "go" },
  { name: "tokio", version: "1.30.0", ecosystem: "cargo" },
  { name: "serde", version: "1.0.150", ecosystem: "cargo" },
  { name: "lodash", version: "4.17.15" },
  { name: "left-pad-not-a-real-package-x1", version: "1.0.0" },
  { name: "another-unknown-name-x2", version: "2.3.4" },
  { name: "axios", version: "latest" },
  { name: "chalk", version: "workspace:*" },
];
const STACK = [
  ...HEAD,
  ...popular
    .split("\n")
    .filter((l) => l && !l.startsWith("#") && !HEAD.some((h) => h.name === l))
    .slice(0, 500 - HEAD.length)
    .map((name, i) => ({ name, version: `${1 + (i % 5)}.${i % 13}.${i % 7}` })),
];

beforeAll(async () => {
  mockFetch({});
  setClock(() => T0 - 30 * DAY_MS);
  await loadFreshnessData();
  await loadAdvisorySnapshots(env, ["advisories-npm"]);
  // A verified knowledge entry for one of the stack's topics (verifying takes standing: a paid plan).
  const author = await newAgent();
  const verifier = await newAgent();
  await setPlanDirect(verifier.owner.ownerId, "STARTER");
  const kb = await call("POST", "/v1/kb", {
    key: author.key,
    body: {
      title: "Express 5 drops app.del",
      summaryMd: "- use app.delete",
      bodyMd: "Rename the calls.",
      tags: ["express"],
      asOfDate: "2026-11-01",
    },
  });
  expect(kb.status, JSON.stringify(kb.body)).toBe(201);
  expect((await call("POST", `/v1/kb/${kb.body.entry.id}/verify`, { key: verifier.key })).status).toBe(200);
  setClock(() => T0);
}, 120_000);

async function syncText(a: TestAgent, body: Record<string, unknown>): Promise<string> {
  const res = await (exports as any).default.fetch(
    new Request("http://localhost/v1/agents/me/sync", {
      method: "POST",
      headers: { authorization: `Bearer ${a.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return text;
}

/** The answer without its cursor (a MAC bound to the agent): what two agents in the same state must share. */
const sansCursor = (text: string) => text.replace(/"cursor":"[^"]*"/, '"cursor":"-"');

const record = (id: string, patch: Partial<OsvRecord> = {}): OsvRecord => ({
  id,
  modified: "2031-03-09T00:00:00Z",
  published: "2031-03-09T00:00:00Z",
  summary: `Prototype pollution (${id})`,
  affected: [
    { package: { ecosystem: "npm", name: "lodash" }, ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "4.99.0" }] }] },
  ],
  ...patch,
});

describe("sync's held advisory matches and release views, for a 500-entry mixed stack", () => {
  it("a warm isolate answers byte for byte as a cold one: first sync, forced, a delta after an ingest, up_to_date", async () => {
    let t = T0;
    setClock(() => t);
    // Two agents in the same state: `cold` always asks a fresh isolate, `warm` right after it, from what that left held.
    const cold = await newAgent();
    const warm = await newAgent();
    const cursors = new Map<TestAgent, string>();
    const both = async (body: (a: TestAgent) => Record<string, unknown>) => {
      clearViewCache();
      clearPreparedStacks();
      const c = await syncText(cold, body(cold));
      const held = viewCacheSize();
      expect(held.packages).toBeGreaterThan(400);
      const w = await syncText(warm, body(warm));
      expect(viewCacheSize().generation).toEqual(held.generation);
      const [cs, ws] = [sansCursor(c), sansCursor(w)];
      let i = 0;
      while (i < cs.length && cs[i] === ws[i]) i++;
      expect(ws.slice(Math.max(0, i - 300), i + 200)).toBe(cs.slice(Math.max(0, i - 300), i + 200));
      for (const [a, text] of [
        [cold, c],
        [warm, w],
      ] as const)
        cursors.set(a, JSON.parse(text).cursor);
      return JSON.parse(w);
    };

    const first = await both(() => ({ stack: STACK, installedSkills: ["lore"] }));
    expect(first.mode).toBe("full");
    expect(first.security.vulnerabilities.length).toBeGreaterThan(5);
    expect(first.stack.untracked.length).toBeGreaterThan(0);
    expect(first.stack.unreadableVersions.map((u: { name: string }) => u.name)).toEqual(expect.arrayContaining(["axios", "chalk"]));
    expect(first.releases.some((r: { removedDeprecations: unknown[] }) => r.removedDeprecations.length > 0)).toBe(true);
    expect(first.knowledge.map((k: { tags: string[] }) => k.tags)).toContainEqual(["express"]);
    // The body is what the output schema describes (the REST answer is serialised from parts, never parsed on the way out).
    expect(syncOut.safeParse(first).error).toBeUndefined();

    t += 60_000;
    const forced = await both(() => ({ stack: STACK, force: true }));
    expect(forced.reason).toBe("force");

    // An ingest: a new advisory for a stack package, and a release rewritten. Then a delta from each agent's cursor.
    t += 60_000;
    await env.DB.batch(await osvStatements(env.DB, [record("GHSA-sync-cache-0001")], t));
    await env.DB.prepare(
      "UPDATE fresh_releases SET title = 'Retitled', ingested_at = ?1 WHERE topic = 'react' AND version = (SELECT max(version) FROM fresh_releases WHERE topic = 'react')",
    )
      .bind(t)
      .run();
    t += 60_000;
    const schedule = async (refreshSchedule: string) => {
      for (const a of [cold, warm])
        expect((await call("PATCH", "/v1/me/settings", { token: a.owner.token, body: { refreshSchedule } })).status).toBe(200);
    };
    await schedule("EVERY_SESSION");
    const delta = await both((a) => ({ since: cursors.get(a) }));
    expect(delta.delta).toBe(true);
    expect(delta.security.vulnerabilities.map((v: { advisory: { id: string } }) => v.advisory.id)).toContain("GHSA-sync-cache-0001");

    // The stored stack and a read-your-writes up_to_date answer.
    await schedule("DAILY");
    t += 60_000;
    const upToDate = await both((a) => ({ since: cursors.get(a) }));
    expect(upToDate.mode).toBe("up_to_date");
    expect(upToDate.stack.reused).toBe(true);
  });

  it("a prepared stack normalises as the straightforward reading does (names, keys, pins, topics), cold and warm, 50 and 500 entries", async () => {
    for (const stack of [STACK.slice(0, 50), STACK] as { name: string; version: string; ecosystem?: string }[][]) {
      // The straightforward reading: every name resolved and every version read, nothing held.
      const valid = stack.filter((s) => parseEcosystem(s.ecosystem));
      const refs = await resolveTopics(
        env.DB,
        valid.map((s) => ({ name: s.name, ecosystem: parseEcosystem(s.ecosystem) })),
      );
      const reference = valid.map((s, i) => {
        const eco = parseEcosystem(s.ecosystem)!;
        return {
          name: s.name,
          version: s.version,
          ecosystem: eco,
          key: packageKey(eco, s.name),
          topic: refs[i]!.topic,
          known: refs[i]!.known,
          pinned: pinnedVersion(eco, s.version),
          data: refs[i]!.data,
        };
      });
      expect(reference.some((e) => e.known)).toBe(true);
      clearPreparedStacks();
      const cold = await normaliseStack(env.DB, stack);
      expect(preparedStacks().size).toBe(1);
      const warm = await normaliseStack(env.DB, stack);
      expect(cold).toEqual(reference);
      expect(warm).toEqual(reference);
      // Another stack (one version moved) is prepared on its own, not read from the first.
      const moved = await normaliseStack(
        env.DB,
        stack.map((s, i) => (i === 0 ? { ...s, version: "17.0.2" } : s)),
      );
      expect(moved[0]!.pinned).toBe("17.0.2");
      expect(moved.slice(1)).toEqual(reference.slice(1));
      expect(preparedStacks().size).toBe(2);
    }
  });

  it("50 entries: a warm isolate answers byte for byte as a cold one, full, forced, up_to_date and a delta", async () => {
    // Within a day of the shipped release data, as above: no sync tries (and fails) to refresh it.
    let t = T0 + 3_600_000;
    setClock(() => t);
    const stack = STACK.slice(0, 50);
    const cold = await newAgent();
    const warm = await newAgent();
    const cursors = new Map<TestAgent, string>();
    const both = async (body: (a: TestAgent) => Record<string, unknown>) => {
      clearViewCache();
      clearPreparedStacks();
      const c = await syncText(cold, body(cold));
      const w = await syncText(warm, body(warm));
      expect(sansCursor(w)).toBe(sansCursor(c));
      cursors.set(cold, JSON.parse(c).cursor);
      cursors.set(warm, JSON.parse(w).cursor);
      return JSON.parse(w);
    };
    expect((await both(() => ({ stack, installedSkills: ["lore"] }))).mode).toBe("full");
    t += 60_000;
    expect((await both(() => ({ stack, force: true }))).reason).toBe("force");
    t += 60_000;
    expect((await both(() => ({ stack }))).mode).toBe("up_to_date");
    t += 60_000;
    for (const a of [cold, warm])
      expect((await call("PATCH", "/v1/me/settings", { token: a.owner.token, body: { refreshSchedule: "EVERY_SESSION" } })).status).toBe(
        200,
      );
    const delta = await both((a) => ({ stack, since: cursors.get(a) }));
    expect(delta.delta).toBe(true);
  });

  it("held advisory matches are the reference reader's list, entry for entry and in order", async () => {
    const entries = await normaliseStack(env.DB, STACK);
    const pinned = entries.filter((e) => e.pinned);
    const gen = (await env.DB.prepare(
      "SELECT max(seq) AS seq, (SELECT at FROM sync_changes ORDER BY seq DESC LIMIT 1) AS at FROM sync_changes",
    ).first()) as {
      seq: number;
      at: number;
    };
    const [reference] = await runReads(env.DB, [advisoriesForStackRead(env.DB, pinned)] as const);
    expect(reference.length).toBeGreaterThan(5);
    clearViewCache();
    const [fresh] = await runReads(env.DB, [cachedAdvisoriesRead(env.DB, pinned, gen)] as const);
    fresh.commit(gen.seq);
    const held = cachedAdvisoriesRead(env.DB, pinned, gen);
    expect(held.statements).toHaveLength(0);
    const [warm] = await runReads(env.DB, [held] as const);
    expect(warm.fromCache).toBe(true);
    expect(JSON.stringify(fresh.vulns)).toBe(JSON.stringify(reference));
    expect(JSON.stringify(warm.vulns)).toBe(JSON.stringify(reference));
  });

  it("an ingest is in the next answer: a new advisory, and its withdrawal (a delete, logged as a change)", async () => {
    let t = T0 + DAY_MS;
    setClock(() => t);
    const a = await newAgent();
    const stack = [
      { name: "lodash", version: "4.17.15" },
      { name: "express", version: "4.19.1" },
    ];
    const ids = (text: string) => (JSON.parse(text).security.vulnerabilities as { advisory: { id: string } }[]).map((v) => v.advisory.id);
    await syncText(a, { stack });
    const before = ids(await syncText(a, { stack, force: true }));
    expect(viewCacheSize().packages).toBeGreaterThan(0);
    expect(before).not.toContain("GHSA-sync-cache-0002");

    t += 1000;
    await env.DB.batch(await osvStatements(env.DB, [record("GHSA-sync-cache-0002")], t));
    expect(ids(await syncText(a, { stack, force: true }))).toContain("GHSA-sync-cache-0002");

    t += 1000;
    await env.DB.batch(await osvStatements(env.DB, [record("GHSA-sync-cache-0002", { withdrawn: "2031-03-11T00:00:00Z" })], t));
    const after = ids(await syncText(a, { stack, force: true }));
    expect(after).not.toContain("GHSA-sync-cache-0002");
    clearViewCache();
    expect(ids(await syncText(a, { stack, force: true }))).toEqual(after);
  });
});

describe("what a warm isolate holds never outlives what it says", () => {
  it("a held answer is not served once an ingest or the stack changes it: a new release, a new advisory, another pinned version", async () => {
    let t = T0 + 2 * DAY_MS;
    setClock(() => t);
    // Two agents in the same state: `a` asks first (from what is held), `b` then asks a cold isolate.
    const a = await newAgent();
    const b = await newAgent();
    const stack = [
      { name: "react", version: "18.2.0" },
      { name: "react-dom", version: "18.2.0" },
      { name: "lodash", version: "4.17.15" },
      { name: "express", version: "4.19.1" },
    ];
    const react = (text: string) => JSON.parse(text).releases.find((r: { topic: string }) => r.topic === "react");
    const ids = (text: string) => (JSON.parse(text).security.vulnerabilities as { advisory: { id: string } }[]).map((v) => v.advisory.id);
    /** A forced sync from what is held, then the same from a cold isolate: the same bytes (but the cursor); the warm one returned. */
    const warmIsCold = async (s: typeof stack) => {
      const warm = await syncText(a, { stack: s, force: true });
      clearViewCache();
      expect(sansCursor(await syncText(b, { stack: s, force: true }))).toBe(sansCursor(warm));
      // Twice more, so each view's answer text is made and then reused (held for the next step).
      for (let i = 0; i < 2; i++) {
        const again = await syncText(a, { stack: s, force: true });
        expect(sansCursor(await syncText(b, { stack: s, force: true }))).toBe(sansCursor(again));
      }
      return warm;
    };
    await syncText(a, { stack });
    await syncText(b, { stack });
    const first = await warmIsCold(stack);
    expect(viewCacheSize().views).toBeGreaterThan(0);
    expect(react(first).latestVersion).not.toBe("99.0.0");

    // A new release of a held topic: in the next answer, not the held view or its held text.
    t += 1000;
    await env.DB.prepare(
      `INSERT INTO fresh_releases (topic, version, ecosystem, package, date, as_of_date, title, source, ingested_at, changes)
       VALUES ('react', '99.0.0', 'npm', 'react', '2026-11-22', '2026-11-22', 'React 99 (an ingest)', 'npm', ?1, '[]')`,
    )
      .bind(t)
      .run();
    const released = await warmIsCold(stack);
    expect(react(released).latestVersion).toBe("99.0.0");
    expect(react(released).changes.map((c: { version: string }) => c.version)).toContain("99.0.0");

    // A new advisory for a held package's pinned version.
    t += 1000;
    expect(ids(released)).not.toContain("GHSA-sync-cache-0003");
    await env.DB.batch(await osvStatements(env.DB, [record("GHSA-sync-cache-0003")], t));
    const advised = await warmIsCold(stack);
    expect(ids(advised)).toContain("GHSA-sync-cache-0003");

    // The stack changes: another pinned version of a held topic gets its own view, not the held one's text.
    t += 1000;
    const older = stack.map((e) => (e.name.startsWith("react") ? { ...e, version: "17.0.2" } : e));
    const moved = await warmIsCold(older);
    expect(react(moved).yourVersion).toBe("17.0.2");
    expect(react(moved).changes.length).toBeGreaterThan(react(advised).changes.length);
    expect(react(moved).packages).toEqual(["react", "react-dom"]);
  });
});

describe("an advisory re-ingested with the same `modified`", () => {
  const changes = async (id: string) =>
    (await env.DB.prepare("SELECT COUNT(*) AS n FROM sync_changes WHERE kind = 'advisory' AND ref = ?").bind(id).first<{ n: number }>())!.n;
  const rows = async (id: string) =>
    (
      await env.DB.prepare(
        "SELECT ecosystem, name, ranges, versions, fixed FROM advisory_affected WHERE advisory_id = ? ORDER BY ecosystem, name",
      )
        .bind(id)
        .all()
    ).results;

  it("is compared by its affected rows: the same rows change nothing and log nothing; changed rows are applied and logged", async () => {
    let t = T0 + 2 * DAY_MS;
    setClock(() => t);
    const a = await newAgent();
    const stack = [{ name: "lodash", version: "4.17.15" }];
    const ids = (text: string) => (JSON.parse(text).security.vulnerabilities as { advisory: { id: string } }[]).map((v) => v.advisory.id);
    const id = "GHSA-sync-cache-0003";
    await env.DB.batch(await osvStatements(env.DB, [record(id)], t));
    const logged = await changes(id);
    expect(logged).toBe(1);
    const stored = await rows(id);
    expect(stored).toHaveLength(1);
    expect(ids(await syncText(a, { stack, force: true }))).toContain(id);

    // The same record again, later: nothing rewritten, nothing logged.
    t += 1000;
    const again = await env.DB.batch(await osvStatements(env.DB, [record(id)], t));
    expect(again.reduce((n, r) => n + (r.meta.changes ?? 0), 0)).toBe(0);
    expect(await changes(id)).toBe(logged);
    expect(await rows(id)).toEqual(stored);

    // Same `modified`, the range corrected (4.17.15 is no longer affected): applied, logged, and in the next answer.
    t += 1000;
    const corrected = record(id, {
      affected: [
        {
          package: { ecosystem: "npm", name: "lodash" },
          ranges: [{ type: "SEMVER", events: [{ introduced: "4.17.16" }, { fixed: "4.99.0" }] }],
        },
      ],
    });
    await env.DB.batch(await osvStatements(env.DB, [corrected], t));
    expect(await changes(id)).toBe(logged + 1);
    expect((await rows(id)).map((r) => JSON.parse(r.ranges as string))).toEqual([
      [{ type: "SEMVER", events: [{ introduced: "4.17.16" }, { fixed: "4.99.0" }] }],
    ]);
    expect(ids(await syncText(a, { stack, force: true }))).not.toContain(id);

    // Same `modified`, a package added (versions only): applied and logged again.
    t += 1000;
    const widened = record(id, {
      affected: [...corrected.affected!, { package: { ecosystem: "npm", name: "lodash-es" }, versions: ["4.17.15"] }],
    });
    await env.DB.batch(await osvStatements(env.DB, [widened], t));
    expect(await changes(id)).toBe(logged + 2);
    expect((await rows(id)).map((r) => r.name)).toEqual(["lodash", "lodash-es"]);
    expect(ids(await syncText(a, { stack: [...stack, { name: "lodash-es", version: "4.17.15" }], force: true }))).toContain(id);

    // Same `modified`, that package dropped again: applied and logged.
    t += 1000;
    await env.DB.batch(await osvStatements(env.DB, [corrected], t));
    expect(await changes(id)).toBe(logged + 3);
    expect((await rows(id)).map((r) => r.name)).toEqual(["lodash"]);

    // An older record changes nothing, whatever its rows.
    t += 1000;
    await env.DB.batch(await osvStatements(env.DB, [record(id, { modified: "2031-03-01T00:00:00Z" })], t));
    expect(await changes(id)).toBe(logged + 3);
    expect((await rows(id)).map((r) => JSON.parse(r.ranges as string)[0].events[0])).toEqual([{ introduced: "4.17.16" }]);
  });

  it("compares `modified` as an instant: the same instant spelt with or without fractional seconds is the same time", async () => {
    let t = T0 + 3 * DAY_MS;
    setClock(() => t);
    const id = "GHSA-sync-cache-0004";
    // A snapshot's spelling first (whole seconds), then OSV's of the same instant (microseconds) with a corrected range.
    await env.DB.batch(await osvStatements(env.DB, [record(id, { modified: "2031-03-09T00:00:00Z" })], t));
    const logged = await changes(id);
    t += 1000;
    const corrected = record(id, {
      modified: "2031-03-09T00:00:00.000000Z",
      affected: [
        {
          package: { ecosystem: "npm", name: "lodash" },
          ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "4.17.21" }] }],
        },
      ],
    });
    await env.DB.batch(await osvStatements(env.DB, [corrected], t));
    expect(await changes(id)).toBe(logged + 1);
    expect(JSON.parse((await rows(id))[0]!.ranges as string)[0].events).toEqual([{ introduced: "0" }, { fixed: "4.17.21" }]);
    // Later by a fraction of a second is newer; the whole-second spelling of the earlier instant is older and changes nothing.
    t += 1000;
    await env.DB.batch(await osvStatements(env.DB, [record(id, { modified: "2031-03-09T00:00:00.5Z" })], t));
    expect(await changes(id)).toBe(logged + 2);
    t += 1000;
    await env.DB.batch(await osvStatements(env.DB, [corrected], t));
    expect(await changes(id)).toBe(logged + 2);
    expect(JSON.parse((await rows(id))[0]!.ranges as string)[0].events).toEqual([{ introduced: "0" }, { fixed: "4.99.0" }]);
  });
});
