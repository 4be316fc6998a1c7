// The stages of a sync (src/sync/stages/), each on its own: the ones that read or write storage
// through real local D1, the others on built inputs. The whole pipeline is test/sync*.test.ts.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, signup } from "../helpers";
import { DAY_MS } from "../../src/core/clock";
import { ApiError } from "../../src/core/errors";
import type { AgentPrincipal } from "../../src/core/principal";
import { loadReleases } from "../../src/freshness/freshness.seed";
import type { VulnerabilityOut } from "../../src/freshness";
import type { SkillStatus } from "../../src/skills";
import { runSync } from "../../src/sync/sync.service";
import { resolveStack, type ResolvedStack } from "../../src/sync/stages/resolve-stack";
import { chooseMode, type SyncMode } from "../../src/sync/stages/choose-mode";
import { refreshStaleReleases } from "../../src/sync/stages/refresh-releases";
import { readChanges, type ChangesRead } from "../../src/sync/stages/read-changes";
import { matchAdvisories, matchSkills } from "../../src/sync/stages/match";
import { rankKnowledge } from "../../src/sync/stages/rank-knowledge";
import { buildAnswer, releaseViews } from "../../src/sync/stages/build-answer";
import { saveSync } from "../../src/sync/stages/save";
import { copyPinKey, entryPinKey, type SyncEntry } from "../../src/sync/stages/keys";
import releases from "../../data/freshness/releases.json?raw";

const T0 = Date.parse("2031-03-10T09:00:00Z");
const ctx = { env, origin: "http://localhost", via: "rest" as const };

beforeAll(async () => {
  await loadReleases(env, releases);
});

async function caller(): Promise<AgentPrincipal> {
  const o = await signup();
  const a = await newAgent(o);
  return {
    kind: "agent",
    agentId: a.id,
    handle: a.handle,
    ownerId: o.ownerId,
    plan: "FREE",
    planPeriodEnd: null,
    planStatus: "NONE",
    keyPrefix: "lore_xxx",
  } as AgentPrincipal;
}

const STACK = [
  { name: "react", version: "18.2.0" },
  { name: "react", version: "18.2.0" },
  { name: "express", version: "^4.19.1" },
  { name: "express", version: "4.19.1" },
  { name: "left-pad", version: "1.3.0" },
];

const entry = (over: Partial<SyncEntry>): SyncEntry => ({
  name: "express",
  version: "4.19.1",
  ecosystem: "npm",
  key: "express",
  topic: "express",
  known: true,
  pinned: "4.19.1",
  firstSeenAt: T0,
  ...over,
});

const vuln = (id: string, name = "express", version = "4.19.1") =>
  ({ name, ecosystem: "npm", version, advisory: { id }, fixedVersions: [] }) as unknown as VulnerabilityOut;

const status = (name: string, securityStatus: SkillStatus["securityStatus"]): SkillStatus => ({
  name,
  known: true,
  securityStatus,
  securityScanHash: null,
  latestVersion: null,
  listed: true,
  updatedAt: null,
  scannedAt: null,
  statusChangedAt: null,
});

const mode = (over: Partial<SyncMode>): SyncMode => ({
  reason: null,
  full: false,
  delta: false,
  since: null,
  sinceUrgent: null,
  urgentFrom: 0,
  notices: [],
  ...over,
});

describe("resolveStack (D1)", () => {
  it("a new agent: the stack sent, one entry per spelling, every topic new and the stack changed", async () => {
    const c = await caller();
    const s = await resolveStack(env.DB, c, { stack: STACK }, T0);
    expect(s.known).toBe(false);
    expect(s.entries.map((e) => `${e.name}@${e.version}`)).toEqual(["react@18.2.0", "express@^4.19.1", "express@4.19.1", "left-pad@1.3.0"]);
    expect(s.entries.every((e) => e.firstSeenAt === T0)).toBe(true);
    expect(s.topics).toEqual(["react", "express", "left-pad"]);
    expect(s.newTopics).toEqual(s.topics);
    expect(s.stackChanged).toBe(true);
    expect(s.stored).toEqual([]);
  });

  it("after a sync: the stored stack when none is sent, and a moved pin names its topic", async () => {
    const c = await caller();
    await runSync(ctx, c, { stack: STACK, installedSkills: ["Lore"] }, T0);
    const reused = await resolveStack(env.DB, c, {}, T0 + 1000);
    expect(reused.known).toBe(true);
    expect(reused.lastFullAt).toBe(T0);
    expect(reused.stackChanged).toBe(false);
    expect(reused.entries.map((e) => e.version)).toEqual(["18.2.0", "^4.19.1", "4.19.1", "1.3.0"]);
    expect(reused.entries.every((e) => e.firstSeenAt === T0)).toBe(true);
    expect(reused.installed).toEqual(["lore"]);
    expect(reused.newTopics).toEqual([]);

    const moved = await resolveStack(env.DB, c, { stack: [{ name: "react", version: "18.3.1" }, ...STACK.slice(2)] }, T0 + 2000);
    expect(moved.stackChanged).toBe(true);
    expect(moved.movedTopics).toEqual(["react"]);
    // The new pin is first seen now; the others keep when they were first reported.
    expect(moved.entries.map((e) => e.firstSeenAt)).toEqual([T0 + 2000, T0, T0, T0]);
  });
});

describe("entry pin keys (keys.ts)", () => {
  // The key an entry made from plain fields gets: what every kept key must equal.
  const plain = (e: SyncEntry) => entryPinKey({ ecosystem: e.ecosystem, key: e.key, pinned: e.pinned, version: e.version });

  it("kept on the entry, invisible to JSON and Object.keys, and the key its fields give, sent or stored", async () => {
    const c = await caller();
    const sent = await resolveStack(env.DB, c, { stack: STACK }, T0);
    await runSync(ctx, c, { stack: STACK }, T0);
    const stored = await resolveStack(env.DB, c, {}, T0 + 1000);
    for (const e of [...sent.entries, ...stored.entries, ...stored.stored]) {
      expect(entryPinKey(e)).toBe(plain(e));
      expect(JSON.stringify(e)).not.toContain("\\u0000");
      expect(Object.keys(e).filter((k) => k !== "data")).toEqual(
        expect.arrayContaining(["ecosystem", "key", "known", "name", "pinned", "topic", "version"]),
      );
      expect(
        Object.keys(e).every((k) => ["data", "ecosystem", "firstSeenAt", "key", "known", "name", "pinned", "topic", "version"].includes(k)),
      ).toBe(true);
    }
    // `^4.19.1` and `4.19.1` are one pinned version: one key.
    expect(new Set(sent.entries.filter((e) => e.name === "express").map(entryPinKey)).size).toBe(1);
  });

  it("a copy made by spreading a keyed entry with another version (or pin, name key, ecosystem) gets its own key, not the original's", () => {
    const e = entry({});
    const k = entryPinKey(e);
    for (const over of [
      { version: "5.0.0", pinned: "5.0.0" },
      { pinned: null, version: "latest" },
      { key: "expresss" },
      { ecosystem: "cargo" as const },
    ]) {
      const copy = { ...e, ...over };
      expect(entryPinKey(copy)).toBe(plain(copy));
      expect(entryPinKey(copy)).not.toBe(k);
    }
    // An explicit copy of the same pin keeps the key; the original's key is unchanged.
    expect(entryPinKey(copyPinKey(e, { ...e, firstSeenAt: T0 + 1 }))).toBe(k);
    expect(entryPinKey(e)).toBe(k);
  });
});

describe("chooseMode", () => {
  const stack = {
    known: true,
    lastFullAt: T0,
    lastFullSeq: 10,
    newTopics: [] as string[],
    schedule: "DAILY" as const,
    changeLogStart: 5,
    entries: [entry({})],
  };
  it("full for force, then a first sync, then new topics, then the schedule; else up to date", () => {
    expect(chooseMode({ ...stack, known: false, newTopics: ["x"] }, { force: true }, null, T0).reason).toBe("force");
    expect(chooseMode({ ...stack, known: false, newTopics: ["x"] }, {}, null, T0).reason).toBe("first_sync");
    expect(chooseMode({ ...stack, lastFullAt: null }, {}, null, T0).reason).toBe("first_sync");
    expect(chooseMode({ ...stack, newTopics: ["x"] }, {}, null, T0 + 2 * DAY_MS).reason).toBe("new_topics");
    expect(chooseMode(stack, {}, null, T0 + DAY_MS).reason).toBe("schedule");
    const m = chooseMode(stack, {}, null, T0 + 1000);
    expect(m).toEqual({ reason: null, full: false, delta: false, since: null, sinceUrgent: null, urgentFrom: 10, notices: [] });
  });
  it("a cursor makes a delta from its positions; force or a cursor older than the log kept do not, and say so", () => {
    const cur = { seq: 12, urgentSeq: 14, issuedAt: T0 };
    expect(chooseMode(stack, {}, cur, T0)).toMatchObject({ delta: true, since: 12, sinceUrgent: 14, urgentFrom: 14, notices: [] });
    expect(chooseMode(stack, { force: true }, cur, T0)).toMatchObject({
      delta: false,
      since: null,
      notices: ["force: true gives the complete payload; since was not applied."],
    });
    const old = chooseMode({ ...stack, changeLogStart: 100 }, {}, cur, T0);
    expect(old.delta).toBe(false);
    expect(old.notices[0]).toMatch(/older than the change log kept/);
  });
  it("an empty stack is named, sent or never reported", () => {
    expect(chooseMode({ ...stack, entries: [] }, { stack: [] }, null, T0).notices).toEqual(["The stack is empty."]);
    expect(chooseMode({ ...stack, entries: [] }, {}, null, T0).notices[0]).toMatch(/^No stack reported yet/);
  });
});

describe("refreshStaleReleases", () => {
  const data = (over: object) => ({
    tracked: true,
    packages: '["express"]',
    repo: null,
    changelog: null,
    lastOkAt: null,
    lastRunAt: null,
    lastError: null,
    seedAsOf: null,
    ...over,
  });
  it("up to date: asks nothing, and a topic with no data is stale of an unknown date", async () => {
    const r = await refreshStaleReleases(env, { entries: [entry({})], normalised: null }, false, T0);
    expect(r.notices).toEqual([]);
    expect(r.freshnessOf("express")).toEqual({ dataAsOf: null, stale: true, refresh: null });
  });
  it("full: a topic whose registry failed minutes ago is not asked again, and the answer says why", async () => {
    const e = { ...entry({}), data: data({ lastRunAt: T0 - 3 * 60_000, lastOkAt: T0 - 5 * DAY_MS, lastError: "HTTP 503" }) };
    const r = await refreshStaleReleases(env, { entries: [e], normalised: [e] }, true, T0);
    expect(r.notices).toEqual([
      "Release data older than a day could not be refreshed in this request (their views say stale: true): express (its registry failed 3 min ago (HTTP 503); not asked again so soon).",
    ]);
    expect(r.freshnessOf("express")).toMatchObject({ dataAsOf: T0 - 5 * DAY_MS, stale: true, refresh: { ok: false } });
  });
  it("full: current data is neither asked for nor stale", async () => {
    const e = { ...entry({}), data: data({ lastRunAt: T0 - 60_000, lastOkAt: T0 - 60_000 }) };
    const r = await refreshStaleReleases(env, { entries: [e], normalised: [e] }, true, T0);
    expect(r.notices).toEqual([]);
    expect(r.freshnessOf("express")).toEqual({ dataAsOf: T0 - 60_000, stale: false, refresh: null });
  });
});

describe("readChanges (D1)", () => {
  it("up to date reads no views; full reads the complete ones; a cursor past the log is refused", async () => {
    const c = await caller();
    const stack = await resolveStack(env.DB, c, { stack: STACK }, T0);
    const upToDate = await readChanges(env.DB, c.agentId, stack, mode({}), null, T0);
    expect(upToDate.views).toEqual([]);
    expect(upToDate.hasMore).toBe(false);
    const hi = (await env.DB.prepare("SELECT max(seq) AS hi FROM sync_changes").first<{ hi: number }>())!.hi;
    expect(upToDate.cut).toBe(hi);
    // One entry per pinned version: express ^4.19.1 and 4.19.1 are one (the last spelling answers for it).
    expect(upToDate.pinned.map((e) => e.version)).toEqual(["18.2.0", "4.19.1", "1.3.0"]);

    const full = await readChanges(env.DB, c.agentId, stack, mode({ full: true, reason: "first_sync" }), null, T0);
    expect(full.views.map((v) => v.topic).sort()).toEqual(["express", "left-pad", "react"]);
    expect([...full.completeTopics]).toEqual(stack.topics);

    const ahead = readChanges(env.DB, c.agentId, stack, mode({}), { seq: hi + 5, urgentSeq: hi + 5, issuedAt: T0 }, T0);
    await expect(ahead).rejects.toBeInstanceOf(ApiError);
  });
});

describe("matchAdvisories", () => {
  const a = entry({ firstSeenAt: T0 - DAY_MS });
  const b = entry({ name: "react", key: "react", topic: "react", version: "18.2.0", pinned: "18.2.0", firstSeenAt: T0 });
  const stack = {
    entries: [a, b],
    storedFirstSeen: new Map([["npm\u0000express\u00004.19.1", T0 - DAY_MS]]),
    lastFullAt: T0 - 1000,
    lastFullSeq: 10,
  };
  const changes = (vulns: VulnerabilityOut[], seqs: [string, number][], complete: string[] = []) => ({
    cut: 20,
    vulns,
    advSeqs: new Map(seqs),
    completeTopics: new Set(complete),
  });
  it("full and complete: every vulnerability listed; new are those changed since the last full or of versions reported since", () => {
    const m = matchAdvisories(
      stack,
      mode({ full: true }),
      changes([vuln("OLD"), vuln("CHANGED"), vuln("R", "react", "18.2.0")], [["CHANGED", 11]]),
    );
    expect(m).toEqual({
      full: true,
      vulnerabilities: [vuln("OLD"), vuln("CHANGED"), vuln("R", "react", "18.2.0")],
      advisories: [vuln("CHANGED"), vuln("R", "react", "18.2.0")],
    });
  });
  it("a full delta lists changes after the urgent position, versions reported now and topics sent whole; past the cut is not changed", () => {
    const m = matchAdvisories(
      stack,
      mode({ full: true, delta: true, since: 12, sinceUrgent: 12 }),
      changes(
        [vuln("OLD"), vuln("NEW"), vuln("LATE"), vuln("R", "react", "18.2.0")],
        [
          ["NEW", 13],
          ["LATE", 21],
        ],
      ),
    );
    expect(m.full && m.vulnerabilities.map((v) => v.advisory.id)).toEqual(["NEW", "R"]);
  });
  it("up to date: urgent are those changed after the urgent position, or of a version first reported since the last full", () => {
    const m = matchAdvisories(
      stack,
      mode({ urgentFrom: 10 }),
      changes([vuln("OLD"), vuln("NEW"), vuln("R", "react", "18.2.0")], [["NEW", 15]]),
    );
    expect(m).toEqual({ full: false, urgent: [vuln("NEW"), vuln("R", "react", "18.2.0")] });
  });
});

describe("matchSkills", () => {
  const stack = {
    storedSkillSeen: new Map([
      ["a", T0 - DAY_MS],
      ["b", T0 - DAY_MS],
    ]),
    lastFullAt: T0 - 1000,
  };
  const changes = {
    cut: 20,
    statuses: [status("a", "passed"), status("b", "flagged"), status("c", "flagged")],
    skillSeqs: new Map([
      ["a", 15],
      ["b", 15],
    ]),
  };
  it("full: all statuses; a delta keeps changed ones not already delivered as urgent, and new installs", () => {
    expect(matchSkills(stack, mode({ full: true }), changes, T0)).toEqual({ full: true, statuses: changes.statuses });
    const d = matchSkills(stack, mode({ full: true, delta: true, since: 12, sinceUrgent: 16 }), changes, T0);
    expect(d.full && d.statuses.map((s) => s.name)).toEqual(["a", "c"]);
  });
  it("up to date: known skills not passed, changed after the urgent position or installed since the last full", () => {
    const m = matchSkills(stack, mode({ urgentFrom: 16 }), changes, T0);
    expect(m).toEqual({ full: false, flagged: [status("c", "flagged")] });
    expect(matchSkills(stack, mode({ urgentFrom: 10 }), changes, T0)).toEqual({
      full: false,
      flagged: [status("b", "flagged"), status("c", "flagged")],
    });
  });
});

describe("rankKnowledge", () => {
  const kb = (slug: string, tags: string[], st = "VERIFIED") => ({ slug, tags, status: st }) as unknown as ChangesRead["knowledge"][number];
  const changes = {
    cut: 20,
    knowledge: [kb("k1", ["react"])],
    deltaKb: [kb("d1", ["react"]), kb("d2", ["vue"]), kb("d3", ["react"], "DRAFT")],
    recommended: [{ slug: "s1" }, { slug: "s2" }] as unknown as ChangesRead["recommended"],
    skillSeqs: new Map([["s2", 15]]),
  };
  it("complete: the verified knowledge and every recommendation, with their sources", () => {
    const r = rankKnowledge("http://x", ["react"], { delta: false, since: null }, changes);
    expect(r.knowledge).toEqual([{ ...kb("k1", ["react"]), source: "http://x/v1/kb/k1" }]);
    expect(r.recommendations.map((x) => x.source)).toEqual(["http://x/v1/skills/s1", "http://x/v1/skills/s2"]);
  });
  it("a delta: changed items of the stack's topics that are not drafts, and recommendations changed after since", () => {
    const r = rankKnowledge("http://x", ["react"], { delta: true, since: 12 }, changes);
    expect(r.knowledge.map((k) => k.slug)).toEqual(["d1"]);
    expect(r.recommendations.map((x) => x.slug)).toEqual(["s2"]);
  });
});

describe("releaseViews and buildAnswer", () => {
  const view = (topic: string, breaking: number, n = 1) =>
    ({
      topic,
      ecosystem: "npm",
      yourVersion: "1.0.0",
      latestVersion: "2.0.0",
      latestDate: null,
      upToDate: false,
      versionKnown: true,
      note: null,
      releases: Array.from({ length: n }, (_, i) => ({ version: `1.${i + 1}.0`, breaking: i === 0 ? breaking : 0 })),
      removedDeprecations: [],
    }) as unknown as ChangesRead["views"][number];
  const fresh = () => ({ dataAsOf: T0, stale: false, refresh: null });
  it("most breaking first, then most changes, then by topic; a delta view keeps only the releases the log names", () => {
    const out = releaseViews(
      [entry({ topic: "a", name: "a" }), entry({ topic: "b", name: "b" }), entry({ topic: "c", name: "c" })],
      {
        views: [view("a", 0, 1), view("b", 0, 2), view("c", 3, 1), { ...view("z", 0), latestVersion: null }],
        deltaViews: [view("d", 1, 2), view("e", 1, 1)],
        changedReleases: new Map([["d", new Set(["1.2.0"])]]),
        changedDeps: new Map(),
      },
      fresh,
    );
    expect(out.map((v) => [v.topic, v.complete, v.changes.length])).toEqual([
      ["c", true, 1],
      ["b", true, 2],
      ["a", true, 1],
      ["d", false, 1],
    ]);
    expect(out[0]!.packages).toEqual(["c"]);
  });
  it("builds an up-to-date answer from up-to-date parts, and refuses parts of two modes", async () => {
    const c = await caller();
    const stack = await resolveStack(env.DB, c, { stack: STACK }, T0);
    const m = mode({ notices: ["first"] });
    const changes = await readChanges(env.DB, c.agentId, stack, m, null, T0);
    const parts = {
      env,
      origin: ctx.origin,
      caller: c,
      input: { stack: STACK },
      at: T0,
      stack: { ...stack, known: true, lastFullAt: T0 } as ResolvedStack,
      mode: m,
      notices: ["second"],
      freshnessOf: fresh,
      changes,
      advisories: { full: false as const, urgent: [] },
      skills: { full: false as const, flagged: [] },
      ranked: null,
    };
    const { out, notify } = await buildAnswer(parts);
    expect(out.mode).toBe("up_to_date");
    expect(out.notices.slice(0, 2)).toEqual(["first", "second"]);
    expect(out.urgent).toBeDefined();
    expect(out.releases).toBeUndefined();
    expect(notify).toEqual([]);
    await expect(buildAnswer({ ...parts, skills: { full: true, statuses: [] } })).rejects.toThrow(/disagree/);
  });
});

describe("saveSync (D1)", () => {
  it("stores the agent's state, and the stack and skills only when they changed", async () => {
    const c = await caller();
    const stack = await resolveStack(env.DB, c, { stack: STACK, installedSkills: ["Lore"] }, T0);
    await saveSync(
      env.DB,
      env.DB,
      c,
      "rest",
      { stack: STACK, installedSkills: ["Lore"] },
      stack,
      mode({ full: true, reason: "first_sync" }),
      42,
      [],
      T0,
    );
    const row = await env.DB.prepare("SELECT topics, last_full_at, last_full_seq, syncs, full_syncs FROM sync_agents WHERE agent_id = ?")
      .bind(c.agentId)
      .first();
    expect(row).toEqual({ topics: JSON.stringify(stack.topics), last_full_at: T0, last_full_seq: 42, syncs: 1, full_syncs: 1 });
    const count = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM sync_stack_entries WHERE agent_id = ?").bind(c.agentId).first<{ n: number }>())!.n;
    expect(await count()).toBe(4);
    const skills = await env.DB.prepare("SELECT name FROM sync_installed_skills WHERE agent_id = ?").bind(c.agentId).all();
    expect(skills.results).toEqual([{ name: "lore" }]);

    // Up to date and unchanged: the state moves, the stored stack stays, the last full stays.
    const again = await resolveStack(env.DB, c, {}, T0 + 1000);
    await saveSync(env.DB, env.DB, c, "rest", {}, again, mode({}), 50, [], T0 + 1000);
    expect(await count()).toBe(4);
    const row2 = await env.DB.prepare("SELECT last_sync_at, last_full_seq, syncs, full_syncs FROM sync_agents WHERE agent_id = ?")
      .bind(c.agentId)
      .first();
    expect(row2).toEqual({ last_sync_at: T0 + 1000, last_full_seq: 42, syncs: 2, full_syncs: 1 });
  });
});
