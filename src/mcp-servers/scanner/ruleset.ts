/** The MCP ruleset's identity, apart from the rules (which run in the scanner Worker, src/scan-worker/index.ts). */
import type { RulesetInfo } from "../../scan/types";
import { SKILL_RULESET } from "../../skills/scanner/ruleset";

/**
 * Bump on every change to the MCP rules, and to the directory's review findings (store.ts
 * `reviewFindings`, runtime.ts): stored servers are re-reviewed when it changes (the daily job).
 * The skills ruleset is part of the version because the agent-text rules are shared: a change
 * there rescans MCP servers too. -3: the packages' runtime hint, runtime arguments and variables.
 * -16m: readings by role (rules/against-user.ts), whitewashed severities, planted memories, commands handed to the user.
 */
export const MCP_RULESET: RulesetInfo = { id: "lore-mcp", version: `2026.11.27-5m+${SKILL_RULESET.version}` };
