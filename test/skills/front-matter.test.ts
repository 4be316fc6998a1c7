// The YAML is read in the scanner Worker, reached here as the publish reaches it: over the SCANNER binding.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/core/errors";
import { parseFrontMatter as parseWith } from "../../src/skills/bundle";
import { MAX_ALIASED_VALUES, MAX_FRONT_MATTER_CHARS } from "../../src/skills/scanner/types";
import { readFrontMatterRemote } from "../../src/skills/scanner/remote";

const parseFrontMatter = (text: string) => parseWith(text, (source) => readFrontMatterRemote(env, source));
const fm = (extra: string) => parseFrontMatter(`---\nname: x\ndescription: d\n${extra}---\n# x\n`);
const refusal = async (extra: string) => {
  try {
    await fm(extra);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe("VALIDATION_FAILED");
    return (e as ApiError).message;
  }
  throw new Error("accepted");
};

describe("SKILL.md front matter (YAML 1.2 core schema)", () => {
  it("reads yes/no/on and dates as text, as YAML 1.2 does (YAML 1.1 would make booleans and dates of them)", async () => {
    const r = await fm("a: yes\nb: no\nc: on\nd: 2024-01-01\ne: 017\nf: 1.5\ng: ~\n");
    expect(r.raw).toEqual({ name: "x", description: "d", a: "yes", b: "no", c: "on", d: "2024-01-01", e: 17, f: 1.5, g: null });
    expect(JSON.parse(r.rawJson)).toEqual(r.raw);
  });

  it("keeps a version label's source text, also through an alias and under metadata", async () => {
    expect((await fm("version: 1.10\n")).version).toBe("1.10");
    expect((await fm("version: true\n")).version).toBe("true");
    expect((await fm('version: "2.0"\n')).version).toBe("2.0");
    expect((await fm("version: ~\n")).version).toBeNull();
    expect((await fm("a: &v 3.10\nversion: *v\n")).version).toBe("3.10");
    expect((await fm("m: &m {version: 1.20}\nmetadata: *m\n")).version).toBe("1.20");
    expect((await fm("metadata:\n  version: 2.0\n")).version).toBe("2.0");
  });

  it("refuses duplicate keys, unknown tags, circular aliases and alias bombs; ordinary anchors work", async () => {
    expect(await refusal("name: y\n")).toMatch(/not valid YAML: duplicated mapping key/);
    expect(await refusal("x: !!binary aGk=\n")).toMatch(/not valid YAML/);
    expect(await refusal("meta: &a\n  self: *a\n")).toMatch(/circular alias/);
    // 27 aliases standing for some 7,000 values.
    const bomb =
      "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n";
    expect(await refusal(bomb)).toMatch(new RegExp(`more than ${MAX_ALIASED_VALUES} values`));
    // A large list written out is no bomb.
    expect((await fm(`list: [${Array.from({ length: 3000 }, (_, i) => i).join(",")}]\n`)).raw.list).toHaveLength(3000);
    expect((await fm("base: &b {x: 1}\nmetadata: {copy: *b}\n")).raw.metadata).toEqual({ copy: { x: 1 } });
  });

  it("refuses bare-CR line ends in the front matter (the skills CLI splits on \\r?\\n); CRLF is read", async () => {
    await expect(parseFrontMatter("---\nname: x\rdescription: Helps\r---\n# x\n")).rejects.toThrow(/bare CR/);
    await expect(parseFrontMatter("---\nname: x\rdescription: Helps\n---\n# x\n")).rejects.toThrow(/bare CR/);
    expect((await parseFrontMatter("---\r\nname: x\r\ndescription: Helps\r\n---\r\n# x\r\n")).name).toBe("x");
  });

  it("bounds the front matter by characters: its text, its text with aliases expanded, and its JSON", async () => {
    // One long string aliased 49 times is 50 values (no bomb by count) but 50 copies of the string.
    const long = "x".repeat(2000);
    expect(await refusal(`s: &s ${long}\nl: [${Array(49).fill("*s").join(",")}]\n`)).toMatch(
      /aliases expanded.*more than 65536 characters/,
    );
    expect(await refusal(`s: ${"x".repeat(MAX_FRONT_MATTER_CHARS)}\n`)).toMatch(/at most 65536 characters/);
    // Escapes lengthen the JSON past the cap although the text is within it.
    expect(await refusal(`s: "${"\\x01".repeat(15000)}"\n`)).toMatch(/stored as JSON it is more than 65536/);
    expect((await fm(`s: &s ${long}\nl: [*s,*s,*s,*s,*s,*s,*s,*s,*s,*s]\n`)).raw.l).toHaveLength(10);
  });
});

describe("SKILL.md front matter: what two YAML readers could read differently", () => {
  it("a version label too long is the author's 400, not a scanner failure; a long metadata.version under a top-level one is ignored", async () => {
    expect(await refusal(`version: ${"a".repeat(201)}\n`)).toMatch(/'version' must be 1-64 characters/);
    expect(await refusal(`version: |\n  ${"b".repeat(300)}\n`)).toMatch(/'version' must be 1-64 characters/);
    expect((await fm(`version: 1.0\nmetadata:\n  version: ${"x ".repeat(300)}\n`)).version).toBe("1.0");
  });

  it("a key written as an alias still names the version; a tagged null is null", async () => {
    const viaAlias = await parseFrontMatter("---\nname: x\ndescription: &v version\n*v : 1.10\n---\n# x\n");
    expect(viaAlias.version).toBe("1.10");
    await expect(
      parseFrontMatter("---\nname: x\ndescription: &v version\n*v : 9.9.9 evil\nmetadata:\n  version: '1.0'\n---\n# x\n"),
    ).rejects.toThrow(/'version' must be 1-64 characters of letters/);
    expect(await refusal("m: &m metadata\n*m : {version: 2.0 x}\n")).toMatch(/'version' must be/);
    expect((await fm("version: !!null null\n")).version).toBeNull();
    expect((await fm("version: !!null ~\n")).version).toBeNull();
    expect((await fm("version: !<tag:yaml.org,2002:null> ''\n")).version).toBeNull();
    expect((await fm("version: !!str 1.10\n")).version).toBe("1.10");
  });

  it("refuses merge keys, Unicode line breaks, a byte-order mark and keys past 1024 characters", async () => {
    expect(await refusal("<<: {version: 9.9.9, allowed-tools: Bash}\n")).toMatch(/must not use '<<' merge keys/);
    expect(await refusal("metadata:\n  <<: {category: x}\n")).toMatch(/merge keys/);
    for (const c of ["\u0085", "\u2028", "\u2029", "\ufeff"])
      expect(await refusal(`x: "a${c}b"\n`)).toMatch(/must not contain U\+0085, U\+2028, U\+2029 or a byte-order mark/);
    expect(await refusal(`${"k".repeat(1025)}: 1\n`)).toMatch(/keys must be at most 1024 characters/);
    expect((await fm(`${"k".repeat(1024)}: 1\n`)).raw["k".repeat(1024)]).toBe(1);
    // A quoted "<<" is an ordinary key to YAML 1.1 too, but two readers' disagreement is not worth keeping.
    expect(await refusal('"<<": 1\n')).toMatch(/merge keys/);
  });
});

describe("SKILL.md front matter through the scanner Worker", () => {
  it("an answer of another shape, or no answer, is the scanner failing: INTERNAL and retryable, never a parsed skill", async () => {
    const scannerAnswering = (answer: unknown) => ({ SCANNER: { readFrontMatter: async () => answer } as unknown as Fetcher });
    const text = "---\nname: x\ndescription: d\n---\n# x\n";
    for (const answer of [
      { ok: true, json: '{"name":"x","description":"d"}', version: 7, metadataVersion: null },
      { ok: true, json: "x".repeat(MAX_FRONT_MATTER_CHARS + 1), version: null, metadataVersion: null },
      { ok: "yes" },
      null,
    ]) {
      const e = await parseWith(text, (s) => readFrontMatterRemote(scannerAnswering(answer), s)).catch((x: unknown) => x);
      expect(e, JSON.stringify(answer)?.slice(0, 80)).toBeInstanceOf(ApiError);
      expect((e as ApiError).code).toBe("INTERNAL");
    }
    const down = { SCANNER: { readFrontMatter: async () => Promise.reject(new Error("connection reset")) } as unknown as Fetcher };
    const e = await parseWith(text, (s) => readFrontMatterRemote(down, s)).catch((x: unknown) => x);
    expect((e as ApiError).code).toBe("INTERNAL");
    expect((e as ApiError).message).toMatch(/could not run the SKILL.md front matter scan; nothing was stored/);
  });

  it("the scanner's refusal is the 400 the author sees, with the field it names", async () => {
    const e = await parseFrontMatter("---\nname: x\ndescription: d\nname: y\n---\n# x\n").catch((x: unknown) => x);
    expect((e as ApiError).status).toBe(400);
    expect((e as ApiError).message).toMatch(/^SKILL.md front matter is not valid YAML: duplicated mapping key/);
  });
});
