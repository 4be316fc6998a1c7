/**
 * lore-setup ships alone (one file, no import of Lore's source), so it carries its own copy of the
 * instruction block's marker parsing (src/setup/instruction-block.ts). This holds the two copies to
 * the same answer on texts that reach every branch: a change to one that is not made to the other fails here.
 */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { blockMarkers } from "../../src/setup/instruction-block";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = process.env.LORE_SETUP_CLI ?? path.join(ROOT, "bin", "lore-setup.mjs");

const TEXTS = [
  "",
  "# Mine\n\nNo block here.\n",
  "<!-- service:begin v1 updated=2026-01-01 -->\n## Lore\n<!-- service:end -->\n",
  "# Shop\r\n\r\n<!-- service:begin v1 updated=2026-01-01 -->\r\nUse Lore.\r\n<!-- service:end -->\r\n",
  "<!--\tservice:begin v2 -->x<!--service:end\t-->",
  "<!--service:begin-->x<!--   service:end   -->",
  "<!-- service:beginning v1 -->x<!-- service:end -->",
  "<!-- service:begin_v1 -->x<!-- service:ended -->",
  "<!-- service:begin v1 > -->x<!-- service:end -->",
  "<!-- service:begin v1 -- >x<!-- service:end - ->",
  "<!-- service:begin v1 -->a<!-- service:end -->b<!-- service:begin v1 -->c<!-- service:end -->",
  "<!-- service:end -->before<!-- service:begin v1 -->",
  "<!-- service:begin v1 updated=2026-01-01 -->\nno end\n",
  "<!-- <!-- service:begin v1 -->x<!-- service:end -->",
  "<!-- service:begin v1 -->",
  "<!-- service:begin",
  "<!-- service:end",
  "text <!-- other comment --> <!-- service:begin v1 --> inner <!-- service:end --> tail",
  "<!-- service:begin x-->-->y<!-- service:end-->",
  "<!-- service:begin ".repeat(2000),
  `${"<!-- service:begin v1 -->".repeat(50)}${"<!-- service:end -->".repeat(50)}`,
];

describe("the instruction block's markers: lore-setup and Lore read them alike", () => {
  it("both find the same begin and end markers, at the same places, in every text", async () => {
    const cli: { blockMarkers: (t: string) => { begins: { index: number; end: number }[]; ends: { index: number; end: number }[] } } =
      await import(pathToFileURL(CLI).href);
    const places = (m: { begins: { index: number; end: number }[]; ends: { index: number; end: number }[] }) => ({
      begins: m.begins.map(({ index, end }) => [index, end]),
      ends: m.ends.map(({ index, end }) => [index, end]),
    });
    let found = 0;
    for (const text of TEXTS) {
      const ours = places(blockMarkers(text));
      expect(places(cli.blockMarkers(text)), JSON.stringify(text.slice(0, 80))).toEqual(ours);
      found += ours.begins.length + ours.ends.length;
    }
    // The texts reach markers, not only their absence.
    expect(found).toBeGreaterThan(100);
  });
});
