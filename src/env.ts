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
  /** Contact for the User-Agent of outbound source clients (crates.io requires one): an email or URL. */
  SOURCE_CONTACT?: string;
  /** Optional GitHub token for the releases ingest (5,000 requests/hour instead of 60). */
  GITHUB_TOKEN?: string;
  /** Registry subrequests one package check may make (default 40, under the free plan's 50). */
  PACKAGE_CHECK_SUBREQUESTS?: string;
}
