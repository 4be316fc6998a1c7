/**
 * The skills catalog: search, categories, detail, the owner's own skills, install and reviews,
 * plus the lookups sync (issue 12) calls for a whole stack at once (statuses of installed skills,
 * scan-passed recommendations by topic, scan changes since a time), each in one D1 round trip.
 */
import { ApiError, conflict, forbidden, notFound } from "../core/errors";
import { iso, now } from "../core/clock";
import { pageOffset } from "../core/pagination";
import type { AgentPrincipal } from "../core/principal";
import { ftsQuery, pagedSearch, emptyPage } from "../core/fts";
import type { Finding, ScanStatus } from "../scan";
import type { ScanLayer } from "../scan/judge";
import type { Capabilities, CapabilityChange } from "./scanner";
import { LORE_SKILL, SYSTEM_OWNER_ID, loreSkill, type LoreSkill } from "./lore-skill";
import { SKILL_CATEGORIES } from "./categories";
import { harnessLoadsSkills, installAnswer, type InstallTarget } from "./install";
import { constantRead, runRead, type BatchRead } from "../core/batch";
import type { SkillDetailOut, SkillItemOut, VersionOut } from "./skills.schemas";
import { SKILL_COLS, VERSION_COLS, type SkillRow, type VersionRow } from "./rows";

// ---- rows and their shapes --------------------------------------------------------------------

export const LORE_VERSION = "live";

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Why a skill is not in the discovery indexes, for its owner (null when it is listed). */
export function notListedReason(status: string, hasVersion: boolean): string | null {
  if (!hasVersion) return "No version has been published yet.";
  if (status === "passed") return null;
  if (status === "warn") {
    return "The latest version's scan reported medium-severity findings (status warn). Only scan-passed skills are listed and installable: fix the findings and publish a new version.";
  }
  return "The latest version's scan reported high or critical findings (status flagged). Only scan-passed skills are listed and installable: remove what the findings point at and publish a new version.";
}

/** A catalog row as the API shows it; Lore's own rendered skill takes its scan from the render for this origin. */
export function itemOut(r: SkillRow, lore?: LoreSkill): SkillItemOut {
  const status = (lore ? lore.scan.status : r.security_status) as ScanStatus;
  return {
    slug: r.slug,
    name: r.slug,
    description: r.description,
    category: r.category,
    tags: JSON.parse(r.tags) as string[],
    harnesses: JSON.parse(r.harnesses) as string[],
    latestVersion: lore ? LORE_VERSION : r.latest_version,
    securityStatus: status,
    securityScanHash: lore ? `sha256:${lore.digest}` : r.security_scan_hash,
    listed: status === "passed" && (!!lore || r.latest_version_id !== null),
    installs: r.installs,
    rating: r.review_count ? round1(r.rating_sum / r.review_count) : null,
    successRate: r.review_count ? round1((r.success_count / r.review_count) * 100) / 100 : null,
    reviewCount: r.review_count,
    official: r.owner_id === SYSTEM_OWNER_ID,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

async function itemsOut(rows: SkillRow[], origin: string): Promise<SkillItemOut[]> {
  const lore = rows.some((r) => r.rendered) ? await loreSkill(origin) : undefined;
  return rows.map((r) => itemOut(r, r.rendered ? lore : undefined));
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

// ---- catalog -----------------------------------------------------------------------------------

export interface ListInput {
  q?: string;
  category?: string;
  harness?: string;
  tag?: string;
  security?: "passed";
  sort?: "relevance" | "installs" | "rating" | "recent";
  page: number;
  perPage: number;
}

// A skill with no version yet (its first publish failed midway) is not part of the catalog (nor of skills_fts).
const PUBLISHED = "(s.latest_version_id IS NOT NULL OR s.rendered = 1)";
const AVG = "(CASE WHEN s.review_count = 0 THEN NULL ELSE s.rating_sum * 1.0 / s.review_count END)";

export async function listSkills(db: D1Database, origin: string, input: ListInput) {
  const q = input.q?.trim();
  const match = q ? ftsQuery(q) : null;
  if (q && !match) return emptyPage(input);
  // skills_fts holds listed skills only (migration 0015): a search needs no filter on the skills
  // table, so it counts and ranks in the FTS index alone. Without `q`, the condition is written as
  // the partial index `skills_listed_installs_idx` names it, so the default order reads that index.
  const where: string[] = match ? [] : [PUBLISHED];
  const binds: unknown[] = [];
  if (input.category) {
    where.push("s.category = ?");
    binds.push(input.category);
  }
  if (input.security) where.push("s.security_status = 'passed'");
  if (input.harness) {
    where.push("s.id IN (SELECT skill_id FROM skill_harnesses WHERE harness = ?)");
    binds.push(input.harness);
  }
  if (input.tag) {
    where.push("s.id IN (SELECT skill_id FROM skill_tags WHERE tag = ?)");
    binds.push(input.tag);
  }
  const sort = input.sort ?? (q ? "relevance" : "installs");
  const ranked = sort === "relevance" && !!match;
  const order = {
    relevance: ranked ? "s.installs DESC" : "s.installs DESC, s.updated_at DESC",
    installs: "s.installs DESC, s.updated_at DESC",
    rating: `${AVG} IS NULL, ${AVG} DESC, s.review_count DESC, s.installs DESC`,
    recent: "s.updated_at DESC",
  }[sort];
  const { rows, ...total } = await pagedSearch<SkillRow>(db, {
    from: "skills s",
    key: "s.id",
    columns: SKILL_COLS,
    fts: match ? { table: "skills_fts", match, rank: ranked ? "bm25(skills_fts, 0.0, 10.0, 4.0, 6.0, 1.0)" : undefined } : undefined,
    where,
    binds,
    order: `${order}, s.slug`,
    page: input.page,
    perPage: input.perPage,
  });
  return { items: await itemsOut(rows, origin), ...total, page: input.page, perPage: input.perPage };
}

export async function listCategories(db: D1Database) {
  const rows = await db
    .prepare(
      `SELECT category, COUNT(*) AS count, SUM(CASE WHEN security_status = 'passed' THEN 1 ELSE 0 END) AS passed
         FROM skills s WHERE ${PUBLISHED} GROUP BY category`,
    )
    .all<{ category: string; count: number; passed: number }>();
  const by = new Map(rows.results.map((r) => [r.category, r]));
  const items = SKILL_CATEGORIES.map((c) => ({ ...c, count: by.get(c.slug)?.count ?? 0, passed: by.get(c.slug)?.passed ?? 0 }));
  return { items, total: items.length };
}

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
        `SELECT r.rating, r.succeeded, r.notes, r.agent_id, a.handle, r.created_at, r.updated_at
           FROM skill_reviews r JOIN agents a ON a.id = r.agent_id
          WHERE r.skill_id = (SELECT id FROM skills WHERE slug = ?) ORDER BY r.updated_at DESC LIMIT 20`,
      )
      .bind(slug),
  ]);
  const r = skillRes!.results[0] as SkillRow | undefined;
  if (!r || (!r.latest_version_id && !r.rendered)) throw notFound(`Skill '${slug}'`);
  const reviews = (
    reviewsRes!.results as {
      rating: number;
      succeeded: number;
      notes: string | null;
      agent_id: string;
      handle: string;
      created_at: number;
      updated_at: number;
    }[]
  ).map((x) => ({
    rating: x.rating,
    succeeded: !!x.succeeded,
    notes: x.notes,
    author: { id: x.agent_id, handle: x.handle },
    createdAt: iso(x.created_at),
    updatedAt: iso(x.updated_at),
  }));
  const discovery = (type: string, digest: string) => ({
    index: `${origin}/.well-known/agent-skills/index.json`,
    artifactUrl:
      type === "archive" ? `${origin}/.well-known/agent-skills/${slug}.tar.gz` : `${origin}/.well-known/agent-skills/${slug}/SKILL.md`,
    digest,
    legacyIndex: `${origin}/.well-known/skills/index.json`,
    filesBase: `${origin}/.well-known/skills/${slug}`,
  });
  if (r.rendered) {
    const lore = await loreSkill(origin);
    const item = itemOut(r, lore);
    const digest = `sha256:${lore.digest}`;
    return {
      skill: {
        ...item,
        securityFindings: lore.scan.findings,
        rulesetVersion: lore.scan.rulesetVersion,
        scanLayers: [{ layer: "rules" as const, version: lore.scan.rulesetVersion, outcome: lore.scan.status, detail: null }],
        scannedAt: iso(now()),
        capabilities: lore.scan.capabilities,
        files: [{ path: "SKILL.md", size: lore.bytes.byteLength, digest }],
        artifact: { type: "skill-md", digest, size: lore.bytes.byteLength },
        skillMd: lore.text,
        skillMdTruncated: false,
        discovery: item.listed ? discovery("skill-md", digest) : null,
      },
      versions: [],
      reviews,
    };
  }
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

/** The owner's skills with every version's scan and why a skill is not listed: what a publishing page needs. */
export async function mySkills(db: D1Database, ownerId: string, page: { page: number; perPage: number }) {
  const [rows, count] = await db.batch([
    db
      .prepare(`SELECT ${SKILL_COLS} FROM skills s WHERE s.owner_id = ? ORDER BY s.updated_at DESC, s.slug LIMIT ? OFFSET ?`)
      .bind(ownerId, page.perPage, pageOffset(page)),
    db.prepare(`SELECT COUNT(*) AS n FROM skills WHERE owner_id = ?`).bind(ownerId),
  ]);
  const skills = rows!.results as SkillRow[];
  const versions = new Map<string, VersionOut[]>();
  if (skills.length) {
    const res = await db
      .prepare(`SELECT ${VERSION_COLS} FROM skill_versions v WHERE v.skill_id IN (${skills.map(() => "?").join(",")}) ORDER BY v.seq DESC`)
      .bind(...skills.map((s) => s.id))
      .all<VersionRow>();
    for (const v of res.results) {
      const list = versions.get(v.skill_id) ?? [];
      list.push(versionOut(v));
      versions.set(v.skill_id, list);
    }
  }
  return {
    items: skills.map((s) => ({
      ...itemOut(s),
      notListedReason: notListedReason(s.security_status, s.latest_version_id !== null),
      versions: versions.get(s.id) ?? [],
    })),
    total: (count!.results[0] as { n: number }).n,
    page: page.page,
    perPage: page.perPage,
  };
}

/** One of the owner's skills by name, with every version's scan: another account's skill (or Lore's own) is not found. */
export async function mySkill(db: D1Database, ownerId: string, slug: string) {
  const [rows, vers] = await db.batch([
    db.prepare(`SELECT ${SKILL_COLS} FROM skills s WHERE s.slug = ?1 AND s.owner_id = ?2 AND s.rendered = 0`).bind(slug, ownerId),
    db
      .prepare(
        `SELECT ${VERSION_COLS} FROM skill_versions v WHERE v.skill_id = (SELECT id FROM skills WHERE slug = ?1 AND owner_id = ?2 AND rendered = 0) ORDER BY v.seq DESC`,
      )
      .bind(slug, ownerId),
  ]);
  const s = rows!.results[0] as SkillRow | undefined;
  if (!s) throw notFound(`Skill '${slug}' of this account`);
  return {
    ...itemOut(s),
    notListedReason: notListedReason(s.security_status, s.latest_version_id !== null),
    versions: (vers!.results as VersionRow[]).map(versionOut),
  };
}

// ---- install and reviews -----------------------------------------------------------------------

export async function installSkill(db: D1Database, origin: string, slug: string, harness?: string) {
  // Lore's own skill is rendered: its scan is known without I/O (memoised per origin).
  const lore = slug === LORE_SKILL ? await loreSkill(origin) : undefined;
  const lorePassed = lore ? lore.scan.status === "passed" : true;
  // One round trip: count the install only if the skill is installable, then read what the answer needs.
  const [, rowRes] = await db.batch([
    db
      .prepare(
        `UPDATE skills SET installs = installs + 1
          WHERE slug = ?1 AND ?3 = 1 AND ((rendered = 0 AND latest_version_id IS NOT NULL AND security_status = 'passed') OR (rendered = 1 AND ?2 = 1))`,
      )
      .bind(slug, lorePassed ? 1 : 0, harnessLoadsSkills(harness) ? 1 : 0),
    db
      .prepare(
        `SELECT ${SKILL_COLS}, v.artifact_type, v.files, v.findings FROM skills s LEFT JOIN skill_versions v ON v.id = s.latest_version_id WHERE s.slug = ?`,
      )
      .bind(slug),
  ]);
  const r = rowRes!.results[0] as (SkillRow & { artifact_type: string | null; files: string | null; findings: string | null }) | undefined;
  if (!r || (!r.latest_version_id && !r.rendered)) throw notFound(`Skill '${slug}'`);
  const item = itemOut(r, r.rendered ? lore : undefined);
  const findings = lore && r.rendered ? lore.scan.findings : (JSON.parse(r.findings ?? "[]") as Finding[]);
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
  const target =
    lore && r.rendered
      ? {
          name: slug,
          artifactType: "skill-md" as const,
          digest: scan.hash,
          files: [{ path: "SKILL.md", size: lore.bytes.byteLength, digest: lore.digest }],
        }
      : {
          name: slug,
          artifactType: r.artifact_type as "skill-md" | "archive",
          digest: scan.hash,
          files: JSON.parse(r.files!) as { path: string; size: number; digest: string }[],
        };
  // A harness with no skills support (aider) gets a 409 here; the UPDATE above did not count it.
  return { skill: slug, version: item.latestVersion!, ...installAnswer(origin, target, harness), scan };
}

export async function reviewSkill(
  db: D1Database,
  caller: AgentPrincipal,
  slug: string,
  input: { rating: number; succeeded: boolean; notes?: string },
) {
  const s = await db
    .prepare(`SELECT id, owner_id, latest_version_id, rendered FROM skills WHERE slug = ?`)
    .bind(slug)
    .first<{ id: string; owner_id: string; latest_version_id: string | null; rendered: number }>();
  if (!s || (!s.latest_version_id && !s.rendered)) throw notFound(`Skill '${slug}'`);
  if (s.owner_id === caller.ownerId) throw forbidden("Reviews must be independent: this skill was published by your own account");
  const t = now();
  const notes = input.notes ? input.notes : null;
  const res = await db.batch([
    db
      .prepare(
        `INSERT INTO skill_reviews (skill_id, owner_id, agent_id, rating, succeeded, notes, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
         ON CONFLICT (skill_id, owner_id) DO UPDATE SET agent_id = ?3, rating = ?4, succeeded = ?5, notes = ?6, updated_at = ?7`,
      )
      .bind(s.id, caller.ownerId, caller.agentId, input.rating, input.succeeded ? 1 : 0, notes, t),
    // Recomputed from the reviews, never adjusted by deltas, so concurrent reviews cannot drift.
    db
      .prepare(
        `UPDATE skills SET review_count = (SELECT COUNT(*) FROM skill_reviews WHERE skill_id = ?1),
                           rating_sum = (SELECT COALESCE(SUM(rating), 0) FROM skill_reviews WHERE skill_id = ?1),
                           success_count = (SELECT COALESCE(SUM(succeeded), 0) FROM skill_reviews WHERE skill_id = ?1)
          WHERE id = ?1`,
      )
      .bind(s.id),
    db
      .prepare(
        `SELECT r.rating, r.succeeded, r.notes, r.created_at, r.updated_at, s.review_count, s.rating_sum, s.success_count
           FROM skill_reviews r JOIN skills s ON s.id = r.skill_id WHERE r.skill_id = ? AND r.owner_id = ?`,
      )
      .bind(s.id, caller.ownerId),
  ]);
  const r = res[2]!.results[0] as {
    rating: number;
    succeeded: number;
    notes: string | null;
    created_at: number;
    updated_at: number;
    review_count: number;
    rating_sum: number;
    success_count: number;
  };
  return {
    review: {
      rating: r.rating,
      succeeded: !!r.succeeded,
      notes: r.notes,
      author: { id: caller.agentId, handle: caller.handle },
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    },
    skill: {
      slug,
      rating: round1(r.rating_sum / r.review_count),
      successRate: round1((r.success_count / r.review_count) * 100) / 100,
      reviewCount: r.review_count,
    },
  };
}

// ---- for sync (issue 12): whole lists in one round trip -----------------------------------------

export interface SkillStatus {
  name: string;
  /** False for a name Lore does not know (everything else is then null). */
  known: boolean;
  securityStatus: ScanStatus | null;
  securityScanHash: string | null;
  latestVersion: string | null;
  /** In the discovery index and installable. */
  listed: boolean;
  updatedAt: string | null;
  scannedAt: string | null;
  statusChangedAt: string | null;
}

const unknownSkill = (name: string): SkillStatus => ({
  name,
  known: false,
  securityStatus: null,
  securityScanHash: null,
  latestVersion: null,
  listed: false,
  updatedAt: null,
  scannedAt: null,
  statusChangedAt: null,
});

/**
 * Scan status of each installed skill name, in the order given (unknown names reported as
 * unknown), as a read that can join another caller's batch: one statement for any number of names.
 */
export function skillStatusesRead(db: D1Database, names: readonly string[], origin: string): BatchRead<SkillStatus[]> {
  const wanted = [...new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length) return constantRead(names.map(unknownSkill));
  return {
    statements: [
      db
        .prepare(
          `SELECT ${SKILL_COLS}, v.scanned_at FROM json_each(?1) j JOIN skills s ON s.slug = j.value
             LEFT JOIN skill_versions v ON v.id = s.latest_version_id`,
        )
        .bind(JSON.stringify(wanted)),
    ],
    read: async ([res]) => {
      const rows = (res!.results as (SkillRow & { scanned_at: number | null })[]).filter((r) => r.latest_version_id || r.rendered);
      const lore = rows.some((r) => r.rendered) ? await loreSkill(origin) : undefined;
      const found = new Map<string, SkillStatus>();
      for (const r of rows) {
        const item = itemOut(r, r.rendered ? lore : undefined);
        found.set(r.slug, {
          name: r.slug,
          known: true,
          securityStatus: item.securityStatus,
          securityScanHash: item.securityScanHash,
          latestVersion: item.latestVersion,
          listed: item.listed,
          updatedAt: item.updatedAt,
          scannedAt: r.rendered ? iso(now()) : iso(r.scanned_at),
          statusChangedAt: iso(r.status_changed_at),
        });
      }
      return names.map((n) => found.get(n.trim().toLowerCase()) ?? unknownSkill(n));
    },
  };
}

/** Scan status of each installed skill name, in the order given (unknown names reported as unknown). */
export const skillStatuses = (db: D1Database, names: readonly string[], origin: string): Promise<SkillStatus[]> =>
  runRead(db, skillStatusesRead(db, names, origin));

export interface SkillRecommendation extends SkillItemOut {
  /** The stack topics this skill's tags matched. */
  matchedTopics: string[];
}

/**
 * Scan-passed skills whose tags match any of the stack's topics (canonical lowercase names, any
 * number of them), most matched topics first, then most installed; `exclude` (installed names)
 * left out. One statement, to run alone or in another caller's batch.
 */
export function recommendSkillsRead(
  db: D1Database,
  origin: string,
  topics: readonly string[],
  exclude: readonly string[] = [],
  limit = 10,
): BatchRead<SkillRecommendation[]> {
  const wanted = [...new Set(topics.map((t) => t.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length || limit <= 0) return constantRead([]);
  const skip = [...new Set(exclude.map((n) => n.trim().toLowerCase()))];
  return {
    statements: [
      db
        .prepare(
          `SELECT ${SKILL_COLS}, group_concat(t.tag, ' ') AS matched, COUNT(*) AS n
             FROM json_each(?1) j JOIN skill_tags t ON t.tag = j.value JOIN skills s ON s.id = t.skill_id
            WHERE s.security_status = 'passed' AND ${PUBLISHED} AND s.slug NOT IN (SELECT value FROM json_each(?2))
            GROUP BY s.id ORDER BY n DESC, s.installs DESC, s.slug LIMIT ?3`,
        )
        .bind(JSON.stringify(wanted), JSON.stringify(skip), limit),
    ],
    read: async ([res]) => {
      const rows = res!.results as (SkillRow & { matched: string; n: number })[];
      const items = await itemsOut(rows, origin);
      return items
        .map((item, i) => ({ ...item, matchedTopics: rows[i]!.matched.split(" ").sort() }))
        .filter((x) => x.securityStatus === "passed");
    },
  };
}

/** recommendSkillsRead on its own. */
export const recommendSkills = (
  db: D1Database,
  origin: string,
  topics: readonly string[],
  exclude: readonly string[] = [],
  limit = 10,
): Promise<SkillRecommendation[]> => runRead(db, recommendSkillsRead(db, origin, topics, exclude, limit));

/**
 * What an install command needs for each named skill that is installable (scan passed, published):
 * its artifact type, digest and files. Unknown and not-passed names are left out. One statement.
 */
export function installTargetsRead(db: D1Database, origin: string, names: readonly string[]): BatchRead<InstallTarget[]> {
  const wanted = [...new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length) return constantRead([]);
  return {
    statements: [
      db
        .prepare(
          `SELECT s.slug, s.rendered, s.security_status, s.security_scan_hash, v.artifact_type, v.files
             FROM json_each(?1) j JOIN skills s ON s.slug = j.value LEFT JOIN skill_versions v ON v.id = s.latest_version_id
            WHERE s.rendered = 1 OR (s.latest_version_id IS NOT NULL AND s.security_status = 'passed')`,
        )
        .bind(JSON.stringify(wanted)),
    ],
    read: async ([res]) => {
      const rows = res!.results as {
        slug: string;
        rendered: number;
        security_status: string;
        security_scan_hash: string | null;
        artifact_type: string | null;
        files: string | null;
      }[];
      const bySlug = new Map(rows.map((r) => [r.slug, r]));
      const out: InstallTarget[] = [];
      for (const name of wanted) {
        const r = bySlug.get(name);
        if (!r) continue;
        if (r.rendered) {
          const lore = await loreSkill(origin);
          if (lore.scan.status !== "passed") continue;
          out.push({
            name,
            artifactType: "skill-md",
            digest: `sha256:${lore.digest}`,
            files: [{ path: "SKILL.md", size: lore.bytes.byteLength, digest: lore.digest }],
          });
        } else {
          out.push({
            name,
            artifactType: r.artifact_type as "skill-md" | "archive",
            digest: r.security_scan_hash!,
            files: JSON.parse(r.files!),
          });
        }
      }
      return out;
    },
  };
}

/** Skills whose scan status changed after `since` (ms), oldest change first: a sync cursor's "scan changes since". */
export async function skillScanChangesSince(
  db: D1Database,
  origin: string,
  since: number,
  opts: { names?: readonly string[]; limit?: number } = {},
) {
  const limit = Math.min(opts.limit ?? 100, 500);
  const names = opts.names?.map((n) => n.trim().toLowerCase());
  if (names && names.length === 0) return [];
  // Any number of names as one JSON parameter (D1 allows 100 bound parameters per statement).
  const byName = names ? " AND s.slug IN (SELECT value FROM json_each(?3))" : "";
  const res = await db
    .prepare(
      `SELECT ${SKILL_COLS} FROM skills s WHERE s.status_changed_at > ?1 AND ${PUBLISHED}${byName} ORDER BY s.status_changed_at, s.slug LIMIT ?2`,
    )
    .bind(since, limit, ...(names ? [JSON.stringify(names)] : []))
    .all<SkillRow>();
  const items = await itemsOut(res.results, origin);
  return items.map((item, i) => ({
    name: item.slug,
    securityStatus: item.securityStatus,
    securityScanHash: item.securityScanHash,
    latestVersion: item.latestVersion,
    listed: item.listed,
    statusChangedAt: iso(res.results[i]!.status_changed_at),
  }));
}

export { LORE_SKILL };
/** `lore` is Lore's own skill; `categories` would be shadowed by GET /v1/skills/categories. */
export const isReservedName = (name: string) => name === LORE_SKILL || name === "categories";
export const nameTaken = (name: string) =>
  new ApiError("CONFLICT", `The skill name '${name}' belongs to another account; choose another name`, { name });
