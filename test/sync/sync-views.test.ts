// Sync's release views held per ingest generation (src/sync/views.ts): an answer served from the
// held views is byte for byte the answer of a cold isolate, and a change to the release data (a new
// generation of the change log) is in the next answer.
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, type TestAgent } from "../helpers";
import { DAY_MS, setClock } from "../../src/core/clock";
import { loadDeprecations, loadReleases } from "../../src/freshness/freshness.seed";
import {
  cachedReleasesRead,
  clearViewCache,
  HELD_BYTES_BOUND,
  noteViewOut,
  syncAnswerJson,
  VIEW_CACHE_BYTES,
  viewCacheSize,
} from "../../src/sync/views";
import { runReads } from "../../src/core/batch";
import { VERSION_MEMO_BYTES, compareVersions, versionMemoSize, pinnedVersion } from "../../src/ecosystems/versions";
import { mockFetch } from "../fixtures/mock";
import releases from "../../data/freshness/releases.json?raw";
import deprecations from "../../data/freshness/deprecations.json?raw";

const T0 = Date.parse("2031-03-10T09:00:00Z");
const STACK = [
  { name: "react", version: "18.2.0" },
  { name: "react-dom", version: "^18.3.1" },
  { name: "next", version: "14.2.0" },
  { name: "express", version: "4.19.1" },
  { name: "zod", version: "3.22.0" },
  { name: "django", version: "4.2", ecosystem: "pypi" },
  { name: "left-pad", version: "1.3.0" },
];

beforeAll(async () => {
  mockFetch({});
  setClock(() => T0 - 30 * DAY_MS);
  await loadReleases(env, releases);
  await loadDeprecations(env, deprecations);
  setClock(() => T0);
});

/** The answer's exact bytes. */
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

describe("sync's held release views", () => {
  it("answer exactly as a cold isolate, and a new ingest generation is in the next answer", async () => {
    setClock(() => T0);
    const a = await newAgent();
    await syncText(a, { stack: STACK });
    clearViewCache();
    const cold = await syncText(a, { stack: STACK, force: true });
    const held = viewCacheSize();
    expect(held.topics).toBeGreaterThan(0);
    expect(held.views).toBeGreaterThan(0);
    const warm = await syncText(a, { stack: STACK, force: true });
    expect(warm).toBe(cold);
    // The text is what JSON.stringify of the answer gives (parts serialised once, nothing reordered).
    expect(JSON.stringify(JSON.parse(warm))).toBe(warm);
    const react = JSON.parse(warm).releases.find((r: { topic: string }) => r.topic === "react");
    expect(react.changes.length).toBeGreaterThan(0);

    // An ingest rewrites a release: the change log moves on, and the held views with it.
    const changed = react.changes[0].version as string;
    await env.DB.prepare("UPDATE fresh_releases SET title = ?1, ingested_at = ?2 WHERE topic = 'react' AND version = ?3")
      .bind("Retitled by an ingest", T0, changed)
      .run();
    const after = await syncText(a, { stack: STACK, force: true });
    const reactAfter = JSON.parse(after).releases.find((r: { topic: string }) => r.topic === "react");
    expect(reactAfter.changes.find((c: { version: string }) => c.version === changed).title).toBe("Retitled by an ingest");
    expect(viewCacheSize().generation!.seq).toBeGreaterThan(held.generation!.seq);
    clearViewCache();
    expect(await syncText(a, { stack: STACK, force: true })).toBe(after);
  });

  it("a stack sharing held topics gets the views a cold isolate would give (several versions of one topic)", async () => {
    setClock(() => T0 + DAY_MS);
    const a = await newAgent();
    const b = await newAgent();
    const stackB = [...STACK.slice(1), { name: "react", version: "19.0.0" }];
    await syncText(a, { stack: STACK });
    await syncText(b, { stack: stackB });
    clearViewCache();
    const coldB = await syncText(b, { stack: stackB, force: true });
    clearViewCache();
    await syncText(a, { stack: STACK, force: true });
    expect(await syncText(b, { stack: stackB, force: true })).toBe(coldB);
  });

  it("a view's held answer text is reused only for the same shape: a third answer is the cold one, and data gone stale changes it", async () => {
    let t = T0 + 2 * DAY_MS;
    setClock(() => t);
    const a = await newAgent();
    await syncText(a, { stack: STACK });
    clearViewCache();
    const cold = await syncText(a, { stack: STACK, force: true });
    // The second answer makes each shown view's text; the third reuses it.
    expect(await syncText(a, { stack: STACK, force: true })).toBe(cold);
    expect(await syncText(a, { stack: STACK, force: true })).toBe(cold);
    // Another agent naming react's topic by fewer packages: another shape of the same held views.
    const b = await newAgent();
    const fewer = STACK.filter((e) => e.name !== "react-dom");
    await syncText(b, { stack: fewer });
    const bWarm = await syncText(b, { stack: fewer, force: true });
    clearViewCache();
    expect(await syncText(b, { stack: fewer, force: true })).toBe(bWarm);
    expect(JSON.parse(bWarm).releases.find((r: { topic: string }) => r.topic === "react").packages).toEqual(["react"]);

    // Forty days on, the release data is older than a day: the views say so (and the refresh that failed), not the held text.
    t += 40 * DAY_MS;
    const stale = JSON.parse(await syncText(a, { stack: STACK, force: true }));
    expect(stale.releases.every((r: { stale: boolean }) => r.stale)).toBe(true);
    const again = await syncText(a, { stack: STACK, force: true });
    clearViewCache();
    expect(await syncText(a, { stack: STACK, force: true })).toBe(again);
  });

  it("what is held stays under its byte bound: many versions of a topic with long release lists, and made-up names", async () => {
    clearViewCache();
    const gen = (await env.DB.prepare(
      "SELECT max(seq) AS seq, (SELECT at FROM sync_changes ORDER BY seq DESC LIMIT 1) AS at FROM sync_changes",
    ).first()) as { seq: number; at: number };
    // Prerelease pins of react (each view lists every release after it) and unknown names with long versions.
    let made = 0;
    // An answer shows one view a topic (the furthest behind): each of these reads asks for one.
    const show = async (entries: { topic: string; ecosystem: "npm"; pinned: string }[]) => {
      const [read] = await runReads(env.DB, [cachedReleasesRead(env.DB, entries, gen)] as const);
      read.commit(gen.seq);
      // Each view shown in an answer (a shape of its own), so each holds its texts.
      const outs = read.views.map((v) => noteViewOut(v, { topic: v.topic, packages: [v.topic], changes: v.releases }));
      const text = syncAnswerJson({ releases: outs });
      expect(text).toBe(JSON.stringify({ releases: outs }));
      made += 2 * text.length;
      const held = viewCacheSize();
      expect(held.bytes).toBeLessThanOrEqual(HELD_BYTES_BOUND);
      expect(held.viewBytes).toBeLessThanOrEqual(VIEW_CACHE_BYTES);
    };
    for (let round = 0; round < 60; round++) {
      await show([{ topic: "react", ecosystem: "npm", pinned: `0.0.1-r${round}` }]);
      if (round % 20 === 0)
        await show(
          Array.from({ length: 500 }, (_, i) => ({
            topic: `npm:made-up-${round}-${i}-${"x".repeat(150)}`,
            ecosystem: "npm" as const,
            pinned: `1.0.0-${"y".repeat(100)}.${round}.${i}`,
          })),
        );
    }
    const held = viewCacheSize();
    expect(held.views).toBeGreaterThan(10);
    expect(made).toBeGreaterThan(0);

    // The version readings held per isolate: bounded too, whatever the callers' texts.
    for (let i = 0; i < 6_000; i++) pinnedVersion("npm", `^1.${i}.0-${"z".repeat(200)}`);
    expect(versionMemoSize().bytes).toBeLessThanOrEqual(VERSION_MEMO_BYTES);
    expect(versionMemoSize().entries).toBeGreaterThan(1000);
    for (let i = 0; i < 25_000; i++) compareVersions("npm", `1.${i}.0-${"q".repeat(200)}`, "1.0.0");
    expect(versionMemoSize().parsed.bytes).toBeLessThanOrEqual(VERSION_MEMO_BYTES);
    expect(versionMemoSize().parsed.entries).toBeGreaterThan(1000);
  }, 120_000);
});
