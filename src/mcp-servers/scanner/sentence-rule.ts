/**
 * Rules that read a sentence at a time: the MCP rules fire on two things said together (a
 * secret and a way to pass it on; another tool and a change to what it does), which a single
 * regular expression over a line would miss when the sentence wraps, and would overreach on
 * when two unrelated sentences share a line.
 */
import {
  compileTriggers,
  isMention,
  isNegated,
  ownersIn,
  type Owners,
  sentences,
  type Compiled,
  type Hit,
  type Rule,
  type Severity,
  type TextContext,
} from "../../scan";

export interface SentenceHit {
  /** Offset inside the sentence. */
  index: number;
  length: number;
  severity?: Severity;
  message: string;
}

export interface SentenceRuleSpec {
  id: string;
  severity: Severity;
  title: string;
  /**
   * Lowercase literals at least one of which every sentence `check` can flag contains (`\b` in
   * front: at a word start), as for the engine's line rules: a sentence with none is skipped.
   * Omit to see every sentence.
   */
  triggers?: readonly string[];
  /** `start`: the sentence's offset in the text (for `fieldAt`). */
  check(sentence: string, ctx: TextContext, start: number): SentenceHit | null;
}

// Every sentence rule reads the same text in turn: split it once, and find every rule's trigger
// words in each sentence in one pass (the first rule to ask pays for it).
const TRIGGER_LISTS: (readonly string[])[] = [];
let compiled: Compiled | null = null;
let lastText: string | null = null;
let lastSentences: ReturnType<typeof sentences> = [];
let lastOwners: (Owners | undefined)[] = [];
function sentencesOf(text: string) {
  if (text !== lastText) {
    lastText = text;
    lastSentences = sentences(text);
    lastOwners = [];
  }
  return lastSentences;
}
function ownersOf(i: number): Owners {
  let o = lastOwners[i];
  if (!o) lastOwners[i] = o = ownersIn((compiled ??= compileTriggers(TRIGGER_LISTS)), lastSentences[i]!.text);
  return o;
}

let ungated = false;
/** Tests: run every sentence rule on every sentence (to check that triggers never change a finding). */
export function setSentenceGating(on: boolean): void {
  ungated = !on;
}

export function sentenceRule(spec: SentenceRuleSpec): Rule {
  const owner = spec.triggers ? TRIGGER_LISTS.push(spec.triggers) - 1 : -1;
  compiled = null;
  return {
    id: spec.id,
    severity: spec.severity,
    title: spec.title,
    text(text, ctx) {
      const hits: Hit[] = [];
      const list = sentencesOf(text);
      for (let i = 0; i < list.length; i++) {
        if (owner >= 0 && !ungated && !ownersOf(i).has(owner)) continue;
        const s = list[i]!;
        const h = spec.check(s.text, ctx, s.start);
        if (!h) continue;
        hits.push({ index: s.start + h.index, length: h.length, severity: h.severity, message: h.message });
        if (hits.length >= 10) break;
      }
      return hits;
    },
  };
}

const GLOBAL = new WeakMap<RegExp, RegExp>();
/** The global-flag twin of a pattern, compiled once. */
export const global = (re: RegExp): RegExp => {
  let g = GLOBAL.get(re);
  if (!g) GLOBAL.set(re, (g = re.flags.includes("g") ? re : new RegExp(re.source, `${re.flags}g`)));
  g.lastIndex = 0;
  return g;
};

/** First match of `re` in `s` that is neither negated nor a quoted mention, or null. */
export function directive(s: string, re: RegExp): RegExpMatchArray | null {
  const g = global(re);
  for (let m = g.exec(s); m !== null; m = g.exec(s)) {
    if (m[0].length === 0) g.lastIndex++;
    if (isNegated(s, m.index) || isMention(s, m.index, m[0].length)) continue;
    g.lastIndex = 0;
    return m;
  }
  return null;
}

/** First match of `re` in `s` (negation does not matter: a source is a source). */
export function find(s: string, re: RegExp): RegExpMatchArray | null {
  const g = global(re);
  const m = g.exec(s);
  g.lastIndex = 0;
  return m;
}
