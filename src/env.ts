/**
 * Bindings declared in wrangler.toml. The Durable Object namespaces are declared without their
 * classes, so this file (which core imports) depends on no area: each area's typed client gives
 * its stubs their class (src/quota/account.ts, src/chat/chat.client.ts).
 */
export interface Env {
  DB: D1Database;
  SKILLS: R2Bucket;
  /** AccountQuota (src/quota/quota.do.ts), one per account. */
  ACCOUNT_QUOTA: DurableObjectNamespace;
  /** ChatRoom (src/chat/chat.do.ts), one per room. */
  CHAT_ROOM: DurableObjectNamespace;
  LOGIN_THROTTLE: RateLimit;
  SIGNUP_THROTTLE: RateLimit;
  /**
   * Comma-separated public hostnames (wrangler.toml [vars]); with the loopback names, the Host and
   * Origin values /v1/mcp accepts (core/hosts.ts).
   */
  PUBLIC_HOSTNAMES?: string;
  /** Operator secret for /internal (seeding, manual ingest). Unset: those routes do not exist. */
  ADMIN_TOKEN?: string;
  /** "1" only in `npm run bench`'s own server: mounts the bench floors (src/admin/bench.route.ts). */
  BENCH_ROUTES?: string;
  /**
   * Stripe billing (src/billing/billing.config.ts). With the secret key, the webhook signing secret
   * and a price id per paid plan set, billing uses Stripe Checkout, the Customer Portal and signed
   * webhooks; with none of them set, the local provider. Secrets go in with `wrangler secret put`.
   */
  STRIPE_SECRET_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  STRIPE_PRICE_STARTER?: string;
  STRIPE_PRICE_PRO?: string;
  STRIPE_PRICE_EXPERT?: string;
  /** Contact for the User-Agent of outbound source clients (crates.io requires one): an email or URL. */
  SOURCE_CONTACT?: string;
  /** Optional GitHub token for the releases ingest (5,000 requests/hour instead of 60). */
  GITHUB_TOKEN?: string;
  /** The MCP registry the daily directory ingest reads (default https://registry.modelcontextprotocol.io). */
  MCP_REGISTRY_URL?: string;
  /**
   * The Workers plan the service runs on (`free` or `paid`; wrangler.toml [vars]): it sets the
   * subrequest limit a package check plans its registry lookups within (50 or 1,000).
   */
  WORKERS_PLAN?: string;
  /** Registry subrequests one package check may make (default: the plan's limit less 10). */
  PACKAGE_CHECK_SUBREQUESTS?: string;
  /** Registry subrequests one run of the registry-cache warm-up may make (default 40; WARM_CRON runs it every 10 minutes). */
  REGISTRY_WARM_SUBREQUESTS?: string;
}
