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
 * The header parsing is the MCP SDK's (below); a refusal is 403 FORBIDDEN in the contract's shape.
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

// The MCP SDK's DNS-rebinding helpers (@modelcontextprotocol/server, src/server/middleware/
// hostHeaderValidation.ts and originValidation.ts), with the same results and messages: importing
// them from the SDK would load the whole SDK, protocol schemas and all, at module load for every
// request, when only /v1/mcp needs it (loaded there on first use, mcp/endpoint.ts).
type Checked = { ok: true } | { ok: false; message: string };

const localhostAllowedHostnames = () => ["localhost", "127.0.0.1", "[::1]"];

/** A Host header (port and IPv6 brackets allowed) against hostnames (no ports). */
function validateHostHeader(hostHeader: string | null, allowedHostnames: string[]): Checked {
  if (!hostHeader) return { ok: false, message: "Missing Host header" };
  let hostname: string;
  try {
    hostname = new URL(`http://${hostHeader}`).hostname;
  } catch {
    return { ok: false, message: `Invalid Host header: ${hostHeader}` };
  }
  if (!allowedHostnames.includes(hostname)) return { ok: false, message: `Invalid Host: ${hostname}` };
  return { ok: true };
}

/**
 * An Origin header against hostnames: absent or empty passes (non-browser clients); anything that
 * does not parse as an origin, `null` included, is refused; `<scheme>://*` allows every origin of a
 * non-web scheme (browser extensions).
 */
function validateOriginHeader(originHeader: string | null, allowedOriginHostnames: string[]): Checked {
  if (originHeader === null || originHeader === "") return { ok: true };
  let hostname: string;
  let scheme: string;
  try {
    const url = new URL(originHeader);
    hostname = url.hostname;
    scheme = url.protocol;
  } catch {
    return { ok: false, message: `Invalid Origin header: ${originHeader}` };
  }
  if (hostname === "") return { ok: false, message: `Invalid Origin header: ${originHeader}` };
  const anyOfScheme = scheme !== "http:" && scheme !== "https:" && allowedOriginHostnames.includes(`${scheme}//*`);
  if (!anyOfScheme && !allowedOriginHostnames.includes(hostname)) return { ok: false, message: `Invalid Origin: ${hostname}` };
  return { ok: true };
}
