/**
 * Publishing a version: validate and decode the files, scan them (against the previous version's
 * capabilities), build the artifact, store every blob in R2, then write the version and the
 * catalog row in one atomic D1 batch. The scan runs before anything is visible; if R2 fails
 * nothing reaches D1, and if D1 fails the blobs in R2 are unreferenced (content-addressed, so
 * harmless, and reused if the same bytes are published again): no half-published version.
 */
import type { Env } from "../env";
import { ApiError, badRequest } from "../core/errors";
import { DAY_MS, nextUtcMidnight, now } from "../core/clock";
import type { Admission } from "../core/admission";
import { PLANS, PLAN_IDS, SKILL_VERSIONS_PER_DAY, type Plan, type PlanId } from "../quota";
import { newId } from "../core/crypto";
import { HARNESSES } from "../harnesses/setup.data";
import { CATEGORY_SLUGS } from "./categories";
import { buildArtifact, contentTypeFor, normalizeTags, readBundle, type FileInput } from "./bundle";
import { putBlobs, blobKey } from "./storage";
import { readFrontMatterRemote, scanSkillRemote } from "./scanner/remote";
import type { Capabilities } from "./scanner/types";
import { isReservedName, nameReserved, nameTaken } from "./names";
import { SYSTEM_OWNER_ID } from "./lore-skill";
import { itemOut, notListedReason, versionOut } from "./shapes";
import { SKILL_COLS, VERSION_COLS, type SkillRow, type VersionRow } from "./rows";
import { bumpCatalog } from "./discovery";
import { judgeSkillScan } from "./second-opinion";
import { judgeFromEnv } from "../scan/workers-ai-judge";
import { insertColumns } from "../core/columns";
import { skills as skillsTable, skillTags, skillHarnesses, skillVersions } from "../db/skills";

export interface PublishInput {
  category?: string;
  harnesses?: string[];
  tags?: string[];
  files: FileInput[];
}

/** Harnesses that load skills: the default audience of a skill. */
export const SKILL_HARNESSES = HARNESSES.filter((h) => h.skillsDir).map((h) => h.id);

const SEARCH_BODY_MAX = 20_000;
const SKILL_MD_STORED = 100_000;

/** Version labels that are whole numbers (at most 15 digits, so the cast is exact): automatic labels go above them. */
const NUMERIC_LABEL = `version <> '' AND version NOT GLOB '*[^0-9]*' AND length(version) <= 15`;

/**
 * What publishing may store (plans.ts): at most SKILL_VERSIONS_PER_DAY versions of one skill a UTC
 * day, and at most the plan's `storageBytes` of skill files per account (every version's files and
 * artifact, as stored). Checked before the scan, so a refused publish costs no scan, and again inside
 * the write batch, so parallel publishes cannot pass them together.
 */
const OWNER_BYTES = `(SELECT COALESCE(SUM(v.artifact_size + (SELECT COALESCE(SUM(json_extract(f.value, '$.size')), 0) FROM json_each(v.files) f)), 0)
   FROM skill_versions v JOIN skills s ON s.id = v.skill_id WHERE s.owner_id = ?2)`;
const VERSIONS_TODAY = `(SELECT COUNT(*) FROM skill_versions WHERE skill_id = (SELECT id FROM skills WHERE slug = ?1) AND created_at >= ?3)`;

function overLimits(plan: Plan, versionsToday: number, storedBytes: number, addBytes: number, t: number): ApiError | null {
  if (versionsToday >= SKILL_VERSIONS_PER_DAY) {
    const resetsAt = nextUtcMidnight(t);
    const retryAfterSeconds = Math.max(1, Math.ceil((resetsAt - t) / 1000));
    return new ApiError(
      "RATE_LIMITED",
      `Daily limit reached: SKILL_VERSIONS limit of ${SKILL_VERSIONS_PER_DAY} versions of one skill per UTC day (every plan; this is ` +
        `plan ${plan.id}). It resets at ${new Date(resetsAt).toISOString()}: publish this skill again then; other skills are not held back.`,
      {
        metric: "SKILL_VERSIONS",
        limit: SKILL_VERSIONS_PER_DAY,
        plan: plan.id,
        resetsAt: new Date(resetsAt).toISOString(),
        retryAfterSeconds,
      },
      { "Retry-After": String(retryAfterSeconds), "Cache-Control": "no-store" },
    );
  }
  if (storedBytes + addBytes > plan.storageBytes) {
    return new ApiError(
      "CONFLICT",
      `This version (${addBytes} bytes) would bring your stored skill files to ${storedBytes + addBytes} bytes, over the ${plan.storageBytes} ` +
        `bytes of plan ${plan.id}; a larger plan keeps more`,
      { reason: "STORAGE_LIMIT", limit: plan.storageBytes, used: storedBytes, size: addBytes, plan: plan.id },
    );
  }
  return null;
}

/**
 * Lore's own skills (the system account, published only by the operator's seed): no daily version
 * cap or storage bound, which guard against accounts, not the operator; a text that follows the
 * deployment's origin must be publishable however often the origin changes (npm start on another
 * port). In their place, a stricter rule: a version that does not pass its own scanner is refused
 * before anything is stored, never kept as a flagged version of Lore's own skill.
 */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;
const systemVersionRefused = (name: string, scan: { status: string; findings: unknown[] }) =>
  new ApiError(
    "CONFLICT",
    `Lore's own skill '${name}' did not pass its own scan (${scan.status}); nothing was stored. If PUBLIC_ORIGIN names a ` +
      `tunnel, paste or capture host the scanner flags, set the deployment's own origin; otherwise the skill's text is a bug to fix.`,
    { name, status: scan.status, findings: scan.findings.slice(0, 3) },
  );

const labelTaken = (name: string, version: string) =>
  new ApiError("CONFLICT", `Version '${version}' of '${name}' is already published; change the version in SKILL.md`, { name, version });

/** `quota`: the account's quota after this publish was counted (its plan sets the storage limit). */
export async function publishSkill(env: Env, ownerId: string, input: PublishInput, quota?: Admission) {
  const db = env.DB;
  const system = ownerId === SYSTEM_OWNER_ID;
  const plan = PLANS[(PLAN_IDS as readonly string[]).includes(quota?.plan ?? "") ? (quota!.plan as PlanId) : "FREE"];
  const t0 = now();
  const dayStart = nextUtcMidnight(t0) - DAY_MS;
  const bundle = await readBundle(input.files, (source) => readFrontMatterRemote(env, source));
  const fm = bundle.frontMatter;
  const name = fm.name;
  const category = input.category ?? fm.category;
  if (!category) throw badRequest("A category is required (body 'category', or 'metadata.category' in SKILL.md)", ["category"]);
  if (!CATEGORY_SLUGS.includes(category)) throw badRequest(`Unknown category '${category}' (see GET /v1/skills/categories)`, ["category"]);
  const harnesses = [...new Set(input.harnesses ?? SKILL_HARNESSES)].sort();
  const unsupported = harnesses.filter((h) => !SKILL_HARNESSES.includes(h));
  if (unsupported.length) throw badRequest(`${unsupported.join(", ")} cannot load skills`, ["harnesses"]);
  const tags = normalizeTags([...(input.tags ?? []), ...fm.tags], ["tags"]);
  if (isReservedName(name, ownerId)) throw nameReserved(name);

  const [existingRes, labelRes, limitsRes, systemRes] = await db.batch([
    db
      .prepare(
        `SELECT s.id, s.owner_id, v.capabilities FROM skills s LEFT JOIN skill_versions v ON v.id = s.latest_version_id WHERE s.slug = ?`,
      )
      .bind(name),
    // What the label needs: whether the author's label is taken, and the numbers already used as labels.
    db
      .prepare(
        `SELECT COALESCE(MAX(seq), 0) AS seq, COALESCE(MAX(CASE WHEN ${NUMERIC_LABEL} THEN CAST(version AS INTEGER) END), 0) AS top,
                COALESCE(SUM(version = ?2), 0) AS taken
           FROM skill_versions WHERE skill_id = (SELECT id FROM skills WHERE slug = ?1)`,
      )
      .bind(name, fm.version ?? ""),
    db.prepare(`SELECT ${VERSIONS_TODAY} AS today, ${OWNER_BYTES} AS bytes`).bind(name, ownerId, dayStart),
    // The system account's skills, for the look-alike check (a handful of rows, read in the same round trip).
    db.prepare("SELECT slug FROM skills WHERE owner_id = ?").bind(SYSTEM_OWNER_ID),
  ]);
  const systemNames = (systemRes!.results as { slug: string }[]).map((r) => r.slug);
  if (isReservedName(name, ownerId, systemNames)) throw nameReserved(name, systemNames);
  const existing = existingRes!.results[0] as { id: string; owner_id: string; capabilities: string | null } | undefined;
  if (existing && existing.owner_id !== ownerId) throw nameTaken(name);
  const used = labelRes!.results[0] as { seq: number; top: number; taken: number };
  if (fm.version && used.taken) throw labelTaken(name, fm.version);
  // Without a label from the author, the next number that is neither this version's sequence number
  // nor below a number already used as a label: `version: 2` on the first publish makes the next one "3".
  const label = fm.version ?? String(Math.max(used.seq + 1, used.top + 1));
  const limits = limitsRes!.results[0] as { today: number; bytes: number };
  const filesBytes = bundle.files.reduce((n, f) => n + f.bytes.byteLength, 0);
  const early = system ? null : overLimits(plan, limits.today, limits.bytes, filesBytes, t0);
  if (early) throw early;

  const previous = existing?.capabilities ? (JSON.parse(existing.capabilities) as Capabilities) : null;
  const rules = await scanSkillRemote(env, bundle.files, previous);
  // With a judge configured, the version is stored only once it has decided (or failed: then warn).
  const scan = { ...rules, ...(await judgeSkillScan(judgeFromEnv(env), rules, bundle.files)) };
  if (system && scan.status !== "passed") throw systemVersionRefused(name, scan);
  const artifact = await buildArtifact(bundle);
  await putBlobs(env.SKILLS, [
    ...bundle.files.map((f) => ({ digest: f.digest, bytes: f.bytes, contentType: contentTypeFor(f.path, f.text !== null) })),
    {
      digest: artifact.digest,
      bytes: artifact.bytes,
      contentType: artifact.type === "archive" ? "application/gzip" : "text/markdown; charset=utf-8",
    },
  ]);

  const t = now();
  const versionId = newId("skv_");
  const scanHash = `sha256:${artifact.digest}`;
  const body = bundle.skillMd.text.replace(/^---\r?\n[\s\S]*?\r?\n---[ \t]*\r?\n?/, "");
  const files = bundle.files.map((f) => ({ path: f.path, size: f.bytes.byteLength, digest: f.digest, text: f.text !== null }));
  const addBytes = filesBytes + artifact.bytes.byteLength;
  const mine = `slug = ?1 AND owner_id = ?2`;
  const versionExists = `EXISTS (SELECT 1 FROM skill_versions WHERE id = ?3)`;
  const stmts: D1PreparedStatement[] = [
    db
      .prepare(
        `INSERT INTO ${insertColumns(skillsTable, ["id", "slug", "ownerId", "category", "description", "tags", "harnesses", "securityStatus", "statusChangedAt", "searchBody", "createdAt", "updatedAt"])}
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (slug) DO NOTHING`,
      )
      .bind(
        existing?.id ?? newId("skl_"),
        name,
        ownerId,
        category,
        fm.description,
        JSON.stringify(tags),
        JSON.stringify(harnesses),
        scan.status,
        t,
        body.slice(0, SEARCH_BODY_MAX),
        t,
        t,
      ),
    db
      .prepare(
        `INSERT INTO ${insertColumns(skillVersions, ["id", "skillId", "seq", "version", "status", "findings", "rulesetVersion", "scanHash", "artifactType", "artifactKey", "artifactSize", "files", "description", "frontMatter", "capabilities", "capabilityChanges", "skillMd", "publishedBy", "createdAt", "scannedAt", "scanLayers"])}
         SELECT ?3, s.id, n.seq, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?2, ?18, ?18, ?23
           FROM skills s, (SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM skill_versions WHERE skill_id = (SELECT id FROM skills WHERE slug = ?1)) n
          WHERE s.${mine}
            AND (SELECT COUNT(*) FROM skill_versions WHERE skill_id = s.id AND created_at >= ?19) < ?20
            AND ${OWNER_BYTES} + ?21 <= ?22`,
      )
      .bind(
        name,
        ownerId,
        versionId,
        label,
        scan.status,
        JSON.stringify(scan.findings),
        scan.rulesetVersion,
        scanHash,
        artifact.type,
        blobKey(artifact.digest),
        artifact.bytes.byteLength,
        JSON.stringify(files),
        fm.description,
        fm.rawJson,
        JSON.stringify(scan.capabilities),
        JSON.stringify(scan.capabilityChanges),
        bundle.skillMd.text.slice(0, SKILL_MD_STORED),
        t,
        dayStart,
        system ? UNBOUNDED : SKILL_VERSIONS_PER_DAY,
        addBytes,
        system ? UNBOUNDED : plan.storageBytes,
        JSON.stringify(scan.layers),
      ),
    // SQLite evaluates every SET expression on the old row: the CASE sees the previous status.
    db
      .prepare(
        `UPDATE skills SET latest_version_id = ?3, latest_version = (SELECT version FROM skill_versions WHERE id = ?3),
                category = ?4, description = ?5, tags = ?6, harnesses = ?7,
                status_changed_at = CASE WHEN latest_version_id IS NULL OR security_status <> ?8 THEN ?11 ELSE status_changed_at END,
                security_status = ?8, security_scan_hash = ?9, search_body = ?10, updated_at = ?11
          WHERE ${mine} AND ${versionExists}`,
      )
      .bind(
        name,
        ownerId,
        versionId,
        category,
        fm.description,
        JSON.stringify(tags),
        JSON.stringify(harnesses),
        scan.status,
        scanHash,
        body.slice(0, SEARCH_BODY_MAX),
        t,
      ),
    db
      .prepare(`DELETE FROM skill_tags WHERE skill_id = (SELECT id FROM skills WHERE ${mine}) AND ${versionExists}`)
      .bind(name, ownerId, versionId),
    db
      .prepare(`DELETE FROM skill_harnesses WHERE skill_id = (SELECT id FROM skills WHERE ${mine}) AND ${versionExists}`)
      .bind(name, ownerId, versionId),
    ...tags.map((tag) =>
      db
        .prepare(`INSERT INTO ${insertColumns(skillTags, ["tag", "skillId"])} SELECT ?4, id FROM skills WHERE ${mine} AND ${versionExists}`)
        .bind(name, ownerId, versionId, tag),
    ),
    ...harnesses.map((h) =>
      db
        .prepare(
          `INSERT INTO ${insertColumns(skillHarnesses, ["harness", "skillId"])} SELECT ?4, id FROM skills WHERE ${mine} AND ${versionExists}`,
        )
        .bind(name, ownerId, versionId, h),
    ),
    db.prepare(`SELECT ${SKILL_COLS} FROM skills s WHERE s.slug = ?`).bind(name),
    db.prepare(`SELECT ${VERSION_COLS} FROM skill_versions v WHERE v.id = ?`).bind(versionId),
  ];
  let res: D1Result[];
  try {
    res = await db.batch(stmts);
  } catch (e) {
    const unique = /UNIQUE constraint failed: skill_versions\.skill_id, skill_versions\.(version|seq)/.exec(String(e));
    if (unique) {
      // Another publish of this skill got in between the read above and this batch.
      if (fm.version && unique[1] === "version") throw labelTaken(name, fm.version);
      throw new ApiError("CONFLICT", `Another version of '${name}' was published at the same moment; publish again`, {
        name,
        version: label,
      });
    }
    throw e;
  }
  const skill = res.at(-2)!.results[0] as SkillRow;
  const version = res.at(-1)!.results[0] as VersionRow | undefined;
  if (!version) {
    // A publish of ours in parallel took the last version of the day or the last bytes: every write was guarded.
    if (skill && skill.owner_id === ownerId) {
      // A first version refused this way leaves no empty skill behind.
      if (!skill.latest_version_id)
        await db.prepare("DELETE FROM skills WHERE slug = ? AND owner_id = ? AND latest_version_id IS NULL").bind(name, ownerId).run();
      const now2 = (await db
        .prepare(`SELECT ${VERSIONS_TODAY} AS today, ${OWNER_BYTES} AS bytes`)
        .bind(name, ownerId, dayStart)
        .first<{ today: number; bytes: number }>())!;
      throw (
        overLimits(plan, now2.today, now2.bytes, addBytes, t) ??
        new ApiError("CONFLICT", `Another version of '${name}' was published at the same moment; publish again`, { name })
      );
    }
    // Another account took the name between the read above and this batch: nothing of ours was written.
    throw nameTaken(name);
  }
  bumpCatalog();
  return {
    skill: { ...itemOut(skill), notListedReason: notListedReason(skill.security_status, true) },
    version: versionOut(version),
  };
}
