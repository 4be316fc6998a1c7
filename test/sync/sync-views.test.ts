// Sync's release views held per ingest generation (src/sync/views.ts): an answer served from the
// held views is byte for byte the answer of a cold isolate, and a change to the release data (a new
// generation of the change log) is in the next answer.
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, type TestAgent } from "../helpers";
import { DAY_MS, setClock } from "../../src/core/clock";
import { loadDeprecations, loadReleases } from "../../src/freshness/freshness.seed";
import { clearViewCache, viewCacheSize } from "../../src/sync/views";
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
});
