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
  /** McpSessions (src/mcp/sessions.do.ts), one per account: its MCP sessions and their streams. */
  MCP_SESSIONS: DurableObjectNamespace;
  /**
   * The scanner Worker (src/scan-worker/index.ts, class `Scanner`), a service binding: the content
   * rules run there. Declared without its class like the namespaces above; the scan clients give it
   * its methods (src/skills/scanner/remote.ts, src/mcp-servers/scanner/remote.ts).
   */
  SCANNER: Fetcher;
  /**
   * The MCP SDK Worker (src/mcp-worker/index.ts, class `McpSdk`), a service binding: the SDK serves
   * there what /v1/mcp does not answer itself. Typed by src/core/mcp-sdk-rpc.ts where it is called.
   */
  MCP_SDK: Fetcher;
  /** Static assets (data/assets/, wrangler.toml [assets]): only what the Worker serves itself, e.g. lore-setup's tarball. */
  ASSETS: Fetcher;
  /** Password checks (login, sign-up): per address, per address and email, per email, and past that ceiling one per address (src/auth/throttle.ts). */
  AUTH_ADDRESS_THROTTLE: RateLimit;
  AUTH_PAIR_THROTTLE: RateLimit;
  AUTH_EMAIL_THROTTLE: RateLimit;
  AUTH_EMAIL_NEW_ADDRESS_THROTTLE: RateLimit;
  /** Sign-ups per client address (account farming). */
  SIGNUP_THROTTLE: RateLimit;
  /**
   * Comma-separated public hostnames (wrangler.toml [vars]); with the loopback names, the Host and
   * Origin values /v1/mcp accepts (core/hosts.ts).
   */
  PUBLIC_HOSTNAMES?: string;
  /**
   * The origin Lore's own skill (`lore`, GET /v1/start-here.md) names, e.g. https://lore.example.com
   * (wrangler.toml [vars]). Unset: the origin the seed reached (npm start's, or the deploy's URL).
   * Never the request's Host header: the skill is published content, the same for every caller.
   */
  PUBLIC_ORIGIN?: string;
  /**
   * The secret that tags agent keys with their account (core/auth.ts), so the Worker recognises a
   * key Lore made before it addresses any account object. Required: without it no key can be
   * created and tagged keys are refused. `KEY_SECRET_PREVIOUS` (comma-separated) keeps keys tagged
   * under earlier secrets working after a rotation. `npm run deploy` generates it once; `npm start`
   * and the tests set their own.
   */
  KEY_SECRET?: string;
  KEY_SECRET_PREVIOUS?: string;
  /**
   * The secret of the sync cursor's MAC (src/sync/cursor.ts), so only Lore can write a cursor.
   * `CURSOR_SECRET_PREVIOUS` (comma-separated) still verifies cursors issued before a rotation:
   * keep it for 90 days (the change log's horizon, past which an old cursor gets a full answer anyway).
   */
  CURSOR_SECRET?: string;
  CURSOR_SECRET_PREVIOUS?: string;
  /**
   * `local`: the local billing provider, which grants paid plans without charging (npm start, the
   * tests, a private deployment that says so). Without it and without Stripe configured, paid plans
   * are refused (src/billing/billing.config.ts).
   */
  BILLING_PROVIDER?: string;
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
  /**
   * The scanners' second opinion (src/scan/judge.ts, docs/scanner.md): a Workers AI binding
   * (`[ai] binding = "AI"`, not declared in wrangler.toml so that `wrangler dev` and the tests never
   * reach Cloudflare) and the model it runs. Both set: skills, MCP servers and the scan endpoint ask
   * it about what the rules were unsure of and (SCAN_JUDGE_SCOPE) the instruction text as a whole; either missing: the rules alone decide.
   */
  AI?: { run(model: string, inputs: Record<string, unknown>, options?: { signal?: AbortSignal; tags?: string[] }): Promise<unknown> };
  SCAN_JUDGE_MODEL?: string;
  /** Milliseconds one judge call may take (default and ceiling 10,000). */
  SCAN_JUDGE_TIMEOUT_MS?: string;
  /**
   * What the judge reads: "all" (default) the rules' uncertain passages and the content's
   * instruction text as a whole (SKILL.md and the files it names; MCP instructions, tool
   * descriptions and schema texts); "uncertain" only the passages.
   */
  SCAN_JUDGE_SCOPE?: string;
}
