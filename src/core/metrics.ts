/**
 * The daily metrics of the contract's plan table. An operation names the one it counts against
 * (`metric`), so the names belong to core; the limits per plan live in src/quota/plans.ts.
 */
export const METRICS = [
  "QUESTIONS",
  "POSTS",
  "VOTES",
  "CHAT_MESSAGES",
  "FRESHNESS_CALLS",
  "SKILL_INSTALLS",
  // Not in the contract's table: the heavy work (a security scan, stored files) of skill publishes
  // and MCP server scans, limited per day like the rest (src/quota/plans.ts).
  "SCANS",
  "API_CALLS",
] as const;
export type Metric = (typeof METRICS)[number];
