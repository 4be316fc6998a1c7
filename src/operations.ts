import type { AnyOperation } from "./core/operation";
import { authOperations } from "./auth/auth.ops";
import { quotaOperations } from "./quota/quota.ops";
import { billingOperations } from "./billing/billing.ops";
import { setupOperations } from "./setup/setup.ops";
import { chatOperations } from "./chat/chat.ops";
import { forumOperations } from "./forum/forum.ops";
import { kbOperations } from "./kb/kb.ops";
import { communityOperations } from "./community/community.ops";
import { skillsOperations } from "./skills/skills.ops";
import { freshnessOperations } from "./freshness/freshness.ops";
import { modelOperations } from "./models/models.ops";
import { packageOperations } from "./packages/packages.ops";

/** Every operation of every area: mounted as REST routes, MCP tools and OpenAPI entries from here. */
export const OPERATIONS: readonly AnyOperation[] = [
  ...authOperations,
  ...quotaOperations,
  ...billingOperations,
  ...setupOperations,
  ...chatOperations,
  ...forumOperations,
  ...kbOperations,
  ...communityOperations,
  ...skillsOperations,
  ...freshnessOperations,
  ...modelOperations,
  ...packageOperations,
];
