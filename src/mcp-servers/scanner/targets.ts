/**
 * How an MCP server's text becomes scan targets. Each tool's description, titles and the text of
 * its schemas become one target, fields separated by a blank line (so no sentence runs from one
 * field into the next), and every short plain token of the server (names, enum values, defaults
 * without spaces) one more: a server of 200 tools with 25 parameters each is 201 targets, not
 * 25,000, and the rules' cost per target does not multiply. A tool is read as a whole, which is
 * how the model reads it: a description that says "pass it as `note`" and a `note` parameter that
 * says what "it" is are one instruction.
 *
 * `fieldAt` tells a rule which field a position of a target belongs to (the sentence rules ask
 * whether they are reading a parameter's description); `locate` maps a finding's line back to
 * its field and the line within it.
 */
import type { ScanTarget } from "../../scan";

export interface Segment {
  tool: string | null;
  /** `description`, `title`, `annotations.title`, `instructions`, a schema path, or `name`. */
  field: string;
  text: string;
  /** Position of the field in the server (instructions first, then each tool's fields in order): findings sort by it. */
  order: number;
  /** Offset and first line (1-based) of the field inside its target. */
  start: number;
  line: number;
}

const SEGMENTS = new WeakMap<ScanTarget, Segment[]>();
const SEPARATOR = "\n\n";

const lineCount = (s: string) => {
  let n = 1;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
  return n;
};

/** One target holding `parts` in order, a blank line between them. */
export function joinTarget(
  path: string,
  kind: ScanTarget["kind"],
  parts: readonly Omit<Segment, "start" | "line">[],
  separator = SEPARATOR,
): ScanTarget {
  const segments: Segment[] = [];
  let offset = 0;
  let line = 1;
  const sepLines = lineCount(separator) - 1;
  for (const p of parts) {
    segments.push({ ...p, start: offset, line });
    offset += p.text.length + separator.length;
    line += lineCount(p.text) - 1 + sepLines;
  }
  const target: ScanTarget = { path, kind, text: parts.map((p) => p.text).join(separator) };
  SEGMENTS.set(target, segments);
  return target;
}

function search<K extends "start" | "line">(list: readonly Segment[], key: K, value: number): Segment | null {
  let lo = 0;
  let hi = list.length - 1;
  if (hi < 0 || value < list[0]![key]) return null;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (list[mid]![key] <= value) lo = mid;
    else hi = mid - 1;
  }
  return list[lo]!;
}

/** The field at a character offset of a target (null for a target not built here). */
export function fieldAt(target: ScanTarget, offset: number): Segment | null {
  const list = SEGMENTS.get(target);
  return list ? search(list, "start", offset) : null;
}

/** The field a 1-based line of a target falls in, and the line within that field. */
export function locate(target: ScanTarget, line: number): { segment: Segment; line: number } | null {
  const list = SEGMENTS.get(target);
  const segment = list ? search(list, "line", line) : null;
  if (!segment) return null;
  return { segment, line: Math.min(line - segment.line + 1, lineCount(segment.text)) };
}

/**
 * A field that says what goes into one of the tool's input parameters: its description or `$comment`
 * (the model reads both), a vendor extension beside them (`x-llm-hint`: a client may hand it to the model as well),
 * or a value offered for it (default, const, enum value, example). A sensitive source named there is the ask
 * itself: nothing else has to say "pass it as …".
 */
export const isArgumentText = (field: string | undefined): boolean =>
  field !== undefined &&
  /^inputSchema\b.*\.properties(?:\.[\w$-]+|\["[^"]*"\])\.(?:description|\$comment|title|markdownDescription|default|const|\(name\)|x-[\w-]+|(?:enum|examples)\[\d+\])(?:\[\d+\])*$/.test(
    field,
  );

const SCALARS = new WeakMap<ScanTarget, Set<string>>();
/** Record which properties of a tool's target take only a boolean or a number (see schema.ts `scalarProperties`). */
export const setScalarProperties = (target: ScanTarget, paths: Set<string>) => {
  if (paths.size) SCALARS.set(target, paths);
};
/** Whether a field is the text of a property that takes only a boolean or a number. */
export function isScalarArgument(target: ScanTarget, field: string): boolean {
  const set = SCALARS.get(target);
  if (!set) return false;
  const m =
    /^(.*?\.properties(?:\.[\w$-]+|\["[^"]*"\]))\.(?:description|\$comment|title|markdownDescription|default|const|\(name\)|x-[\w-]+|(?:enum|examples)\[\d+\])(?:\[\d+\])*$/.exec(
      field,
    );
  return m !== null && set.has(m[1]!);
}

/** The fields of a target built here, in order (empty for any other target). */
export const segmentsOf = (target: ScanTarget): readonly Segment[] => SEGMENTS.get(target) ?? [];
