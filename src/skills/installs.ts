/** An install: counted only when the skill is installable, answered with the harness's command. */
import { conflict, notFound } from "../core/errors";
import type { Finding } from "../scan/types";
import { harnessLoadsSkills, installAnswer } from "./install";
import { SKILL_COLS, type SkillRow } from "./rows";
import { itemOut } from "./shapes";

export async function installSkill(db: D1Database, origin: string, slug: string, harness?: string) {
  // One round trip: count the install only if the skill is installable, then read what the answer needs.
  const [, rowRes] = await db.batch([
    db
      .prepare(
        `UPDATE skills SET installs = installs + 1
          WHERE slug = ?1 AND ?2 = 1 AND latest_version_id IS NOT NULL AND security_status = 'passed'`,
      )
      .bind(slug, harnessLoadsSkills(harness) ? 1 : 0),
    db
      .prepare(
        `SELECT ${SKILL_COLS}, v.artifact_type, v.files, v.findings FROM skills s LEFT JOIN skill_versions v ON v.id = s.latest_version_id WHERE s.slug = ?`,
      )
      .bind(slug),
  ]);
  const r = rowRes!.results[0] as (SkillRow & { artifact_type: string | null; files: string | null; findings: string | null }) | undefined;
  if (!r?.latest_version_id) throw notFound(`Skill '${slug}'`);
  const item = itemOut(r);
  const findings = JSON.parse(r.findings ?? "[]") as Finding[];
  const scan = { status: item.securityStatus, hash: item.securityScanHash!, findings };
  if (item.securityStatus !== "passed") {
    // Error details reach MCP clients as plain text: where each finding is and how bad, never the
    // flagged skill's own words (excerpts, messages that quote decoded text). The detail
    // (GET /v1/skills/<slug>) shows them, inside the untrusted envelope over MCP.
    throw conflict(
      `Skill '${slug}' cannot be installed: its latest version's security scan is '${item.securityStatus}', and only 'passed' skills are installable; see the findings in GET /v1/skills/${slug}`,
      {
        scan: {
          status: scan.status,
          hash: scan.hash,
          findings: findings.slice(0, 20).map(({ ruleId, severity, path, line }) => ({ ruleId, severity, path, line })),
        },
      },
    );
  }
  const target = {
    name: slug,
    artifactType: r.artifact_type as "skill-md" | "archive",
    digest: scan.hash,
    files: JSON.parse(r.files!) as { path: string; size: number; digest: string }[],
  };
  // A harness with no skills support (aider) gets a 409 here; the UPDATE above did not count it.
  return { skill: slug, version: item.latestVersion!, ...installAnswer(origin, target, harness), scan };
}
