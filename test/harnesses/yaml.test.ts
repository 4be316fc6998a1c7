// The harness snippets' YAML writer (src/harnesses/yaml.ts) against js-yaml, which wrote them before
// and which the tests keep as the reference reader and writer.
import { describe, expect, it } from "vitest";
import { CORE_SCHEMA, YAML11_SCHEMA, dump, load } from "js-yaml";
import { renderMcpConfigs, type McpConfigInput } from "../../src/harnesses/mcp-config";
import { toYaml } from "../../src/harnesses/yaml";
import { HARNESSES } from "../../src/harnesses/setup.data";

const INPUTS: McpConfigInput[] = [
  {
    key: "acme",
    target: {
      kind: "remote",
      transport: "streamable-http",
      url: "https://mcp.acme.example/mcp?team=${TEAM}",
      headers: [
        { name: "Authorization", prefix: "Bearer ", env: "ACME_TOKEN" },
        { name: "X-Region", value: "eu" },
        { name: "on", value: "yes" },
      ],
    },
  },
  { key: "events", target: { kind: "remote", transport: "sse", url: "https://events.example/sse" } },
  {
    key: "files_1",
    target: {
      kind: "stdio",
      command: "npx",
      args: ["-y", "@acme/mcp-files@1.2.3", "--root", "~/work", "#not-a-comment", "a: b", ""],
      env: [
        { name: "ACME_TOKEN", secret: true },
        { name: "LOG_LEVEL", value: "debug" },
      ],
    },
  },
];

const ADVERSARIAL = [
  "",
  " lead",
  "trail ",
  "on",
  "N",
  "~",
  "null",
  "0x1F",
  "1e3",
  "012",
  "1:20",
  ".inf",
  "-",
  "- item",
  "? key",
  "a: b",
  "#c",
  "x # y",
  "'single'",
  '"double"',
  "back\\slash",
  "line\nbreak",
  "cr\rlf",
  "tab\tbed",
  "nel\u0085",
  "ls\u2028ps\u2029",
  "del\u007f",
  "c1\u0080\u009f",
  "bom\ufeff",
  "nonchar\ufffe\uffff",
  "nul\u0000bell\u0007esc\u001b",
  "émoji 🚀 中文",
  "${VAR}",
  "{env:X}",
  "[a, b]",
  "*alias",
  "&anchor",
  "!tag",
  "%directive",
  "@at",
  "`tick",
  "|",
  ">",
  "---",
  "...",
];

describe("harness YAML", () => {
  it("writes what js-yaml's dump wrote for every harness whose snippet is YAML", () => {
    const seen = new Set<string>();
    for (const input of INPUTS)
      for (const c of renderMcpConfigs(input)) {
        if (c.format !== "yaml" || !c.snippet) continue;
        seen.add(c.harness);
        const doc = load(c.snippet, { schema: CORE_SCHEMA });
        expect(c.snippet, `${c.harness} ${input.key}`).toBe(dump(doc, { quoteStyle: "double", forceQuotes: true, lineWidth: -1 }));
      }
    // Every harness whose configuration is YAML (Goose, Continue) was compared.
    expect([...seen].sort()).toEqual(
      HARNESSES.filter((h) => (h as { mcpConfig?: { format?: string } }).mcpConfig?.format === "yaml")
        .map((h) => h.id)
        .sort(),
    );
    expect(seen.size).toBeGreaterThan(0);
  });

  it("reads back as the same document under YAML 1.2 and YAML 1.1, whatever the strings hold", () => {
    const doc = {
      plain_key: "value",
      nested: { deeper: { list: ADVERSARIAL, empty_list: [], empty_map: {} } },
      list_of_maps: [{ name: "a", args: ["x", "y"] }, { name: "b", env: { K: "v" } }, [["nested", "seq"], "z"]],
      numbers: [0, -1, 1.5, 1e21, 2 ** 53],
      flags: [true, false, null],
      ...Object.fromEntries(ADVERSARIAL.map((s, i) => [s, i])),
    };
    const text = toYaml(doc);
    expect(load(text, { schema: CORE_SCHEMA })).toEqual(doc);
    expect(load(text, { schema: YAML11_SCHEMA })).toEqual(doc);
    // Each string value on one line: nothing a reader could fold or take as a comment.
    for (const s of ADVERSARIAL) expect(toYaml({ k: s }).split("\n")).toHaveLength(2);
  });

  it("writes a lone surrogate as U+FFFD, as encoding the snippet as UTF-8 would (it has no YAML escape every reader takes)", () => {
    expect(toYaml({ k: "half \ud800 pair" })).toBe('k: "half \ufffd pair"\n');
  });

  it("leaves out undefined values as JSON does, and writes what is left", () => {
    expect(toYaml([{ a: undefined }])).toBe("- {}\n");
    expect(toYaml({ a: [{ b: undefined }] })).toBe("a:\n  - {}\n");
    expect(toYaml({ a: { b: undefined }, c: 1 })).toBe("a: {}\nc: 1\n");
    expect(toYaml({ a: undefined })).toBe("{}\n");
    expect(load(toYaml({ a: [1, undefined, { b: undefined, c: "x" }] }), { schema: CORE_SCHEMA })).toEqual({ a: [1, null, { c: "x" }] });
  });

  it("quotes keys a YAML 1.1 reader could take for a number, and writes a key past 1024 characters as an explicit key", () => {
    for (const k of ["e1", "E9", "e-1", "e+1", "E012"]) expect(toYaml({ [k]: 1 })).toBe(`"${k}": 1\n`);
    expect(toYaml({ e1x: 1 })).toBe("e1x: 1\n");
    const long = "k".repeat(1025);
    const controls = "\u0001".repeat(200); // 1,202 characters once escaped
    const doc = { [long]: 1, [controls]: { nested: [long] }, short: "s" };
    const text = toYaml(doc);
    expect(text).toContain(`? ${long}\n: 1\n`);
    expect(text.split("\n").every((line) => !/^\s*"[^"]{1025,}":/.test(line))).toBe(true);
    expect(load(text, { schema: CORE_SCHEMA })).toEqual(doc);
    expect(load(text, { schema: YAML11_SCHEMA })).toEqual(doc);
  });

  it("writes scalars and empty documents as YAML does", () => {
    expect(toYaml({})).toBe("{}\n");
    expect(toYaml([])).toBe("[]\n");
    expect(toYaml({ a: [{ b: 1 }] })).toBe("a:\n  - b: 1\n");
    expect(toYaml([["x"]])).toBe('- - "x"\n');
  });
});
