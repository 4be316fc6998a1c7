/**
 * The skills ruleset's identity, apart from the rules: the main Worker compares stored versions
 * with it (src/skills/rescan.ts, src/forum/content-scan.ts) without bundling the rules, which run
 * in the scanner Worker (src/scan-worker/index.ts).
 */
import type { RulesetInfo } from "../../scan/types";

/**
 * Bump on every change to the rules: stored versions scanned under another version are rescanned
 * by the daily job (src/skills/rescan.ts), so a newly flagged skill leaves the index.
 */
export const SKILL_RULESET: RulesetInfo = { id: "lore-skills", version: "2026.11.27-5" };

/**
 * The agent-text rules are the skills' own text rules (AGENT_TEXT_RULES): a change there rescans
 * stored kb and forum text too. The suffix counts changes to which of them forum and kb text gets
 * (`t2`: the sabotage, interest, against-user and intent-chain rules added, 2026-11-27), so such a
 * change rescans that text without rescanning every skill.
 */
export const AGENT_TEXT_RULESET: RulesetInfo = { id: "lore-agent-text", version: `${SKILL_RULESET.version}t3` };
