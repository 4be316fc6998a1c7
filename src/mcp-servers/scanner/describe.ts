/**
 * Where a tool's text writes about attacks rather than asks for them, for the engine's `describe`
 * option (src/scan/engine.ts): findings there become `info` (shown, read by a second opinion, not
 * setting the status). A prompt-injection detector says it "detects hidden requests to read
 * ~/.ssh/id_rsa"; a secret scanner lists the keys it finds. Read per match:
 *   - negated in its clause ("never read ~/.ssh");
 *   - quoted in a sentence that says it gives examples or describes attacks;
 *   - in a server whose stated purpose is security work, the object of a detection verb in the same
 *     clause ("Detects phrases such as …, hidden requests to read ~/.ssh/id_rsa or .env files").
 * Hidden text is never described (the engine does not ask).
 */
import {
  STRONG_EXAMPLE_CUE,
  WEAK_EXAMPLE_CUE,
  firstAtLeast,
  isNegated,
  quotedIn,
  type DescribeFn,
  type LineIndex,
  type ScanTarget,
} from "../../scan";
import { securityServer } from "./server-context";

const ACTOR = /\b(?:attackers?|adversar(?:y|ies)|malware|worms?|threat\s+actors?|malicious|compromised|injected|poisoned)\b/i;

/**
 * A detection verb whose object runs up to the match with no clause break (and no "so"/"then" handing
 * over to an instruction). "e.g." ends no clause: "reports tool poisoning, e.g. hidden blocks asking to read …";
 * nor does an ellipsis standing for elided code ("detect e.g. `curl ... | sh`").
 */
const DETECTS =
  /(?:\b(?:detects?|detecting|flags?|flagging|finds?|catches|reports?|looks?\s+for|scans?\s+(?:\w+\s+){0,3}for|checks?\s+(?:\w+\s+){0,3}for|warns?\s+(?:about|of)|identif(?:y|ies)|recogni[sz]es?|audits?\s+(?:\w+\s+){0,4}for|matches|spots?)\b|\b(?:typical|common|example|sample|known)\s+(?:hits?|findings?|matches|detections?|cases?|patterns?)\s*:)(?:\b(?:e\.g|i\.e|incl|esp)\.|\.\.\.(?=[\s)\]`'"]|$)|(?![.!?](?:\s|$)|;|\b(?:so|then|and\s+then|afterwards|next|before|after)\b)[^\n]){0,240}$/i;

const LIST_ITEM = /^\s*(?:[-*+•]|\d+[.)])\s/;

/** The list holding line `n` is led by a sentence that says it catalogues attacks or detections ("Detections include:"). */
function listedUnderLead(lines: LineIndex, n: number, security: boolean): boolean {
  for (let k = n - 1; k >= 1 && k >= n - 40; k--) {
    const l = lines.line(k);
    if (LIST_ITEM.test(l) || /^\s+\S/.test(l)) continue;
    if (!/:\s*$/.test(l)) return false;
    const lead = l.slice(Math.max(0, l.search(/[^.!?]*:\s*$/)));
    return STRONG_EXAMPLE_CUE.test(lead) || ACTOR.test(lead) || (security && (WEAK_EXAMPLE_CUE.test(lead) || DETECTS.test(lead)));
  }
  return false;
}

const SPACE = /\s/;
const END_MARK = (c: string) => c === "." || c === "!" || c === "?";

/**
 * Where the sentences of one line start and stop, found once per line: a tool description is often
 * one 64 KiB line, and looking for a hit's sentence with a search over the line before it (and a
 * quote search over the whole line) cost the line's length per hit.
 */
class LineSentences {
  /** `r` with an end mark at `r` and white space at `r + 1`. */
  private readonly pairs: number[] = [];
  /** `j` with an end mark at `j` and white space or the line's end at `j + 1`. */
  private readonly stops: number[] = [];
  /** Units `.` does not match (`\r`, U+2028, U+2029). */
  private readonly breaks: number[] = [];
  readonly quoted: (index: number, length: number) => boolean;
  constructor(private readonly line: string) {
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (c === "\r" || c === "\u2028" || c === "\u2029") this.breaks.push(i);
      if (!END_MARK(c)) continue;
      const next = line[i + 1];
      if (next === undefined) this.stops.push(i);
      else if (SPACE.test(next)) {
        this.stops.push(i);
        this.pairs.push(i);
      }
    }
    this.quoted = quotedIn(line);
  }
  /**
   * `max(0, before.search(/[.!?]\s+(?=\S)(?:(?![.!?]\s).)*$/) + 1)` for `before = line.slice(0, index)`:
   * only the last end mark followed by white space inside `before` can start such a match.
   */
  start(index: number): number {
    const k = firstAtLeast(this.pairs, index - 1) - 1;
    if (k < 0) return 0;
    const r = this.pairs[k]!;
    let q = r + 1;
    while (q < index && SPACE.test(this.line[q]!)) q++;
    if (q >= index) return 0;
    const b = this.breaks[firstAtLeast(this.breaks, q)];
    return b !== undefined && b < index ? 0 : r + 1;
  }
  /** Where the sentence holding `[index, from)` ends: `rest.search(/[.!?](?:\s|$)/)` for `rest = line.slice(from)`, as a line offset. */
  stop(from: number): number {
    const j = this.stops[firstAtLeast(this.stops, from)];
    return j === undefined ? this.line.length : j + 1;
  }
}

export function describeMcp(target: ScanTarget, lines: LineIndex): DescribeFn | null {
  if (!target.text) return null;
  const security = securityServer();
  // Whether the last sentence asked about is cued: the hits of one long line without a full stop
  // share their sentence (the whole line), which is read once, not once per hit.
  let last: { n: number; start: number; stop: number; cued: boolean } | null = null;
  // The sentences of the line last asked about (`lineText` is always line `n`).
  let at = 0;
  let sentences: LineSentences | null = null;
  return (n, lineText, index, length) => {
    // The clause, not the sentence: "it does not need to appear …, and you can simply say …" still says the second part.
    if (isNegated(lineText, index)) return "negated";
    if (at !== n || !sentences) {
      at = n;
      sentences = new LineSentences(lineText);
    }
    // Tool descriptions are often one long line: the cue must be in the match's own sentence.
    const start = sentences.start(index);
    const stop = sentences.stop(index + length);
    let around: string | null = null;
    if (start === 0 && n > 1 && lines.line(n - 1).trim() && !/[.!?:]\s*$/.test(lines.line(n - 1))) {
      const prev = lines.line(n - 1);
      around = `${prev} ${lineText.slice(start, stop)}`;
      // A negation on the line before governs a list that wraps onto this one ("never switch to X and never\nallow Y").
      // (It reads the 140 units before the match: taken from the line alone when it has them.)
      const tail = index >= 141 ? lineText.slice(index - 141, index) : `${prev.slice(-141)} ${lineText.slice(0, index)}`;
      if (isNegated(tail, tail.length, true)) return "negated";
    }
    const same = last !== null && last.n === n && last.start === start && last.stop === stop;
    let cued: boolean;
    if (same) cued = last!.cued;
    else {
      around ??= lineText.slice(start, stop);
      cued = STRONG_EXAMPLE_CUE.test(around) || ACTOR.test(around) || (security && WEAK_EXAMPLE_CUE.test(around));
      last = { n, start, stop, cued };
    }
    if (cued && sentences.quoted(index, length)) return "quoted as an example";
    if (LIST_ITEM.test(lineText) && listedUnderLead(lines, n, security)) return "in a list of what attacks or detections look like";
    if (security && DETECTS.test(lineText.slice(Math.max(0, index - 300), index))) return "what a security tool detects";
    return null;
  };
}

/** Rules that read their own context (the intent model's modes) or state a fact about the text. */
export const DESCRIBE_EXEMPT: ReadonlySet<string> = new Set([
  "unicode.hidden",
  "markdown.hidden-instructions",
  "mcp.data-flow",
  "mcp.control-characters",
  "mcp.credential-phishing",
]);
