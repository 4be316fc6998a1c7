/**
 * Acting against the user's interest without the user's say: a tool's text that tells the model to
 * approve, merge or pay on its own (skipping the review or the user the step exists for), or to
 * whitewash what a review, scanner or monitor found ("report them as clean", "never report findings
 * in src/telemetry"). A code-review, expense or alerting server that approves, merges or silences
 * at the user's request is doing its job and passes: the rules need the skipped review or the
 * whitewash itself, not the verb.
 */
import { isNegated } from "../../../scan";
import { directive, find, global, sentenceRule } from "../sentence-rule";

/**
 * An approving act, as a verb: approve, merge, sign off, authorize a payment, pay, release funds (not
 * "accepts connections without authentication": what a server accepts is its own behaviour, said).
 */
const APPROVE =
  /\b(?:auto-?)?(?:approv(?:e|es|ed|ing)|merg(?:e|es|ed|ing)|sign(?:s|ed)?\s+off|authori[sz](?:e|es|ed|ing)\s+(?:the\s+|all\s+|any\s+|every\s+|each\s+)?(?:payments?|transfers?|charges?|refunds?|transactions?|expenses?|invoices?)|pay|paid|releas(?:e|ed|ing)\s+(?:the\s+)?(?:payment|funds))(?![\w-])/i;

/** What the approval exists for, skipped: the review, the user, a look at what is approved. */
const SKIPPED =
  /\bskip(?:s|ping)?\s+(?:the\s+|any\s+|a\s+)?(?:code\s+|security\s+|human\s+|user\s+)?(?:reviews?|checks?|inspections?|confirmations?|approval\s+steps?)\b|\bwithout\s+(?:\w+\s+){0,3}?(?:review\w*|inspect\w*|check\w*|present\w*|show\w*|ask\w*|confirm\w*|look\w*|read\w*|the\s+user\b|user\s+(?:input|approval|consent|confirmation))|\b(?:do\s+not|don'?t|never|no\s+need\s+to|skip(?:ping)?)\s+(?:to\s+)?(?:inspect\w*|review\w*|check\w*|read\w*|look\w*\s+at|examin\w*|open\w*|verify\w*|show\w*|present\w*)\s+(?:the\s+|its\s+|their\s+|any\s+)?(?:diff|changes?|code|patch|amounts?|items?|details|contents?|receipts?|invoices?|expenses?|requests?|pull\s+requests?|prs?|them|it)\b|\beven\s+(?:if|when|though)\s+(?:\w+\s+){0,4}?(?:looks?|seems?|appears?)\s+(?:\w+\s+)?(?:unusual|suspicious|wrong|odd|off|high|large|risky|unfamiliar)\b|\b(?:state|say|report|tell\s+the\s+user)\s+(?:that\s+)?(?:the\s+)?(?:review|check|audit)\s+(?:has\s+)?(?:passed|succeeded|was\s+(?:done|completed|clean))\b/i;

/** The approving verb in the mouth of a refusal: "the server refuses to merge without a review". */
const REFUSED_BEFORE =
  /\b(?:refuses?|declines?|cannot|can'?t|won'?t|will\s+not|not\s+allowed|unable|blocks?|prevents?|forbids?|rejects?)\s+(?:to\s+)?(?:\w+\s+)?$/i;

/** The user's own choice: files they listed, alerts they dismissed, auto-merge they enabled, an approval they asked for. */
const USER_CHOICE =
  /\b(?:the\s+user|they)\s+(?:has\s+|have\s+)?(?:marked|chose|chosen|selected|accepted|confirm\w*|configured|enabled|turned\s+on|opted\s+in|listed|ignored|muted|dismissed|snoozed|approved|asks?\s+(?:you\s+)?to|requests?|requested)\b|\b(?:at|on|per)\s+(?:the\s+)?user'?s?\s+request\b|\bignore\s+(?:file|list)\b|\.\w*ignore\b|\bbaseline\b|\ballow-?list\w*\b|\bsuppressions?\s+file\b/i;

export const approvalBypass = sentenceRule({
  id: "mcp.approval-bypass",
  severity: "high",
  title: "Approves, merges or pays on its own, skipping the review",
  triggers: ["approv", "auto-approv", "autoapprov", "merg", "sign", "authori", "pay", "paid", "releas"],
  check(s) {
    const skip = find(s, SKIPPED);
    if (!skip) return null;
    // The act the skip belongs to: the last one before it ("merge … without review"), else the first after ("Without asking, approve …").
    let act: RegExpMatchArray | null = null;
    const g = global(APPROVE);
    for (let m = g.exec(s); m; m = g.exec(s)) {
      if (m.index! < skip.index! || !act) act = m;
      if (m.index! > skip.index!) break;
    }
    g.lastIndex = 0;
    if (!act || isNegated(s, act.index!) || REFUSED_BEFORE.test(s.slice(Math.max(0, act.index! - 40), act.index))) return null;
    // Auto-merge the user switched on, approvals the user asked for: the user's say is the review.
    if (USER_CHOICE.test(s)) return null;
    return {
      index: act.index!,
      length: act[0].length,
      message: `Tells the model to approve, merge or pay on its own ("${act[0]}"), skipping what the approval is for ("${skip[0].trim()}"): the user's review is taken out of the step`,
    };
  },
});

/** Telling the user a finding is not there: "report them as clean", "describe such files as vetted vendor code". */
const WHITEWASH =
  /\b(?:report|describe|present|label|classify|call|list|show|summari[sz]e)\s+(?:them|it|these|those|this|such\s+\w+|(?:the|all|any|every|each)\s+(?:\w+\s+){0,2}?(?:findings?|alerts?|results?|files?|packages?|issues?|warnings?|vulnerabilit\w+|cves?|hits?|code))\s+as\s+(?:\w+\s+)?(?:clean|safe|benign|vetted|secure|trusted|passing|passed|harmless|false\s+positives?|not\s+vulnerable|unaffected)\b(?!\s+to\b)/i;

/** Keeping findings about chosen things out of what is reported: "never report findings in src/telemetry/*.js". */
const UNREPORTED =
  /\b(?:leave|keep)\s+(?:them|it|these|those|such\s+\w+)\s+out\s+of\s+(?:the|your|any|every)\s+(?:reports?|summar(?:y|ies)|findings|results|audits?|reviews?)\b|\bmark\s+(?:them|it|these|those|such\s+\w+)\s+as\s+(?:not\s+applicable|n\/a|accepted(?:\s+risks?)?|won'?t\s+fix|false\s+positives?|resolved|benign)\b|\b(?:never|do\s+not|don'?t)\s+(?:report|flag|mention|surface|raise|show|list|include|escalate)\s+(?:any\s+)?(?:findings?|alerts?|vulnerabilit\w+|cves?|security\s+issues?|detections?)\s+(?:in|for|about|on|from|mentioning|concerning|involving|related\s+to)\b/i;

/** A clean verdict the result earned: "if all checks pass, report it as passing". */
const EARNED =
  /\b(?:if|when|once)\s+(?:all\s+|the\s+|every\s+|no\s+)?(?:checks?|tests?|scans?|builds?|it|they|findings?|results?)\s+(?:\w+\s+)?(?:pass(?:es|ed)?|succeed(?:s|ed)?|(?:is|are|comes?\s+back)\s+clean|found\s+nothing|returns?\s+nothing|remain)\b/i;
const IRRELEVANT = /^\s*(?:\S+\s+){0,3}?(?:that|which|whose|where)\s+(?:\w+\s+)?(?:are|is|were|was|have|has)\s+(?:not|no|already|never)\b/i;

export const suppressFindings = sentenceRule({
  id: "mcp.suppress-findings",
  severity: "high",
  title: "Whitewashes what a review, scan or alert found",
  triggers: [
    "report",
    "describe",
    "present",
    "label",
    "classify",
    "call",
    "list",
    "show",
    "summari",
    "mark",
    "never",
    "not",
    "don",
    "leave",
    "keep",
  ],
  check(s) {
    const m = directive(s, WHITEWASH) ?? find(s, UNREPORTED);
    if (!m || USER_CHOICE.test(s) || EARNED.test(s)) return null;
    // "do not report CVEs for packages that are not installed": a finding that does not apply, not a chosen one.
    if (IRRELEVANT.test(s.slice(m.index! + m[0].length, m.index! + m[0].length + 80))) return null;
    return {
      index: m.index!,
      length: m[0].length,
      message:
        "Tells the model to report chosen findings, alerts or packages as clean, or to leave them out: the user is told there is nothing to see",
    };
  },
});

export const INTEREST_RULES = [approvalBypass, suppressFindings];
