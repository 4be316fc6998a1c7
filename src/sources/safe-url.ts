/**
 * SSRF guard for URLs that users hand us (tracking requests' `repoUrl`) and for every redirect a
 * source client is offered: only https on a known public code host, with no credentials, no port,
 * no IP literal (in any spelling: the URL parser turns decimal, hex and octal IPv4 into dotted
 * form, IPv6 stays bracketed) and no private or local names. Redirects are never followed
 * automatically: `safeFetch` checks each hop against the same rules.
 */
export const CODE_HOSTS = ["github.com", "gitlab.com", "codeberg.org"] as const;

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const SEGMENT = /^[A-Za-z0-9_.-]{1,100}$/;

export type RepoCheck = { ok: true; url: string; host: string; path: string[] } | { ok: false; reason: string };

/** Whether a hostname is an IP literal or a name that points inside (localhost, *.local, metadata). */
export function isPrivateHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  if (h.startsWith("[") || h.includes(":") || IPV4.test(h) || /^\d+$/.test(h) || /^0x[0-9a-f]+$/i.test(h)) return true;
  return (
    h === "localhost" ||
    h.endsWith(".localhost") ||
    h.endsWith(".local") ||
    h.endsWith(".internal") ||
    h.endsWith(".lan") ||
    h === "metadata.google.internal" ||
    !h.includes(".")
  );
}

export function checkRepoUrl(raw: string): RepoCheck {
  const s = raw.trim();
  if (s.length > 300) return { ok: false, reason: "URL is longer than 300 characters" };
  if (/[\s\\]/.test(s)) return { ok: false, reason: "URL must not contain spaces or backslashes" };
  // Dot segments (also percent-encoded) would be resolved away by the parser: refuse them outright.
  if (/\/(\.|%2e){1,2}(\/|$|\?|#)/i.test(s)) return { ok: false, reason: "must be a repository URL without . or .. path segments" };
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return { ok: false, reason: "not a URL" };
  }
  if (u.protocol !== "https:") return { ok: false, reason: "must be an https URL" };
  if (u.username || u.password) return { ok: false, reason: "must not carry credentials" };
  if (u.port) return { ok: false, reason: "must not name a port" };
  if (isPrivateHostname(u.hostname)) return { ok: false, reason: "must name a public code host, not an IP address or a private name" };
  const host = u.hostname.toLowerCase();
  if (!(CODE_HOSTS as readonly string[]).includes(host)) return { ok: false, reason: `host must be one of ${CODE_HOSTS.join(", ")}` };
  if (u.search || u.hash) return { ok: false, reason: "must not carry a query or fragment" };
  const path = u.pathname
    .replace(/\/+$/, "")
    .replace(/\.git$/, "")
    .split("/")
    .filter(Boolean);
  const maxSegments = host === "gitlab.com" ? 6 : 2;
  if (path.length < 2 || path.length > maxSegments || !path.every((p) => SEGMENT.test(p) && p !== "." && p !== "..")) {
    return { ok: false, reason: "must be a repository URL: https://<host>/<owner>/<repo>" };
  }
  return { ok: true, url: `https://${host}/${path.join("/")}`, host, path };
}

export class RedirectRefused extends Error {}

/**
 * fetch that follows at most `maxRedirects` redirects itself, and only to https URLs on
 * `allowHosts` (never to an IP literal or a private name, whatever the allow list says).
 */
export async function safeFetch(
  url: string,
  init: RequestInit,
  opts: { allowHosts: readonly string[]; maxRedirects?: number },
): Promise<Response> {
  let current = url;
  for (let hop = 0; hop <= (opts.maxRedirects ?? 3); hop++) {
    const u = new URL(current);
    if (
      u.protocol !== "https:" ||
      u.username ||
      u.password ||
      u.port ||
      isPrivateHostname(u.hostname) ||
      !opts.allowHosts.includes(u.hostname.toLowerCase())
    ) {
      throw new RedirectRefused(`refused to fetch ${u.protocol}//${u.host}: not an allowed public host`);
    }
    const res = await fetch(current, { ...init, redirect: "manual" });
    if (res.status < 300 || res.status >= 400 || !res.headers.get("location")) return res;
    await res.body?.cancel();
    current = new URL(res.headers.get("location")!, current).toString();
  }
  throw new RedirectRefused("too many redirects");
}
