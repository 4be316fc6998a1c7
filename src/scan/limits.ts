/**
 * Where a scan stopped reading. Every analysis that can be made dear by a crafted input has a
 * bound (the first 400 intent roles of a text, 200 encoded payloads, a budget of decoded text …);
 * when a bound cuts an analysis, the rest of the input was not read, so a scan that stops there
 * must not come out `passed` as if it had read it all. The primitives note the limit here; the
 * scanner turns each note into a `warn`-level "not fully analysed" finding that names it.
 *
 * The scan is synchronous, so one collector at a time is enough: `collectLimits` installs it for
 * the duration of a scan, `limitScope` says which file (target) the analysis is reading.
 */
import type { Finding } from "./types";

/** The bounds a scan can hit, each with how a finding names it. */
export const LIMITS = {
  "run-references": "run references are looked for in the first 2,000,000 characters of a file",
  "run-reference-count": "at most 200 run references of a file are followed",
  "intent-roles": "the intent model keeps the first 400 roles (sources, sinks, concealment) of a text",
  "encoded-payloads": "at most 200 encoded payloads of a text are decoded",
  "hidden-unicode-runs": "at most 200 runs of tag characters or variation selectors of a text are decoded",
  "hidden-unicode-walk": "hidden Unicode is reported for the first 5,000 runs of a text",
  "decoded-text": "at most 1 MiB of hidden text (decoded and inflated payloads) is read per scan",
  "printable-runs": "the printable text inside a binary file is read up to 256 KiB",
  "decode-depth": "encoded text is decoded two layers deep, and this text holds a third",
  "hidden-regions":
    "at most 2,000 hidden regions (HTML comments, invisible elements, reversed, ROT13 and joined strings) are read per scan",
  "schema-strings": "the first 2,000 strings (names, descriptions, values) of a tool's schema are read",
  "annotation-strings": "the first 32 annotations of a tool are read, each up to 64 KiB",
  "line-analysis":
    "the line rules and the search for encoded payloads and hidden regions read the first 1 MiB of a skill's text and the first 192 KiB of an MCP server's; hidden Unicode and control characters are looked for in all of it",
  "text-analysis":
    "the whole-text analyses (sentences, paragraphs, the intent model) read the first 1 MiB of a skill's text and the first 192 KiB of an MCP server's; the line rules read the same or more",
} as const;
export type Limit = keyof typeof LIMITS;

/** The rule id of a "not fully analysed" finding. */
export const INCOMPLETE_RULE_ID = "scan.incomplete";

interface Note {
  limit: Limit;
  path: string;
  line: number;
}

let notes: Note[] | null = null;
let scope: { path: string; line: (offset: number) => number } | null = null;

/** Notes that `limit` cut the analysis of the current file (at `offset` of its text, or at `line`, when known). */
export function noteLimit(limit: Limit, offset?: number, line?: number): void {
  if (!notes) return;
  const path = scope?.path ?? "";
  if (notes.some((n) => n.limit === limit && n.path === path)) return;
  notes.push({ limit, path, line: line ?? (scope && offset !== undefined ? scope.line(offset) : 1) });
}

/** Runs `fn` as the analysis of the file at `path` (a limit noted inside names it). */
export function limitScope<T>(path: string, fn: () => T, line: (offset: number) => number = () => 1): T {
  const outer = scope;
  scope = { path, line };
  try {
    return fn();
  } finally {
    scope = outer;
  }
}

/** Runs a whole scan, collecting the limits it hit (nested collections join the outer one). */
export function collectLimits<T>(fn: () => T): { result: T; limits: Finding[] } {
  if (notes) return { result: fn(), limits: [] };
  notes = [];
  try {
    const result = fn();
    return { result, limits: notes.map(incompleteFinding) };
  } finally {
    notes = null;
  }
}

function incompleteFinding(n: Note): Finding {
  return {
    ruleId: INCOMPLETE_RULE_ID,
    severity: "medium",
    path: n.path,
    line: n.line,
    excerpt: "",
    message: `Not fully analysed: ${LIMITS[n.limit]} (limit: ${n.limit}); the rest was not read, so this scan cannot pass it`,
  };
}
