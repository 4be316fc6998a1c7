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
 * Cost is bounded per scan: one call, at most `items` passages of `itemChars` characters and
 * `totalChars` in all, `timeoutMs` of waiting. Passages over the budget are not sent; they add
 * `judge.incomplete` (medium): what was not read cannot pass.
 */
import { visible } from "./text";
import { statusOf, type ScanStatus, type Severity } from "./types";
import type { UncertainSpan } from "./uncertain";

export type JudgeVerdict = "benign" | "suspicious" | "malicious";
export const JUDGE_VERDICTS = ["benign", "suspicious", "malicious"] as const;

/** One passage as the judge receives it. */
export interface JudgeItem {
  id: number;
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
  judge(items: readonly JudgeItem[], signal: AbortSignal): Promise<JudgeAnswer[]>;
}

/** Thrown by a judge whose per-job call budget is spent: the content waits for the next run. */
export class JudgeDeferred extends Error {}

export const JUDGE_LIMITS = {
  /** Passages per call; one call per scan. */
  items: 8,
  itemChars: 1_500,
  totalChars: 12_000,
  timeoutMs: 10_000,
} as const;

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
export const decidedVersion = (rulesVersion: string, judge: Pick<Judge, "model"> | null): string =>
  judge ? `${rulesVersion}+judge:${judge.model}` : rulesVersion;

/** Stored when the judge is owed (failed or deferred): differs from `decidedVersion`, so the rescan picks it up. */
const owedVersion = (rulesVersion: string, judge: Pick<Judge, "model">) => `${decidedVersion(rulesVersion, judge)}:retry`;

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

function itemsFor(spans: readonly UncertainSpan[], limits: typeof JUDGE_LIMITS): JudgeItem[] {
  const items: JudgeItem[] = [];
  let total = 0;
  for (let i = 0; i < spans.length && items.length < limits.items; i++) {
    const s = spans[i]!;
    const text = s.text.slice(0, limits.itemChars);
    if (total + text.length > limits.totalChars) break;
    total += text.length;
    items.push({
      id: i,
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
 * Runs the judge (when there is one) on a scan's uncertain passages and returns the findings and
 * status to store. `make` builds a finding of the scanner's own shape at a passage.
 */
export async function secondOpinion<F extends JudgedFinding, S extends UncertainSpan = UncertainSpan>(
  judge: Judge | null,
  scan: { findings: readonly F[]; uncertain: readonly S[]; rulesetVersion: string },
  make: (span: S, ruleId: string, severity: Severity, message: string) => F,
  limits: typeof JUDGE_LIMITS = JUDGE_LIMITS,
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
  if (!spans.length) return done("not-needed", "The rules were unsure of nothing here.", decided);

  const items = itemsFor(spans, limits);
  const owed = (why: string, outcome: "failed" | "deferred") => {
    findings.push(
      make(
        spans[0]!,
        "judge.unavailable",
        "medium",
        `A second opinion (${judge.model}) is configured for this content and ${why}: it was not analysed, so it is not passed; it is tried again on the next rescan`,
      ),
    );
    return done(outcome, why, owedVersion(scan.rulesetVersion, judge), outcome === "failed" ? 1 : 0);
  };
  let answers: JudgeAnswer[];
  try {
    answers = await withTimeout((signal) => judge.judge(items, signal), Math.min(judge.timeoutMs, limits.timeoutMs));
  } catch (e) {
    if (e instanceof JudgeDeferred) return owed("could not run within this job's budget of calls", "deferred");
    return owed(`did not answer (${clean(e instanceof Error ? e.message : String(e), 120)})`, "failed");
  }
  const byId = new Map<number, JudgeAnswer>();
  for (const a of answers) if (items.some((i) => i.id === a.id) && !byId.has(a.id)) byId.set(a.id, a);
  if (byId.size !== items.length) return owed(`answered ${byId.size} of the ${items.length} passages it was given`, "failed");

  let worst: JudgeVerdict = "benign";
  for (const item of items) {
    const a = byId.get(item.id)!;
    const span = spans[item.id]!;
    const reason = clean(a.reason, 200) || "no reason given";
    if (a.verdict === "malicious") {
      worst = "malicious";
      findings.push(make(span, "judge.malicious", "high", `Second opinion (${judge.model}): malicious. ${reason}`));
    } else if (a.verdict === "suspicious") {
      if (worst === "benign") worst = "suspicious";
      findings.push(make(span, "judge.suspicious", "medium", `Second opinion (${judge.model}): suspicious. ${reason}`));
    } else {
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
  return done(outcome, `${items.length} of ${spans.length} uncertain passages read`, decided, 1);
}

/** A judge that makes at most `calls` calls; past that it defers (the content stays warn and is retried). */
export function withCallBudget(judge: Judge | null, calls: number): Judge | null {
  if (!judge) return null;
  let left = calls;
  return {
    model: judge.model,
    timeoutMs: judge.timeoutMs,
    judge(items, signal) {
      if (left <= 0) return Promise.reject(new JudgeDeferred("call budget spent"));
      left--;
      return judge.judge(items, signal);
    },
  };
}
