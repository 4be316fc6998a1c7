/** A skill's catalog row and versions as the API shows them (one place for every read path). */
import { iso } from "../core/clock";
import { columnsOf, type SqlRow } from "../core/columns";
import { skillReviews } from "../db/skills";
import type { Finding, ScanStatus } from "../scan/types";
import type { ScanLayer } from "../scan/judge";
import type { Capabilities, CapabilityChange } from "./scanner/types";
import { SYSTEM_OWNER_ID } from "./lore-skill";
import type { SkillItemOut, VersionOut } from "./skills.schemas";
import type { SkillRow, VersionRow } from "./rows";

export const round1 = (n: number) => Math.round(n * 10) / 10;

/** Why a skill is not in the discovery indexes, for its owner (null when it is listed). */
export function notListedReason(status: string, hasVersion: boolean): string | null {
  if (!hasVersion) return "No version has been published yet.";
  if (status === "passed") return null;
  if (status === "warn") {
    return "The latest version's scan reported medium-severity findings (status warn). Only scan-passed skills are listed and installable: fix the findings and publish a new version.";
  }
  return "The latest version's scan reported high or critical findings (status flagged). Only scan-passed skills are listed and installable: remove what the findings point at and publish a new version.";
}

/** A catalog row as the API shows it. */
export function itemOut(r: SkillRow): SkillItemOut {
  const status = r.security_status as ScanStatus;
  return {
    slug: r.slug,
    name: r.slug,
    description: r.description,
    category: r.category,
    tags: JSON.parse(r.tags) as string[],
    harnesses: JSON.parse(r.harnesses) as string[],
    latestVersion: r.latest_version,
    securityStatus: status,
    securityScanHash: r.security_scan_hash,
    listed: status === "passed" && r.latest_version_id !== null,
    installs: r.installs,
    rating: r.review_count ? round1(r.rating_sum / r.review_count) : null,
    successRate: r.review_count ? round1((r.success_count / r.review_count) * 100) / 100 : null,
    reviewCount: r.review_count,
    official: r.owner_id === SYSTEM_OWNER_ID,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export function itemsOut(rows: SkillRow[]): SkillItemOut[] {
  return rows.map(itemOut);
}

export function versionOut(v: VersionRow): VersionOut {
  return {
    id: v.id,
    version: v.version,
    seq: v.seq,
    status: v.status as ScanStatus,
    scanHash: v.scan_hash,
    rulesetVersion: v.ruleset_version,
    scanLayers: JSON.parse(v.scan_layers) as ScanLayer[],
    findings: JSON.parse(v.findings) as Finding[],
    capabilities: JSON.parse(v.capabilities) as Capabilities,
    capabilityChanges: JSON.parse(v.capability_changes) as CapabilityChange[],
    artifact: { type: v.artifact_type as "skill-md" | "archive", digest: v.scan_hash, size: v.artifact_size },
    files: (JSON.parse(v.files) as { path: string; size: number; digest: string }[]).map((f) => ({
      path: f.path,
      size: f.size,
      digest: `sha256:${f.digest}`,
    })),
    createdAt: iso(v.created_at),
    scannedAt: iso(v.scanned_at),
  };
}

/** A stored review as the API shows it (skill detail and the review just written). */
const REVIEW_KEYS = ["rating", "succeeded", "notes", "createdAt", "updatedAt"] as const;
export type ReviewRow = SqlRow<typeof skillReviews, (typeof REVIEW_KEYS)[number]>;
/** The review columns reviewOut reads (`r` = skill_reviews). */
export const REVIEW_COLS = columnsOf(skillReviews, "r", REVIEW_KEYS);
export function reviewOut(r: ReviewRow, author: { id: string; handle: string }) {
  return {
    rating: r.rating,
    succeeded: !!r.succeeded,
    notes: r.notes,
    author,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}
