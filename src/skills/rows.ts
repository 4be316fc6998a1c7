/**
 * The skills area's rows as its raw SQL reads them, typed and listed from the drizzle tables in
 * src/db/skills.ts (docs/storage.md): a column added there reaches every SELECT below.
 */
import { columnsOf, keysOf, type SqlRow } from "../core/columns";
import { skills, skillVersions } from "../db/skills";

/** Every catalog column but the SKILL.md body kept for search. */
const SKILL_KEYS = keysOf(skills, ["searchBody"]);
export type SkillRow = SqlRow<typeof skills, (typeof SKILL_KEYS)[number]>;
export const SKILL_COLS = columnsOf(skills, "s", SKILL_KEYS);

/** What a version's API shape needs (`versionOut`): never its SKILL.md text (up to 100 KB), which lists of versions do not show. */
const VERSION_KEYS = keysOf(skillVersions, ["skillMd", "artifactKey", "description", "frontMatter", "publishedBy"]);
export type VersionRow = SqlRow<typeof skillVersions, (typeof VERSION_KEYS)[number]>;
export const VERSION_COLS = columnsOf(skillVersions, "v", VERSION_KEYS);

// A skill with no version yet (its first publish failed midway) is not part of the catalog (nor of skills_fts).
export const PUBLISHED = "s.latest_version_id IS NOT NULL";
