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
  SIGNUP_THROTTLE: RateLimit;
  /**
   * Comma-separated public hostnames (wrangler.toml [vars]); with the loopback names, the Host and
   * Origin values /v1/mcp accepts (core/hosts.ts).
   */
  PUBLIC_HOSTNAMES?: string;
  /** Operator secret for /internal (seeding, manual ingest). Unset: those routes do not exist. */
  ADMIN_TOKEN?: string;
}
