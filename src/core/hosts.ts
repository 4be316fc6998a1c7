import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from "@modelcontextprotocol/server";
import type { Env } from "../env";
import { ApiError } from "./errors";
import { LruCache } from "./cache";

/**
 * The hostnames this service answers to: the loopback names (wrangler dev, npm start) and the
 * public hostnames configured in wrangler.toml (`PUBLIC_HOSTNAMES`, comma-separated; the deploy
 * script writes the workers.dev one there, add custom domains yourself).
 */
export function allowedHostnames(env: Pick<Env, "PUBLIC_HOSTNAMES">): string[] {
  const raw = env.PUBLIC_HOSTNAMES ?? "";
  const names = parsed.getOrSet(raw, () => [
    ...localhostAllowedHostnames(),
    ...raw
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  ]);
  return [...names];
}

/** The list for each PUBLIC_HOSTNAMES value seen (one, outside tests), so a request does not parse it again. */
const parsed = new LruCache<string, string[]>({ maxEntries: 8 });

/**
 * DNS-rebinding protection (MCP transport spec): a page on evil.example.com whose name was made to
 * resolve to 127.0.0.1 sends `Host: evil.example.com` and `Origin: http://evil.example.com`, so both
 * are checked against the allowlist rather than against each other. A request without `Origin`
 * (every non-browser client) needs only an allowed Host; `Origin: null` is refused. On
 * *.workers.dev Cloudflare routes only this Worker's own names here, so the request's own
 * workers.dev name (preview URLs included) is allowed without being configured.
 * The header parsing is the MCP SDK's; a refusal is 403 FORBIDDEN in the contract's shape.
 */
export function checkHostAndOrigin(req: Request, env: Pick<Env, "PUBLIC_HOSTNAMES">): void {
  const url = new URL(req.url);
  const allowed = allowedHostnames(env);
  if (url.hostname.endsWith(".workers.dev")) allowed.push(url.hostname);
  const host = validateHostHeader(req.headers.get("host") ?? url.host, allowed);
  if (!host.ok) {
    throw new ApiError(
      "FORBIDDEN",
      `${host.message.slice(0, 200)}: not a hostname this service answers to (PUBLIC_HOSTNAMES in wrangler.toml lists them)`,
    );
  }
  const origin = validateOriginHeader(req.headers.get("origin"), allowed);
  if (!origin.ok)
    throw new ApiError("FORBIDDEN", `${origin.message.slice(0, 200)}: browsers may call this endpoint only from its own hostnames`);
}
