/**
 * The rule runner every scanner shares. A scanner is a list of rules over "targets" (a skill's
 * files, an MCP server's tool descriptions: anything with a path and text or bytes). The runner
 * gives each rule every line, then the whole text, then the hidden text inside it:
 *   - text smuggled in tag characters or variation selectors, decoded;
 *   - base64 / hex / character-code payloads that decode to readable text (two levels deep);
 *   - whatever extra hidden regions the scanner names (`derive`, e.g. HTML comments in Markdown);
 *   - each line again with invisible characters removed and compatibility forms folded, so
 *     `ig<U+200B>nore previous instructions` or fullwidth letters do not slip past a keyword rule.
 * A rule that fires on hidden text is raised to at least `high` (when it was medium or worse):
 * hiding an instruction is itself the tell. Findings are de-duplicated per rule and line, capped
 * per rule and file, and sorted worst first.
 */
import { LineIndex, excerpt, hasInvisible, normalizeForMatching, visible } from "./text";
import { findHiddenUnicode } from "./unicode";
import { DECODE_BUDGET, findEncodedPayloads, type DecodeBudget } from "./decode";
import { limitScope, noteLimit } from "./limits";
import { maxSeverity, severityRank, sortFindings, type Finding, type Severity } from "./types";
import type { FileKind } from "./files";
import { compileTriggers, ownersIn, triggerLineSets, type Compiled, type LineSet } from "./triggers";

export interface ScanTarget {
  path: string;
  kind: FileKind;
  /** UTF-8 text of the file; null for binary content. */
  text: string | null;
  bytes?: Uint8Array;
  /**
   * The bytes are not valid UTF-8 (nor a known binary format) and `text` is a lenient decoding of
   * them (`decodeLenient`): scanned like any text, and a scanner may rate the file for it.
   */
  lossy?: boolean;
  /**
   * Why every line of this text describes rather than instructs (a detection-rule file, a fixture
   * of test payloads): findings in it are `info`, unless it is hidden text.
   */
  describes?: string | null;
  /** What the file's bytes or name say it is when that disagrees with how it is read, for file rules. */
  disguise?: { severity: Severity; message: string } | null;
  /** The text is found inside another file (printable runs of an image, a file inside an archive): named for messages. */
  embedded?: string;
  /** An archive whose files were read (each scanned as a target of its own): what could not be read. */
  contents?: { unread: string[] };
}

/** One rule hit. `index`/`length` locate it in the line (line rules) or the text (text rules). */
export interface Hit {
  index?: number;
  length?: number;
  severity?: Severity;
  message: string;
}

export interface LineContext {
  target: ScanTarget;
  lineNo: number;
  /** True while the runner scans decoded or otherwise hidden text. */
  hidden: boolean;
  /** What the caller passed as `RunOptions.meta` (scan-wide facts, e.g. a skill's stated purpose). */
  meta?: Readonly<Record<string, unknown>>;
}

export interface TextContext {
  target: ScanTarget;
  lines: LineIndex;
  hidden: boolean;
  meta?: Readonly<Record<string, unknown>>;
}

/** Why a match on a line describes an attack rather than asks for one ("in an example", "negated"), or null. */
export type DescribeFn = (line: number, lineText: string, index: number, length: number) => string | null;

export interface Rule {
  /** Stable id, `<scanner>.<group>.<name>`. */
  id: string;
  /** Default severity of a hit (a hit may set its own). */
  severity: Severity;
  title: string;
  /** File kinds the rule reads; all text kinds when omitted. */
  kinds?: readonly FileKind[];
  /**
   * Lowercase literals at least one of which occurs in every line `line` can flag (`\b` in front:
   * at the start of a word). The engine then calls `line` only on lines that contain one
   * (src/scan/triggers.ts). Omit to see every line.
   */
  triggers?: readonly string[];
  /** Checks one line (long lines arrive in overlapping windows). */
  line?(line: string, ctx: LineContext): Hit | Hit[] | null | undefined | void;
  /** Checks the whole text (co-occurrence and multi-line constructs); `index` is a text offset. */
  text?(text: string, ctx: TextContext): Hit[];
  /**
   * `text` reads every text whatever the run's analysis budget (`RunOptions.analysisBudget`): a
   * rule about the file itself or its characters (hidden Unicode, control characters, what a file
   * is, a manifest's entries), cheap at any size. Other text rules read within the budget.
   */
  unbudgeted?: boolean;
  /** Checks raw bytes (binary files only). */
  bytes?(bytes: Uint8Array, target: ScanTarget): Hit[];
}

/** Hidden text found inside a target, scanned like a file of its own and reported at `line` of the target. */
export interface HiddenText {
  text: string;
  line: number;
  /** How it was hidden, for messages: "base64", "tag characters", "an HTML comment". */
  via: string;
  /**
   * Not hidden: the text's own characters rearranged (a command continued over lines, joined), or an
   * encoded string whose line says in clear what it decodes to (`SWdub3Jl…` (base64 for "Ignore
   * previous instructions")), so what describes the line it starts at describes it too. Other hidden
   * text is never described.
   */
  own?: boolean;
}

/**
 * The decoded text is on the line in clear too (at least 8 characters of it, case aside). Only a
 * line of prose length is read: a line of megabytes holding thousands of payloads is not read once
 * per payload.
 */
function shownInClear(line: string, decoded: string): boolean {
  const clear = decoded.trim();
  return line.length <= 2000 && clear.length >= 8 && clear.length <= line.length && line.toLowerCase().includes(clear.toLowerCase());
}

/** Where a hidden text sits in its target, and what describes it (null: nothing does). */
interface HiddenAt {
  via: string;
  line: number;
  describe?: DescribeFn | null;
}

export interface RunOptions {
  /** Extra hidden regions of a target (domain-specific), beyond the Unicode and encoded payloads found here. */
  derive?: (target: ScanTarget, lines: LineIndex) => HiddenText[];
  /** At most this many findings per rule and file (default 10). */
  perRuleFileCap?: number;
  /** At most this many findings in all (default 200; the worst are kept). */
  totalCap?: number;
  /** Run every line rule on every line, ignoring `triggers` (for tests that check the triggers). */
  ungated?: boolean;
  /** Scan-wide facts handed to every rule (`ctx.meta`). */
  meta?: Readonly<Record<string, unknown>>;
  /**
   * Where a target's text writes about attacks rather than asks for them (an example fence, a
   * table of patterns, a negated or quoted mention): findings there become `info`, so they are
   * shown and read by a second opinion but do not set the status. Hidden text is never described.
   */
  describe?: (target: ScanTarget, lines: LineIndex) => DescribeFn | null;
  /** Rules `describe` never lowers (their own reading of the context, or a fact about the file). */
  describeExempt?: ReadonlySet<string>;
  /**
   * Characters the whole-text rules (`text`: sentences, paragraphs, co-occurrence) read in this
   * run, every target and hidden text together (decoded payloads too: a megabyte of base64 decodes
   * to three quarters of one, and each decoded text is read like a file): past it
   * they read a text only up to its last line that fits, and not at all once it is spent, a limit
   * noted where they stop. Line rules still read every line. Unbounded when omitted.
   */
  analysisBudget?: number;
  /**
   * Characters of the targets' own text the line rules (and the search for encoded payloads and
   * `derive` regions) read in this run, every target together (`budgetEnd`: a text up to its last
   * line that fits, and not at all once the budget is spent; a limit noted where they stop). Hidden
   * text (decoded payloads, derived regions) has bounds of its own and is not charged. Unbounded
   * when omitted.
   */
  lineBudget?: number;
}

/**
 * Where a text is cut to fit `left` characters: after its last line that fits, or at `left` itself
 * when that would leave more than half of it unread (one long line is read up to the bound, as the
 * line rules read long lines: in windows).
 */
export function budgetEnd(text: string, left: number): number {
  if (text.length <= left) return text.length;
  if (left <= 0) return 0;
  const end = text.lastIndexOf("\n", left - 1) + 1;
  return end > left / 2 ? end : left;
}

const WINDOW = 4096;
const OVERLAP = 256;
const MAX_DEPTH = 2;
/** Runs of tag characters or variation selectors decoded per text (a limit noted when it cuts). */
const MAX_HIDDEN_RUNS = 200;
/** Hidden regions (`derive`: comments, invisible elements, reversed or joined strings) scanned per run, every target together. */
export const MAX_DERIVED = 2000;

function* windows(line: string): Generator<[string, number]> {
  if (line.length <= WINDOW) {
    yield [line, 0];
    return;
  }
  for (let at = 0; at < line.length; at += WINDOW - OVERLAP) yield [line.slice(at, at + WINDOW), at];
}

const NO_HITS: readonly Hit[] = [];
/** A rule's answer as a list (read only: no rule's "nothing" allocates one). */
const asArray = (h: Hit | Hit[] | null | undefined | void): readonly Hit[] => (!h ? NO_HITS : Array.isArray(h) ? h : [h]);

const appliesTo = (rule: Rule, kind: FileKind) => (rule.kinds ? rule.kinds.includes(kind) : kind !== "binary");

/** Severity of a hit found in hidden text: anything that matters becomes at least high. */
const hiddenSeverity = (s: Severity): Severity => (severityRank(s) >= severityRank("medium") ? maxSeverity(s, "high") : s);

/** Characters other than printable ASCII, tab and line breaks: a line with one may read differently once folded. */
const NOT_PLAIN = /[^\t\n\r\x20-\x7e]+|\r(?!\n)/g;
/** A line with something on it (what `trim()` keeps), tested without making the trimmed copy. */
const NON_BLANK = /\S/;

const compiledFor = new WeakMap<readonly Rule[], Compiled>();
const triggerListsFor = new WeakMap<readonly Rule[], (readonly string[] | undefined)[]>();
const presentListsFor = new WeakMap<readonly Rule[], (readonly string[])[]>();

function compiledRules(rules: readonly Rule[]): Compiled {
  let compiled = compiledFor.get(rules);
  if (!compiled) compiledFor.set(rules, (compiled = compileTriggers(rules.map((r) => r.triggers))));
  return compiled;
}

/** Per rule index, the lines of `text` holding one of its triggers (one shared pass, src/scan/triggers.ts). */
function candidates(rules: readonly Rule[], text: string, lines: LineIndex): (LineSet | null)[] {
  let lists = triggerListsFor.get(rules);
  if (!lists) triggerListsFor.set(rules, (lists = rules.map((r) => r.triggers)));
  let present = presentListsFor.get(rules);
  if (!present) presentListsFor.set(rules, (present = lists.filter((l): l is readonly string[] => !!l)));
  const sets = triggerLineSets(text, lines, present);
  let k = 0;
  return lists.map((l) => (l ? sets[k++]! : null));
}

export function runRules(rules: readonly Rule[], targets: readonly ScanTarget[], opts: RunOptions = {}): Finding[] {
  const perCap = opts.perRuleFileCap ?? 10;
  // Hidden text decoded in this run, every target and depth together (a limit noted when spent).
  const budget: DecodeBudget = { left: DECODE_BUDGET };
  let derivedLeft = MAX_DERIVED;
  let analysisLeft = opts.analysisBudget ?? Number.POSITIVE_INFINITY;
  // Noted once, where the budget ran out: every text after it is unread by the same cut.
  let analysisCut = false;
  let lineLeft = opts.lineBudget ?? Number.POSITIVE_INFINITY;
  let lineCut = false;
  const byKey = new Map<string, Finding>();
  // The lines each rule and file holds a finding on (what `byKey` says, asked without making a key
  // string: a rule past its cap is asked on every line it could fire on).
  const linesWith = new Map<string, Set<number>>();
  const hasLine = (countKey: string, line: number) => linesWith.get(countKey)?.has(line) === true;
  const perRuleFile = new Map<string, number>();
  const indexOf = new Map(rules.map((r, i) => [r, i]));
  const gated = !opts.ungated && rules.some((r) => r.triggers);
  const countKeys = new Map<string, string[]>();

  /** Whether a hit could still be kept (the rule has room in this file, or the line already holds one of its findings). */
  const room = (rule: Rule, path: string, line: number) => {
    const countKey = `${rule.id}\u0000${path}`;
    return (perRuleFile.get(countKey) ?? 0) < perCap || hasLine(countKey, line);
  };
  // The excerpt (and the description context) is worked out only for a hit that can be kept: a
  // text with a hundred thousand hits of one rule costs one check per hit, not an excerpt each.
  const emit = (
    rule: Rule,
    path: string,
    line: number,
    hit: Hit,
    exOf: () => string,
    hiddenVia: string | null,
    describedOf: () => string | null = () => null,
  ) => {
    if (!room(rule, path, line)) return;
    const ex = exOf();
    const described = describedOf();
    let severity = hit.severity ?? rule.severity;
    let message = hit.message;
    if (described && severity !== "info" && !opts.describeExempt?.has(rule.id)) {
      severity = "info";
      message = `${hiddenVia ? `Hidden in ${hiddenVia}: ` : ""}${message} — ${described}: read as a description, not an instruction`;
    } else if (hiddenVia) {
      severity = hiddenSeverity(severity);
      message = `Hidden in ${hiddenVia}: ${message}`;
    }
    const key = `${rule.id}\u0000${path}\u0000${line}`;
    const prev = byKey.get(key);
    if (prev) {
      if (severityRank(severity) > severityRank(prev.severity)) byKey.set(key, { ...prev, severity, message, excerpt: ex });
      return;
    }
    const countKey = `${rule.id}\u0000${path}`;
    const n = perRuleFile.get(countKey) ?? 0;
    if (n >= perCap) return;
    perRuleFile.set(countKey, n + 1);
    byKey.set(key, { ruleId: rule.id, severity, path, line, excerpt: ex, message });
    let held = linesWith.get(countKey);
    if (!held) linesWith.set(countKey, (held = new Set()));
    held.add(line);
  };

  /** Scans one text; `at` maps its lines to lines of the real file when it is hidden text. */
  const scanText = (target: ScanTarget, text: string, hidden: HiddenAt | null, depth: number) => {
    const lines = LineIndex.of(text);
    // A limit hit while reading this text is reported at its line of the target (hidden text: where it was found).
    limitScope(target.path, () => scanTextIn(target, text, lines, hidden, depth), hidden ? () => hidden.line : (o) => lines.lineOf(o));
  };
  const scanTextIn = (target: ScanTarget, fullText: string, fullLines: LineIndex, hidden: HiddenAt | null, depth: number) => {
    // The line rules read the file's own text within the run's line budget (noted once, where it ran out).
    let text = fullText;
    let lines = fullLines;
    if (!hidden) {
      const end = budgetEnd(fullText, lineLeft);
      if (end < fullText.length) {
        if (!lineCut) noteLimit("line-analysis", end);
        lineCut = true;
        text = fullText.slice(0, end);
        lines = LineIndex.of(text);
      }
      lineLeft -= end;
    }
    const applicable = rules.filter((r) => appliesTo(r, target.kind));
    // A whole file of detection rules or test payloads describes, hidden parts included; elsewhere hidden
    // text never does, but for the file's own characters rearranged (described where they start).
    const describeLine: DescribeFn | null = target.describes
      ? () => target.describes!
      : hidden
        ? (hidden.describe ?? null)
        : opts.describe
          ? opts.describe(target, fullLines)
          : null;
    const lineRules = applicable.filter((r) => r.line);
    const realLine = (n: number) => (hidden ? hidden.line : n);
    const hiddenExcerpt = (ln: string, i = 0, len = 0) => (hidden ? `decoded: ${excerpt(ln, i, len)}` : excerpt(ln, i, len));
    const cands = gated ? candidates(rules, text, lines) : null;
    const compiled = gated ? compiledRules(rules) : null;
    const ungatedRules = lineRules.filter((r) => !cands || !r.triggers);
    const gatedRules = lineRules.filter((r) => cands && r.triggers);
    // The gated rules each line can fire on, from each rule's trigger lines: per line a run of
    // indexes into `gatedRules` (in their order), in two typed arrays rather than a list per line.
    let off: Int32Array | null = null;
    let at: Int32Array | null = null;
    if (cands && gatedRules.length) {
      const sets = gatedRules.map((r) => cands[indexOf.get(r)!]!);
      let total = 0;
      for (const set of sets) total += set.size;
      if (total > 0) {
        off = new Int32Array(lines.count + 2);
        for (const set of sets) for (const n of set) off[n + 1]!++;
        for (let n = 1; n <= lines.count + 1; n++) off[n]! += off[n - 1]!;
        at = new Int32Array(total);
        const fill = off.slice(0, lines.count + 1);
        sets.forEach((set, g) => {
          for (const n of set) at![fill[n]!++] = g;
        });
      }
    }
    // Which lines to visit: all of them while an ungated rule applies; else those with a trigger and
    // those that change when folded (non-ASCII or invisible characters).
    let visit: Iterable<number>;
    if (ungatedRules.length) {
      visit = (function* () {
        for (let n = 1; n <= lines.count; n++) yield n;
      })();
    } else {
      // One match per such line: after a match the search goes on from the next line's start.
      const odd: number[] = [];
      const lineOf = lines.cursor();
      NOT_PLAIN.lastIndex = 0;
      for (let m = NOT_PLAIN.exec(text); m; m = NOT_PLAIN.exec(text)) {
        const n = lineOf(m.index);
        if (odd[odd.length - 1] !== n) odd.push(n);
        if (n >= lines.count) break;
        NOT_PLAIN.lastIndex = Math.max(NOT_PLAIN.lastIndex, lines.startOf(n + 1));
      }
      const todo: number[] = [];
      let k = 0;
      if (off) {
        for (let n = 1; n <= lines.count; n++) {
          if (off[n + 1] !== off[n]) todo.push(n);
          else if (odd[k] === n) todo.push(n);
          while (k < odd.length && odd[k]! <= n) k++;
        }
      } else todo.push(...odd);
      visit = todo;
    }
    // Count keys of this file by rule index (what `spent` looks up), made once per text.
    let pathKeys = countKeys.get(target.path);
    if (!pathKeys) countKeys.set(target.path, (pathKeys = rules.map((r) => `${r.id}\u0000${target.path}`)));
    const keys = pathKeys;
    const gatedIdx = gatedRules.map((r) => indexOf.get(r)!);
    const lineIdx = lineRules.map((r) => indexOf.get(r)!);
    const ungatedIdx = ungatedRules.map((r) => indexOf.get(r)!);
    const spentAt = (ri: number, line: number) => {
      const key = keys[ri]!;
      return (perRuleFile.get(key) ?? 0) >= perCap && !hasLine(key, line);
    };
    // What the visited line's rules need, set per line (one closure for the text, not one per line).
    let raw = "";
    let n = 0;
    let ln = 0;
    let ctx: LineContext = { target, lineNo: 0, hidden: !!hidden, meta: opts.meta };
    // Rules that fired on the line as written (a Set only once one does).
    const fired: { ids: Set<string> | null } = { ids: null };
    const runOn = (rule: Rule, ri: number, chunk: string, offset: number) => {
      if (spentAt(ri, ln)) return;
      const hits = asArray(rule.line!(chunk, ctx));
      if (!hits.length) return;
      const lineRaw = raw;
      const lineNo = n;
      for (const hit of hits) {
        (fired.ids ??= new Set()).add(rule.id);
        const pos = offset + (hit.index ?? 0);
        emit(
          rule,
          target.path,
          ln,
          hit,
          () => hiddenExcerpt(lineRaw, pos, hit.length ?? 0),
          hidden?.via ?? null,
          () => (describeLine ? describeLine(lineNo, lineRaw, pos, hit.length ?? 0) : null),
        );
      }
    };
    for (n of visit) {
      raw = lines.line(n);
      if (!NON_BLANK.test(raw)) continue;
      ln = realLine(n);
      ctx = { target, lineNo: ln, hidden: !!hidden, meta: opts.meta };
      fired.ids = null;
      if (raw.length <= WINDOW) {
        for (let u = 0; u < ungatedRules.length; u++) runOn(ungatedRules[u]!, ungatedIdx[u]!, raw, 0);
        if (off) for (let k = off[n]!, end = off[n + 1]!; k < end; k++) runOn(gatedRules[at![k]!]!, gatedIdx[at![k]!]!, raw, 0);
      } else {
        for (const [chunk, offset] of windows(raw)) {
          // A long line arrives in windows: each window is gated on its own words.
          const own = compiled ? ownersIn(compiled, chunk) : null;
          for (let u = 0; u < ungatedRules.length; u++) runOn(ungatedRules[u]!, ungatedIdx[u]!, chunk, offset);
          if (own) {
            for (let g = 0; g < gatedRules.length; g++) if (own.has(gatedIdx[g]!)) runOn(gatedRules[g]!, gatedIdx[g]!, chunk, offset);
          } else if (off)
            for (let k = off[n]!, end = off[n + 1]!; k < end; k++) runOn(gatedRules[at![k]!]!, gatedIdx[at![k]!]!, chunk, offset);
        }
      }
      // The same line as a model reads it: invisible characters gone, fullwidth letters folded.
      if (hasInvisible(raw) || /[^\x00-\x7f]/.test(raw)) {
        const folded = normalizeForMatching(raw);
        if (folded !== raw) {
          for (const [chunk] of windows(folded)) {
            const own = compiled ? ownersIn(compiled, chunk) : null;
            // The trigger test first, by index: most rules have none of theirs in the line (two Map
            // reads per rule and folded line were most of the cost of a text of zero-width-split lines).
            for (let r = 0; r < lineRules.length; r++) {
              const rule = lineRules[r]!;
              const ri = lineIdx[r]!;
              if ((own && rule.triggers && !own.has(ri)) || (fired.ids as Set<string> | null)?.has(rule.id) || spentAt(ri, ln)) continue;
              for (const hit of asArray(rule.line!(chunk, ctx))) {
                emit(rule, target.path, ln, hit, () => hiddenExcerpt(raw), hidden?.via ?? "invisible or look-alike characters");
              }
            }
          }
        }
      }
    }
    // Encoded payloads and derived regions are looked for where the line rules read (searches over
    // every unit of a 5 MiB text: about a third of a scan of random bytes read as text).
    const searched = text;
    const searchedLines = lines;
    // Everything else after the line rules reads the whole text (the whole-text rules within their own budget).
    text = fullText;
    lines = fullLines;
    // The whole-text rules read within the run's analysis budget.
    let read = text;
    let readLines = lines;
    if (applicable.some((r) => r.text && !r.unbudgeted)) {
      if (text.length > analysisLeft) {
        const end = analysisLeft > 0 ? text.lastIndexOf("\n", analysisLeft - 1) + 1 : 0;
        if (!analysisCut) noteLimit("text-analysis", end);
        analysisCut = true;
        read = text.slice(0, end);
        readLines = LineIndex.of(read);
      }
      analysisLeft -= read.length;
    }
    for (const rule of applicable) {
      if (!rule.text) continue;
      // A text the budget cut to nothing is not read (an empty text still is, as it always was).
      const own = rule.unbudgeted === true;
      if (!own && read.length === 0 && text.length > 0) continue;
      for (const hit of rule.text(own ? text : read, { target, lines: own ? lines : readLines, hidden: !!hidden, meta: opts.meta })) {
        const n = lines.lineOf(hit.index ?? 0);
        if (!room(rule, target.path, realLine(n))) continue;
        const lineText = lines.line(n);
        const col = (hit.index ?? 0) - lines.startOf(n);
        emit(
          rule,
          target.path,
          realLine(n),
          hit,
          () => hiddenExcerpt(lineText, col, hit.length ?? 0),
          hidden?.via ?? null,
          () => (describeLine ? describeLine(n, lineText, col, hit.length ?? 0) : null),
        );
      }
    }
    if (depth >= MAX_DEPTH) {
      // Layers below are not decoded: a text that still holds a payload here was not fully read.
      if (hidden && findEncodedPayloads(text, budget).length) noteLimit("decode-depth", undefined, hidden.line);
      return;
    }
    const nested: HiddenText[] = [];
    const runs = findHiddenUnicode(text, { only: ["tag", "variation-selector"], max: MAX_HIDDEN_RUNS + 1 });
    if (runs.length > MAX_HIDDEN_RUNS) {
      noteLimit("hidden-unicode-runs", runs.pop()!.offset);
    }
    for (const run of runs) {
      if (run.decoded?.trim()) {
        nested.push({
          text: run.decoded,
          line: lines.lineOf(run.offset),
          via: run.kind === "tag" ? "Unicode tag characters" : "variation selectors",
        });
      }
    }
    // Inflated payloads were charged to the budget as they were inflated, not again when read.
    const charged = new Set<HiddenText>();
    for (const p of findEncodedPayloads(searched, budget)) {
      const at = lines.lineOf(p.offset);
      const h: HiddenText = {
        text: p.decoded,
        line: at,
        via: p.kind === "char-codes" ? "character codes" : p.kind === "gzip" ? "gzip inside base64" : p.kind === "rot13" ? "ROT13" : p.kind,
      };
      // Said in clear on its line or the next ("→ prints `curl … | sh`").
      if (shownInClear(lines.line(at), p.decoded) || (at < lines.count && shownInClear(lines.line(at + 1), p.decoded))) h.own = true;
      nested.push(h);
      if (p.kind === "gzip") charged.add(h);
    }
    const fromDecoders = nested.length;
    // Each region is a scan of its own (every rule's set-up, tens of microseconds): a line of half a
    // million comments is half a million regions, so a scan reads a bounded number (a limit noted when it cuts).
    if (depth === 0 && opts.derive) {
      const within = searched === fullText ? target : { ...target, text: searched };
      for (const h of opts.derive(within, searchedLines)) {
        if (derivedLeft <= 0) {
          noteLimit("hidden-regions", undefined, h.line);
          break;
        }
        derivedLeft--;
        nested.push(h);
      }
    }
    for (let k = 0; k < nested.length; k++) {
      const h = nested[k]!;
      // Decoded text is read within the scan's budget (derived regions are the text's own characters).
      if (k < fromDecoders && !charged.has(h)) {
        if (h.text.length > budget.left) {
          noteLimit("decoded-text", undefined, hidden ? hidden.line : h.line);
          continue;
        }
        budget.left -= h.text.length;
      }
      const via = hidden ? `${h.via} inside ${hidden.via}` : h.via;
      // The file's own characters rearranged are described where they start (an example fence stays one).
      let describe: DescribeFn | null = null;
      if (h.own && !hidden && describeLine) {
        const t = lines.line(h.line);
        const said = describeLine(h.line, t, 0, t.length);
        describe = () => said;
      }
      scanText(target, h.text, { via, line: hidden ? hidden.line : h.line, describe }, depth + 1);
    }
  };

  for (const target of targets) {
    if (target.text !== null) {
      scanText(target, target.text, null, 0);
    } else if (target.bytes) {
      for (const rule of rules) {
        if (!rule.bytes || !appliesTo(rule, "binary")) continue;
        for (const hit of rule.bytes(target.bytes, target)) emit(rule, target.path, 1, hit, () => "", null);
      }
    }
  }
  const all = sortFindings([...byKey.values()]);
  return all.slice(0, opts.totalCap ?? 200);
}

export { visible };
