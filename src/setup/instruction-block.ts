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

interface Marker {
  index: number;
  /** Just after the marker's `-->`. */
  end: number;
  /** A begin marker's text between `service:begin` and `-->` (` v1 updated=…`). */
  attrs: string;
}

/**
 * The begin and end markers of a text, found in one pass. A begin marker is `<!--`, spaces or tabs,
 * `service:begin` as a word, then anything but `>` up to the first `-->` (what
 * /<!--[ \t]*service:begin\b([^>]*?)-->/g matches, without its backtracking: 256 KiB of repeated
 * `<!-- service:begin ` took seconds of CPU with the regex); an end marker is
 * `<!--[ \t]*service:end[ \t]*-->`.
 */
export function blockMarkers(text: string): { begins: Marker[]; ends: Marker[] } {
  const begins: Marker[] = [];
  const ends: Marker[] = [];
  // The first ">" at or after a place, remembered: the places asked about only grow, so the text is scanned once.
  let gt = -2;
  const gtFrom = (at: number) => (gt === -1 || gt >= at ? gt : (gt = text.indexOf(">", at)));
  for (let from = 0; ; ) {
    const open = text.indexOf("<!--", from);
    if (open < 0) break;
    from = open + 4;
    let i = open + 4;
    while (text[i] === " " || text[i] === "\t") i++;
    if (text.startsWith("service:begin", i)) {
      const after = i + 13;
      if (/\w/.test(text[after] ?? "")) continue;
      const close = gtFrom(after);
      if (close >= after + 2 && text[close - 1] === "-" && text[close - 2] === "-")
        begins.push({ index: open, end: close + 1, attrs: text.slice(after, close - 2) });
    } else if (text.startsWith("service:end", i)) {
      let j = i + 11;
      while (text[j] === " " || text[j] === "\t") j++;
      if (text.startsWith("-->", j)) ends.push({ index: open, end: j + 3, attrs: "" });
    }
  }
  return { begins, ends };
}

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
  const lines = [
    `<!-- service:begin ${BLOCK_VERSION} updated=${day} -->`,
    ...body.replace(/\r\n/g, "\n").trimEnd().split("\n"),
    "<!-- service:end -->",
  ];
  return lines.join(eol);
}

/** Where the block is in `text`, or null when there is none; a BlockError when it cannot be edited safely. */
export function findBlock(text: string): { start: number; end: number; inner: string; version: string } | null {
  const { begins, ends } = blockMarkers(text);
  if (!begins.length && !ends.length) return null;
  if (begins.length > 1 || ends.length > 1) {
    throw new BlockError(
      "two_blocks",
      `has ${Math.max(begins.length, ends.length)} service blocks; keep one <!-- service:begin … --> … <!-- service:end --> block and run again`,
    );
  }
  if (begins.length !== ends.length) {
    throw new BlockError(
      "broken_block",
      begins.length
        ? "has <!-- service:begin … --> without <!-- service:end -->"
        : "has <!-- service:end --> without <!-- service:begin … -->",
    );
  }
  const b = begins[0]!;
  const e = ends[0]!;
  if (e.index < b.index) throw new BlockError("broken_block", "has <!-- service:end --> before <!-- service:begin … -->");
  const version = /^\s*(v\d+)\b/.exec(b.attrs)?.[1] ?? "";
  if (version !== BLOCK_VERSION) {
    throw new BlockError("other_version", `has a service block of format ${version || "(none)"}, not ${BLOCK_VERSION}; it was not changed`);
  }
  return { start: b.index, end: e.end, inner: text.slice(b.end, e.index), version };
}

/**
 * The file with the block set to `body`: replaced in place, or appended. `text` null means the file
 * does not exist yet (its content is then the block alone).
 */
export function applyBlock(text: string | null, body: string, day: string): BlockEdit {
  if (text === null || text === "") return { action: "append", content: `${renderBlock(body, day, "\n")}\n` };
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
