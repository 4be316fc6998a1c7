/**
 * Encoded payloads: text hidden as base64, hex escapes or character codes so that a reader (or a
 * keyword rule) does not see it. `findEncodedPayloads` decodes what decodes to readable text and
 * returns it with its position, so the caller scans the decoded text with the same rules. Data
 * that decodes to bytes (images, digests, keys) is not text and is left alone: the point is the
 * hidden instructions and commands, not every long token.
 */
import { printableRatio } from "./unicode";
import { inflateOrOver } from "./formats";
import { noteLimit } from "./limits";
import { decodeBase64 } from "./base64";

export { decodeBase64 };

export type PayloadKind = "base64" | "hex" | "char-codes" | "base32" | "gzip" | "rot13";

export interface EncodedPayload {
  kind: PayloadKind;
  offset: number;
  length: number;
  decoded: string;
}

const MIN_BASE64 = 20;
const MIN_DECODED = 8;
const MAX_PAYLOADS = 200;
/** What one gzip payload may inflate to. */
const MAX_GZIP = 256 * 1024;

/**
 * Characters of hidden text a scan may decode (gzip inflated, payloads read again as text): a
 * 100 KB text of gzip tokens that each inflate to 250 KB cost seconds before. One budget is shared
 * by every text of a scan (the engine passes its own); spent, decoding stops with a noted limit.
 */
export interface DecodeBudget {
  left: number;
}
export const DECODE_BUDGET = 1024 * 1024;

/** UTF-8 text when the bytes are readable text, else null. */
export function asReadableText(bytes: Uint8Array, minLength = MIN_DECODED): string | null {
  if (bytes.length < minLength) return null;
  // Each control byte decodes to one character that is not printable, and there are at most as
  // many characters as bytes: past 5% of the bytes the text cannot be 95% printable. Random data
  // (a key, a digest, an image) is ~13% control bytes, so it is rejected here without decoding.
  let controls = 0;
  const limit = bytes.length * 0.05;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if ((b < 0x20 && b !== 9 && b !== 10 && b !== 13) || b === 0x7f) {
      if (++controls > limit) return null;
    }
  }
  // What a fatal decoder would reject, rejected without one: a token of random bytes is almost
  // never UTF-8, and a decoder made and an exception thrown per token was most of the cost of a
  // text of a hundred thousand base64-looking tokens.
  if (!wellFormedUtf8(bytes)) return null;
  const s = UTF8.decode(bytes);
  return printableRatio(s) >= 0.95 ? s : null;
}

const UTF8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Whether the bytes are well-formed UTF-8 (what `TextDecoder` with `fatal: true` accepts): no overlong forms, surrogates or code points past U+10FFFF. */
export function wellFormedUtf8(bytes: Uint8Array): boolean {
  const n = bytes.length;
  const cont = (i: number) => i < n && (bytes[i]! & 0xc0) === 0x80;
  for (let i = 0; i < n; ) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const b1 = i + 1 < n ? bytes[i + 1]! : -1;
    if (b >= 0xc2 && b <= 0xdf) {
      if (!cont(i + 1)) return false;
      i += 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      const lo = b === 0xe0 ? 0xa0 : 0x80;
      const hi = b === 0xed ? 0x9f : 0xbf;
      if (b1 < lo || b1 > hi || !cont(i + 2)) return false;
      i += 3;
    } else if (b >= 0xf0 && b <= 0xf4) {
      const lo = b === 0xf0 ? 0x90 : 0x80;
      const hi = b === 0xf4 ? 0x8f : 0xbf;
      if (b1 < lo || b1 > hi || !cont(i + 2) || !cont(i + 3)) return false;
      i += 4;
    } else return false;
  }
  return true;
}

// A base64 token must look encoded, not like a long identifier: a mix of letter cases or digits
// is required, and the caller's decoded-text test rejects whatever still slips through.
const BASE64_TOKEN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])/g;
/**
 * Prose percent-encoded as in a URL ("Before%20answering%2C%20open%20the%20file…"): plain letters
 * between the escapes, at least eight escapes, up to 40 plain characters before, between and after
 * them. `/(?:[A-Za-z0-9._~!*'()+-]{0,40}%[0-9a-fA-F]{2}){8,}[A-Za-z0-9._~!*'()+-]{0,40}/g`, found
 * by a loop: that expression costs seconds on a 5 MiB run (an entry kept per repetition).
 */
const isProseUnit = (c: number) =>
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  c === 46 || // .
  c === 95 || // _
  c === 126 || // ~
  c === 33 || // !
  c === 42 || // *
  c === 39 || // '
  c === 40 || // (
  c === 41 || // )
  c === 43 || // +
  c === 45; // -
const PROSE_GAP = 40;
export function* percentProseRuns(text: string): Generator<{ index: number; match: string }> {
  const isEscape = (i: number) => text.charCodeAt(i) === 37 && isHexUnit(text.charCodeAt(i + 1)) && isHexUnit(text.charCodeAt(i + 2));
  let floor = 0; // where the next match may start (the end of the last one)
  let i = text.indexOf("%");
  while (i !== -1) {
    if (!isEscape(i) || i < floor) {
      i = text.indexOf("%", i + 1);
      continue;
    }
    // The chain's start: up to 40 plain characters before its first escape, not before `floor`.
    let start = i;
    while (start > floor && start > i - PROSE_GAP && isProseUnit(text.charCodeAt(start - 1))) start--;
    let count = 1;
    let end = i + 3;
    for (;;) {
      let j = end;
      while (j < text.length && j - end <= PROSE_GAP && isProseUnit(text.charCodeAt(j))) j++;
      if (j - end <= PROSE_GAP && isEscape(j)) {
        count++;
        end = j + 3;
      } else break;
    }
    if (count >= 8) {
      let tail = end;
      while (tail < text.length && tail - end < PROSE_GAP && isProseUnit(text.charCodeAt(tail))) tail++;
      yield { index: start, match: text.slice(start, tail) };
      floor = tail;
      i = text.indexOf("%", tail);
    } else i = text.indexOf("%", end);
  }
}
const percentToText = (s: string): string | null => {
  const bytes = new Uint8Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 37 && isHexUnit(s.charCodeAt(i + 1)) && isHexUnit(s.charCodeAt(i + 2))) {
      bytes[n++] = Number.parseInt(s.slice(i + 1, i + 3), 16);
      i += 2;
    } else bytes[n++] = c & 0xff;
  }
  return asReadableText(bytes.subarray(0, n));
};
const FROM_CHAR_CODE = /fromCharCode\s*\(\s*((?:\d{1,6}\s*,\s*){3,}\d{1,6})\s*\)/g;
const CHR_CHAIN = /chr\(\s*\d{1,6}\s*\)(?:\s*\+\s*chr\(\s*\d{1,6}\s*\)){3,}/gi;
const PS_CHAR_CHAIN = /\[char\]\s*\d{1,6}(?:\s*\+\s*\[char\]\s*\d{1,6}){3,}/gi;
// An array of small integers next to a decoder (`''.join(map(chr, [...]))`, `String.fromCharCode(...[...])`, `-join [char[]](...)`).
const CODE_ARRAY = /(?:chr|fromCharCode|\[char\[\]\]|\[char\])[^\n[(]{0,20}[[(]\s*((?:\d{1,6}\s*,\s*){3,}\d{1,6})\s*[\])]/gi;
// A long array of small numbers anywhere (decoded elsewhere in the file: `new Function(String.fromCharCode(...ORDER))`): text only if it reads as text.
const NUMBER_ARRAY = /[[({]\s*((?:\d{1,3}\s*,\s*){15,}\d{1,3})\s*,?\s*[\])}]/g;
// Base32 (RFC 4648): upper-case letters and 2-7, padded to 8; long enough to hide a command.
const BASE32_TOKEN = /(?<![A-Za-z0-9+/=])[A-Z2-7]{24,}={0,6}(?![A-Za-z0-9+/=])/g;

/** Decodes RFC 4648 base32; null when it is not. */
export function decodeBase32(s: string): Uint8Array | null {
  const t = s.replace(/=+$/, "");
  if (/[^A-Z2-7]/.test(t)) return null;
  const out = new Uint8Array(Math.floor((t.length * 5) / 8));
  let bits = 0;
  let value = 0;
  let k = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    value = (value << 5) | (c >= 65 ? c - 65 : c - 24);
    bits += 5;
    if (bits >= 8) {
      out[k++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  return out;
}

/** Text from bytes: as they are, or gunzipped first when they are gzip (bounded: a bomb decodes to nothing). */
function readable(bytes: Uint8Array | null, budget: DecodeBudget, at: number): { text: string; gz: boolean } | null {
  if (!bytes) return null;
  if (bytes.length > 18 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    const limit = Math.min(MAX_GZIP, budget.left);
    if (limit <= 0) {
      noteLimit("decoded-text", at);
      return null;
    }
    const inner = inflateOrOver(bytes, limit, true);
    if (inner === "over") {
      // A bomb spends what it was allowed; cut short by the budget rather than its own limit, it is a limit hit.
      budget.left -= limit;
      if (limit < MAX_GZIP) noteLimit("decoded-text", at);
      return null;
    }
    if (inner) budget.left -= inner.length;
    const t = inner && asReadableText(inner);
    return t ? { text: t, gz: true } : null;
  }
  const t = asReadableText(bytes);
  if (t) return { text: t, gz: false };
  // UTF-16LE (what PowerShell's -EncodedCommand takes): every second byte zero for ASCII text.
  if (bytes.length >= 16 && bytes.length % 2 === 0 && bytes[1] === 0 && bytes[3] === 0 && bytes[5] === 0 && bytes[7] === 0) {
    const narrow = new Uint8Array(bytes.length / 2);
    for (let i = 0; i < narrow.length; i++) {
      if (bytes[i * 2 + 1] !== 0) return null;
      narrow[i] = bytes[i * 2]!;
    }
    const w = asReadableText(narrow);
    return w ? { text: w, gz: false } : null;
  }
  return null;
}

/**
 * Whether the text has 16 hex digits in a row (what a hex run needs) and 24 base32 letters in a
 * row (what a base32 token needs): one loop for both, no regex backtracking per position (two
 * loops were two passes over every text a scan reads).
 */
function runsIn(text: string): { hex16: boolean; base32: boolean } {
  let hex = 0;
  let b32 = 0;
  let hex16 = false;
  let base32 = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const l = c | 32;
    if ((l >= 48 && l <= 57) || (l >= 97 && l <= 102)) {
      if (++hex >= 16) hex16 = true;
    } else hex = 0;
    if ((c >= 65 && c <= 90) || (c >= 50 && c <= 55)) {
      if (++b32 >= 24) base32 = true;
    } else b32 = 0;
    if (hex16 && base32) break;
  }
  return { hex16, base32 };
}

const isB64Unit = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 95 || c === 45;

/**
 * The matches of BASE64_TOKEN, found by one walk over the text: a run of 20 or more base64 units
 * (standard or URL-safe) that no such unit precedes, with up to two `=` after it and no base64
 * unit or `=` after those.
 */
export function* base64Tokens(text: string): Generator<{ index: number; token: string }> {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isB64Unit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && isB64Unit(text.charCodeAt(i))) i++;
    const runEnd = i;
    let eq = 0;
    while (i < n && text.charCodeAt(i) === 61 && eq < 3) {
      eq++;
      i++;
    }
    if (runEnd - start < 20 || eq > 2) continue;
    if (eq > 0 && i < n && isB64Unit(text.charCodeAt(i))) continue;
    yield { index: start, token: text.slice(start, i) };
  }
}

const isHexUnit = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 102);
const isAlnumUnit = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);

/**
 * Matches of `(?:G){min,}` over `text` (what `matchAll` gives for such a regex), where `group(i)`
 * is the length of the fixed-length group G at `i` or 0. Irregexp keeps a backtrack entry per
 * repetition: a megabyte of `%41` or of `\x41` cost hundreds of milliseconds and as much garbage.
 */
function* groupRuns(text: string, group: (i: number) => number, min: number, lead: string): Generator<{ index: number; match: string }> {
  // Every group starts with `lead`: the search jumps from one to the next (a call per position of
  // five megabytes of random text was a pass as dear as the decoding).
  for (let i = text.indexOf(lead); i !== -1; i = text.indexOf(lead, i + 1)) {
    let at = i;
    let k = 0;
    for (let g = group(at); g > 0; g = group(at)) {
      at += g;
      k++;
    }
    if (k < min) continue;
    yield { index: i, match: text.slice(i, at) };
    i = at - 1;
  }
}

/**
 * Hex runs, the matches of `/(?<![0-9A-Za-z])(?:0x)?((?:[0-9a-fA-F]{2}){8,})(?![0-9A-Za-z])/g` found by a
 * loop: a match starts a run of ASCII letters and digits and spans it.
 */
export function* hexRuns(text: string): Generator<{ index: number; match: string; hex: string }> {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isAlnumUnit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    // Every later position of this run has a letter or digit before it (the look-behind fails there).
    let end = i;
    while (end < n && isAlnumUnit(text.charCodeAt(end))) end++;
    // With the `0x` first (the regex tries it first), then without: whole pairs of hex digits up to the run's end.
    for (const from of text.charCodeAt(i) === 48 && text.charCodeAt(i + 1) === 120 ? [i + 2, i] : [i]) {
      let j = from;
      while (j < end && isHexUnit(text.charCodeAt(j))) j++;
      if (j === end && (j - from) % 2 === 0 && j - from >= 16) {
        yield { index: i, match: text.slice(i, end), hex: text.slice(from, end) };
        break;
      }
    }
    i = end;
  }
}

/** `/(?:%[0-9a-fA-F]{2}){8,}/g` */
export const percentRuns = (text: string) =>
  groupRuns(
    text,
    (i) => (text.charCodeAt(i) === 37 && isHexUnit(text.charCodeAt(i + 1)) && isHexUnit(text.charCodeAt(i + 2)) ? 3 : 0),
    8,
    "%",
  );
/** `/(?:\\x[0-9a-fA-F]{2}){6,}/g` */
export const hexEscapeRuns = (text: string) =>
  groupRuns(
    text,
    (i) =>
      text.charCodeAt(i) === 92 && text.charCodeAt(i + 1) === 120 && isHexUnit(text.charCodeAt(i + 2)) && isHexUnit(text.charCodeAt(i + 3))
        ? 4
        : 0,
    6,
    "\\",
  );
const isOctal = (c: number, top: number) => c >= 48 && c <= top;
/** Octal escapes (`printf '\\143\\141\\164'`, `$'\\143…'`, Python and C strings): `/(?:\\[0-3][0-7]{2}){6,}/g` */
export const octalEscapeRuns = (text: string) =>
  groupRuns(
    text,
    (i) =>
      text.charCodeAt(i) === 92 &&
      isOctal(text.charCodeAt(i + 1), 51) &&
      isOctal(text.charCodeAt(i + 2), 55) &&
      isOctal(text.charCodeAt(i + 3), 55)
        ? 4
        : 0,
    6,
    "\\",
  );

function fromCodes(list: string): string | null {
  const codes = list.split(/\s*,\s*/).map(Number);
  if (codes.some((c) => !Number.isInteger(c) || c < 0 || c > 0x10ffff)) return null;
  const s = String.fromCodePoint(...codes);
  return printableRatio(s) >= 0.95 ? s : null;
}

/** A hex digit's value, or -1 (a table: a megabyte-long run of hex took a `parseInt` of a slice per byte). */
const HEX_VALUE = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let c = 0; c < 10; c++) t[48 + c] = c;
  for (let c = 0; c < 6; c++) t[65 + c] = t[97 + c] = 10 + c;
  return t;
})();

function hexToText(hex: string): string | null {
  if (hex.length % 2) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    const a = hex.charCodeAt(i * 2);
    const b = hex.charCodeAt(i * 2 + 1);
    const hi = a < 128 ? HEX_VALUE[a]! : -1;
    const lo = b < 128 ? HEX_VALUE[b]! : -1;
    // Only hex digits reach here; anything else is read as `parseInt` reads it.
    bytes[i] = hi >= 0 && lo >= 0 ? hi * 16 + lo : parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  }
  return asReadableText(bytes);
}

/** A text that names a letter rotation (ROT13, a Caesar shift) as the way one of its lines is written. */
const ROT13_NAMED = /\brot[-_ ]?13\b|\bcaesar\b/i;
/** English function words: a rotated line gains them when turned back, an English line loses them. */
const FUNCTION_WORDS =
  /\b(?:the|and|of|to|a|an|in|into|is|it|its|as|on|at|for|with|from|this|that|then|also|all|any|each|be|or|you|your|them)\b/gi;
const functionWords = (s: string) => s.match(FUNCTION_WORDS)?.length ?? 0;
/** Letters rotated by 13 (ROT13 is its own inverse). */
export const rot13 = (s: string) =>
  s.replace(/[A-Za-z]/g, (c) => String.fromCharCode((((c.charCodeAt(0) & 31) + 12) % 26) + (c <= "Z" ? 65 : 97)));

/**
 * Lines written in ROT13 in a text that says so ("ROT13, decode and apply"): letters rotated are no
 * encoding a tool needs, only a way to keep a reader (or a scanner) from reading the line. A line is
 * taken as rotated when turning it back gives it clearly more English function words than it had.
 */
export function* rot13Lines(text: string): Generator<{ index: number; match: string; decoded: string }> {
  if (!ROT13_NAMED.test(text)) return;
  let from = 0;
  for (let n = 0; n < 2000 && from < text.length; n++) {
    const end = text.indexOf("\n", from);
    const to = end < 0 ? text.length : end;
    const line = text.slice(from, to);
    if (line.length >= 20 && line.length <= 8192) {
      const back = rot13(line);
      const gained = functionWords(back);
      if (gained >= 4 && gained >= 3 * functionWords(line)) yield { index: from, match: line, decoded: back };
    }
    from = to + 1;
  }
}

export function findEncodedPayloads(text: string, budget: DecodeBudget = { left: DECODE_BUDGET }): EncodedPayload[] {
  const out: EncodedPayload[] = [];
  const push = (kind: PayloadKind, offset: number, length: number, decoded: string | null) => {
    if (!decoded || decoded.trim().length < MIN_DECODED) return;
    if (out.length >= MAX_PAYLOADS) {
      noteLimit("encoded-payloads", offset);
      return;
    }
    // Two patterns may see the same payload (`fromCharCode(...)` is also a code array): report it once.
    if (out.some((p) => p.decoded === decoded && p.offset < offset + length && offset < p.offset + p.length)) return;
    out.push({ kind, offset, length, decoded });
  };
  const runs = runsIn(text);
  // Once MAX_PAYLOADS are found nothing more is kept: stop decoding.
  for (const m of base64Tokens(text)) {
    if (out.length >= MAX_PAYLOADS) {
      // Tokens are left undecoded: one of them may hide what the first ones do not.
      noteLimit("encoded-payloads", m.index);
      return out;
    }
    const token = m.token;
    if (token.length < MIN_BASE64) continue;
    // Pure lowercase/uppercase words, paths and identifiers are not base64 in practice.
    if (!/[A-Z]/.test(token) || !/[a-z]/.test(token)) continue;
    if (/^[A-Za-z]+$/.test(token) && !/[A-Z][a-z]*[A-Z]/.test(token.slice(1))) continue;
    const r = readable(decodeBase64(token), budget, m.index);
    push(r?.gz ? "gzip" : "base64", m.index, token.length, r ? r.text : null);
  }
  for (const m of out.length < MAX_PAYLOADS && runs.base32 ? text.matchAll(BASE32_TOKEN) : []) {
    if (out.length >= MAX_PAYLOADS) {
      noteLimit("encoded-payloads", m.index);
      break;
    }
    // Upper-case words and identifiers are not base32: it needs digits among the letters.
    if (!/[2-7]/.test(m[0])) continue;
    const r = readable(decodeBase32(m[0]), budget, m.index);
    push(r?.gz ? "gzip" : "base32", m.index, m[0].length, r ? r.text : null);
  }
  for (const m of out.length < MAX_PAYLOADS ? (text.includes("\\x") ? hexEscapeRuns(text) : []) : [])
    push("hex", m.index, m.match.length, hexToText(m.match.replace(/\\x/g, "")));
  for (const m of out.length < MAX_PAYLOADS ? (/\\[0-3][0-7]{2}\\[0-3]/.test(text) ? octalEscapeRuns(text) : []) : [])
    push("hex", m.index, m.match.length, asReadableText(Uint8Array.from(m.match.match(/[0-7]{3}/g) ?? [], (o) => parseInt(o, 8))));
  for (const m of out.length < MAX_PAYLOADS ? (runs.hex16 ? hexRuns(text) : []) : [])
    push("hex", m.index, m.match.length, hexToText(m.hex));
  for (const m of out.length < MAX_PAYLOADS ? (text.includes("%") ? percentRuns(text) : []) : [])
    push("hex", m.index, m.match.length, hexToText(m.match.replace(/%/g, "")));
  for (const m of out.length < MAX_PAYLOADS ? (text.includes("%20") ? percentProseRuns(text) : []) : []) {
    // A whole run already decoded above is not read twice.
    if (/^(?:%[0-9a-fA-F]{2})+$/.test(m.match)) continue;
    push("hex", m.index, m.match.length, percentToText(m.match));
  }
  for (const m of out.length < MAX_PAYLOADS ? (text.includes("fromCharCode") ? text.matchAll(FROM_CHAR_CODE) : []) : [])
    push("char-codes", m.index, m[0].length, fromCodes(m[1]!));
  for (const m of out.length < MAX_PAYLOADS ? (/chr|fromcharcode|\[char/i.test(text) ? text.matchAll(CODE_ARRAY) : []) : [])
    push("char-codes", m.index, m[0].length, fromCodes(m[1]!));
  for (const m of out.length < MAX_PAYLOADS ? text.matchAll(NUMBER_ARRAY) : []) {
    if (out.length >= MAX_PAYLOADS) {
      noteLimit("encoded-payloads", m.index);
      break;
    }
    const decoded = fromCodes(m[1]!);
    // Letters and spaces among them: a byte table or pixel data rarely spells words.
    if (decoded && /[a-z]{3,}/i.test(decoded) && /[ ;(=.'"/]/.test(decoded)) push("char-codes", m.index, m[0].length, decoded);
  }
  for (const m of out.length < MAX_PAYLOADS ? (/chr\(/i.test(text) ? text.matchAll(CHR_CHAIN) : []) : []) {
    push("char-codes", m.index, m[0].length, fromCodes((m[0].match(/\d+/g) ?? []).join(",")));
  }
  for (const m of out.length < MAX_PAYLOADS ? (/\[char\]/i.test(text) ? text.matchAll(PS_CHAR_CHAIN) : []) : []) {
    push("char-codes", m.index, m[0].length, fromCodes((m[0].match(/\d+/g) ?? []).join(",")));
  }
  for (const m of out.length < MAX_PAYLOADS ? rot13Lines(text) : []) push("rot13", m.index, m.match.length, m.decoded);
  // The searches after the cap were skipped: what they would have decoded was not read.
  if (out.length >= MAX_PAYLOADS) noteLimit("encoded-payloads");
  return out;
}
