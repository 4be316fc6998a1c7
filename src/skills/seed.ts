/**
 * The starter skills Lore ships (data/skills/<name>/…), published by the system account through
 * the same path as anyone's skill (validation, scan, R2, D1), plus the catalog row of Lore's own
 * rendered `lore` skill. The seed sends the folder as JSON (scripts/seed.mjs): `{files: [{path,
 * content}]}` with paths under data/skills and base64 content. A skill whose files did not change
 * since its latest version is left alone, so loading twice publishes nothing new.
 */
import type { Env } from "../env";
import { now } from "../core/clock";
import { sha256Hex } from "../core/crypto";
import { renderStartHere } from "../harnesses/start-here";
import { LORE_SKILL, SYSTEM_OWNER_ID, loreDescription } from "./lore-skill";
import { SKILL_HARNESSES, publishSkill } from "./publish";
import { bumpCatalog } from "./discovery";

export interface FolderPayload {
  files: { path: string; content: string }[];
}

/** The catalog row of `lore` (searchable, reviewable, installable); its bytes and scan are rendered per origin. */
export async function ensureLoreRow(db: D1Database) {
  const t = now();
  const body = renderStartHere("https://lore.invalid").replace(/^---\n[\s\S]*?\n---\n/, "");
  const tags = ["lore", "mcp", "setup"];
  await db.batch([
    db
      .prepare(
        `INSERT INTO skills (id, slug, owner_id, category, description, tags, harnesses, security_status, status_changed_at, rendered, search_body, created_at, updated_at)
         VALUES ('skl_lore', ?1, ?2, 'workflow', ?3, ?4, ?5, 'passed', ?6, 1, ?7, ?6, ?6)
         ON CONFLICT (slug) DO UPDATE SET description = ?3, tags = ?4, harnesses = ?5, search_body = ?7
          WHERE skills.rendered = 1 AND (skills.description <> ?3 OR skills.tags <> ?4 OR skills.harnesses <> ?5 OR skills.search_body <> ?7)`,
      )
      .bind(LORE_SKILL, SYSTEM_OWNER_ID, loreDescription(), JSON.stringify(tags), JSON.stringify(SKILL_HARNESSES), t, body),
    db.prepare(`DELETE FROM skill_tags WHERE skill_id = 'skl_lore'`),
    db.prepare(`DELETE FROM skill_harnesses WHERE skill_id = 'skl_lore'`),
    ...tags.map((tag) => db.prepare(`INSERT INTO skill_tags (tag, skill_id) VALUES (?, 'skl_lore')`).bind(tag)),
    ...SKILL_HARNESSES.map((h) => db.prepare(`INSERT INTO skill_harnesses (harness, skill_id) VALUES (?, 'skl_lore')`).bind(h)),
  ]);
}

export async function loadStarterSkills(env: Env, text: string): Promise<{ rows: number }> {
  const payload = JSON.parse(text) as FolderPayload;
  const bySkill = new Map<string, { path: string; content: string; encoding: "base64" }[]>();
  for (const f of payload.files) {
    const slash = f.path.indexOf("/");
    if (slash <= 0) continue;
    const list = bySkill.get(f.path.slice(0, slash)) ?? [];
    list.push({ path: f.path.slice(slash + 1), content: f.content, encoding: "base64" });
    bySkill.set(f.path.slice(0, slash), list);
  }
  await ensureLoreRow(env.DB);
  for (const [name, files] of [...bySkill].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const manifest = async (list: { path: string; digest: string }[]) =>
      list
        .map((f) => `${f.path}\0${f.digest}`)
        .sort()
        .join("\n");
    const digests = await Promise.all(
      files.map(async (f) => ({ path: f.path, digest: await sha256Hex(Uint8Array.from(atob(f.content), (c) => c.charCodeAt(0))) })),
    );
    const latest = await env.DB.prepare(
      `SELECT v.files FROM skills s JOIN skill_versions v ON v.id = s.latest_version_id WHERE s.slug = ? AND s.owner_id = ?`,
    )
      .bind(name, SYSTEM_OWNER_ID)
      .first<{ files: string }>();
    if (latest && (await manifest(JSON.parse(latest.files))) === (await manifest(digests))) continue;
    const out = await publishSkill(env, SYSTEM_OWNER_ID, { files });
    // Lore's own skills must pass their own scanner; a starter skill that does not is a bug to fix, not to ship.
    if (out.version.status !== "passed") {
      throw new Error(`starter skill ${name} did not pass the scan: ${JSON.stringify(out.version.findings.slice(0, 3))}`);
    }
  }
  bumpCatalog();
  return { rows: bySkill.size };
}
