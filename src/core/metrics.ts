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
  "API_CALLS",
] as const;
export type Metric = (typeof METRICS)[number];
