/** Line and excerpt helpers shared by every rule: findings point at a 1-based line with a short, readable excerpt. */

/**
 * Values worked out from texts, kept for the most recent texts up to a total length: one scan's
 * rules, intent model and capabilities read every file of a publish in turn (file by file, then
 * all files again), so keeping only the last text would redo the work for each file at each turn.
 * The bound (a little over the largest publish and the prefix the whole-text rules read of it when
 * it is longer than their budget) lets the next scan push the previous one out: at the largest
 * publish's size, the prefix pushed the whole text out and every later reader indexed it again.
 */
export class RecentByText<T> {
  private readonly map = new Map<string, T>();
  private chars = 0;
  constructor(
    private readonly maxChars = 8 * 1024 * 1024,
    private readonly maxEntries = 512,
  ) {}
  get(text: string): T | undefined {
    return this.map.get(text);
  }
  set(text: string, value: T): T {
    if (!this.map.has(text)) {
      this.chars += text.length;
      while ((this.chars > this.maxChars || this.map.size >= this.maxEntries) && this.map.size > 0) {
        const oldest = this.map.keys().next().value as string;
        this.map.delete(oldest);
        this.chars -= oldest.length;
      }
    }
    this.map.set(text, value);
    return value;
  }
}

const indexes = new RecentByText<LineIndex>();

/** Offsets where each line starts; `lineOf(offset)` is a binary search over them. */
export class LineIndex {
  /** The index of `text`, shared by every caller that indexes the same text during a scan. */
  static of(text: string): LineIndex {
    return indexes.get(text) ?? indexes.set(text, new LineIndex(text));
  }
  private readonly starts: Int32Array;
  constructor(readonly text: string) {
    // Two passes of indexOf into a typed array: a text of 5 million empty lines is 20 MB of offsets, not an array of boxed numbers.
    let count = 1;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
    this.starts = new Int32Array(count);
    let k = 1;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.starts[k++] = i + 1;
  }
  get count(): number {
    return this.starts.length;
  }
  /** 1-based line number of a character offset. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
  /** A faster `lineOf` for offsets that never decrease (one pass over a text). */
  cursor(): (offset: number) => number {
    let k = 0;
    return (offset) => {
      if (offset < (this.starts[k] ?? 0)) k = this.lineOf(offset) - 1;
      while (k + 1 < this.starts.length && this.starts[k + 1]! <= offset) k++;
      return k + 1;
    };
  }
  /** Start offset of a 1-based line. */
  startOf(line: number): number {
    return this.starts[line - 1] ?? this.text.length;
  }
  /** Text of a 1-based line, without its line break. */
  line(line: number): string {
    const start = this.startOf(line);
    const end = line < this.starts.length ? this.starts[line]! - 1 : this.text.length;
    return this.text.charCodeAt(end - 1) === 13 && end > start ? this.text.slice(start, end - 1) : this.text.slice(start, end);
  }
}

// Characters a reader cannot see: C0/C1 controls (but tab), zero-width and joiners, bidi controls,
// soft hyphen, word joiner and invisible operators, BOM, variation selectors, tag characters.
const INVISIBLE =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]|\uDB40[\uDC00-\uDDEF]/g;

/** Replaces every invisible character with `<U+XXXX>`, so an excerpt shows what is hidden. */
export function visible(s: string): string {
  return s.replace(INVISIBLE, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`);
}

/** Removes invisible characters and folds compatibility forms (fullwidth letters), for matching what a model would read. */
export function normalizeForMatching(s: string): string {
  const v = s.replace(INVISIBLE, "");
  // NFKC leaves ASCII as it is: a line of ASCII with zero-width characters in it skips the normaliser.
  return NON_ASCII.test(v) ? v.normalize("NFKC") : v;
}
const NON_ASCII = /[^\x00-\x7f]/;

export const hasInvisible = (s: string): boolean => {
  INVISIBLE.lastIndex = 0;
  const r = INVISIBLE.test(s);
  INVISIBLE.lastIndex = 0;
  return r;
};

export const EXCERPT_MAX = 200;

/**
 * A short excerpt of `line` around the match at [start, start + length), with hidden characters
 * made visible and long lines cut with an ellipsis on either side.
 */
export function excerpt(line: string, start = 0, length = 0): string {
  // Cut first, then clean: the cost is the excerpt's, not the line's (a line can be megabytes long).
  if (line.length <= EXCERPT_MAX) return visible(line.replace(/\t/g, " ").trim());
  const center = start + Math.floor(length / 2);
  let from = Math.max(0, center - EXCERPT_MAX / 2);
  const to = Math.min(line.length, from + EXCERPT_MAX);
  from = Math.max(0, to - EXCERPT_MAX);
  return `${from > 0 ? "…" : ""}${visible(line.slice(from, to).replace(/\t/g, " ").trim())}${to < line.length ? "…" : ""}`;
}
