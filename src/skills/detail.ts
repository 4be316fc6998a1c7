/** A skill's detail: its latest version's scan, files and SKILL.md, its versions and reviews, in one round trip. */
import { notFound } from "../core/errors";
import type { SqlRow } from "../core/columns";
import type { agents } from "../db/identity";
import type { skillReviews } from "../db/skills";
import { iso } from "../core/clock";
import type { ScanStatus } from "../scan/types";
import type { Capabilities, CapabilityChange } from "./scanner/types";
import type { SkillDetailOut } from "./skills.schemas";
import { SKILL_COLS, VERSION_COLS, type SkillRow, type VersionRow } from "./rows";
import { itemOut, REVIEW_COLS, type ReviewRow, reviewOut, versionOut } from "./shapes";

const SKILL_MD_SHOWN = 64 * 1024;

export async function getSkill(db: D1Database, origin: string, slug: string): Promise<SkillDetailOut> {
  const [skillRes, latestRes, versionsRes, reviewsRes] = await db.batch([
    db.prepare(`SELECT ${SKILL_COLS} FROM skills s WHERE s.slug = ?`).bind(slug),
    db
      .prepare(`SELECT ${VERSION_COLS}, v.skill_md FROM skills s JOIN skill_versions v ON v.id = s.latest_version_id WHERE s.slug = ?`)
      .bind(slug),
    db
      .prepare(
        `SELECT v.version, v.seq, v.status, v.scan_hash, v.ruleset_version, json_array_length(v.findings) AS findings_count,
                v.capabilities, v.capability_changes, v.created_at, v.scanned_at
           FROM skill_versions v WHERE v.skill_id = (SELECT id FROM skills WHERE slug = ?) ORDER BY v.seq DESC LIMIT 50`,
      )
      .bind(slug),
    db
      .prepare(
        `SELECT ${REVIEW_COLS}, r.agent_id, a.handle
           FROM skill_reviews r JOIN agents a ON a.id = r.agent_id
          WHERE r.skill_id = (SELECT id FROM skills WHERE slug = ?) ORDER BY r.updated_at DESC LIMIT 20`,
      )
      .bind(slug),
  ]);
  const r = skillRes!.results[0] as SkillRow | undefined;
  if (!r?.latest_version_id) throw notFound(`Skill '${slug}'`);
  const reviews = (reviewsRes!.results as (ReviewRow & SqlRow<typeof skillReviews, "agentId"> & SqlRow<typeof agents, "handle">)[]).map(
    (x) => reviewOut(x, { id: x.agent_id, handle: x.handle }),
  );
  const discovery = (type: string, digest: string) => ({
    index: `${origin}/.well-known/agent-skills/index.json`,
    artifactUrl:
      type === "archive" ? `${origin}/.well-known/agent-skills/${slug}.tar.gz` : `${origin}/.well-known/agent-skills/${slug}/SKILL.md`,
    digest,
    legacyIndex: `${origin}/.well-known/skills/index.json`,
    filesBase: `${origin}/.well-known/skills/${slug}`,
  });
  const latest = latestRes!.results[0] as (VersionRow & { skill_md: string }) | undefined;
  if (!latest) throw notFound(`Skill '${slug}'`);
  const v = versionOut(latest);
  const item = itemOut(r);
  return {
    skill: {
      ...item,
      securityFindings: v.findings,
      rulesetVersion: v.rulesetVersion,
      scanLayers: v.scanLayers,
      scannedAt: v.scannedAt,
      capabilities: v.capabilities,
      files: v.files,
      artifact: v.artifact,
      skillMd: latest.skill_md.slice(0, SKILL_MD_SHOWN),
      skillMdTruncated: latest.skill_md.length > SKILL_MD_SHOWN,
      discovery: item.listed ? discovery(v.artifact.type, v.artifact.digest) : null,
    },
    versions: (
      versionsRes!.results as (Pick<
        VersionRow,
        "version" | "seq" | "status" | "scan_hash" | "ruleset_version" | "capabilities" | "capability_changes" | "created_at" | "scanned_at"
      > & { findings_count: number })[]
    ).map((x) => ({
      version: x.version,
      seq: x.seq,
      status: x.status as ScanStatus,
      scanHash: x.scan_hash,
      rulesetVersion: x.ruleset_version,
      findingsCount: x.findings_count,
      capabilities: JSON.parse(x.capabilities) as Capabilities,
      capabilityChanges: JSON.parse(x.capability_changes) as CapabilityChange[],
      createdAt: iso(x.created_at),
      scannedAt: iso(x.scanned_at),
    })),
    reviews,
  };
}
