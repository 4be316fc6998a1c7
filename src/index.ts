import type { Env } from "./env";

// The Durable Object classes the runtime needs at load, each from its own file: an area's entry
// file would load the area's operations and their schemas, which no object uses.
export { AccountQuota } from "./quota/quota.do";
export { ChatRoom } from "./chat/chat.do";
export { McpSessions } from "./mcp/sessions.do";

/**
 * The app (every operation's route, with its schemas) and the cron jobs are loaded with `import()`
 * when an isolate first needs them, never at module load: the same script starts the Durable
 * Objects' isolates, which need neither, and esbuild keeps a module reached only through
 * `import()` unevaluated (parsed, not run) until then. A failed load is not kept, so the next
 * request tries again.
 */
type App = ReturnType<typeof import("./app").buildApp>;
let app: Promise<App> | null = null;
const loadApp = (): Promise<App> =>
  (app ??= import("./app").then(
    (m) => m.buildApp(),
    (e) => {
      app = null;
      throw e;
    },
  ));

export default {
  fetch: async (request, env, ctx) => (await loadApp()).fetch(request, env, ctx),
  scheduled: async (controller, env, ctx) => (await import("./scheduled")).scheduled(controller, env, ctx),
} satisfies ExportedHandler<Env>;
