/**
 * Hidden Unicode: characters that render as nothing (or reorder what renders) but that a model
 * reads. Published attacks use them to smuggle instructions past a human reviewer:
 *   - tag characters U+E0000–U+E007F mirror ASCII invisibly ("ASCII smuggling");
 *   - bidi controls reorder displayed text ("Trojan Source", CVE-2021-42574);
 *   - zero-width characters split keywords past filters or encode bits;
 *   - variation selectors U+FE00–FE0F / U+E0100–E01EF can carry one byte each after any character;
 *   - a byte-order mark in the middle of a text is invisible too.
 * `findHiddenUnicode` reports runs of them, decoding what tag characters and variation selectors
 * carry, so the caller can scan the hidden text like any other.
 */

export type HiddenKind = "tag" | "bidi" | "zero-width" | "variation-selector" | "bom";

export interface HiddenRun {
  kind: HiddenKind;
  /** UTF-16 offset of the run's first character, and its length in UTF-16 units. */
  offset: number;
  length: number;
  /** Characters in the run (code points). */
  count: number;
  /** What the run carries, when it encodes text (tag characters, variation-selector bytes). */
  decoded?: string;
  /**
   * A zero-width joiner or non-joiner where scripts need them (inside emoji sequences, between
   * letters of Arabic or Indic scripts): typography, not hiding.
   */
  benign?: boolean;
}

const BIDI = new Set([0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x180e]);

function kindOf(cp: number, offset: number): HiddenKind | null {
  if (cp >= 0xe0000 && cp <= 0xe007f) return "tag";
  if (BIDI.has(cp)) return "bidi";
  if (ZERO_WIDTH.has(cp)) return "zero-width";
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) return "variation-selector";
  if (cp === 0xfeff && offset > 0) return "bom";
  return null;
}

// Scripts where ZWJ/ZWNJ shape letters, and pictographs where ZWJ builds emoji sequences.
const JOINING_CONTEXT =
  /[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Hebrew}\p{Script=Thaana}\p{Script=Mongolian}\uFE0F]/u;

const EMOJI_BASE = /[\p{Extended_Pictographic}\p{Emoji}]/u;

function codePointBefore(text: string, offset: number): string {
  if (offset <= 0) return "";
  const low = text.charCodeAt(offset - 1);
  if (low >= 0xdc00 && low <= 0xdfff && offset >= 2) return text.slice(offset - 2, offset);
  return text.slice(offset - 1, offset);
}

/** Byte a variation selector carries: VS1–16 → 0–15, VS17–256 → 16–255 (the "emoji smuggling" scheme). */
const vsByte = (cp: number): number => (cp <= 0xfe0f ? cp - 0xfe00 : cp - 0xe0100 + 16);

/** Any character `kindOf` reports (a BOM counts wherever it is): texts without one need no walk. */
const ANY_HIDDEN = /[\u180E\u200B-\u200D\u2060-\u2064\u202A-\u202E\u2066-\u2069\uFE00-\uFE0F\uFEFF]|\uDB40[\uDC00-\uDDEF]/;

/** A stretch of characters `ANY_HIDDEN` matches: every character `kindOf` reports lies in one. */
const HIDDEN_STRETCH = new RegExp(`(?:${ANY_HIDDEN.source})+`, "g");

export interface HiddenOptions {
  /** Only these kinds are returned (the others are still walked past). */
  only?: readonly HiddenKind[];
  /** At most this many runs are returned. */
  max?: number;
}

/**
 * Runs of hidden characters. A flood of them (a megabyte of zero-width spaces) is one walk: runs are
 * objects only up to `max`, and kinds outside `only` are never built.
 */
export function findHiddenUnicode(text: string, opts: HiddenOptions = {}): HiddenRun[] {
  if (!ANY_HIDDEN.test(text)) return [];
  const runs: HiddenRun[] = [];
  const max = opts.max ?? Infinity;
  const only = opts.only ? new Set(opts.only) : null;
  let current: (HiddenRun & { cps: number[] }) | null = null;
  const close = () => {
    if (!current) return;
    if (runs.length >= max || (only && !only.has(current.kind))) {
      current = null;
      return;
    }
    const { cps, ...run } = current;
    if (run.kind === "tag") {
      // Tag characters mirror ASCII (U+E0020–E007E); U+E0001 and U+E007F are begin/cancel markers.
      run.decoded = cps
        .filter((c) => c >= 0xe0020 && c <= 0xe007e)
        .map((c) => String.fromCharCode(c - 0xe0000))
        .join("");
    } else if (run.kind === "variation-selector") {
      const before = codePointBefore(text, run.offset);
      // One selector after an emoji or CJK ideograph is ordinary presentation (❤️, 葛󠄀).
      if (run.count === 1 && (EMOJI_BASE.test(before) || /\p{Script=Han}/u.test(before))) run.benign = true;
      if (run.count >= 2) {
        const bytes = Uint8Array.from(cps.map(vsByte));
        const s = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(bytes);
        if (printableRatio(s) > 0.9) run.decoded = s;
      }
    } else if (run.kind === "zero-width" && run.count === 1) {
      const cp = cps[0]!;
      if (cp === 0x200c || cp === 0x200d) {
        const before = codePointBefore(text, run.offset);
        const after = String.fromCodePoint(text.codePointAt(run.offset + run.length) ?? 0x20);
        if (JOINING_CONTEXT.test(before) || JOINING_CONTEXT.test(after)) run.benign = true;
      }
    }
    runs.push(run);
    current = null;
  };
  // Only stretches of hidden characters are walked (the regex skips the visible text between
  // them); a visible character between two stretches ends any run, as it does in a full walk.
  HIDDEN_STRETCH.lastIndex = 0;
  for (let m = HIDDEN_STRETCH.exec(text); m && runs.length < max; m = HIDDEN_STRETCH.exec(text)) {
    close();
    const end = m.index + m[0].length;
    for (let i = m.index; i < end; ) {
      if (runs.length >= max) break;
      const cp = text.codePointAt(i)!;
      const size = cp > 0xffff ? 2 : 1;
      const kind = kindOf(cp, i);
      if (kind && current && current.kind === kind && current.offset + current.length === i) {
        current.length += size;
        current.count++;
        if (kind === "tag" || kind === "variation-selector" || current.cps.length < 2) current.cps.push(cp);
      } else {
        close();
        if (kind) current = { kind, offset: i, length: size, count: 1, cps: [cp] };
      }
      i += size;
    }
  }
  close();
  return runs;
}

/** Share of characters that are printable text (letters, digits, punctuation, spaces, line breaks). */
export function printableRatio(s: string): number {
  if (s.length === 0) return 0;
  let ok = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 9 || c === 10 || c === 13 || (c >= 0x20 && c < 0x7f) || (c >= 0xa0 && c !== 0xfffd)) ok++;
  }
  return ok / [...s].length;
}
