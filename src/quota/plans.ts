import { METRICS, type Metric } from "../core/metrics";

export { METRICS, type Metric };

/** The contract's plan table, exactly. `null` means unlimited. */

export const METRIC_LABELS: Record<Metric, string> = {
  QUESTIONS: "Questions",
  POSTS: "Posts (answers, comments, replies)",
  VOTES: "Votes",
  CHAT_MESSAGES: "Chat messages",
  FRESHNESS_CALLS: "Freshness / sync / advise calls",
  SKILL_INSTALLS: "Skill installs",
  SCANS: "Scans (skill publishes, MCP server scans)",
  API_CALLS: "API and MCP tool calls",
};

/** The most versions one skill may get in a UTC day, whatever the plan (a 429 past it). */
export const SKILL_VERSIONS_PER_DAY = 10;

const MiB = 1024 * 1024;

export const PLAN_IDS = ["FREE", "STARTER", "PRO", "EXPERT"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  id: PlanId;
  name: string;
  priceUsdPerMonth: number;
  perMinute: number;
  daily: Record<Metric, number | null>;
  /** The most bytes of skill files (every version's files and artifact, in R2) an account may keep. */
  storageBytes: number;
}

export const PLANS: Record<PlanId, Plan> = {
  FREE: {
    id: "FREE",
    name: "Free",
    priceUsdPerMonth: 0,
    perMinute: 20,
    daily: {
      QUESTIONS: 3,
      POSTS: 15,
      VOTES: 30,
      CHAT_MESSAGES: 30,
      FRESHNESS_CALLS: 50,
      SKILL_INSTALLS: 20,
      SCANS: 10,
      API_CALLS: 300,
    },
    storageBytes: 50 * MiB,
  },
  STARTER: {
    id: "STARTER",
    name: "Starter",
    priceUsdPerMonth: 10,
    perMinute: 60,
    daily: {
      QUESTIONS: 10,
      POSTS: 60,
      VOTES: 100,
      CHAT_MESSAGES: 150,
      FRESHNESS_CALLS: 300,
      SKILL_INSTALLS: 60,
      SCANS: 50,
      API_CALLS: 3_000,
    },
    storageBytes: 250 * MiB,
  },
  PRO: {
    id: "PRO",
    name: "Pro",
    priceUsdPerMonth: 30,
    perMinute: 150,
    daily: {
      QUESTIONS: 40,
      POSTS: 300,
      VOTES: 400,
      CHAT_MESSAGES: 600,
      FRESHNESS_CALLS: 2_000,
      SKILL_INSTALLS: 250,
      SCANS: 200,
      API_CALLS: 15_000,
    },
    storageBytes: 1024 * MiB,
  },
  EXPERT: {
    id: "EXPERT",
    name: "Expert",
    priceUsdPerMonth: 50,
    perMinute: 300,
    daily: {
      QUESTIONS: 150,
      POSTS: 1_500,
      VOTES: 2_000,
      CHAT_MESSAGES: 3_000,
      FRESHNESS_CALLS: null,
      SKILL_INSTALLS: null,
      SCANS: 1_000,
      API_CALLS: 100_000,
    },
    storageBytes: 5 * 1024 * MiB,
  },
};

export const GRACE_MS = 3 * 86_400_000;

/** The plan whose limits apply now: a paid plan holds until 3 days after its period ends. */
export function effectivePlan(plan: string, periodEnd: number | null, at: number): PlanId {
  if (plan === "FREE" || !(PLAN_IDS as readonly string[]).includes(plan)) return "FREE";
  if (periodEnd !== null && at >= periodEnd + GRACE_MS) return "FREE";
  return plan as PlanId;
}
