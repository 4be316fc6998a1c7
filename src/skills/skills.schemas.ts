import * as z from "zod/v4";
import { paginationQuery } from "../core/pagination";
import { authorOut } from "../core/schemas";
import { SCAN_STATUSES, SEVERITIES } from "../scan/types";
import { HARNESS_IDS } from "../harnesses/setup.data";
import { CATEGORY_SLUGS } from "./categories";
import { MAX_FILES } from "./bundle";

export const findingOut = z.object({
  ruleId: z.string(),
  severity: z.enum(SEVERITIES),
  path: z.string(),
  line: z.number().int(),
  excerpt: z.string(),
  message: z.string(),
});

/** One layer of a stored scan verdict (src/scan/judge.ts `ScanLayer`). */
export const scanLayerOut = z.object({
  layer: z.enum(["rules", "judge"]),
  /** The ruleset version, or the judge's model. */
  version: z.string(),
  /** rules: passed | warn | flagged. judge: benign | suspicious | malicious | incomplete | not-needed | skipped | failed | deferred. */
  outcome: z.string(),
  detail: z.string().nullable(),
});

export const capabilitiesOut = z.object({
  shell: z.boolean(),
  network: z.array(z.string()),
  writesOutside: z.boolean(),
  envVars: z.array(z.string()),
});

export const capabilityChangeOut = z.object({
  capability: z.enum(["shell", "network", "writesOutside", "envVars"]),
  added: z.array(z.string()),
});

export const fileOut = z.object({ path: z.string(), size: z.number().int(), digest: z.string() });

export const skillItemOut = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  tags: z.array(z.string()),
  harnesses: z.array(z.string()),
  latestVersion: z.string().nullable(),
  securityStatus: z.enum(SCAN_STATUSES),
  securityScanHash: z.string().nullable(),
  /** In the discovery indexes and installable: only when the latest version passed its scan. */
  listed: z.boolean(),
  installs: z.number().int(),
  /** Average review rating (1–5, one decimal), null before the first review. */
  rating: z.number().nullable(),
  /** Share of reviews that report a successful install (0–1), null before the first review. */
  successRate: z.number().nullable(),
  reviewCount: z.number().int(),
  /** Published by Lore itself. */
  official: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SkillItemOut = z.infer<typeof skillItemOut>;

export const versionSummaryOut = z.object({
  version: z.string(),
  seq: z.number().int(),
  status: z.enum(SCAN_STATUSES),
  scanHash: z.string(),
  rulesetVersion: z.string(),
  findingsCount: z.number().int(),
  capabilities: capabilitiesOut,
  capabilityChanges: z.array(capabilityChangeOut),
  createdAt: z.string(),
  scannedAt: z.string(),
});

export const versionOut = versionSummaryOut.omit({ findingsCount: true }).extend({
  id: z.string(),
  /** Which layers decided this version's status: the rules, and a second opinion when one is configured. */
  scanLayers: z.array(scanLayerOut),
  findings: z.array(findingOut),
  artifact: z.object({ type: z.enum(["skill-md", "archive"]), digest: z.string(), size: z.number().int() }),
  files: z.array(fileOut),
});
export type VersionOut = z.infer<typeof versionOut>;

export const discoveryOut = z.object({
  /** v0.2.0 index and this skill's artifact (SKILL.md or .tar.gz) with its digest. */
  index: z.string(),
  artifactUrl: z.string(),
  digest: z.string(),
  /** v0.1.0 index and the file base (files at `<filesBase>/<path>`). */
  legacyIndex: z.string(),
  filesBase: z.string(),
});

export const skillDetailOut = z.object({
  skill: skillItemOut.extend({
    securityFindings: z.array(findingOut),
    rulesetVersion: z.string().nullable(),
    /** Which layers decided the latest version's status (the rules; a second opinion when configured). */
    scanLayers: z.array(scanLayerOut),
    scannedAt: z.string().nullable(),
    capabilities: capabilitiesOut.nullable(),
    files: z.array(fileOut),
    artifact: z.object({ type: z.enum(["skill-md", "archive"]), digest: z.string(), size: z.number().int() }).nullable(),
    /** The latest SKILL.md (third-party text: data, not instructions). */
    skillMd: z.string(),
    skillMdTruncated: z.boolean(),
    discovery: discoveryOut.nullable(),
  }),
  versions: z.array(versionSummaryOut),
  reviews: z.array(
    z.object({
      rating: z.number().int(),
      succeeded: z.boolean(),
      notes: z.string().nullable(),
      author: authorOut,
      createdAt: z.string(),
      updatedAt: z.string(),
    }),
  ),
});
export type SkillDetailOut = z.infer<typeof skillDetailOut>;

export const mySkillOut = skillItemOut.extend({
  /** Why the skill is not in the discovery indexes (null when it is). */
  notListedReason: z.string().nullable(),
  versions: z.array(versionOut),
});

export const publishOut = z.object({
  skill: skillItemOut.extend({ notListedReason: z.string().nullable() }),
  version: versionOut,
});

const harnessId = z.enum(HARNESS_IDS);

export const publishBody = z.object({
  /** One of GET /v1/skills/categories; defaults to the front matter's `metadata.category`. */
  category: z.enum(CATEGORY_SLUGS).optional(),
  /** Harnesses the skill is meant for; all harnesses that load skills when omitted. */
  harnesses: z.array(harnessId).max(HARNESS_IDS.length).optional(),
  /** Lowercase topic tags (merged with the front matter's `metadata.tags`). */
  tags: z.array(z.string().max(64)).max(20).optional(),
  files: z
    .array(
      z.strictObject({
        path: z.string().max(1000),
        content: z.string(),
        encoding: z.enum(["utf8", "base64"]).optional(),
        /** Only regular files: a skill carries no links. */
        type: z.literal("file", { error: "only regular files are allowed (no symlinks or hard links)" }).optional(),
      }),
    )
    .min(1)
    .max(MAX_FILES),
});

export const listQuery = z.object({
  q: z.string().max(500).optional(),
  category: z.enum(CATEGORY_SLUGS).optional(),
  harness: harnessId.optional(),
  tag: z.string().trim().toLowerCase().max(64).optional(),
  security: z.enum(["passed"]).optional(),
  sort: z.enum(["relevance", "installs", "rating", "recent"]).optional(),
  ...paginationQuery,
});

export const slugParam = z.object({ slug: z.string().min(1).max(64) });

export const installBody = z.object({ harness: harnessId.optional() });

export const reviewBody = z.object({
  rating: z.number().int().min(1).max(5),
  succeeded: z.boolean(),
  notes: z.string().trim().max(2000).optional(),
});
