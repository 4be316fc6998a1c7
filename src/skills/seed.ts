/**
 * The starter skills Lore ships (data/skills/<name>/…) and Lore's own `lore` (rendered once for the
 * deployment's origin, src/skills/lore-skill.ts), published by the system account through the same
 * path as anyone's skill (validation, scan, R2, D1). The seed sends the folder as JSON
 * (scripts/seed.mjs): `{files: [{path, content}]}` with paths under data/skills and base64 content.
 * A skill whose files did not change since its latest version is left alone, so loading twice
 * publishes nothing new; changed files are a new version, the old ones kept as every skill's are.
 */
import type { Env } from "../env";
import { sha256Hex } from "../core/crypto";
import { LORE_SKILL, SYSTEM_OWNER_ID, loreManifest, loreSkillFolder, manifestOf, skillOrigin } from "./lore-skill";
import { publishSkill, type PublishInput } from "./publish";
import { bumpCatalog } from "./discovery";

export interface FolderPayload {
  files: { path: string; content: string }[];
}

/**
 * The manifest of a system skill's latest version, or null when it has none or it does not pass
 * (a version a rescan flagged is not the published skill: the seed publishes it again).
 */
async function publishedManifest(db: D1Database, name: string): Promise<string | null> {
  const latest = await db
    .prepare(
      `SELECT v.files FROM skills s JOIN skill_versions v ON v.id = s.latest_version_id
        WHERE s.slug = ? AND s.owner_id = ? AND s.security_status = 'passed' AND v.status = 'passed'`,
    )
    .bind(name, SYSTEM_OWNER_ID)
    .first<{ files: string }>();
  return latest ? manifestOf(JSON.parse(latest.files)) : null;
}

/**
 * Publishes a system skill unless its latest version has these very files and passes. Lore's own
 * skills must pass their own scanner: the publish path refuses one that does not before storing
 * anything (src/skills/publish.ts), which stops the seed; it is a bug to fix, not to ship.
 */
async function publishIfChanged(env: Env, name: string, input: PublishInput & { files: { path: string; content: string }[] }) {
  const digests = await Promise.all(
    input.files.map(async (f) => ({ path: f.path, digest: await sha256Hex(Uint8Array.from(atob(f.content), (c) => c.charCodeAt(0))) })),
  );
  if ((await publishedManifest(env.DB, name)) === manifestOf(digests)) return;
  await publishSkill(env, SYSTEM_OWNER_ID, input);
}

/**
 * Whether the published `lore` is the one this build renders for this origin, and every system
 * skill passes. The seed's digest covers data/skills only, so the operator routes ask this too: a
 * new start-here text, another origin or a system skill left flagged (by a rescan) loads the
 * starter skills again (the unchanged, passing ones are left alone).
 */
export async function starterSkillsCurrent(env: Env, seedOrigin?: string): Promise<boolean> {
  const [lore, failing] = await Promise.all([
    publishedManifest(env.DB, LORE_SKILL),
    env.DB.prepare("SELECT COUNT(*) AS n FROM skills WHERE owner_id = ? AND security_status <> 'passed'")
      .bind(SYSTEM_OWNER_ID)
      .first<{ n: number }>(),
  ]);
  return lore === (await loreManifest(skillOrigin(env, seedOrigin))) && !failing?.n;
}

/** `seedOrigin`: the origin the operator's seed request reached (used when PUBLIC_ORIGIN is not set). */
export async function loadStarterSkills(env: Env, text: string, seedOrigin?: string): Promise<{ rows: number }> {
  const payload = JSON.parse(text) as FolderPayload;
  const bySkill = new Map<string, { path: string; content: string; encoding: "base64" }[]>();
  for (const f of payload.files) {
    const slash = f.path.indexOf("/");
    if (slash <= 0) continue;
    const list = bySkill.get(f.path.slice(0, slash)) ?? [];
    list.push({ path: f.path.slice(slash + 1), content: f.content, encoding: "base64" });
    bySkill.set(f.path.slice(0, slash), list);
  }
  await publishIfChanged(env, LORE_SKILL, loreSkillFolder(skillOrigin(env, seedOrigin)));
  for (const [name, files] of [...bySkill].sort(([a], [b]) => (a < b ? -1 : 1))) await publishIfChanged(env, name, { files });
  bumpCatalog();
  return { rows: bySkill.size };
}
