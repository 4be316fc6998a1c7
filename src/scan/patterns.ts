/** Building rules from regular expressions, the shape most rules take. */
import type { Hit, LineContext, Rule } from "./engine";
import type { FileKind } from "./files";
import type { Severity } from "./types";
import { isMention, isNegated, isQuoted } from "./prose";

/**
 * A quoted phrase that is one item of a list (`(network uploads, \`curl | sh\`, "don't tell the
 * user")`): the text names the phrase among others, it does not say it. Bounded look either side.
 */
function listedQuote(line: string, index: number, length: number): boolean {
  if (!isQuoted(line, index, length)) return false;
  const before = line.slice(Math.max(0, index - 80), index);
  const open = Math.max(before.lastIndexOf('"'), before.lastIndexOf("\u201c"));
  if (open === -1 || !/[,(]\s*$/.test(before.slice(0, open))) return false;
  const after = line.slice(index + length, index + length + 80);
  const close = after.search(/["\u201d]/);
  return close !== -1 && /^\s*[,)]/.test(after.slice(close + 1));
}

export interface PatternRuleSpec {
  id: string;
  severity: Severity;
  title: string;
  kinds?: readonly FileKind[];
  /** Any of these on a line is a hit (the first match per pattern and line is reported). */
  patterns: readonly RegExp[];
  /** Text of the finding; may use the match. */
  message: string | ((m: RegExpMatchArray, line: string) => string);
  /**
   * Prose rules skip a match negated in its clause ("never disable the sandbox") and report a
   * quoted mention on a line that discusses it ("phrases such as 'ignore previous instructions'")
   * as `info` only.
   */
  prose?: boolean;
  /** A line matching this is not a hit (a known benign form). */
  unless?: RegExp;
  /** Decides the severity per match; null drops the match. */
  severityFor?: (m: RegExpMatchArray, line: string, ctx: LineContext) => Severity | null;
  /** See `Rule.triggers`: literals at least one of which every match contains (lowercase; `\b` in front: at a word start). */
  triggers?: readonly string[];
}

const withGlobal = (re: RegExp) => (re.flags.includes("g") ? re : new RegExp(re.source, `${re.flags}g`));

const NEEDS = new WeakMap<RegExp, RegExp>();

/**
 * `pattern`, tried only on lines where `needs` (literals the pattern cannot match without) is found.
 * For a pattern like `\bcurl\b[^\n]*SKILL\.md`, each `curl` of a 4 KiB window otherwise runs to the
 * window's end and back: one linear test of the line spares that.
 */
export function needing(needs: RegExp, pattern: RegExp): RegExp {
  NEEDS.set(pattern, needs);
  return pattern;
}

const AFTER = new WeakMap<RegExp, { head: RegExp; tail: RegExp }>();

/**
 * `pattern`, of the form `head[^\n]*tail` (or alternatives of it), tried only on lines where `tail`
 * matches after the first `head`. The pattern fails from every head when it fails from the first
 * (what follows a later head follows the first one too), but a regular expression tries each head
 * and runs to the line's end from it: a window of four thousand heads without a tail after them
 * cost a thousand passes over the window. With the tail found, the pattern matches from the first
 * head, in one pass. `tail` must be the pattern's whole rest (not just part of it), so that a tail
 * found means a match.
 */
export function headThenTail(head: RegExp, tail: RegExp, pattern: RegExp): RegExp {
  const flags = pattern.flags.replace("g", "");
  AFTER.set(pattern, { head: new RegExp(head.source, flags), tail: new RegExp(tail.source, `${flags}g`) });
  return pattern;
}

/** Whether `pattern` can match `line` at all, by what `needing` or `headThenTail` said it needs (true when they said nothing). */
export function mayMatch(pattern: RegExp, line: string): boolean {
  const needs = NEEDS.get(pattern);
  if (needs && !needs.test(line)) return false;
  const after = AFTER.get(pattern);
  if (!after) return true;
  const h = after.head.exec(line);
  if (!h) return false;
  after.tail.lastIndex = h.index + h[0].length;
  return after.tail.test(line);
}

/**
 * One expression per flag set that matches wherever one of `patterns` does: `(?:a)|(?:b)|…`. A line
 * none of a rule's patterns match (nearly every line a trigger word lets through) is then one test,
 * not one per pattern: a rule of two dozen phrasings cost two dozen passes over every line that says
 * "user". Left out (tried on their own, as before): patterns with a `needing` or `headThenTail`
 * guard (the guard is what keeps them linear; in a union they would run unguarded) and patterns
 * whose back-references would change meaning when their groups are renumbered.
 */
function unionsOf(patterns: readonly RegExp[]): { union: RegExp; members: Set<RegExp> }[] {
  const byFlags = new Map<string, RegExp[]>();
  for (const p of patterns) {
    if (NEEDS.has(p) || AFTER.has(p) || /\\(?:[1-9]|k<)/.test(p.source)) continue;
    const flags = p.flags.replace(/[gyd]/g, "");
    byFlags.set(flags, [...(byFlags.get(flags) ?? []), p]);
  }
  const out: { union: RegExp; members: Set<RegExp> }[] = [];
  for (const [flags, ps] of byFlags) {
    if (ps.length < 2) continue;
    try {
      out.push({ union: new RegExp(ps.map((p) => `(?:${p.source})`).join("|"), flags), members: new Set(ps) });
    } catch {
      // A group name used by two of them: each is tried on its own.
    }
  }
  return out;
}

export function patternRule(spec: PatternRuleSpec): Rule {
  // Copied to global regexes on the rule's first line, not at module load: every rule module is
  // evaluated when the Worker starts, and most requests never scan anything.
  let compiled: [RegExp, RegExp, number][] | null = null;
  let tested: Int8Array | null = null;
  let unionOf: RegExp[] | null = null;
  return {
    id: spec.id,
    severity: spec.severity,
    title: spec.title,
    kinds: spec.kinds,
    triggers: spec.triggers,
    line(line, ctx) {
      if (spec.unless?.test(line)) return null;
      const hits: Hit[] = [];
      if (!compiled) {
        const unions = unionsOf(spec.patterns);
        compiled = spec.patterns.map((p) => [withGlobal(p), p, unions.findIndex((u) => u.members.has(p))]);
        tested = new Int8Array(unions.length);
        unionOf = unions.map((u) => u.union);
      }
      tested!.fill(0);
      for (const [re, original, u] of compiled) {
        // A pattern of a union that does not match the line cannot match it either (tested once per line: 1 yes, 2 no).
        if (u >= 0) {
          if (tested![u] === 0) tested![u] = unionOf![u]!.test(line) ? 1 : 2;
          if (tested![u] === 2) continue;
        }
        if (!mayMatch(original, line)) continue;
        // exec on the rule's own global regex (not matchAll, which copies it on every line).
        re.lastIndex = 0;
        for (let m = re.exec(line); m; m = re.exec(line)) {
          if (m[0] === "") re.lastIndex++;
          const index = m.index;
          let severity: Severity | null = spec.severity;
          if (spec.prose) {
            if (isNegated(line, index)) continue;
            if (isMention(line, index, m[0].length) || listedQuote(line, index, m[0].length)) severity = "info";
          }
          if (spec.severityFor && severity !== "info") severity = spec.severityFor(m, line, ctx);
          if (!severity) continue;
          hits.push({
            index,
            length: m[0].length,
            severity,
            message: typeof spec.message === "function" ? spec.message(m, line) : spec.message,
          });
          break;
        }
      }
      return hits;
    },
  };
}

/** The leftmost offset at or after `from` where one alternative of a pattern matches, or -1. */
type Leftmost = (text: string, from: number) => number;

const SPLIT = new WeakMap<RegExp, { sticky: RegExp; parts: Leftmost[] }>();
const FINDERS = new WeakMap<RegExp, Leftmost>();

/**
 * The pattern `head[^stops]*?tail` (a command word, anything but a command separator, then a
 * flag), searched in one pass. A regular expression tries every head and runs from each to the
 * next separator: a line of thousands of `curl` words with no separator cost a pass over the line
 * per word. A tail found in a head's stretch (the text up to the next separator) is found from the
 * stretch's first head, so later heads of the stretch are passed over; tails are searched once,
 * forward. Needs heads that hold no separator and cannot begin inside one another (command words).
 */
export function segmented(head: RegExp, stops: string, tail: RegExp, flags = ""): RegExp {
  const pattern = new RegExp(`${head.source}[^${stops}]*?${tail.source}`, flags);
  const h = new RegExp(head.source, `${flags}g`);
  const t = new RegExp(tail.source, `${flags}g`);
  const stop = new RegExp(`[${stops}]`, "g");
  FINDERS.set(pattern, (text, from) => {
    // The leftmost tail at or after `tailFrom` is at `tailAt` (-2: none).
    let tailFrom = -1;
    let tailAt = -2;
    h.lastIndex = from;
    for (let m = h.exec(text); m; m = h.exec(text)) {
      const end = m.index + m[0].length;
      stop.lastIndex = end;
      const s = stop.exec(text)?.index ?? text.length;
      if (tailFrom === -1 || tailFrom > end || (tailAt !== -2 && tailAt < end)) {
        t.lastIndex = end;
        tailFrom = end;
        tailAt = t.exec(text)?.index ?? -2;
      }
      if (tailAt === -2) return -1;
      if (tailAt <= s) return m.index;
      if (s >= text.length) return -1;
      h.lastIndex = s + 1;
    }
    return -1;
  });
  return pattern;
}

/**
 * The pattern `head gap [^stops]* tail` (a command word, optionally whitespace that may run over
 * lines, anything but a stop, then what makes it a send: `scp … user@host:`, `mutt … -a`,
 * `nc … 4444`), searched in one pass. A regular expression runs from every head to the next stop
 * and back: a line of thousands of `scp` words with no target cost a pass over the line per word.
 * From a head whose gap ends at `b` the pattern matches exactly when the first tail at or after the
 * gap's first possible end starts no later than the first stop at or after `b` (the gap taken as
 * far as the tail, or whole and then non-stops up to it); tails and stops are searched forward
 * once, as heads advance. Needs heads that match at most one way at a start where the gap follows
 * and cannot begin inside one another (command words).
 */
export function spanned(head: RegExp, gap: string, stops: string, tail: RegExp, flags = ""): RegExp {
  if (gap !== "" && gap !== String.raw`\s+`) throw new Error(`spanned: the gap is "" or \\s+, not ${gap}`);
  const pattern = new RegExp(`${head.source}${gap}[^${stops}]*${tail.source}`, flags);
  const h = new RegExp(gap ? `(?:${head.source})(?=\\s)` : head.source, `${flags}g`);
  const t = new RegExp(tail.source, `${flags}g`);
  const stop = new RegExp(`[${stops}]`, "g");
  const space = /\S/g;
  FINDERS.set(pattern, (text, from) => {
    let tailFrom = -1;
    let tailAt = -2;
    let stopFrom = -1;
    let stopAt = -1;
    h.lastIndex = from;
    for (let m = h.exec(text); m; m = h.exec(text)) {
      const end = m.index + m[0].length;
      // The gap's first possible end `a` and its last `b`.
      let a = end;
      let b = end;
      if (gap) {
        a = end + 1;
        space.lastIndex = a;
        b = space.exec(text)?.index ?? text.length;
      }
      if (tailFrom === -1 || tailFrom > a || (tailAt !== -2 && tailAt < a)) {
        t.lastIndex = a;
        tailFrom = a;
        tailAt = t.exec(text)?.index ?? -2;
      }
      if (tailAt === -2) return -1;
      if (tailAt <= b) return m.index;
      if (stopFrom === -1 || stopFrom > b || stopAt < b) {
        stop.lastIndex = b;
        stopFrom = b;
        stopAt = stop.exec(text)?.index ?? text.length;
      }
      if (tailAt <= stopAt) return m.index;
      h.lastIndex = end;
    }
    return -1;
  });
  return pattern;
}

/**
 * `parts` joined as alternatives: the same pattern (same source, so the same matches), searched
 * by the leftmost match of each part (a part made by `segmented` in one pass) and then matched
 * once, sticky, where the leftmost one starts. At that offset the whole pattern matches exactly as
 * it would have when searched, and no offset before it matches any part.
 */
export function alternatives(parts: readonly RegExp[], flags = ""): RegExp {
  const pattern = new RegExp(parts.map((p) => p.source).join("|"), flags);
  const finders = parts.map((p): Leftmost => {
    const own = FINDERS.get(p);
    if (own) return own;
    const g = new RegExp(p.source, `${flags}g`);
    return (text, from) => {
      g.lastIndex = from;
      return g.exec(text)?.index ?? -1;
    };
  });
  SPLIT.set(pattern, { sticky: new RegExp(pattern.source, `${flags}y`), parts: finders });
  return pattern;
}

/**
 * The next match of `pattern` in `text` at or after `from`, as `global` (a global copy of
 * `pattern`) finds it; patterns made by `alternatives` are searched part by part.
 */
export function execFrom(pattern: RegExp, global: RegExp, text: string, from: number): RegExpExecArray | null {
  const split = SPLIT.get(pattern);
  if (!split) {
    global.lastIndex = from;
    return global.exec(text);
  }
  let best = -1;
  for (const find of split.parts) {
    const i = find(text, from);
    if (i !== -1 && (best === -1 || i < best)) best = i;
  }
  if (best === -1) return null;
  split.sticky.lastIndex = best;
  return split.sticky.exec(text);
}
