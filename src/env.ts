import type { AccountQuota } from "./quota/quota.do";
import type { ChatRoom } from "./chat/chat.do";
import type { McpEndpoint } from "./mcp/mcp.do";

/** Bindings declared in wrangler.toml. */
export interface Env {
  DB: D1Database;
  SKILLS: R2Bucket;
  ACCOUNT_QUOTA: DurableObjectNamespace<AccountQuota>;
  CHAT_ROOM: DurableObjectNamespace<ChatRoom>;
  MCP_ENDPOINT: DurableObjectNamespace<McpEndpoint>;
  LOGIN_THROTTLE: RateLimit;
  /** Operator secret for /internal (seeding, manual ingest). Unset: those routes do not exist. */
  ADMIN_TOKEN?: string;
}
