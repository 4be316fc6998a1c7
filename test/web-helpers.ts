import { exports } from "cloudflare:workers";
import { env as testEnv, createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../src/index";
import { BASE, call } from "./helpers";
import { CSS, SCRIPT } from "../src/web/assets";

/**
 * Driving the owners' web pages through the real Worker's fetch, the way a browser sends them:
 * forms as application/x-www-form-urlencoded, `Origin` and `Sec-Fetch-Site` set, redirects not
 * followed. Shared by the page tests (web.test.ts, sync-web.test.ts).
 */

export interface Page {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
}

export const ORIGIN = BASE; // http://localhost

/**
 * `raw` is a body with its content type (a multipart upload); `env` adds Worker bindings for this
 * request only (the Stripe configuration), as test/helpers.ts `call` does.
 */
export async function browse(
  method: "GET" | "POST",
  path: string,
  opts: {
    cookie?: string;
    form?: Record<string, string>;
    raw?: { body: Uint8Array; type: string };
    headers?: Record<string, string>;
    env?: Record<string, unknown>;
  } = {},
): Promise<Page> {
  const headers: Record<string, string> = { accept: "text/html,application/xhtml+xml", "sec-fetch-site": "same-origin" };
  if (method === "POST") headers.origin = ORIGIN;
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: string | Uint8Array | undefined;
  if (opts.form) {
    body = new URLSearchParams(opts.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  if (opts.raw) {
    body = opts.raw.body;
    headers["content-type"] = opts.raw.type;
  }
  Object.assign(headers, opts.headers);
  for (const [k, v] of Object.entries(headers)) if (v === "") delete headers[k];
  const request = new Request(BASE + path, { method, headers, body, redirect: "manual" });
  let res: Response;
  if (opts.env) {
    const ctx = createExecutionContext();
    res = await worker.fetch!(request as any, { ...testEnv, ...opts.env } as any, ctx);
    await waitOnExecutionContext(ctx);
  } else {
    res = await (exports as any).default.fetch(request);
  }
  return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get("location") };
}

let n = 0;
export const uniq = () => `${Date.now().toString(36)}${(n++).toString(36)}`;

/** Signs up through the form; returns the cookie a browser would then send. */
export async function signupForm(email = `web-${uniq()}@example.com`) {
  const r = await browse("POST", "/signup", { form: { email, password: "correct horse battery" } });
  expect(r.status, r.html).toBe(303);
  expect(r.location).toBe("/dashboard?done=welcome");
  const setCookie = r.headers.get("set-cookie")!;
  expect(setCookie).toMatch(/^lore_session=lore_s_[A-Za-z0-9]+; Path=\/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax$/);
  const cookie = setCookie.split(";")[0]!;
  return { email, cookie, token: cookie.slice("lore_session=".length) };
}

export const KEY_RE = /lore_[A-Za-z0-9]{65}_own_[a-z0-9]+/g;

/** Creates an agent through the form; returns the key read from the page. */
export async function createAgentForm(cookie: string, handle = `w${uniq()}`, name = "") {
  const r = await browse("POST", "/dashboard/agents", { cookie, form: { handle, name } });
  expect(r.status, r.html).toBe(201);
  const keys = [...new Set(r.html.match(KEY_RE))];
  expect(keys).toHaveLength(1);
  return { page: r, key: keys[0]!, handle };
}

export async function agentsOf(token: string) {
  return (await call("GET", "/v1/agents", { token })).body as {
    items: { id: string; handle: string; name: string | null; keys: { prefix: string; revokedAt: string | null }[] }[];
    total: number;
  };
}

/** Every visible input, select and textarea has a label pointing at it (or is inside one). */
export function expectLabelled(html: string) {
  for (const m of html.matchAll(/<(input|select|textarea)\b([^>]*)>/g)) {
    const attrs = m[2]!;
    if (/type="(hidden|submit)"/.test(attrs)) continue;
    const id = /\bid="([^"]+)"/.exec(attrs)?.[1];
    const inLabel = html.lastIndexOf("<label", m.index) > html.lastIndexOf("</label>", m.index);
    expect(inLabel || (id !== undefined && html.includes(`for="${id}"`)), `unlabelled ${m[0]}`).toBe(true);
  }
}

export async function sha256b64(s: string) {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  return btoa(String.fromCharCode(...new Uint8Array(d)));
}

/** The headers every page carries, and the rules its HTML keeps (no inline style, script only hashed). */
export async function expectSafePage(p: Page) {
  expect(p.headers.get("content-type")).toMatch(/^text\/html/);
  const csp = p.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain(`style-src 'sha256-${await sha256b64(CSS)}'`);
  expect(csp).toContain(`script-src 'sha256-${await sha256b64(SCRIPT)}'`);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("form-action 'self'");
  expect(csp).not.toContain("unsafe");
  expect(p.headers.get("x-frame-options")).toBe("DENY");
  expect(p.headers.get("x-content-type-options")).toBe("nosniff");
  expect(p.headers.get("referrer-policy")).toBe("same-origin");
  expect(p.headers.get("x-request-id")).toBeTruthy();
  // Only the hashed blocks: any other inline script or style (or a style attribute) is refused by the CSP anyway.
  const scripts = [...p.html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
  for (const s of scripts) expect(s[1]).toBe(SCRIPT);
  expect(p.html).not.toMatch(/<script[^>]+src=/);
  expect(p.html).not.toMatch(/\sstyle="/);
  expect(p.html).not.toMatch(/\son[a-z]+="/);
  expect(new TextEncoder().encode(p.html).byteLength).toBeLessThan(50 * 1024);
  expectLabelled(p.html);
}
