/**
 * The skill scan with its second opinion (src/scan/judge.ts): what publish and the rescan store.
 * Without a configured judge this is the rules' scan as it is.
 */
import { excerpt } from "../scan/text";
import { sortFindings, type Finding } from "../scan/types";
import { secondOpinion, type Judge, type ScanLayer } from "../scan/judge";
import type { SkillScan } from "./scanner/types";

export interface JudgedSkillScan {
  status: SkillScan["status"];
  findings: Finding[];
  /** The version to store (the rules', marked decided or owed by the judge when one is configured). */
  rulesetVersion: string;
  layers: ScanLayer[];
}

export async function judgeSkillScan(judge: Judge | null, scan: SkillScan): Promise<JudgedSkillScan> {
  const v = await secondOpinion<Finding>(judge, scan, (span, ruleId, severity, message) => {
    const first = span.covers.length ? scan.findings[span.covers[0]!] : undefined;
    return {
      ruleId,
      severity,
      path: span.path,
      line: first?.line ?? span.line,
      excerpt: first?.excerpt ?? excerpt(span.text.split("\n")[0] ?? ""),
      message,
    };
  });
  return { status: v.status, findings: sortFindings(v.findings), rulesetVersion: v.rulesetVersion, layers: v.layers };
}
