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
  /** Registry subrequests one package check may make (default 40, under the free plan's 50). */
  PACKAGE_CHECK_SUBREQUESTS?: string;
  /** Registry subrequests one run of the registry-cache warm-up may make (default 40; WARM_CRON runs it every 10 minutes). */
  REGISTRY_WARM_SUBREQUESTS?: string;
  /**
   * The scanners' second opinion (src/scan/judge.ts, docs/scanner.md): a Workers AI binding
   * (`[ai] binding = "AI"`, not declared in wrangler.toml so that `wrangler dev` and the tests never
   * reach Cloudflare) and the model it runs. Both set: skills, MCP servers and the scan endpoint ask
   * it about what the rules were unsure of; either missing: the rules alone decide.
   */
  AI?: { run(model: string, inputs: Record<string, unknown>, options?: { signal?: AbortSignal; tags?: string[] }): Promise<unknown> };
  SCAN_JUDGE_MODEL?: string;
  /** Milliseconds one judge call may take (default and ceiling 10,000). */
  SCAN_JUDGE_TIMEOUT_MS?: string;
}
