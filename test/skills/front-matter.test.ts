import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/core/errors";
import { MAX_ALIASED_VALUES, MAX_FRONT_MATTER_CHARS, parseFrontMatter } from "../../src/skills/bundle";

const fm = (extra: string) => parseFrontMatter(`---\nname: x\ndescription: d\n${extra}---\n# x\n`);
const refusal = (extra: string) => {
  try {
    fm(extra);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return (e as ApiError).message;
  }
  throw new Error("accepted");
};

describe("SKILL.md front matter (YAML 1.2 core schema)", () => {
  it("reads yes/no/on and dates as text, as YAML 1.2 does (YAML 1.1 would make booleans and dates of them)", () => {
    const r = fm("a: yes\nb: no\nc: on\nd: 2024-01-01\ne: 017\nf: 1.5\ng: ~\n");
    expect(r.raw).toEqual({ name: "x", description: "d", a: "yes", b: "no", c: "on", d: "2024-01-01", e: 17, f: 1.5, g: null });
    expect(JSON.parse(r.rawJson)).toEqual(r.raw);
  });

  it("keeps a version label's source text, also through an alias and under metadata", () => {
    expect(fm("version: 1.10\n").version).toBe("1.10");
    expect(fm("version: true\n").version).toBe("true");
    expect(fm('version: "2.0"\n').version).toBe("2.0");
    expect(fm("version: ~\n").version).toBeNull();
    expect(fm("a: &v 3.10\nversion: *v\n").version).toBe("3.10");
    expect(fm("m: &m {version: 1.20}\nmetadata: *m\n").version).toBe("1.20");
    expect(fm("metadata:\n  version: 2.0\n").version).toBe("2.0");
  });

  it("refuses duplicate keys, unknown tags, circular aliases and alias bombs; ordinary anchors work", () => {
    expect(refusal("name: y\n")).toMatch(/not valid YAML: duplicated mapping key/);
    expect(refusal("x: !!binary aGk=\n")).toMatch(/not valid YAML/);
    expect(refusal("meta: &a\n  self: *a\n")).toMatch(/circular alias/);
    // 27 aliases standing for some 7,000 values.
    const bomb =
      "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n";
    expect(refusal(bomb)).toMatch(new RegExp(`more than ${MAX_ALIASED_VALUES} values`));
    // A large list written out is no bomb.
    expect(fm(`list: [${Array.from({ length: 3000 }, (_, i) => i).join(",")}]\n`).raw.list).toHaveLength(3000);
    expect(fm("base: &b {x: 1}\nmetadata: {copy: *b}\n").raw.metadata).toEqual({ copy: { x: 1 } });
  });

  it("refuses bare-CR line ends in the front matter (the skills CLI splits on \\r?\\n); CRLF is read", () => {
    expect(() => parseFrontMatter("---\nname: x\rdescription: Helps\r---\n# x\n")).toThrow(/bare CR/);
    expect(() => parseFrontMatter("---\nname: x\rdescription: Helps\n---\n# x\n")).toThrow(/bare CR/);
    expect(parseFrontMatter("---\r\nname: x\r\ndescription: Helps\r\n---\r\n# x\r\n").name).toBe("x");
  });

  it("bounds the front matter by characters: its text, its text with aliases expanded, and its JSON", () => {
    // One long string aliased 49 times is 50 values (no bomb by count) but 50 copies of the string.
    const long = "x".repeat(2000);
    expect(refusal(`s: &s ${long}\nl: [${Array(49).fill("*s").join(",")}]\n`)).toMatch(/aliases expanded.*more than 65536 characters/);
    expect(refusal(`s: ${"x".repeat(MAX_FRONT_MATTER_CHARS)}\n`)).toMatch(/at most 65536 characters/);
    // Escapes lengthen the JSON past the cap although the text is within it.
    expect(refusal(`s: "${"\\x01".repeat(15000)}"\n`)).toMatch(/stored as JSON it is more than 65536/);
    expect(fm(`s: &s ${long}\nl: [*s,*s,*s,*s,*s,*s,*s,*s,*s,*s]\n`).raw.l).toHaveLength(10);
  });
});
