// Names that read as Lore's own skills are the system account's: a word beginning with the
// reserved word, or a run of words reading as a system skill (from the static list, so before any
// seed), each read as a skeleton (look-alike digits, i/l, rn/vv/cl, separators dropped). Ordinary
// words that begin with the letters, a world's `-lore` and names that hold the letters stay anyone's.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { call, expectError, signup, type TestOwner } from "../helpers";
import { starterSkillsPayload } from "../data-helpers";
import { loadStarterSkills } from "../../src/skills/seed";
import { looksLikeLore, SYSTEM_SKILLS, skeleton } from "../../src/skills/names";

const skillMd = (name: string) =>
  `---\nname: ${name}\ndescription: Helps with ${name} tasks in a project\n---\n\n# ${name}\n\nRun the tests with \`npm test\` and read the output.\n`;
const publish = (owner: TestOwner, name: string) =>
  call("POST", "/v1/me/skills", {
    token: owner.token,
    body: { category: "testing", files: [{ path: "SKILL.md", content: skillMd(name) }] },
  });
const count = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM skills").first<{ n: number }>())!.n;

const starterFolders = () => (JSON.parse(starterSkillsPayload()) as { files: { path: string }[] }).files.map((f) => f.path.split("/")[0]!);
const SYSTEM = ["lore", "lore-check-packages", "lore-find-skills", "lore-forum", "lore-knowledge", "lore-sync"];

describe("the skeleton", () => {
  it("reads look-alike digits, i/l and TR39's multi-letter look-alikes as letters, without separators", () => {
    expect(skeleton("l0r3-5ync")).toBe("loresync");
    expect(skeleton("1ore-4b78")).toBe("loreabtb");
    expect(skeleton("lore-forurn")).toBe(skeleton("lore-forum"));
    expect(skeleton("lore-knovvledge")).toBe(skeleton("lore-knowledge"));
    expect(skeleton("lore-find-sk1lls")).toBe(skeleton("lore-find-skills"));
    expect(skeleton("lore-sync", true)).toBe("lore-sync");
  });

  it("names the skill a name reads as, or null", () => {
    for (const n of [
      "official-lore",
      "my-l0r3-tools",
      "lo-re",
      "lore2024",
      "lore-master",
      "lore2sync",
      "loreofficial",
      "lorehq",
      "lo-re-official",
      "lorecheck",
    ])
      expect(looksLikeLore(n, SYSTEM), n).toBe("lore");
    // A system skill glued to a word, before or after, is still that skill; so before any seed.
    for (const [n, s] of [
      ["lor3-sync", "lore-sync"],
      ["l0re-sync", "lore-sync"],
      ["loresync-pro", "lore-sync"],
      ["official-loresync", "lore-sync"],
      ["my-loreknowledge", "lore-knowledge"],
      ["loreforum-app", "lore-forum"],
      ["l0reforum-v2", "lore-forum"],
    ]) {
      expect(looksLikeLore(n!, SYSTEM), n).toBe(s);
      expect(looksLikeLore(n!), n).toBe(s);
    }
    expect(looksLikeLore("loresync")).toBe("lore-sync");
    expect(looksLikeLore("loresync", SYSTEM)).toBe("lore-sync");
    expect(looksLikeLore("l0r35ync", SYSTEM)).toBe("lore-sync");
    expect(looksLikeLore("loresync2", SYSTEM)).toBe("lore-sync");
    expect(looksLikeLore("lorecheck-packages", SYSTEM)).toBe("lore-check-packages");
    // A system skill's words in another order read as that skill (a world's `game-lore` does not).
    expect(looksLikeLore("sync-lore")).toBe("lore-sync");
    expect(looksLikeLore("lore2-sync", SYSTEM)).toBe("lore-sync");
    expect(looksLikeLore("forum-l0re-app", SYSTEM)).toBe("lore-forum");
    expect(looksLikeLore("packages-check-lore", SYSTEM)).toBe("lore-check-packages");
    for (const n of [
      "explorer",
      "folklore-tools",
      "lorem-ipsum",
      "lorentz",
      "folk-lores",
      "sync",
      "loretta",
      "core-sync",
      "game-lore",
      "project-lore",
    ])
      expect(looksLikeLore(n, SYSTEM), n).toBeNull();
  });

  it("the static list of system skills is the seed's: lore and the folders of data/skills", () => {
    const folders = new Set(starterFolders());
    expect([...SYSTEM_SKILLS].sort()).toEqual(["lore", ...folders].sort());
  });
});

describe("publishing a name that reads as Lore's own", () => {
  it("is refused before any seed has published the system skills (the static list)", async () => {
    const system = await env.DB.prepare("SELECT COUNT(*) AS n FROM skills WHERE owner_id = 'own_lore_system'").first<{ n: number }>();
    expect(system!.n).toBe(0);
    const owner = await signup();
    for (const name of ["loresync", "loreforum-app", "lore-sync"]) {
      const body = expectError(await publish(owner, name), 409, "CONFLICT");
      expect(body.error.details, name).toEqual({ name });
    }
  });

  it("is 409 CONFLICT with details.name for every account but the system, nothing written; ordinary names containing the letters publish", async () => {
    await loadStarterSkills(env, starterSkillsPayload());
    const owner = await signup();
    const before = await count();
    for (const name of [
      "lor3-sync",
      "loresync",
      "lore2-sync",
      "official-lore",
      "loresync-pro",
      "official-loresync",
      "my-loreknowledge",
      "loreforum-app",
      "l0reforum-v2",
      "lore2sync",
      "loreofficial",
      "lorehq",
      "lo-re-official",
      "l0re-sync",
      "l0r35ync",
      "lore-forurn",
      "lorecheck-packages",
    ]) {
      const body = expectError(await publish(owner, name), 409, "CONFLICT");
      expect(body.error.details, name).toEqual({ name });
      expect(body.error.message, name).toMatch(/reserved by Lore/);
    }
    expect(expectError(await publish(owner, "loresync"), 409, "CONFLICT").error.message).toMatch(/reads as Lore's own skill 'lore-sync'/);
    expect(await count()).toBe(before);
    for (const name of ["explorer", "folklore-tools", "lorem-ipsum", "game-lore"]) {
      const r = await publish(owner, name);
      expect(r.status, `${name}: ${JSON.stringify(r.body)}`).toBe(201);
    }
  });
});
