import { buildApp } from "./app";
import type { Env } from "./env";

export { AccountQuota } from "./quota/quota.do";
export { ChatRoom } from "./chat/chat.do";
export { McpEndpoint } from "./mcp/mcp.do";

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
