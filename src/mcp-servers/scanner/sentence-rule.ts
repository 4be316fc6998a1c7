/**
 * Rules that read a sentence at a time: the MCP rules fire on two things said together (a
 * secret and a way to pass it on; another tool and a change to what it does), which a single
 * regular expression over a line would miss when the sentence wraps, and would overreach on
 * when two unrelated sentences share a line.
 */
import { isMention, isNegated, sentences, type Hit, type Rule, type Severity, type TextContext } from "../../scan";

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
  check(sentence: string, ctx: TextContext): SentenceHit | null;
}

export function sentenceRule(spec: SentenceRuleSpec): Rule {
  return {
    id: spec.id,
    severity: spec.severity,
    title: spec.title,
    text(text, ctx) {
      const hits: Hit[] = [];
      for (const s of sentences(text)) {
        const h = spec.check(s.text, ctx);
        if (!h) continue;
        hits.push({ index: s.start + h.index, length: h.length, severity: h.severity, message: h.message });
        if (hits.length >= 10) break;
      }
      return hits;
    },
  };
}

/** First match of `re` in `s` that is neither negated nor a quoted mention, or null. */
export function directive(s: string, re: RegExp): RegExpMatchArray | null {
  const g = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
  for (const m of s.matchAll(g)) {
    if (isNegated(s, m.index) || isMention(s, m.index, m[0].length)) continue;
    return m;
  }
  return null;
}

/** First match of `re` in `s` (negation does not matter: a source is a source). */
export function find(s: string, re: RegExp): RegExpMatchArray | null {
  const g = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
  for (const m of s.matchAll(g)) return m;
  return null;
}
