/**
 * The instruction section Lore writes into a project's instruction file (CLAUDE.md, AGENTS.md…):
 *
 *   <!-- service:begin v1 updated=YYYY-MM-DD -->
 *   …
 *   <!-- service:end -->
 *
 * An update replaces the block and nothing else: every byte outside it stays as it was. A file
 * without the block gets it appended (after a blank line); a file whose block already says the
 * same thing is left byte for byte as it is (the date is not bumped), so running setup twice
 * changes nothing. The file's line endings are kept: a CRLF file gets a CRLF block. A file with
 * two blocks, a begin without an end (or the reverse), or a block of another format version is
 * refused rather than guessed at.
 */

export const BLOCK_VERSION = "v1";

const BEGIN = /<!--[ \t]*service:begin\b([^>]*?)-->/g;
const END = /<!--[ \t]*service:end[ \t]*-->/g;

export type BlockProblem = "two_blocks" | "broken_block" | "other_version";

export class BlockError extends Error {
  constructor(
    readonly problem: BlockProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface BlockEdit {
  /** append: the file had no block; update: its block changed; none: it already says this. */
  action: "append" | "update" | "none";
  content: string;
}

/** The end-of-line the file uses (CRLF when most of its line ends are CRLF). */
export function eolOf(text: string): "\r\n" | "\n" {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const lf = (text.match(/\n/g) ?? []).length - crlf;
  return crlf > 0 && crlf >= lf ? "\r\n" : "\n";
}

const normalise = (s: string) => s.replace(/\r\n/g, "\n").trim();

/** The block for `body` (LF-separated lines) in the file's line endings. */
export function renderBlock(body: string, day: string, eol: "\r\n" | "\n"): string {
  const lines = [`<!-- service:begin ${BLOCK_VERSION} updated=${day} -->`, ...body.replace(/\r\n/g, "\n").trimEnd().split("\n"), "<!-- service:end -->"];
  return lines.join(eol);
}

/** Where the block is in `text`, or null when there is none; a BlockError when it cannot be edited safely. */
export function findBlock(text: string): { start: number; end: number; inner: string; version: string } | null {
  const begins = [...text.matchAll(BEGIN)];
  const ends = [...text.matchAll(END)];
  if (!begins.length && !ends.length) return null;
  if (begins.length > 1 || ends.length > 1) {
    throw new BlockError("two_blocks", `has ${Math.max(begins.length, ends.length)} service blocks; keep one <!-- service:begin … --> … <!-- service:end --> block and run again`);
  }
  if (begins.length !== ends.length) {
    throw new BlockError("broken_block", begins.length ? "has <!-- service:begin … --> without <!-- service:end -->" : "has <!-- service:end --> without <!-- service:begin … -->");
  }
  const b = begins[0]!;
  const e = ends[0]!;
  if (e.index! < b.index!) throw new BlockError("broken_block", "has <!-- service:end --> before <!-- service:begin … -->");
  const version = /^\s*(v\d+)\b/.exec(b[1] ?? "")?.[1] ?? "";
  if (version !== BLOCK_VERSION) {
    throw new BlockError("other_version", `has a service block of format ${version || "(none)"}, not ${BLOCK_VERSION}; it was not changed`);
  }
  return { start: b.index!, end: e.index! + e[0].length, inner: text.slice(b.index! + b[0].length, e.index!), version };
}

/**
 * The file with the block set to `body`: replaced in place, or appended. `text` null means the file
 * does not exist yet (its content is then the block alone).
 */
export function applyBlock(text: string | null, body: string, day: string): BlockEdit {
  if (text === null || text === "") return { action: "append", content: renderBlock(body, day, "\n") + "\n" };
  const eol = eolOf(text);
  const found = findBlock(text);
  if (found) {
    if (normalise(found.inner) === normalise(body)) return { action: "none", content: text };
    return { action: "update", content: text.slice(0, found.start) + renderBlock(body, day, eol) + text.slice(found.end) };
  }
  // Appended after a blank line; the text before it is kept byte for byte (a missing final newline is added).
  const sep = text.endsWith(eol + eol) || text.endsWith("\n\n") ? "" : text.endsWith("\n") ? eol : eol + eol;
  return { action: "append", content: text + sep + renderBlock(body, day, eol) + eol };
}
