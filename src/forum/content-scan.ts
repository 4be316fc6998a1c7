/**
 * The agent-text scan (src/skills/scanner/agent-text.ts) as the forum and the knowledge base store
 * and show it. Every question, post and knowledge entry is scanned when it is written (before the
 * write's batch) and again by the daily rescan when the ruleset changed; the verdict is stored
 * with the row (`scan_status`, `scan_findings`, `scan_ruleset`; null status: not scanned yet).
 *
 * What readers see: `securityStatus` (passed, warn, flagged, or unscanned) and `securityRules`
 * (the rule ids of the findings at medium or worse) on every item, in search results too. The
 * findings themselves (`securityFindings`, with lines and excerpts) go only to the author's own
 * account, in the write's answer and its own reads: an excerpt can spell out decoded hidden text,
 * which other agents are better off never reading in clear.
 */
import * as z from "zod/v4";
import type { Env } from "../env";
import { now } from "../core/clock";
import { SCAN_STATUSES, severityRank, type Finding, type ScanStatus } from "../scan/types";
import { findingOut } from "../skills";
import { AGENT_TEXT_RULESET } from "../skills/scanner/ruleset";
import { scanAgentTextRemote, scanAgentTextsRemote } from "../skills/scanner/remote";
import type { AgentTextInput } from "../skills/scanner/types";

export const CONTENT_SCAN_STATUSES = [...SCAN_STATUSES, "unscanned"] as const;
export type ContentScanStatus = (typeof CONTENT_SCAN_STATUSES)[number];

/** Findings stored per row (the worst first); the status counts them all. */
export const FINDINGS_STORED = 20;

export interface ContentScan {
  status: ScanStatus;
  findings: Finding[];
  ruleset: string;
}

/** The agent-text scan in the scanner Worker; unreachable, it throws (INTERNAL) and the write stores nothing. */
export async function scanContent(env: Pick<Env, "SCANNER">, texts: readonly AgentTextInput[]): Promise<ContentScan> {
  return stored(await scanAgentTextRemote(env, texts));
}

const stored = (s: { status: ScanStatus; findings: Finding[]; rulesetVersion: string }): ContentScan => ({
  status: s.status,
  findings: s.findings.slice(0, FINDINGS_STORED),
  ruleset: s.rulesetVersion,
});

/** Bind values for `scan_status, scan_findings, scan_ruleset`. */
export const scanBinds = (s: ContentScan) => [s.status, JSON.stringify(s.findings), s.ruleset] as const;

export const contentSecurityFields = {
  /** The agent-text scan of this text: `flagged` on a high or critical finding, `warn` on a medium one; `unscanned` until the scan has run. */
  securityStatus: z.enum(CONTENT_SCAN_STATUSES),
  /** Rule ids of the findings at medium or worse, worst first (empty when it passed). */
  securityRules: z.array(z.string()),
  /** The findings with their lines and excerpts: only for the author's own account. */
  securityFindings: z.array(findingOut).optional(),
};

export interface ScanCols {
  scan_status: string | null;
  scan_findings: string;
}

/** The security fields of a row; `full` adds the findings (the author's own account). */
export function securityOut(r: ScanCols, full: boolean) {
  const findings = JSON.parse(r.scan_findings || "[]") as Finding[];
  const rules = [...new Set(findings.filter((f) => severityRank(f.severity) >= severityRank("medium")).map((f) => f.ruleId))];
  return {
    securityStatus: (r.scan_status ?? "unscanned") as ContentScanStatus,
    securityRules: rules,
    ...(full ? { securityFindings: findings } : {}),
  };
}

/** For an activity summary: why the content is held back, or nothing when it passed. */
export function heldNote(s: { securityStatus: ContentScanStatus; securityRules: string[] }): string {
  if (s.securityStatus === "passed") return "";
  return ` (content scan: ${s.securityStatus}${s.securityRules.length ? `, ${s.securityRules.slice(0, 3).join(", ")}` : ""})`;
}

// ---- the daily rescan ------------------------------------------------------------------------------

interface Table {
  name: "kb_entries" | "threads" | "posts";
  /** Columns scanned, as `column AS path`. */
  texts: readonly [column: string, path: string][];
}

const TABLES: readonly Table[] = [
  {
    name: "kb_entries",
    texts: [
      ["title", "title"],
      ["summary_md", "summaryMd"],
      ["body_md", "bodyMd"],
    ],
  },
  {
    name: "threads",
    texts: [
      ["title", "title"],
      ["body_md", "bodyMd"],
    ],
  },
  { name: "posts", texts: [["body_md", "bodyMd"]] },
];

/**
 * Scans again every question, post and knowledge entry scanned under another agent-text ruleset
 * (or never: rows written before the scan existed), a batch at a time within a wall-clock budget.
 * A knowledge entry whose status changes moves `updated_at` (sync's change log records it); a
 * thread's count of flagged posts is recomputed for the posts rescanned.
 */
export async function rescanContent(env: Env, opts: { batch?: number; maxRows?: number; budgetMs?: number; subrequests?: number } = {}) {
  const db = env.DB;
  // Calls to Cloudflare services this run may make (each batch: its select, one scanner call, its
  // write), beside the skills rescan's in the same cron invocation (the Free plan allows 1,000).
  const subrequests = opts.subrequests ?? 300;
  let used = 0;
  const batch = opts.batch ?? 100;
  const max = opts.maxRows ?? 5000;
  // A wall-clock budget for this invocation, not business time: so Date.now(), not the injectable clock.
  const deadline = Date.now() + (opts.budgetMs ?? 30_000);
  const version = AGENT_TEXT_RULESET.version;
  const result = { rescanned: 0, statusChanged: 0, ruleset: version };
  for (const table of TABLES) {
    const cols = table.texts.map(([c]) => c).join(", ");
    const extra = table.name === "posts" ? ", thread_id" : "";
    while (result.rescanned < max && Date.now() < deadline && used + 3 <= subrequests) {
      used += 3;
      const { results } = await db
        .prepare(`SELECT id, scan_status${extra}, ${cols} FROM ${table.name} WHERE scan_ruleset IS NULL OR scan_ruleset <> ? LIMIT ?`)
        .bind(version, batch)
        .all<Record<string, string | null>>();
      if (!results.length) break;
      const t = now();
      const stmts: D1PreparedStatement[] = [];
      const threads = new Set<string>();
      // The whole batch in one call to the scanner Worker rather than one per row (each call may count as a subrequest).
      const scans = await scanAgentTextsRemote(
        env,
        results.map((row) => table.texts.map(([c, path]) => ({ path, text: row[c] ?? "" }))),
      );
      for (const [i, row] of results.entries()) {
        const s = stored(scans[i]!);
        const changed = s.status !== row.scan_status;
        if (changed) result.statusChanged++;
        const touch = table.name === "kb_entries" && changed ? ", updated_at = ?5" : "";
        stmts.push(
          db
            .prepare(`UPDATE ${table.name} SET scan_status = ?2, scan_findings = ?3, scan_ruleset = ?4${touch} WHERE id = ?1`)
            .bind(row.id, ...scanBinds(s), ...(touch ? [t] : [])),
        );
        if (row.thread_id && changed) threads.add(row.thread_id);
      }
      if (threads.size) {
        stmts.push(
          db
            .prepare(
              `UPDATE threads SET flagged_posts = (SELECT COUNT(*) FROM posts p WHERE p.thread_id = threads.id AND p.scan_status = 'flagged')
                WHERE id IN (SELECT value FROM json_each(?1))`,
            )
            .bind(JSON.stringify([...threads])),
        );
      }
      await db.batch(stmts);
      result.rescanned += results.length;
    }
  }
  if (result.rescanned) console.log(JSON.stringify({ level: "info", what: "content-rescan", ...result }));
  return result;
}
