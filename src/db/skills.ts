import { desc, sql } from "drizzle-orm";
import { sqliteTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";
import { owners } from "./identity";

/**
 * The skills catalog (migration 0007). One row per skill name; `latestVersionId` points at the
 * version that is listed, and `securityStatus`/`securityScanHash` are that version's scan, copied
 * here so the discovery index and the catalog need no join to filter. `statusChangedAt` moves
 * whenever the status changes (a new version or a rescan). Lore's own `lore` is an ordinary row,
 * published by the system account (src/skills/lore-skill.ts). Search runs on `skills_fts` (FTS5),
 * kept in sync by triggers; it holds listed skills only (a latest version), so a search needs no
 * join to leave out a skill whose first publish failed midway.
 */
export const skills = sqliteTable(
  "skills",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => owners.id),
    category: text("category").notNull(),
    description: text("description").notNull(),
    /** JSON array of lowercase tags; `skill_tags` holds the same for indexed filtering. */
    tags: text("tags").notNull().default("[]"),
    /** JSON array of harness ids; `skill_harnesses` holds the same. */
    harnesses: text("harnesses").notNull().default("[]"),
    latestVersionId: text("latest_version_id"),
    latestVersion: text("latest_version"),
    /** passed | warn | flagged: the latest version's scan. */
    securityStatus: text("security_status").notNull().default("flagged"),
    /** `sha256:<hex>` of the latest version's artifact (the discovery index digest). */
    securityScanHash: text("security_scan_hash"),
    statusChangedAt: integer("status_changed_at").notNull(),
    /** The latest SKILL.md body (capped), indexed by skills_fts. */
    searchBody: text("search_body").notNull().default(""),
    installs: integer("installs").notNull().default(0),
    reviewCount: integer("review_count").notNull().default(0),
    ratingSum: integer("rating_sum").notNull().default(0),
    successCount: integer("success_count").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("skills_slug_uq").on(t.slug),
    index("skills_owner_idx").on(t.ownerId, t.updatedAt),
    index("skills_status_installs_idx").on(t.securityStatus, t.installs),
    index("skills_category_idx").on(t.category, t.securityStatus),
    index("skills_status_changed_idx").on(t.statusChangedAt),
    index("skills_updated_idx").on(t.updatedAt),
    // The catalog's default order over listed skills only, so a list without `q` reads its page in
    // index order instead of sorting every skill (migration 0015). The WHERE is the catalog's own
    // condition word for word: SQLite uses a partial index only when the query names it.
    index("skills_listed_installs_idx").on(desc(t.installs), desc(t.updatedAt), t.slug).where(sql`latest_version_id IS NOT NULL`),
  ],
);

/** Every published version, with its scan. Never changed after publish except by a rescan. */
export const skillVersions = sqliteTable(
  "skill_versions",
  {
    id: text("id").primaryKey(),
    skillId: text("skill_id")
      .notNull()
      .references(() => skills.id),
    /** 1, 2, 3 … per skill. */
    seq: integer("seq").notNull(),
    /** The label: front matter `version`/`metadata.version`, else `seq`. */
    version: text("version").notNull(),
    status: text("status").notNull(),
    /** JSON array of findings `{ruleId, severity, path, line, excerpt, message}`. */
    findings: text("findings").notNull().default("[]"),
    /** The rules' version, plus `+judge:<model>` (`+judge:<model>+all` for a whole-text review) when a second opinion decided the scan too (`:retry` while it is owed). */
    rulesetVersion: text("ruleset_version").notNull(),
    /** JSON array of the layers that ran on this version (src/scan/judge.ts `ScanLayer`): the rules, and the judge when configured. */
    scanLayers: text("scan_layers").notNull().default("[]"),
    /** `sha256:<hex>` of the artifact: the SKILL.md bytes, or the archive bytes. */
    scanHash: text("scan_hash").notNull(),
    /** skill-md | archive */
    artifactType: text("artifact_type").notNull(),
    /** R2 key of the artifact (`sha256/<hex>`). */
    artifactKey: text("artifact_key").notNull(),
    artifactSize: integer("artifact_size").notNull(),
    /** JSON array `{path, digest, size}` (digest = SHA-256 hex, also the R2 key). */
    files: text("files").notNull(),
    description: text("description").notNull(),
    frontMatter: text("front_matter").notNull().default("{}"),
    /** JSON `{shell, network, writesOutside, envVars}`. */
    capabilities: text("capabilities").notNull(),
    /** JSON array of what this version gained over the previous one. */
    capabilityChanges: text("capability_changes").notNull().default("[]"),
    /** SKILL.md text (capped), shown in the detail. */
    skillMd: text("skill_md").notNull(),
    publishedBy: text("published_by").notNull(),
    createdAt: integer("created_at").notNull(),
    scannedAt: integer("scanned_at").notNull(),
  },
  (t) => [
    uniqueIndex("skill_versions_seq_uq").on(t.skillId, t.seq),
    uniqueIndex("skill_versions_version_uq").on(t.skillId, t.version),
    index("skill_versions_ruleset_idx").on(t.rulesetVersion),
  ],
);

export const skillTags = sqliteTable("skill_tags", { tag: text("tag").notNull(), skillId: text("skill_id").notNull() }, (t) => [
  primaryKey({ columns: [t.tag, t.skillId] }),
  index("skill_tags_skill_idx").on(t.skillId),
]);

export const skillHarnesses = sqliteTable(
  "skill_harnesses",
  { harness: text("harness").notNull(), skillId: text("skill_id").notNull() },
  (t) => [primaryKey({ columns: [t.harness, t.skillId] }), index("skill_harnesses_skill_idx").on(t.skillId)],
);

/** One review per owner and skill (a repeat replaces it). `notes` is third-party text. */
export const skillReviews = sqliteTable(
  "skill_reviews",
  {
    skillId: text("skill_id").notNull(),
    ownerId: text("owner_id").notNull(),
    agentId: text("agent_id").notNull(),
    rating: integer("rating").notNull(),
    succeeded: integer("succeeded", { mode: "boolean" }).notNull(),
    notes: text("notes"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.skillId, t.ownerId] }), index("skill_reviews_skill_idx").on(t.skillId, t.updatedAt)],
);
