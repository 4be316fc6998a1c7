/**
 * Where the rules are unsure: the one hook between the rules and a second opinion (judge.ts).
 * Every scanner's entry point returns `uncertain: UncertainSpan[]` beside its findings; a judge,
 * when one is configured, reads those passages and nothing else.
 *
 * What counts as uncertain today (`isUncertain`):
 *   - a medium finding (the rules' own "maybe": warn);
 *   - a finding a prose rule lowered to `info` because the match looked quoted on a line that
 *     discusses it: the rules cannot tell a description of an attack from an instruction;
 *   - a file that is not valid UTF-8 and was decoded leniently (`lossy` targets): read, but partly guessed.
 * Rules can feed it more precisely later by giving a finding `severity: "medium"` for what they
 * cannot decide, or a scanner can append its own spans to the list before it returns.
 */
import { LineIndex, visible } from "./text";
import { severityRank, type Severity } from "./types";
import { INCOMPLETE_RULE_ID } from "./limits";

export interface UncertainSpan {
  /** A file path (skills), `instructions` or `tools/<name>/<field>` (MCP), a field name (kb, forum). */
  path: string;
  /** First and last line (1-based) of the passage within that text. */
  line: number;
  endLine: number;
  /** Why the rules are unsure, in words (the findings it stands for). */
  reason: string;
  /** The first rule whose finding the passage stands for; null for a passage not tied to one. */
  ruleId: string | null;
  /** The passage as the judge reads it (hidden characters made visible), at most SPAN_CHARS. */
  text: string;
  /** Indexes into the scan's `findings` of the findings this passage stands for. */
  covers: number[];
}

/** A whole text put to a judge of scope "all": no rule's passage, so it covers no finding. */
export const wholeTextSpan = (path: string, text: string, reason: string): UncertainSpan => ({
  path,
  line: 1,
  endLine: new LineIndex(text).count,
  reason,
  ruleId: null,
  text: visible(text),
  covers: [],
});

/** Characters of text around an uncertain line sent for a second opinion. */
export const SPAN_CHARS = 1_500;
/** Lines of context on each side of the uncertain line. */
const CONTEXT_LINES = 3;
/** Passages collected per scan at most (the judge reads fewer: JUDGE_LIMITS.items). */
export const MAX_SPANS = 40;

export function isUncertain(f: { ruleId: string; severity: Severity }, defaults: ReadonlyMap<string, Severity>): boolean {
  // What was not read is no passage a second opinion could clear.
  if (f.ruleId === INCOMPLETE_RULE_ID) return false;
  if (f.severity === "medium") return true;
  const d = defaults.get(f.ruleId);
  return f.severity === "info" && d !== undefined && severityRank(d) >= severityRank("high");
}

/** Rule id → default severity, for `isUncertain`. */
export const ruleDefaults = (rules: readonly { id: string; severity: Severity }[]): Map<string, Severity> =>
  new Map(rules.map((r) => [r.id, r.severity]));

/**
 * The uncertain passages of a scan. `locate(i)` gives the text finding `i` points into (its path
 * as the judge should see it, and the whole text); `lossy` are texts decoded leniently.
 */
export function collectUncertain(
  findings: readonly { ruleId: string; severity: Severity; line?: number; message: string }[],
  locate: (i: number) => { path: string; text: string } | null,
  defaults: ReadonlyMap<string, Severity>,
  lossy: readonly { path: string; text: string }[] = [],
): UncertainSpan[] {
  type Open = {
    path: string;
    text: string;
    lines: LineIndex;
    from: number;
    to: number;
    covers: number[];
    reasons: string[];
    ruleId: string;
    rank: number;
  };
  const byPath = new Map<string, Open[]>();
  const indexes = new Map<string, LineIndex>();
  for (let i = 0; i < findings.length; i++) {
    const f = findings[i]!;
    if (!isUncertain(f, defaults)) continue;
    const where = locate(i);
    if (!where) continue;
    let lines = indexes.get(where.path);
    if (!lines) indexes.set(where.path, (lines = new LineIndex(where.text)));
    const line = Math.min(Math.max(1, f.line ?? 1), lines.count);
    const from = Math.max(1, line - CONTEXT_LINES);
    const to = Math.min(lines.count, line + CONTEXT_LINES);
    const open = byPath.get(where.path) ?? [];
    const near = open.find((o) => from <= o.to + 1 && to >= o.from - 1);
    const reason = `${f.ruleId} (${f.severity}${f.severity === "info" ? ", read as a quoted mention" : ""}): ${f.message}`;
    if (near) {
      near.from = Math.min(near.from, from);
      near.to = Math.max(near.to, to);
      near.covers.push(i);
      near.reasons.push(reason);
      near.rank = Math.max(near.rank, severityRank(f.severity));
    } else {
      open.push({
        path: where.path,
        text: where.text,
        lines,
        from,
        to,
        covers: [i],
        reasons: [reason],
        ruleId: f.ruleId,
        rank: severityRank(f.severity),
      });
      byPath.set(where.path, open);
    }
  }
  const spans: (UncertainSpan & { rank: number })[] = [];
  for (const list of byPath.values()) {
    for (const o of list) {
      const start = o.lines.startOf(o.from);
      const end = o.to < o.lines.count ? o.lines.startOf(o.to + 1) : o.text.length;
      spans.push({
        path: o.path,
        line: o.from,
        endLine: o.to,
        reason: [...new Set(o.reasons)].join("; ").slice(0, 600),
        ruleId: o.ruleId,
        text: visible(o.text.slice(start, Math.min(end, start + SPAN_CHARS))),
        covers: o.covers,
        rank: o.rank,
      });
    }
  }
  for (const t of lossy) {
    spans.push({
      path: t.path,
      line: 1,
      endLine: new LineIndex(t.text.slice(0, SPAN_CHARS)).count,
      reason: "the file is not valid UTF-8 and was read with a lenient decoding: what it does is partly guessed",
      ruleId: null,
      text: visible(t.text.slice(0, SPAN_CHARS)),
      covers: [],
      rank: severityRank("medium"),
    });
  }
  // Medium before info: the judge's budget goes first where the status depends on it.
  spans.sort((a, b) => b.rank - a.rank);
  return spans.slice(0, MAX_SPANS).map(({ rank: _r, ...s }) => s);
}
