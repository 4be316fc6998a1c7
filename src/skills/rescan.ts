/**
 * Rescans after a rules change (the daily cron): every stored version scanned under another
 * ruleset version is scanned again from its bytes in R2, latest versions first. A latest version
 * whose status changes moves its skill's status (and `status_changed_at`), so a newly flagged
 * skill leaves the discovery index and sync reports it. Bytes that no longer match their digest
 * flag the version: what cannot be verified is not listed.
 *
 * One run stays within a budget of calls to Cloudflare services (subrequests: each R2 read, each
 * call to the scanner Worker, each D1 query or batch), which the Workers plan caps per invocation
 * (1,000 on the Free plan, shared with the maintenance jobs of the same cron): what does not fit
 * stays due for the next run.
 */
import type { Env } from "../env";
import { now } from "../core/clock";
import { statusOf, type Finding } from "../scan/types";
import { IntegrityError, getVerified } from "./storage";
import { SKILL_RULESET } from "./scanner/ruleset";
import { scanSkillRemote } from "./scanner/remote";
import type { Capabilities } from "./scanner/types";
import { bumpCatalog } from "./discovery";
import { judgeSkillScan } from "./second-opinion";
import { decidedVersion, withCallBudget, type ScanLayer } from "../scan/judge";
import { judgeFromEnv } from "../scan/workers-ai-judge";

interface Due {
  id: string;
  skill_id: string;
  files: string;
  status: string;
  is_latest: number;
  prev_caps: string | null;
}

/** A run's default subrequest budget: under the Free plan's 1,000 calls to Cloudflare services, beside the content rescan's. */
export const RESCAN_SUBREQUESTS = 600;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export async function rescanOutdated(
  env: Env,
  opts: { batch?: number; maxVersions?: number; budgetMs?: number; judgeCalls?: number; subrequests?: number } = {},
) {
  const batch = opts.batch ?? 25;
  const subrequests = opts.subrequests ?? RESCAN_SUBREQUESTS;
  let used = 0;
  let full = false;
  // A version is due when the rules changed, or the configured judge (if any) has not decided it yet.
  const judge = withCallBudget(judgeFromEnv(env), opts.judgeCalls ?? 50);
  const current = decidedVersion(SKILL_RULESET.version, judge);
  const max = opts.maxVersions ?? 1000;
  // A wall-clock budget for this invocation, not business time: so Date.now(), not the injectable clock.
  const deadline = Date.now() + (opts.budgetMs ?? 60_000);
  const db = env.DB;
  let scanned = 0;
  let changed = 0;
  const seen = new Set<string>();
  // Each round: its select and its write batch.
  while (scanned < max && Date.now() < deadline && !full && used + 2 <= subrequests) {
    used++;
    const due = await db
      .prepare(
        `SELECT v.id, v.skill_id, v.files, v.status, (s.latest_version_id = v.id) AS is_latest,
                (SELECT p.capabilities FROM skill_versions p WHERE p.skill_id = v.skill_id AND p.seq < v.seq ORDER BY p.seq DESC LIMIT 1) AS prev_caps
           FROM skill_versions v JOIN skills s ON s.id = v.skill_id
          WHERE v.ruleset_version <> ?
          ORDER BY is_latest DESC, v.created_at DESC LIMIT ?`,
      )
      .bind(current, batch)
      .all<Due>();
    const rows = due.results.filter((r) => !seen.has(r.id));
    if (rows.length === 0) break;
    const t = now();
    const stmts: D1PreparedStatement[] = [];
    used++;
    for (const v of rows) {
      const list = JSON.parse(v.files) as { path: string; digest: string }[];
      // Its files from R2 and one scanner call (the judge, when configured, has its own call budget).
      if (used + list.length + 1 > subrequests) {
        full = true;
        break;
      }
      used += list.length + 1;
      seen.add(v.id);
      let status: string;
      let findings: Finding[];
      let version = current;
      let layers: ScanLayer[] = [{ layer: "rules", version, outcome: "flagged", detail: "stored bytes failed verification" }];
      let caps: Capabilities | null = null;
      let capChanges: unknown[] = [];
      try {
        const files = await Promise.all(
          list.map(async (f) => {
            const bytes = await getVerified(env.SKILLS, f.digest);
            let text: string | null = null;
            try {
              text = utf8.decode(bytes);
            } catch {
              /* binary */
            }
            return { path: f.path, bytes, text };
          }),
        );
        const scan = await scanSkillRemote(env, files, v.prev_caps ? (JSON.parse(v.prev_caps) as Capabilities) : null);
        ({ status, findings, rulesetVersion: version, layers } = await judgeSkillScan(judge, scan, files));
        caps = scan.capabilities;
        capChanges = scan.capabilityChanges;
      } catch (e) {
        if (!(e instanceof IntegrityError)) throw e;
        findings = [
          {
            ruleId: "integrity.mismatch",
            severity: "critical",
            path: "",
            line: 0,
            excerpt: "",
            message: `Stored bytes failed verification: ${e.message}`,
          },
        ];
        status = statusOf(findings);
        console.error(JSON.stringify({ level: "error", what: "skill-integrity", version: v.id, error: e.message }));
      }
      if (status !== v.status) changed++;
      stmts.push(
        db
          .prepare(
            `UPDATE skill_versions SET status = ?, findings = ?, ruleset_version = ?, scanned_at = ?,
                    capabilities = COALESCE(?, capabilities), capability_changes = COALESCE(?, capability_changes), scan_layers = ? WHERE id = ?`,
          )
          .bind(
            status,
            JSON.stringify(findings),
            version,
            t,
            caps && JSON.stringify(caps),
            caps && JSON.stringify(capChanges),
            JSON.stringify(layers),
            v.id,
          ),
      );
      if (v.is_latest) {
        stmts.push(
          db
            .prepare(
              `UPDATE skills SET status_changed_at = CASE WHEN security_status <> ?1 THEN ?2 ELSE status_changed_at END, security_status = ?1
                WHERE id = ?3 AND latest_version_id = ?4`,
            )
            .bind(status, t, v.skill_id, v.id),
        );
      }
      scanned++;
    }
    if (stmts.length) {
      await db.batch(stmts);
      bumpCatalog();
    }
  }
  const result = {
    rescanned: scanned,
    statusChanged: changed,
    ruleset: current,
    subrequests: used,
    ...(full ? { budgetReached: true } : {}),
  };
  if (scanned) console.log(JSON.stringify({ level: "info", what: "skills-rescan", ...result }));
  return result;
}
