/**
 * Control characters in tool text: terminal escape sequences (Trail of Bits, 2025, "deceiving
 * users with ANSI terminal codes in MCP") hide or overwrite text in clients that print tool
 * descriptions to a terminal, so what the user approves is not what the model reads. Tabs and
 * line breaks are ordinary; everything else in C0/C1 has no business in a description.
 */
import type { Hit, Rule } from "../../../scan";

const ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])?/g;
const OTHER_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f-\u009f]/g;

export const controlCharacters: Rule = {
  id: "mcp.control-characters",
  severity: "high",
  title: "Terminal escape sequences or control characters",
  unbudgeted: true,
  text(text) {
    const hits: Hit[] = [];
    for (const m of text.matchAll(ESCAPE)) {
      hits.push({
        index: m.index,
        length: m[0].length,
        message: "A terminal escape sequence: it can hide or rewrite text in clients that print tool descriptions to a terminal",
      });
      if (hits.length >= 3) return hits;
    }
    for (const m of text.matchAll(OTHER_CONTROL)) {
      hits.push({
        index: m.index,
        length: 1,
        severity: "medium",
        message: `A control character (U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}) in tool text`,
      });
      if (hits.length >= 3) break;
    }
    return hits;
  },
};

export const CONTROL_RULES = [controlCharacters];
