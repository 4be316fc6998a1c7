/**
 * Trigger words: a cheap first pass that tells the engine which lines a rule can fire on at all.
 * A rule that declares `triggers` (lowercase literals, at least one of which occurs in every line
 * the rule can flag) is only run on lines that contain one; every trigger of every rule is found in
 * one pass of one regular expression over the lowercased text. This is what keeps a 5 MiB skill a
 * fraction of a second instead of running hundreds of regular expressions on every line.
 *
 * A trigger is a plain substring, or, written with a leading `\b`, a substring that starts a word
 * (the character before it is not a letter, digit or underscore). Triggers never change what a rule
 * finds: they must be a necessary condition of its `line` (test/skills/scanner.test.ts checks every hit of
 * the corpus against them, and the whole corpus gated against ungated).
 */
import { RecentByText, type LineIndex } from "./text";

interface Literal {
  text: string;
  /** Must start a word (only when no owner wants it as a plain substring). */
  wordStart: boolean;
  owners: number[];
  /** The owners as a bit mask (owner k is bit k % 32 of word k >> 5): a line's owners are the OR of its literals' masks. */
  mask: Int32Array;
}

export interface Compiled {
  /** Literals of two or more units by their first two (lowered) units when both are ASCII: a 16 Ki-entry table of bucket numbers + 1. */
  asciiPairs: Int32Array;
  buckets: Literal[][];
  /** The same for pairs with a non-ASCII unit (CJK and Cyrillic triggers). */
  otherPairs: Map<number, Literal[]>;
  /** One-unit literals by their unit. */
  singles: Map<number, Literal[]>;
  singleFlags: Uint8Array;
  /** Lowered units some literal starts with: a position whose unit starts none is passed over at one read. */
  firstFlags: Uint8Array;
  hasOther: boolean;
  /** Hashes of the first two lowered units of literals with a non-ASCII unit (text in other scripts mostly starts none). */
  otherFlags: Uint8Array;
  /** Two-unit ASCII literals by pair (a sparse table: most pairs start none). */
  twoFlags: Uint8Array;
  /** Hashes of the first three lowered units of every longer literal: most positions of any text start none. */
  triFlags: Uint8Array;
  /** The pass's index (built on its first use): see `passIndex`. */
  pass?: PassIndex;
  /** Words of an owner mask (set on the first `ownersIn`). */
  words?: number;
}

/**
 * For the pass over whole texts: ASCII-pair literals by their first three units, so a position
 * tries only the literals that start with its own three (a pair's bucket held up to three dozen,
 * and a page of prose tried 45 literals for every one it found). Two-unit literals keep a bucket of
 * their own; a literal whose second unit is a space is also filed under a run of spaces.
 */
interface PassIndex {
  /** Two-unit ASCII literals by pair: bucket numbers + 1 into `buckets`. */
  pairs: Int32Array;
  /** Longer ASCII-pair literals by `triHash`: bucket numbers + 1 into `buckets`. */
  tris: Int32Array;
  buckets: Literal[][];
}

function passIndex(compiled: Compiled): PassIndex {
  if (compiled.pass) return compiled.pass;
  const index: PassIndex = { pairs: new Int32Array(1 << 14), tris: new Int32Array(1 << TRI_BITS), buckets: [] };
  const file = (table: Int32Array, k: number, lit: Literal) => {
    if (!table[k]) table[k] = index.buckets.push([]);
    index.buckets[table[k]! - 1]!.push(lit);
  };
  for (const bucket of compiled.buckets) {
    for (const lit of bucket) {
      const [a, b] = [lit.text.charCodeAt(0), lit.text.charCodeAt(1)];
      if (lit.text.length === 2) {
        file(index.pairs, (a << 7) | b, lit);
        continue;
      }
      file(index.tris, triHash(a, b, lit.text.charCodeAt(2)), lit);
      if (b === SPACE && lit.text.charCodeAt(2) !== SPACE) file(index.tris, triHash(a, b, SPACE), lit);
    }
  }
  return (compiled.pass = index);
}

const otherHash = (a: number, b: number) => (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) >>> 16;
const TRI_BITS = 18;
const TRI_MASK = (1 << TRI_BITS) - 1;
const triHash = (a: number, b: number, c: number) => (Math.imul(Math.imul(a, 0x9e3779b1) ^ b, 0x85ebca6b) ^ c) & TRI_MASK;

let LOWER: Uint16Array | null = null;
const SPACE = 32;
/**
 * Each UTF-16 unit lowercased when that gives one unit (A→a, И→и), else itself: the folding
 * regexes' `i` flag does. Every unit `\s` matches (tab, newline, no-break and ideographic spaces…)
 * becomes a space, and a space in a trigger matches a whole run of them: the rules write `\s+`
 * where a trigger writes one space, so "do\u00A0 not tell" cannot slip past the trigger "do not".
 */
function lowerTable(): Uint16Array {
  if (LOWER) return LOWER;
  const t = new Uint16Array(65536);
  for (let c = 0; c < 65536; c++) {
    const ch = String.fromCharCode(c);
    const l = c >= 0xd800 && c <= 0xdfff ? ch : ch.toLowerCase();
    t[c] = /^\s$/.test(ch) ? SPACE : l.length === 1 ? l.charCodeAt(0) : c;
  }
  return (LOWER = t);
}

/** Whether `lit` occurs at `i` of `text` (its first unit already matched; a space in it takes a run of white space). */
function matchAt(L: Uint16Array, text: string, i: number, lit: string): boolean {
  const n = text.length;
  const len = lit.length;
  let j = i + 1;
  for (let k = 1; k < len; k++) {
    if (j >= n) return false;
    const c = L[text.charCodeAt(j)]!;
    if (c !== lit.charCodeAt(k)) return false;
    j++;
    if (c === SPACE) while (j < n && L[text.charCodeAt(j)] === SPACE) j++;
  }
  return true;
}

/** Lowercases a string the way triggers are matched (unit by unit), so offsets stay those of the original. */
export function asciiLower(s: string): string {
  const t = lowerTable();
  let out = "";
  for (let i = 0; i < s.length; i += 4096) out += String.fromCharCode(...Array.from(s.slice(i, i + 4096), (c) => t[c.charCodeAt(0)]!));
  return out;
}

const isWordUnit = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

/**
 * Compiles trigger lists (one per owner). Every literal is checked at every position where its
 * first two units occur, so a position reports the owners of all literals found there.
 */
export function compileTriggers(lists: readonly (readonly string[] | undefined)[]): Compiled {
  const byText = new Map<string, { owners: Set<number>; wordStart: boolean; plain: boolean }>();
  lists.forEach((list, owner) => {
    for (const t of list ?? []) {
      const wordStart = t.startsWith("\\b");
      const text = asciiLower(wordStart ? t.slice(2) : t);
      if (!text) throw new Error(`empty trigger for owner ${owner}`);
      const e = byText.get(text) ?? { owners: new Set<number>(), wordStart: false, plain: false };
      e.owners.add(owner);
      if (wordStart) e.wordStart = true;
      else e.plain = true;
      byText.set(text, e);
    }
  });
  const compiled: Compiled = {
    asciiPairs: new Int32Array(1 << 14),
    buckets: [],
    otherPairs: new Map(),
    singles: new Map(),
    singleFlags: new Uint8Array(65536),
    firstFlags: new Uint8Array(65536),
    hasOther: false,
    otherFlags: new Uint8Array(1 << 16),
    twoFlags: new Uint8Array(1 << 14),
    triFlags: new Uint8Array(1 << TRI_BITS),
  };
  const words = Math.max(1, Math.ceil(lists.length / 32));
  for (const [text, e] of byText) {
    const mask = new Int32Array(words);
    for (const o of e.owners) mask[o >> 5]! |= 1 << (o & 31);
    const lit: Literal = { text, wordStart: !e.plain && isWordUnit(text.charCodeAt(0)), owners: [...e.owners], mask };
    const a = text.charCodeAt(0);
    compiled.firstFlags[a] = 1;
    if (text.length === 1) {
      compiled.singles.set(a, [...(compiled.singles.get(a) ?? []), lit]);
      compiled.singleFlags[a] = 1;
      continue;
    }
    if (a === SPACE) throw new Error(`trigger starts with white space: ${JSON.stringify(text)}`);
    const b = text.charCodeAt(1);
    if (text.length === 2 && a < 128 && b < 128) compiled.twoFlags[(a << 7) | b] = 1;
    if (text.length >= 3) compiled.triFlags[triHash(a, b, text.charCodeAt(2))] = 1;
    // "x y": at a run of spaces the text's third unit is a space too.
    if (text.length >= 3 && b === SPACE) compiled.triFlags[triHash(a, b, SPACE)] = 1;
    if (text.length === 2 && (a >= 128 || b >= 128)) compiled.hasOther = true;
    if (a < 128 && b < 128) {
      const k = (a << 7) | b;
      if (!compiled.asciiPairs[k]) compiled.asciiPairs[k] = compiled.buckets.push([]);
      compiled.buckets[compiled.asciiPairs[k]! - 1]!.push(lit);
    } else {
      const k = a * 65536 + b;
      compiled.otherPairs.set(k, [...(compiled.otherPairs.get(k) ?? []), lit]);
      compiled.hasOther = true;
      compiled.otherFlags[otherHash(a, b)] = 1;
    }
  }
  return compiled;
}

/**
 * Calls `found(offset, owners)` for each position of `text` where triggers occur, with the owners
 * of every trigger found there; `found` returning true stops the search.
 */
export function eachTrigger(compiled: Compiled, text: string, found: (offset: number, owners: readonly number[]) => boolean | void): void {
  let at = -1;
  let owners: number[] | null = null;
  let stopped = false;
  eachLiteral(compiled, text, (i, lit) => {
    if (i !== at) {
      if (owners && found(at, owners) === true) return (stopped = true);
      at = i;
      owners = null;
    }
    (owners ??= []).push(...lit.owners);
  });
  if (owners && !stopped) found(at, owners);
}

/**
 * Calls `found(offset, literal)` once per trigger literal found, in order of offset; `found`
 * returning true stops the search. The one loop every search of a short text goes through.
 */
function eachLiteral(compiled: Compiled, text: string, found: (offset: number, lit: Literal) => boolean | void): void {
  const L = lowerTable();
  const { singleFlags, twoFlags, triFlags, hasOther, otherFlags, asciiPairs, buckets, otherPairs, singles } = compiled;
  const n = text.length;
  if (n === 0) return;
  let a = L[text.charCodeAt(0)]!;
  let b = n > 1 ? L[text.charCodeAt(1)]! : -1;
  for (let i = 0; i < n; i++) {
    const c = i + 2 < n ? L[text.charCodeAt(i + 2)]! : -1;
    // Most positions end here: no one-unit trigger, no two-unit trigger, and no longer trigger starts with these three units.
    if (
      singleFlags[a] !== 0 ||
      (b >= 0 && (a < 128 && b < 128 ? twoFlags[(a << 7) | b] !== 0 : hasOther && otherFlags[otherHash(a, b)] !== 0)) ||
      (c >= 0 && triFlags[(Math.imul(Math.imul(a, 0x9e3779b1) ^ b, 0x85ebca6b) ^ c) & TRI_MASK] !== 0)
    ) {
      const wordStart = i === 0 || !isWordUnit(text.charCodeAt(i - 1));
      if (singleFlags[a]) for (const lit of singles.get(a)!) if ((!lit.wordStart || wordStart) && found(i, lit) === true) return;
      if (b >= 0) {
        const bucket =
          a < 128 && b < 128
            ? asciiPairs[(a << 7) | b]
              ? buckets[asciiPairs[(a << 7) | b]! - 1]
              : undefined
            : otherPairs.get(a * 65536 + b);
        if (bucket) {
          for (const lit of bucket) {
            if (lit.wordStart && !wordStart) continue;
            if (matchAt(L, text, i, lit.text) && found(i, lit) === true) return;
          }
        }
      }
    }
    a = b;
    b = c;
  }
}

const single = new WeakMap<readonly string[], Compiled>();

// One pass per text for every trigger list in use: the lists register themselves on first use,
// and a text's line sets are kept with its LineIndex, so the engine and every rule that looks at
// the same text share a single pass.
const registry: (readonly string[])[] = [];
const registered = new Map<readonly string[], number>();
let compiledAll: Compiled | null = null;
/**
 * The lines (1-based, ascending) that hold a trigger of one list: a sorted array, not a Set. A
 * pass over a 5 MiB text adds hundreds of thousands of (line, list) pairs, and a Set entry per
 * pair was most of the pass's cost and its garbage.
 */
export interface LineSet {
  readonly size: number;
  has(line: number): boolean;
  [Symbol.iterator](): Iterator<number>;
}

class SortedLines implements LineSet {
  readonly list: number[] = [];
  private at = 0;
  get size(): number {
    return this.list.length;
  }
  has(line: number): boolean {
    const xs = this.list;
    // Callers mostly ask in ascending order: a few steps on from the last answer, else a binary search.
    let i = this.at;
    if (i < xs.length && xs[i]! <= line) {
      for (let k = 0; k < 8 && i + 1 < xs.length && xs[i + 1]! <= line; k++) i++;
      if (xs[i] === line) {
        this.at = i;
        return true;
      }
      if (i + 1 >= xs.length || xs[i + 1]! > line) {
        this.at = i;
        return false;
      }
    }
    let lo = 0;
    let hi = xs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = xs[mid]!;
      if (v === line) {
        this.at = mid;
        return true;
      }
      if (v < line) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
  [Symbol.iterator](): Iterator<number> {
    return this.list[Symbol.iterator]();
  }
}

/** The set of a list no line of the text holds (never written to: `has` on it changes nothing). */
const NO_LINES = new SortedLines();

/** Each text's pass, kept with its line index (which the engine hands to every rule of that text) and dropped with it. */
const passes = new WeakMap<LineIndex, { text: string; size: number; sets: SortedLines[] }>();

function ownerOf(list: readonly string[]): number {
  let i = registered.get(list);
  if (i === undefined) {
    registered.set(list, (i = registry.push(list) - 1));
    compiledAll = null;
  }
  return i;
}

/** Recent texts' passes, by the text itself: rules that build their own line index for the same text share them. */
const recentPasses = new RecentByText<{ text: string; size: number; sets: SortedLines[] }>();

/** Compiled trigger lists registered from `from` on (a pass over a text that lacks only the newest lists runs just those). */
const deltas = new Map<number, Compiled>();

/**
 * The loop of `eachLiteral` with the pass's index (by three units: `passIndex`), written out for
 * the passes that read every unit of every text a scan sees: nothing is called per position, only
 * `hit` per literal found, in text order. passFor keeps each hit's line; ownersIn ORs its owners.
 */
function eachPassLiteral(compiled: Compiled, text: string, hit: (i: number, lit: Literal) => void): void {
  const L = lowerTable();
  const { singleFlags, firstFlags, hasOther, otherFlags, otherPairs, singles } = compiled;
  const { pairs, tris, buckets } = passIndex(compiled);
  const n = text.length;
  // A bucket by hash may hold literals of other first units: matchAt reads from the second.
  const tryBucket = (bucket: Literal[], i: number, a: number, wordStart: boolean) => {
    for (const lit of bucket) {
      if ((lit.wordStart && !wordStart) || lit.text.charCodeAt(0) !== a) continue;
      if (matchAt(L, text, i, lit.text)) hit(i, lit);
    }
  };
  if (n > 0) {
    let a = L[text.charCodeAt(0)]!;
    let b = n > 1 ? L[text.charCodeAt(1)]! : -1;
    for (let i = 0; i < n; i++) {
      const c = i + 2 < n ? L[text.charCodeAt(i + 2)]! : -1;
      if (firstFlags[a] === 0) {
        a = b;
        b = c;
        continue;
      }
      // Most positions end at the first tests: no literal starts with these two or three units (and none is one unit long).
      const ascii = a < 128 && b >= 0 && b < 128;
      const two = ascii ? pairs[(a << 7) | b]! : 0;
      const tri = c >= 0 ? tris[(Math.imul(Math.imul(a, 0x9e3779b1) ^ b, 0x85ebca6b) ^ c) & TRI_MASK]! : 0;
      if (singleFlags[a] !== 0 || two !== 0 || (ascii ? tri !== 0 : b >= 0 && hasOther && otherFlags[otherHash(a, b)] !== 0)) {
        const wordStart = i === 0 || !isWordUnit(text.charCodeAt(i - 1));
        if (singleFlags[a]) for (const lit of singles.get(a)!) if (!lit.wordStart || wordStart) hit(i, lit);
        if (ascii) {
          if (two) tryBucket(buckets[two - 1]!, i, a, wordStart);
          if (tri) tryBucket(buckets[tri - 1]!, i, a, wordStart);
        } else if (b >= 0) {
          const bucket = otherPairs.get(a * 65536 + b);
          if (bucket) tryBucket(bucket, i, a, wordStart);
        }
      }
      a = b;
      b = c;
    }
  }
}

function passFor(text: string, lines: LineIndex): SortedLines[] {
  let entry = lines.text === text ? passes.get(lines) : undefined;
  if (!entry && lines.text === text) entry = recentPasses.get(text);
  if (entry && entry.size === registry.length) return entry.sets;
  // Lists register on first use: scan only for the ones this text has not been scanned for yet.
  const from = entry ? entry.size : 0;
  let compiled: Compiled;
  if (from === 0) compiled = compiledAll ??= compileTriggers(registry);
  else {
    const key = from * 100_000 + registry.length;
    let c = deltas.get(key);
    if (!c) deltas.set(key, (c = compileTriggers(registry.slice(from))));
    compiled = c;
  }
  const sets = entry ? entry.sets : [];
  // Lists no line holds share one empty set: a scan of thousands of short texts (an MCP server's
  // schema strings) otherwise made an object per registered list per text.
  for (let i = sets.length; i < registry.length; i++) sets.push(NO_LINES);
  // Per line, the OR of its literals' owner masks; each (line, owner) pair is added to a list once.
  const words = Math.max(1, Math.ceil((registry.length - from) / 32));
  const cur = new Int32Array(words);
  let curLine = -1;
  let dirty = false;
  const flush = () => {
    if (!dirty) return;
    dirty = false;
    for (let w = 0; w < words; w++) {
      let x = cur[w]!;
      while (x !== 0) {
        const low = x & -x;
        // Lines arrive in ascending order, each flushed once: every list stays sorted and distinct.
        const k = from + w * 32 + (31 - Math.clz32(low));
        let set = sets[k]!;
        if (set === NO_LINES) sets[k] = set = new SortedLines();
        set.list.push(curLine);
        x ^= low;
      }
      cur[w] = 0;
    }
  };
  // Hits arrive in text order: the line is kept by a running bound (no search per literal).
  const lineCount = lines.count;
  let nextStart = 0;
  curLine = 0;
  const found = (i: number, lit: Literal) => {
    if (i >= nextStart) {
      flush();
      // The line holding offset i (lines of `lines`; past its last line, the last line).
      if (curLine >= lineCount || i >= lines.startOf(curLine + 2)) curLine = lines.lineOf(i);
      else curLine++;
      nextStart = curLine < lineCount ? lines.startOf(curLine + 1) : Infinity;
    }
    const m = lit.mask;
    for (let w = 0; w < words; w++) cur[w]! |= m[w]!;
    dirty = true;
  };
  eachPassLiteral(compiled, text, found);
  flush();
  const next = { text, size: registry.length, sets };
  if (lines.text === text) {
    passes.set(lines, next);
    recentPasses.set(text, next);
  }
  return sets;
}

/**
 * The lines of both sets, ascending and distinct: a merge of two sorted lists, where a Set of both
 * and a sort made garbage and n log n comparisons on a text of 100,000 marked lines.
 */
export function unionLines(a: LineSet, b: LineSet): number[] {
  const xs = [...a];
  const ys = [...b];
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < xs.length || j < ys.length) {
    const x = i < xs.length ? xs[i]! : Infinity;
    const y = j < ys.length ? ys[j]! : Infinity;
    if (x <= y) {
      out.push(x);
      i++;
      if (x === y) j++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

/** Lines (1-based) of `text` that contain one of `triggers` (pass the same array each time: it is cached by identity). */
export function triggerLines(text: string, lines: LineIndex, triggers: readonly string[]): LineSet {
  const owner = ownerOf(triggers);
  return passFor(text, lines)[owner]!;
}

/** Registry numbers of a caller's lists (callers pass the same array each time). */
const ownersOfLists = new WeakMap<readonly (readonly string[])[], number[]>();

/** For each list of triggers, the lines of `text` that contain one of them (pass the same array of lists each time). */
export function triggerLineSets(text: string, lines: LineIndex, lists: readonly (readonly string[])[]): LineSet[] {
  let owners = ownersOfLists.get(lists);
  if (!owners) ownersOfLists.set(lists, (owners = lists.map(ownerOf)));
  const sets = passFor(text, lines);
  return owners.map((o) => sets[o]!);
}

/** Whether `text` contains one of `triggers`. */
export function hasTrigger(text: string, triggers: readonly string[]): boolean {
  let compiled = single.get(triggers);
  if (!compiled) single.set(triggers, (compiled = compileTriggers([triggers])));
  let hit = false;
  eachLiteral(compiled, text, () => (hit = true));
  return hit;
}

/** Which owners a text holds triggers of. */
export interface Owners {
  has(owner: number): boolean;
}

class OwnerBits implements Owners {
  constructor(private readonly bits: Int32Array) {}
  has(owner: number): boolean {
    const w = owner >> 5;
    return w < this.bits.length && (this.bits[w]! & (1 << (owner & 31))) !== 0;
  }
}

/**
 * Rules by index whose triggers occur in `text` (a short text: a line, a window of one), as the OR
 * of the found literals' owner masks. The loop of `passFor` (its index by three units, nothing
 * called per position) without the lines: the engine asks it of every window of a long line and
 * every folded line, and a Set filled owner by owner through a callback per literal cost more than
 * the rules it gated on a text of zero-width-split lines.
 */
export function ownersIn(compiled: Compiled, text: string): Owners {
  if (compiled.words === undefined) {
    let words = 1;
    for (const bucket of compiled.buckets) for (const lit of bucket) words = Math.max(words, lit.mask.length);
    for (const list of compiled.singles.values()) for (const lit of list) words = Math.max(words, lit.mask.length);
    for (const list of compiled.otherPairs.values()) for (const lit of list) words = Math.max(words, lit.mask.length);
    compiled.words = words;
  }
  const bits = new Int32Array(compiled.words);
  eachPassLiteral(compiled, text, (_i, lit) => {
    const m = lit.mask;
    for (let w = 0; w < m.length; w++) bits[w]! |= m[w]!;
  });
  return new OwnerBits(bits);
}
