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
import { STRONG_EXAMPLE_CUE, WEAK_EXAMPLE_CUE, isNegated, isQuoted, type DescribeFn, type LineIndex, type ScanTarget } from "../../scan";
import { securityServer } from "./server-context";

const ACTOR = /\b(?:attackers?|adversar(?:y|ies)|malware|worms?|threat\s+actors?|malicious|compromised|injected|poisoned)\b/i;

/** A detection verb whose object runs up to the match with no clause break (and no "so"/"then" handing over to an instruction). */
const DETECTS =
  /(?:\b(?:detects?|detecting|flags?|flagging|finds?|catches|reports?|looks?\s+for|scans?\s+(?:\w+\s+){0,3}for|checks?\s+(?:\w+\s+){0,3}for|warns?\s+(?:about|of)|identif(?:y|ies)|recogni[sz]es?|audits?\s+(?:\w+\s+){0,4}for|matches|spots?)\b|\b(?:typical|common|example|sample|known)\s+(?:hits?|findings?|matches|detections?|cases?|patterns?)\s*:)(?:(?![.!?](?:\s|$)|;|\b(?:so|then|and\s+then|afterwards|next|before|after)\b)[^\n]){0,240}$/i;

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

export function describeMcp(target: ScanTarget, lines: LineIndex): DescribeFn | null {
  if (!target.text) return null;
  const security = securityServer();
  // Whether the last sentence asked about is cued: the hits of one long line without a full stop
  // share their sentence (the whole line), which is read once, not once per hit.
  let last: { line: string; n: number; start: number; stop: number; cued: boolean } | null = null;
  return (n, lineText, index, length) => {
    // The clause, not the sentence: "it does not need to appear …, and you can simply say …" still says the second part.
    if (isNegated(lineText, index)) return "negated";
    const before = lineText.slice(0, index);
    // Tool descriptions are often one long line: the cue must be in the match's own sentence.
    const start = Math.max(0, before.search(/[.!?]\s+(?=\S)(?:(?![.!?]\s).)*$/) + 1);
    const rest = lineText.slice(index + length);
    const end = rest.search(/[.!?](?:\s|$)/);
    const stop = end >= 0 ? index + length + end + 1 : lineText.length;
    let around = lineText.slice(start, stop);
    if (start === 0 && n > 1 && lines.line(n - 1).trim() && !/[.!?:]\s*$/.test(lines.line(n - 1))) {
      const prev = lines.line(n - 1);
      around = `${prev} ${around}`;
      // A negation on the line before governs a list that wraps onto this one ("never switch to X and never\nallow Y").
      if (isNegated(around, prev.length + 1 + index, true)) return "negated";
    }
    const same = last !== null && last.line === lineText && last.n === n && last.start === start && last.stop === stop;
    const cued = same ? last!.cued : STRONG_EXAMPLE_CUE.test(around) || ACTOR.test(around) || (security && WEAK_EXAMPLE_CUE.test(around));
    if (!same) last = { line: lineText, n, start, stop, cued };
    if (cued && isQuoted(lineText, index, length)) return "quoted as an example";
    if (LIST_ITEM.test(lineText) && listedUnderLead(lines, n, security)) return "in a list of what attacks or detections look like";
    if (security && DETECTS.test(before.slice(-300))) return "what a security tool detects";
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
