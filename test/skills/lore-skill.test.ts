// Lore's own skill `lore` is an ordinary published skill: a row with versions, content-addressed
// files in R2 and an earned scan, published at start by the seed for the configured origin (never
// the request's Host), republished only when its content changes.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { call, expectError, newAgent } from "../helpers";
import { starterSkillsPayload } from "../data-helpers";
import { sha256Hex } from "../../src/core/crypto";
import { loadStarterSkills, starterSkillsCurrent } from "../../src/skills/seed";
import { SYSTEM_OWNER_ID, skillOrigin } from "../../src/skills/lore-skill";
import { scanSkill, SKILL_RULESET } from "../../src/skills/scanner";
import { renderStartHere } from "../../src/harnesses/start-here";
import { publishSkill } from "../../src/skills/publish";

const ADMIN = "test-admin-token";
const fetchAt = async (url: string) => new Uint8Array(await (await (exports as any).default.fetch(new Request(url))).arrayBuffer());
const versions = async () =>
  (
    await env.DB.prepare(
      `SELECT v.version, v.status, v.files, v.scan_hash, v.artifact_key, v.ruleset_version, v.findings, v.skill_md
         FROM skill_versions v JOIN skills s ON s.id = v.skill_id WHERE s.slug = 'lore' ORDER BY v.seq`,
    ).all<{
      version: string;
      status: string;
      files: string;
      scan_hash: string;
      artifact_key: string;
      ruleset_version: string;
      findings: string;
      skill_md: string;
    }>()
  ).results;
const seeds = () => call("GET", "/internal/seeds", { token: ADMIN, env: { ADMIN_TOKEN: ADMIN } });

describe("Lore's own skill as an ordinary published skill", () => {
  it("before the seed, it is not in the catalog; start-here.md already names the configured origin", async () => {
    const a = await newAgent();
    expectError(await call("GET", "/v1/skills/lore", { key: a.key }), 404, "NOT_FOUND");
    expect((await call("GET", "/.well-known/agent-skills/index.json")).body.skills.map((s: any) => s.name)).not.toContain("lore");
    const text = new TextDecoder().decode(await fetchAt("https://forged.example/v1/start-here.md"));
    expect(text).toBe(renderStartHere("http://localhost"));
  });

  it("the seed publishes it by the system account: its row, version, files and R2 blobs hash like any skill's, its scan earned", async () => {
    await loadStarterSkills(env, starterSkillsPayload());
    const bytes = new TextEncoder().encode(renderStartHere("http://localhost"));
    const hex = await sha256Hex(bytes);
    const row = await env.DB.prepare(
      `SELECT owner_id, category, security_status, security_scan_hash, latest_version FROM skills WHERE slug = 'lore'`,
    ).first();
    expect(row).toEqual({
      owner_id: SYSTEM_OWNER_ID,
      category: "workflow",
      security_status: "passed",
      security_scan_hash: `sha256:${hex}`,
      latest_version: "1",
    });
    const [v] = await versions();
    const scan = scanSkill([{ path: "SKILL.md", bytes, text: renderStartHere("http://localhost") }]);
    expect(v).toMatchObject({
      version: "1",
      status: scan.status,
      scan_hash: `sha256:${hex}`,
      artifact_key: `sha256/${hex}`,
      ruleset_version: SKILL_RULESET.version,
      skill_md: renderStartHere("http://localhost"),
    });
    expect(JSON.parse(v!.findings)).toEqual(scan.findings);
    expect(JSON.parse(v!.files)).toEqual([{ path: "SKILL.md", size: bytes.byteLength, digest: hex, text: true }]);
    const blob = await env.SKILLS.get(`sha256/${hex}`);
    expect(new Uint8Array(await blob!.arrayBuffer())).toEqual(bytes);
    // Served from R2 by the ordinary discovery path, and as start-here.md, byte for byte.
    expect(await fetchAt("http://localhost/.well-known/skills/lore/SKILL.md")).toEqual(bytes);
    expect(await fetchAt("http://localhost/v1/start-here.md")).toEqual(bytes);
    const a = await newAgent();
    const d = (await call("GET", "/v1/skills/lore", { key: a.key })).body;
    expect(d.versions.map((x: any) => [x.version, x.status, x.scanHash])).toEqual([["1", "passed", `sha256:${hex}`]]);
    expect(d.skill.files).toEqual([{ path: "SKILL.md", size: bytes.byteLength, digest: `sha256:${hex}` }]);
  });

  it("publishing again at start is idempotent; new content is a new version and the old one is kept", async () => {
    await loadStarterSkills(env, starterSkillsPayload());
    expect((await versions()).map((v) => v.version)).toEqual(["1"]);
    expect((await seeds()).body.items.find((d: any) => d.name === "starter-skills")).toMatchObject({ loadedDigest: null });
    await call("POST", "/internal/seeds/starter-skills/done", {
      token: ADMIN,
      env: { ADMIN_TOKEN: ADMIN },
      body: { digest: "d1", rows: 1 },
    });
    // Loaded and current: the seed skips it.
    expect((await seeds()).body.items.find((d: any) => d.name === "starter-skills")).toMatchObject({ loadedDigest: "d1" });
    // Another deployment origin is another text: the operator routes report the dataset stale, so the seed sends it again.
    const moved = { ...env, PUBLIC_ORIGIN: "https://lore.example.org" };
    const stale = await call("GET", "/internal/seeds", { token: ADMIN, env: { ADMIN_TOKEN: ADMIN, PUBLIC_ORIGIN: moved.PUBLIC_ORIGIN } });
    expect(stale.body.items.find((d: any) => d.name === "starter-skills")).toMatchObject({ loadedDigest: null });
    await loadStarterSkills(moved, starterSkillsPayload());
    await loadStarterSkills(moved, starterSkillsPayload());
    const all = await versions();
    expect(all.map((v) => [v.version, v.status])).toEqual([
      ["1", "passed"],
      ["2", "passed"],
    ]);
    expect(all[1]!.skill_md).toContain("https://lore.example.org/v1/mcp");
    expect(all[0]!.skill_md).toContain("http://localhost/v1/mcp");
    // The old version's blob stays where it was.
    expect(await env.SKILLS.head(all[0]!.artifact_key)).not.toBeNull();
    // Back to this origin: its text again, as the next version.
    await loadStarterSkills(env, starterSkillsPayload());
    expect((await versions()).map((v) => v.version)).toEqual(["1", "2", "3"]);
    expect(new TextDecoder().decode(await fetchAt("http://localhost/v1/start-here.md"))).toBe(renderStartHere("http://localhost"));
  });

  it("without PUBLIC_ORIGIN the seed names the origin it reached; a malformed PUBLIC_ORIGIN is refused", async () => {
    const unset = { ...env, PUBLIC_ORIGIN: "" };
    await loadStarterSkills(unset, starterSkillsPayload(), "http://127.0.0.1:8787");
    expect((await versions()).at(-1)!.skill_md).toContain("http://127.0.0.1:8787/v1/mcp");
    await expect(loadStarterSkills(unset, starterSkillsPayload())).rejects.toThrow(/needs an origin/);
    await expect(loadStarterSkills({ ...env, PUBLIC_ORIGIN: "https://lore.example.org/v1" }, starterSkillsPayload())).rejects.toThrow(
      /must be an origin/,
    );
    await loadStarterSkills(env, starterSkillsPayload());
  });

  it("no account but Lore's takes the name `lore`", async () => {
    const a = await newAgent();
    const files = [{ path: "SKILL.md", content: "---\nname: lore\ndescription: mine now\nmetadata:\n  category: workflow\n---\n# x\n" }];
    await expect(publishSkill(env, a.owner.ownerId, { files })).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("a rendering its own scanner flags is never stored: not by the first seed, not accepted by a re-seed", async () => {
    const before = await versions();
    // A quick-tunnel origin: Lore's own scanner flags a skill that sends agents (and their keys) to one.
    const tunnel = { ...env, PUBLIC_ORIGIN: "https://lore-demo.trycloudflare.com" };
    const hex = await sha256Hex(renderStartHere(tunnel.PUBLIC_ORIGIN));
    for (let i = 0; i < 2; i++) await expect(loadStarterSkills(tunnel, starterSkillsPayload())).rejects.toThrow(/did not pass/);
    await expect(loadStarterSkills(tunnel, starterSkillsPayload())).rejects.toMatchObject({
      code: "CONFLICT",
      details: { name: "lore", status: "flagged" },
    });
    expect(await versions()).toEqual(before);
    expect(await env.SKILLS.head(`sha256/${hex}`)).toBeNull();
    expect(await starterSkillsCurrent(tunnel)).toBe(false);
    expect(new TextDecoder().decode(await fetchAt("http://localhost/v1/start-here.md"))).toBe(renderStartHere("http://localhost"));
  });

  it("a published version that no longer passes is not current, and the re-seed scans it again instead of accepting it", async () => {
    await loadStarterSkills(env, starterSkillsPayload());
    const before = await versions();
    expect(before.at(-1)!.status).toBe("passed");
    // As a rescan under a stricter ruleset leaves it (src/skills/rescan.ts).
    await env.DB.batch([
      env.DB.prepare("UPDATE skill_versions SET status = 'flagged' WHERE id = (SELECT latest_version_id FROM skills WHERE slug = 'lore')"),
      env.DB.prepare("UPDATE skills SET security_status = 'flagged' WHERE slug = 'lore'"),
    ]);
    expect(await starterSkillsCurrent(env)).toBe(false);
    await loadStarterSkills(env, starterSkillsPayload());
    const after = await versions();
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({ status: "passed", skill_md: renderStartHere("http://localhost") });
    expect(await starterSkillsCurrent(env)).toBe(true);
    // A starter skill left flagged makes the dataset stale too.
    await env.DB.prepare("UPDATE skills SET security_status = 'flagged' WHERE slug = 'lore-forum' AND owner_id = ?")
      .bind(SYSTEM_OWNER_ID)
      .run();
    expect(await starterSkillsCurrent(env)).toBe(false);
    await loadStarterSkills(env, starterSkillsPayload());
    expect(await starterSkillsCurrent(env)).toBe(true);
  });

  it("the origin changing more than 10 times a day never stops the seed: the system account has no daily version cap", async () => {
    const n = (await versions()).length;
    for (let i = 0; i < 12; i++) {
      const origin = i % 2 ? "http://localhost" : "https://lore.example.org";
      await loadStarterSkills({ ...env, PUBLIC_ORIGIN: origin }, starterSkillsPayload());
      expect((await versions()).at(-1)!.skill_md).toBe(renderStartHere(origin));
    }
    expect(await versions()).toHaveLength(n + 12);
    expect(await starterSkillsCurrent(env)).toBe(true);
  });

  it("the origin is normalised (scheme and host case, default port, trailing slash): one text, no new version", async () => {
    await loadStarterSkills(env, starterSkillsPayload());
    const n = (await versions()).length;
    for (const spelling of ["HTTP://LocalHost:80/", "http://LOCALHOST", "http://localhost/", "http://localhost:80"]) {
      expect(skillOrigin({ PUBLIC_ORIGIN: spelling })).toBe("http://localhost");
      expect(skillOrigin({ PUBLIC_ORIGIN: "" }, spelling)).toBe("http://localhost");
      expect(await starterSkillsCurrent({ ...env, PUBLIC_ORIGIN: spelling })).toBe(true);
      await loadStarterSkills({ ...env, PUBLIC_ORIGIN: spelling }, starterSkillsPayload());
    }
    expect(await versions()).toHaveLength(n);
    expect(skillOrigin({ PUBLIC_ORIGIN: "HTTPS://Lore.Example.ORG:443/" })).toBe("https://lore.example.org");
    expect(skillOrigin({ PUBLIC_ORIGIN: "https://lore.example.org:8443" })).toBe("https://lore.example.org:8443");
    // Still an origin only: no path, query, fragment, credentials or other scheme.
    for (const bad of [
      "https://lore.example.org/v1",
      "https://lore.example.org/?x=1",
      "https://lore.example.org#top",
      "https://user:pw@lore.example.org",
      "ftp://lore.example.org",
      "https://lore.example.org//",
    ])
      expect(() => skillOrigin({ PUBLIC_ORIGIN: bad })).toThrow(/must be an origin/);
  });
});
