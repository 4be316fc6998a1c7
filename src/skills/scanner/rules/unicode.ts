/**
 * Hidden Unicode (src/scan/unicode.ts finds it): tag characters and variation-selector payloads
 * carry invisible text (the engine also scans what they decode to), bidi controls reorder what a
 * reviewer sees, zero-width characters split words or encode bits. A lone zero-width space from
 * a copy-paste, or joiners inside emoji and Arabic or Indic words, are typography, not attacks.
 */
import { findHiddenUnicode, noteLimit, visible, type Hit, type Rule } from "../../../scan";

/** Runs reported per text (a limit noted when a text has more: a flood cannot bury one past it). */
const MAX_RUNS = 5000;

const preview = (s: string) => visible(s.length > 120 ? `${s.slice(0, 120)}…` : s);

export const hiddenUnicode: Rule = {
  id: "unicode.hidden",
  severity: "high",
  title: "Hidden Unicode characters",
  unbudgeted: true,
  text(text, ctx) {
    const hits: Hit[] = [];
    const runs = findHiddenUnicode(text, { max: MAX_RUNS + 1 });
    if (runs.length > MAX_RUNS) noteLimit("hidden-unicode-walk", runs.pop()!.offset);
    const zeroWidth = runs.filter((r) => r.kind === "zero-width" && !r.benign);
    const zwTotal = zeroWidth.reduce((n, r) => n + r.count, 0);
    // The engine keeps ten findings per rule and file, one per line: a flood of runs needs a hit on each of a few lines only.
    const lines = new Set<number>();
    const lineOf = ctx.lines.cursor();
    for (const r of runs) {
      if (r.benign) continue;
      const line = lineOf(r.offset);
      if (lines.has(line) && r.kind !== "tag" && r.kind !== "variation-selector") continue;
      if (lines.size >= 20 && !lines.has(line)) break;
      lines.add(line);
      const at = { index: r.offset, length: r.length };
      switch (r.kind) {
        case "tag":
          hits.push({
            ...at,
            severity: "critical",
            message: `Invisible Unicode tag characters spell out hidden text: "${preview(r.decoded ?? "")}"`,
          });
          break;
        case "bidi":
          hits.push({
            ...at,
            severity: "high",
            message: "Bidirectional control characters reorder the text a reviewer sees (Trojan Source)",
          });
          break;
        case "variation-selector":
          hits.push({
            ...at,
            severity: r.decoded ? "critical" : r.count >= 4 ? "high" : "low",
            message: r.decoded
              ? `Variation selectors carry hidden text: "${preview(r.decoded)}"`
              : `${r.count} variation selector(s) where no emoji needs them`,
          });
          break;
        case "zero-width":
          hits.push({
            ...at,
            severity: r.count >= 2 || zwTotal >= 3 ? "high" : "low",
            message:
              r.count >= 2 || zwTotal >= 3
                ? "Zero-width characters hide or encode content between visible letters"
                : "A stray zero-width character",
          });
          break;
        case "bom":
          hits.push({ ...at, severity: "low", message: "A byte-order mark in the middle of the text (invisible)" });
          break;
      }
    }
    return hits;
  },
};

export const UNICODE_RULES: Rule[] = [hiddenUnicode];
