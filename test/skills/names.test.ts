// Names that read as Lore's own skills are the system account's: the reserved word as a
// hyphen-separated token or as the whole name, and the system skills' whole names, each read as a
// skeleton (look-alike digits, i/l, rn/vv/cl, separators dropped). Names that merely hold the
// letters stay anyone's.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { call, expectError, signup, type TestOwner } from "../helpers";
import { starterSkillsPayload } from "../data-helpers";
import { loadStarterSkills } from "../../src/skills/seed";
import { looksLikeLore, skeleton } from "../../src/skills/names";

const skillMd = (name: string) =>
  `---\nname: ${name}\ndescription: Helps with ${name} tasks in a project\n---\n\n# ${name}\n\nRun the tests with \`npm test\` and read the output.\n`;
const publish = (owner: TestOwner, name: string) =>
  call("POST", "/v1/me/skills", {
    token: owner.token,
    body: { category: "testing", files: [{ path: "SKILL.md", content: skillMd(name) }] },
  });
const count = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM skills").first<{ n: number }>())!.n;

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
    for (const n of ["lor3-sync", "lore2-sync", "sync-lore", "official-lore", "l0re-sync", "my-l0r3-tools", "lo-re", "lore2024"])
      expect(looksLikeLore(n, SYSTEM), n).toBe("lore");
    expect(looksLikeLore("loresync", SYSTEM)).toBe("lore-sync");
    expect(looksLikeLore("l0r35ync", SYSTEM)).toBe("lore-sync");
    expect(looksLikeLore("loresync2", SYSTEM)).toBe("lore-sync");
    expect(looksLikeLore("lorecheck-packages", SYSTEM)).toBe("lore-check-packages");
    for (const n of ["explorer", "folklore-tools", "lorem-ipsum", "lorentz", "folk-lores", "sync", "loretta", "lorecheck", "core-sync"])
      expect(looksLikeLore(n, SYSTEM), n).toBeNull();
  });
});

describe("publishing a name that reads as Lore's own", () => {
  it("is 409 CONFLICT with details.name for every account but the system, nothing written; ordinary names containing the letters publish", async () => {
    await loadStarterSkills(env, starterSkillsPayload());
    const owner = await signup();
    const before = await count();
    for (const name of [
      "lor3-sync",
      "loresync",
      "lore2-sync",
      "sync-lore",
      "official-lore",
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
    for (const name of ["explorer", "folklore-tools", "lorem-ipsum"]) {
      const r = await publish(owner, name);
      expect(r.status, `${name}: ${JSON.stringify(r.body)}`).toBe(201);
    }
  });
});
