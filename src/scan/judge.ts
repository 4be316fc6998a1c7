/**
 * A second opinion where the rules are unsure (docs/scanner.md, "A second opinion"). The rules
 * decide alone unless a judge is configured. With one, every scan hands the judge the passages
 * the rules were unsure about (`UncertainSpan`, src/scan/uncertain.ts) and folds its verdicts into
 * the findings, so that the stored findings alone still give the status (`statusOf`):
 *
 *   - malicious   adds `judge.malicious` (high): the content is flagged;
 *   - suspicious  adds `judge.suspicious` (medium): at least warn;
 *   - benign      lowers the medium findings of that passage to low, noting the verdict: a
 *                 passage the rules were unsure about is cleared. High and critical findings are
 *                 never put to the judge (a flagged scan skips it): the judge reads text an
 *                 attacker wrote, so nothing it says may unlock what the rules were sure of;
 *   - no answer   (error, timeout, malformed answer, the job's call budget spent) adds
 *                 `judge.unavailable` (medium): not analysed is not a pass, the content stays warn
 *                 and its stored ruleset version says the judge is owed, so the rescan retries.
 *
 * Scope (`Judge.scope`, SCAN_JUDGE_SCOPE): "uncertain" reads only those passages. "all" (the
 * default) also reads the content's instruction text as a whole (`review`: a skill's SKILL.md and
 * the text files it points the agent to; an MCP server's instructions and each tool's description
 * and schema texts), because the harm the rules miss carries no trigger word and so leaves no
 * uncertain passage. On that text a malicious or suspicious verdict adds the finding above; benign
 * changes nothing (it only ever clears passages the rules were unsure about).
 *
 * Cost is bounded per scan: one call, at most `items` uncertain passages of `itemChars` characters,
 * `reviewItems` whole texts, `totalChars` in all (uncertain passages first: the status depends on
 * them), `timeoutMs` of waiting. Uncertain passages over the budget are not sent; they add
 * `judge.incomplete` (medium): what was not read cannot pass. Whole text over the budget is cut, and
 * the judge layer's detail says how much was read ("read 12,000 of 48,210 characters"): the rules
 * still read all of it, so a partial review adds no finding, but it never claims to be a full one.
 */
import { visible } from "./text";
import { statusOf, type ScanStatus, type Severity } from "./types";
import type { UncertainSpan } from "./uncertain";

export type JudgeVerdict = "benign" | "suspicious" | "malicious";
export type JudgeScope = "all" | "uncertain";
export const JUDGE_SCOPES = ["all", "uncertain"] as const;
export const JUDGE_VERDICTS = ["benign", "suspicious", "malicious"] as const;

/** One passage as the judge receives it. */
export interface JudgeItem {
  id: number;
  /** uncertain: a passage the rules were unsure about; whole: instruction text reviewed as a whole. */
  kind: "uncertain" | "whole";
  path: string;
  reason: string;
  text: string;
}

export interface JudgeAnswer {
  id: number;
  verdict: JudgeVerdict;
  reason: string;
}

export interface Judge {
  /** The model (or fake) that answers: recorded in the scan's layers and its ruleset version. */
  readonly model: string;
  /** How long one call may take before the scan gives up on it (ms). */
  readonly timeoutMs: number;
  /** What it reads: "all" (default) or only the rules' uncertain passages. */
  readonly scope?: JudgeScope;
  judge(items: readonly JudgeItem[], signal: AbortSignal): Promise<JudgeAnswer[]>;
}

/** Thrown by a judge whose per-job call budget is spent: the content waits for the next run. */
export class JudgeDeferred extends Error {}

export const JUDGE_LIMITS = {
  /** Uncertain passages per call; one call per scan. */
  items: 8,
  itemChars: 1_500,
  /** Whole texts per call (scope "all"): a skill's files, an MCP server's tools. */
  reviewItems: 40,
  /** All text of the call: a typical SKILL.md (a few thousand characters) fits whole beside its passages. */
  totalChars: 24_000,
  timeoutMs: 10_000,
} as const;
export type JudgeLimits = { readonly [K in keyof typeof JUDGE_LIMITS]: number };

/** Ids of whole-text items start here, so that they never meet a passage's id. */
const REVIEW_ID = 1_000;

/** What ran on a piece of content, in order. Stored with the verdict and shown with it. */
export interface ScanLayer {
  layer: "rules" | "judge";
  /** The ruleset version, or the judge's model. */
  version: string;
  /**
   * rules: the rules' own status (passed, warn, flagged). judge: benign, suspicious, malicious,
   * incomplete (some passages over the budget), not-needed (nothing uncertain), skipped (the rules
   * flagged it), failed (no usable answer), deferred (the job's call budget was spent).
   */
  outcome: string;
  detail: string | null;
}

export const JUDGE_OUTCOMES = ["benign", "suspicious", "malicious", "incomplete", "not-needed", "skipped", "failed", "deferred"] as const;

/** The ruleset version a scan is stored under once every configured layer has decided it. */
export const decidedVersion = (rulesVersion: string, judge: Pick<Judge, "model" | "scope"> | null): string =>
  // "+all" marks a whole-text review: content a judge of scope "uncertain" decided is read again.
  judge ? `${rulesVersion}+judge:${judge.model}${judge.scope === "uncertain" ? "" : "+all"}` : rulesVersion;

/** Stored when the judge is owed (failed or deferred): differs from `decidedVersion`, so the rescan picks it up. */
const owedVersion = (rulesVersion: string, judge: Pick<Judge, "model" | "scope">) => `${decidedVersion(rulesVersion, judge)}:retry`;

export interface JudgedFinding {
  ruleId: string;
  severity: Severity;
  message: string;
}

export interface SecondOpinion<F> {
  findings: F[];
  status: ScanStatus;
  layers: ScanLayer[];
  /** The version to store: the rules' own without a judge; with one, marked decided or owed. */
  rulesetVersion: string;
  /** Calls made to the judge (0 or 1). */
  calls: number;
}

const clean = (s: string, max: number) => visible(s.replace(/\s+/g, " ").trim()).slice(0, max);

function itemsFor(spans: readonly UncertainSpan[], limits: JudgeLimits): JudgeItem[] {
  const items: JudgeItem[] = [];
  let total = 0;
  for (let i = 0; i < spans.length && items.length < limits.items; i++) {
    const s = spans[i]!;
    const text = s.text.slice(0, limits.itemChars);
    if (total + text.length > limits.totalChars) break;
    total += text.length;
    items.push({
      id: i,
      kind: "uncertain",
      path: s.line > 1 || s.endLine > 1 ? `${s.path}:${s.line}-${s.endLine}` : s.path,
      reason: s.reason.slice(0, 300),
      text,
    });
  }
  return items;
}

async function withTimeout<T>(run: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const ac = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([run(ac.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whole texts as the judge reads them, within what the passages left of the budget. Over the
 * budget, each text gets a fair share (a short text whole, the long ones the same share each)
 * rather than the first texts all of it: padding put first must not push a poisoned text out of
 * the judge's sight. A text cut to its share is read at its head and its tail (two thirds and one
 * third), so that text appended after padding is read too; the judge is told what was left out.
 * More texts than `reviewItems` (a server of 200 tools) are read in that many groups of
 * neighbours, each text under its path, so that none is left out for coming late.
 */
function reviewItemsFor(texts: readonly UncertainSpan[], used: number, limits: JudgeLimits) {
  const items: JudgeItem[] = [];
  const left = Math.max(0, limits.totalChars - used);
  const groups = groupTexts(texts, limits.reviewItems);
  const total = groups.reduce((sum, g) => sum + g.text.length, 0);
  const lengths = groups.map((g) => g.text.length);
  // Over the budget, the line that says what was left out of a cut text is paid from it too.
  const fits = total <= left;
  const share = fits ? Number.POSITIVE_INFINITY : fairShare(lengths, Math.max(0, left - OMITTED_MAX * groups.length));
  let read = 0;
  let begun = 0;
  for (const g of groups) {
    const got = Math.min(share, g.text.length);
    if (got <= 0) continue;
    read += got;
    begun += g.count;
    const cut = got < g.text.length;
    items.push({
      id: REVIEW_ID + g.first,
      kind: "whole",
      path: g.path,
      reason: `${g.reason.slice(0, 300)}${cut ? ` (only ${got} of its ${g.text.length} characters fit the budget: its beginning and its end)` : ""}`,
      text: cut ? headAndTail(g.text, got) : g.text,
    });
  }
  return { items, read, total, begun };
}

/** The texts as at most `max` items: each alone when they are few, else runs of neighbours, each text under its path. */
function groupTexts(texts: readonly UncertainSpan[], max: number) {
  if (texts.length <= max) return texts.map((t, i) => ({ first: i, count: 1, path: t.path, reason: t.reason, text: t.text }));
  const size = Math.ceil(texts.length / max);
  const out = [];
  for (let first = 0; first < texts.length; first += size) {
    const run = texts.slice(first, first + size);
    out.push({
      first,
      count: run.length,
      path: `${run[0]!.path} … ${run[run.length - 1]!.path}`,
      reason: `${run.length} texts read together, each under its path: ${run[0]!.reason}`,
      text: run.map((t) => `[${t.path}]\n${t.text}`).join("\n\n"),
    });
  }
  return out;
}

/** The largest per-text share s with the sum of min(length, s) within the budget (every text whole when they fit). */
export function fairShare(lengths: readonly number[], budget: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = budget;
  for (let i = 0; i < sorted.length; i++) {
    const even = Math.floor(left / (sorted.length - i));
    if (sorted[i]! > even) return even;
    left -= sorted[i]!;
  }
  return Number.POSITIVE_INFINITY;
}

const OMITTED = (n: number) => `\n[… ${n} characters not shown …]\n`;
const OMITTED_MAX = OMITTED(Number.MAX_SAFE_INTEGER).length;

/** `share` characters of `text`: its first two thirds and its last third, with a line saying what is between. */
function headAndTail(text: string, share: number): string {
  const head = Math.ceil((share * 2) / 3);
  const tail = share - head;
  return `${text.slice(0, head)}${OMITTED(text.length - share)}${tail > 0 ? text.slice(text.length - tail) : ""}`;
}

const n = (x: number) => x.toLocaleString("en-US");

/**
 * Runs the judge (when there is one) on a scan's uncertain passages and, under scope "all", on
 * `review` (the content's instruction text as a whole, spans with `covers: []`), and returns the
 * findings and status to store. `make` builds a finding of the scanner's own shape at a passage.
 */
export async function secondOpinion<F extends JudgedFinding, S extends UncertainSpan = UncertainSpan>(
  judge: Judge | null,
  scan: { findings: readonly F[]; uncertain: readonly S[]; rulesetVersion: string; review?: readonly S[] },
  make: (span: S, ruleId: string, severity: Severity, message: string) => F,
  limits: JudgeLimits = JUDGE_LIMITS,
): Promise<SecondOpinion<F>> {
  const rulesStatus = statusOf(scan.findings);
  const layers: ScanLayer[] = [{ layer: "rules", version: scan.rulesetVersion, outcome: rulesStatus, detail: null }];
  const findings = [...scan.findings];
  const done = (outcome: (typeof JUDGE_OUTCOMES)[number], detail: string | null, version: string, calls = 0): SecondOpinion<F> => {
    layers.push({ layer: "judge", version: judge!.model, outcome, detail });
    return { findings, status: statusOf(findings), layers, rulesetVersion: version, calls };
  };
  if (!judge) return { findings, status: rulesStatus, layers, rulesetVersion: scan.rulesetVersion, calls: 0 };
  const decided = decidedVersion(scan.rulesetVersion, judge);
  if (rulesStatus === "flagged")
    return done("skipped", "The rules flagged this content; a second opinion never clears a high or critical finding.", decided);
  const spans = scan.uncertain;
  const texts = judge.scope === "uncertain" ? [] : (scan.review ?? []).filter((t) => t.text.trim());
  if (!spans.length && !texts.length)
    return done(
      "not-needed",
      judge.scope === "uncertain" ? "The rules were unsure of nothing here." : "No instruction text to read.",
      decided,
    );

  const items = itemsFor(spans, limits);
  const review = reviewItemsFor(
    texts,
    items.reduce((sum, i) => sum + i.text.length, 0),
    limits,
  );
  const sent = [...items, ...review.items];
  const at = (item: JudgeItem): S => (item.kind === "whole" ? texts[item.id - REVIEW_ID]! : spans[item.id]!);
  const owed = (why: string, outcome: "failed" | "deferred") => {
    findings.push(
      make(
        spans[0] ?? texts[0]!,
        "judge.unavailable",
        "medium",
        `A second opinion (${judge.model}) is configured for this content and ${why}: it was not analysed, so it is not passed; it is tried again on the next rescan`,
      ),
    );
    return done(outcome, why, owedVersion(scan.rulesetVersion, judge), outcome === "failed" ? 1 : 0);
  };
  let answers: JudgeAnswer[];
  try {
    answers = await withTimeout((signal) => judge.judge(sent, signal), Math.min(judge.timeoutMs, limits.timeoutMs));
  } catch (e) {
    if (e instanceof JudgeDeferred) return owed("could not run within this job's budget of calls", "deferred");
    return owed(`did not answer (${clean(e instanceof Error ? e.message : String(e), 120)})`, "failed");
  }
  const byId = new Map<number, JudgeAnswer>();
  for (const a of answers) if (sent.some((i) => i.id === a.id) && !byId.has(a.id)) byId.set(a.id, a);
  if (byId.size !== sent.length)
    return owed(
      items.length === sent.length
        ? `answered ${byId.size} of the ${items.length} passages it was given`
        : `answered ${byId.size} of the ${sent.length} passages and texts it was given`,
      "failed",
    );

  let worst: JudgeVerdict = "benign";
  for (const item of sent) {
    const a = byId.get(item.id)!;
    const span = at(item);
    const reason = clean(a.reason, 200) || "no reason given";
    const whole = item.kind === "whole" ? " (reviewing the instruction text as a whole)" : "";
    if (a.verdict === "malicious") {
      worst = "malicious";
      findings.push(make(span, "judge.malicious", "high", `Second opinion (${judge.model})${whole}: malicious. ${reason}`));
    } else if (a.verdict === "suspicious") {
      if (worst === "benign") worst = "suspicious";
      findings.push(make(span, "judge.suspicious", "medium", `Second opinion (${judge.model})${whole}: suspicious. ${reason}`));
    } else if (item.kind === "uncertain") {
      // Benign clears only what the rules were unsure of; on whole text it changes nothing.
      for (const i of span.covers) {
        const f = findings[i];
        if (f?.severity !== "medium") continue;
        findings[i] = {
          ...f,
          severity: "low",
          message: `${f.message} (medium until a second opinion, ${judge.model}, judged the passage benign: ${reason})`,
        };
      }
    }
  }
  const unsent = spans.length - items.length;
  if (unsent > 0) {
    findings.push(
      make(
        spans[items.length]!,
        "judge.incomplete",
        "medium",
        `${unsent} of ${spans.length} passages the rules were unsure about were over the second opinion's budget (${limits.items} passages, ${limits.totalChars} characters a scan) and were not analysed`,
      ),
    );
  }
  const outcome = worst !== "benign" ? worst : unsent > 0 ? "incomplete" : "benign";
  const details: string[] = [];
  if (spans.length || !texts.length) details.push(`${items.length} of ${spans.length} uncertain passages read`);
  if (texts.length) {
    const partial = review.read < review.total;
    details.push(
      partial
        ? `whole-text review partial: read ${n(review.read)} of ${n(review.total)} characters (${review.begun} of ${texts.length} texts begun); the rest was read by the rules only`
        : `whole-text review: read all ${n(review.total)} characters of ${texts.length} text${texts.length === 1 ? "" : "s"}`,
    );
  }
  return done(outcome, details.join("; "), decided, 1);
}

/** A judge that makes at most `calls` calls; past that it defers (the content stays warn and is retried). */
export function withCallBudget(judge: Judge | null, calls: number): Judge | null {
  if (!judge) return null;
  let left = calls;
  return {
    model: judge.model,
    timeoutMs: judge.timeoutMs,
    scope: judge.scope,
    judge(items, signal) {
      if (left <= 0) return Promise.reject(new JudgeDeferred("call budget spent"));
      left--;
      return judge.judge(items, signal);
    },
  };
}
