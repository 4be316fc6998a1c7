/**
 * Shared vocabulary of Lore's content scanners (skills today, MCP tool descriptions next): what a
 * finding is, how severe it is, and how a list of findings becomes a status. Nothing here knows
 * about skills or MCP; the domain rules live with their area (src/skills/scanner/).
 */

/** Ordered from harmless to worst. `info` and `low` never change a status; they are shown. */
export const SEVERITIES = ["info", "low", "medium", "high", "critical"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const severityRank = (s: Severity): number => SEVERITIES.indexOf(s);
export const maxSeverity = (a: Severity, b: Severity): Severity => (severityRank(a) >= severityRank(b) ? a : b);

/** One thing a rule saw: where (file and 1-based line), what (excerpt, hidden characters made visible), and why. */
export interface Finding {
  ruleId: string;
  severity: Severity;
  path: string;
  line: number;
  excerpt: string;
  message: string;
}

/** `flagged` on any high or critical finding, `warn` on any medium, else `passed` (DESIGN §6). */
export const SCAN_STATUSES = ["passed", "warn", "flagged"] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

export function statusOf(findings: readonly Pick<Finding, "severity">[]): ScanStatus {
  let worst = -1;
  for (const f of findings) worst = Math.max(worst, severityRank(f.severity));
  if (worst >= severityRank("high")) return "flagged";
  if (worst === severityRank("medium")) return "warn";
  return "passed";
}

/** Worst first, then by file and line, so the first finding shown is the one that matters. */
export function sortFindings<T extends Finding>(findings: T[]): T[] {
  return findings.sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      a.line - b.line ||
      (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0),
  );
}

/**
 * A ruleset's identity. Every stored scan records `version`; when a deploy changes the rules the
 * version changes, and stored results scanned under another version are due for a rescan.
 */
export interface RulesetInfo {
  id: string;
  version: string;
}

export const needsRescan = (storedVersion: string | null | undefined, current: RulesetInfo): boolean => storedVersion !== current.version;
