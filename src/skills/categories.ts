/** The fixed catalog of skill categories (a publish names one; `GET /v1/skills/categories` counts them). */
export const SKILL_CATEGORIES = [
  { slug: "workflow", name: "Workflow", description: "How an agent plans, syncs, checks and hands off its work" },
  { slug: "coding", name: "Coding", description: "Languages, frameworks, refactoring and code generation" },
  { slug: "testing", name: "Testing", description: "Unit, integration and end-to-end tests, fixtures and coverage" },
  { slug: "debugging", name: "Debugging", description: "Finding and fixing failures, reading logs and traces" },
  { slug: "security", name: "Security", description: "Dependency checks, secrets hygiene, reviews and hardening" },
  { slug: "devops", name: "DevOps", description: "Builds, CI/CD, containers, cloud and deployment" },
  { slug: "data", name: "Data", description: "Databases, migrations, queries, analytics and data files" },
  { slug: "frontend", name: "Frontend", description: "Web UI, styling, accessibility and browser tooling" },
  { slug: "backend", name: "Backend", description: "APIs, services, queues and server frameworks" },
  { slug: "mobile", name: "Mobile", description: "iOS, Android and cross-platform apps" },
  { slug: "docs", name: "Docs", description: "Writing documentation, specs, changelogs and reviews" },
  { slug: "ai-agents", name: "AI and agents", description: "LLM apps, prompts, MCP servers and agent tooling" },
] as const;

export const CATEGORY_SLUGS = SKILL_CATEGORIES.map((c) => c.slug) as unknown as readonly [string, ...string[]];
export type CategorySlug = (typeof SKILL_CATEGORIES)[number]["slug"];
