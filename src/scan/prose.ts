/**
 * Reading intent in prose. The same words are an attack in one sentence and advice in another:
 * "ignore previous instructions" is an injection, while `Never ignore the user's instructions`
 * or `Flag phrases such as "ignore previous instructions"` are the opposite. These helpers let a
 * rule tell a directive from a negated or quoted mention, so that security-minded text passes.
 */

const NEGATION =
  /\b(?:never|not|don'?t|doesn'?t|didn'?t|won'?t|shouldn'?t|mustn'?t|can'?t|cannot|no|avoid(?:ing)?|without|refuse(?:s|d)?\s+to|stop|prevent(?:s|ing)?|nor)\b[^.!?;:]{0,40}$/i;
const NEGATION_FAR =
  /\b(?:never|not|don'?t|doesn'?t|didn'?t|won'?t|shouldn'?t|mustn'?t|can'?t|cannot|no|avoid(?:ing)?|without|refuse(?:s|d)?\s+to|stop|prevent(?:s|ing)?|nor)\b[^.!?;:]{0,90}$/i;

/**
 * The match at `index` is negated by a word shortly before it in the same clause ("never …", "do
 * not …"). `far` reaches a list ("never display, copy or upload the key file"); inline code spans
 * count as one word each (their colons and dots do not end the clause).
 */
export function isNegated(line: string, index: number, far = false): boolean {
  if (!far) return NEGATION.test(line.slice(Math.max(0, index - 60), index));
  const before = line.slice(Math.max(0, index - 140), index).replace(/`[^`\n]*`/g, (c) => "x".repeat(c.length));
  return NEGATION_FAR.test(before);
}

const META_CUE =
  /\b(?:such as|like|e\.g\.|for example|for instance|phrases?|patterns?|strings?|examples?|detect(?:s|ed|ing|ion)?|flag(?:s|ged)?|watch (?:out )?for|look(?:s|ing)? for|beware|warn(?:s|ing)? about|attacks?|attackers?|injections?|malicious|refuse|reject|red flags?|indicators?|signatures?|common|known|typical|classic|scanner|scanning|rule)\b/i;

/** Positions of a quote character that act as quotes (a single quote inside a word is an apostrophe). */
function quotePositions(line: string, q: string): number[] {
  const out: number[] = [];
  for (let i = line.indexOf(q); i !== -1; i = line.indexOf(q, i + 1)) {
    if (q === "'" && /\w/.test(line[i - 1] ?? "") && /\w/.test(line[i + 1] ?? "")) continue;
    out.push(i);
  }
  return out;
}

/** The span [index, index + length) sits inside a quotation on its line. */
export function isQuoted(line: string, index: number, length: number): boolean {
  const end = index + Math.max(length, 1);
  for (const q of ['"', "`", "'"]) {
    const pos = quotePositions(line, q);
    const before = pos.filter((p) => p < index).length;
    if (before % 2 === 1 && pos.some((p) => p >= end - 1)) return true;
  }
  for (const [open, close] of [
    ["\u201C", "\u201D"],
    ["\u2018", "\u2019"],
    ["«", "»"],
  ] as const) {
    const o = line.lastIndexOf(open, index);
    if (o === -1) continue;
    const c = line.indexOf(close, o);
    if (c >= end - 1) return true;
  }
  return false;
}

/** Index of the first element of the ascending `xs` that is `>= v` (`xs.length` when none is). */
export function firstAtLeast(xs: ArrayLike<number>, v: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `isQuoted` for many spans of one line: the line's quote characters are found once, and each
 * span then costs a few binary searches instead of a pass over the whole line (a line of
 * megabytes with thousands of matches would otherwise cost their product).
 */
export function quotedIn(line: string): (index: number, length: number) => boolean {
  const straight = ['"', "`", "'"].map((q) => quotePositions(line, q));
  const curly = (
    [
      ["\u201C", "\u201D"],
      ["\u2018", "\u2019"],
      ["«", "»"],
    ] as const
  ).map(([open, close]) => [positionsOf(line, open), positionsOf(line, close)] as const);
  return (index, length) => {
    const end = index + Math.max(length, 1);
    for (const pos of straight) {
      if (firstAtLeast(pos, index) % 2 === 1 && pos.length && pos[pos.length - 1]! >= end - 1) return true;
    }
    for (const [opens, closes] of curly) {
      // The last opening mark at or before `index` (what `lastIndexOf(open, index)` finds)…
      const k = firstAtLeast(opens, index + 1) - 1;
      if (k < 0) continue;
      // …and the first closing mark from there on.
      const c = closes[firstAtLeast(closes, opens[k]!)];
      if (c !== undefined && c >= end - 1) return true;
    }
    return false;
  };
}

function positionsOf(line: string, ch: string): number[] {
  const out: number[] = [];
  for (let i = line.indexOf(ch); i !== -1; i = line.indexOf(ch, i + 1)) out.push(i);
  return out;
}

/**
 * The match is talked about rather than said: quoted on a line that discusses it ("phrases such
 * as", "detect", "attack", …), or inside a Markdown blockquote/table row on such a line.
 */
export function isMention(line: string, index: number, length: number): boolean {
  const m = mentionsOf(line);
  return m.cue && (m.quoted ??= quotedIn(line))(index, length);
}

/**
 * What `isMention` reads of a whole line, kept for the last line asked about: a rule asks once per
 * hit, and a window of a long line can hold hundreds of hits, each of which would otherwise strip
 * the line's URLs and find its quote marks again.
 */
let lastLine: string | null = null;
let lastMention: { cue: boolean; quoted: ((index: number, length: number) => boolean) | null } = { cue: false, quoted: null };
function mentionsOf(line: string) {
  if (line !== lastLine) {
    lastLine = line;
    // Cue words inside a URL or host name (`https://common-cdn.example.net`) say nothing about the sentence.
    lastMention = { cue: META_CUE.test(line.replace(URL_LIKE, " ")), quoted: null };
  }
  return lastMention;
}

const URL_LIKE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]+|\b(?:[a-z0-9-]+\.)+[a-z]{2,}(?:\/[^\s"'`<>]*)?/gi;

export interface Sentence {
  /** Offset of the sentence's first character in the text. */
  start: number;
  text: string;
}

/**
 * The sentences of a text, for rules that need two things said together ("read the key … and
 * pass it as …"): split after `.`, `!` or `?` followed by white space, at blank lines and at list
 * items, never longer than `max` characters (a long run is cut into overlapping windows, so a
 * text without punctuation cannot hide a pair by being long).
 */
export function sentences(text: string, max = 600): Sentence[] {
  const out: Sentence[] = [];
  eachSentence(text, max, (start, end) => {
    out.push({ start, text: text.slice(start, end) });
  });
  return out;
}

/** What `trim()` and `\s` take for white space (WhiteSpace and LineTerminator of ECMAScript). */
export const isBlankUnit = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  (c >= 0x80 &&
    (c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      c === 0xfeff));

/**
 * `sentences` as spans: `found(start, end)` for each sentence (`text.slice(start, end)` is its
 * text), so a reader that skips most sentences (the intent model, on lines without a trigger word)
 * allocates nothing for them.
 */
export function eachSentence(text: string, max: number, found: (start: number, end: number) => void): void {
  const push = (start: number, end: number) => {
    while (start < end && isBlankUnit(text.charCodeAt(start))) start++;
    while (end > start && isBlankUnit(text.charCodeAt(end - 1))) end--;
    if (start === end) return;
    if (end - start <= max) {
      found(start, end);
      return;
    }
    const step = Math.floor(max * 0.75);
    for (let i = start; i < end; i += step) {
      found(i, Math.min(end, i + max));
      if (i + max >= end) break;
    }
  };
  // A sentence ends after terminal punctuation (not inside a number or a file name such as
  // `config.toml`), at a blank line, or where a new list item or heading begins.
  const BOUNDARY = /[.!?](?=\s|$)|\n\s*\n|\n(?=\s*(?:[-*+•]|\d+[.)]|#{1,6})\s)/g;
  let start = 0;
  // Backticks seen on the current line so far (one forward walk over the text): a full stop inside
  // an inline code span (`gh repo create ... --public`) ends no sentence.
  let walked = 0;
  let ticks = 0;
  for (let m = BOUNDARY.exec(text); m; m = BOUNDARY.exec(text)) {
    for (; walked < m.index; walked++) {
      const c = text.charCodeAt(walked);
      if (c === 10) ticks = 0;
      else if (c === 96) ticks++;
    }
    if (ticks % 2 === 1 && !m[0].startsWith("\n")) continue;
    const end = m.index + (m[0].startsWith("\n") ? 0 : 1);
    push(start, end);
    start = m.index + m[0].length;
  }
  push(start, text.length);
}
