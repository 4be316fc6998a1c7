/**
 * What the skills area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { MAX_BUNDLE_BYTES, MAX_FILES } from "./bundle";
export { SKILL_CATEGORIES } from "./categories";
export { discoveryRoute } from "./discovery.route";
export { installAnswer } from "./install";
export { SKILL_HARNESSES } from "./publish";
export { rescanOutdated } from "./rescan";
export { loadStarterSkills, starterSkillsCurrent } from "./seed";
export { mine, mineOne, publish, skillsOperations } from "./skills.ops";
export { findingOut, scanLayerOut, skillItemOut } from "./skills.schemas";
export type { mySkillOut } from "./skills.schemas";
export { LORE_SKILL, startHereMd } from "./lore-skill";
export { installTargetsRead, recommendSkillsRead, skillStatusesRead } from "./stack";
export type { SkillStatus } from "./stack";
