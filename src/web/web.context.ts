import type { Context, MiddlewareHandler } from "hono";
import type { AppVariables } from "../core/context";
import type { Env } from "../env";
import type { OwnerPrincipal } from "../core/principal";
import type { OpContext } from "../core/operation";
import { ApiError, badRequest } from "../core/errors";
import { assertFromThisOrigin, authenticate, SESSION_COOKIE } from "../core/auth";
import { readBodyLimited } from "../core/body";
import { opContext } from "../core/rest";
import { contentSecurityPolicy } from "./assets";

export type WebEnv = {
  Bindings: Env;
  /** `formTargets`: other origins this page's forms may lead to (the CSP's `form-action`, see assets.ts). */
  Variables: AppVariables & { owner: OwnerPrincipal | null; formTargets?: readonly string[] };
};
export type WebContext = Context<WebEnv>;

/** The operation context for a page: the signed-in owner (or nobody), run `via: "web"`. */
export const webOp = (c: WebContext): OpContext => opContext(c as never, c.get("owner"), "web");

/**
 * Headers on every page. Pages showing an account are `no-store` (a key page above all: it must
 * not survive in any cache or the back/forward cache); anonymous public pages may be cached.
 */
export const pageHeaders: MiddlewareHandler<WebEnv> = async (c, next) => {
  await next();
  const h = c.res.headers;
  if (!(h.get("content-type") ?? "").startsWith("text/html")) return;
  h.set("content-security-policy", await contentSecurityPolicy(c.get("formTargets")));
  h.set("x-frame-options", "DENY");
  // `same-origin` still sends a real Origin on the pages' own form posts (only `no-referrer`
  // turns it into `Origin: null`), and nothing about the dashboard to other sites.
  h.set("referrer-policy", "same-origin");
  h.set("cross-origin-opener-policy", "same-origin");
  h.set("cross-origin-resource-policy", "same-origin");
  h.set("permissions-policy", "camera=(), microphone=(), geolocation=(), payment=()");
  // The request URL is absolute and normalised (lower-case scheme): no URL parse for one prefix.
  if (c.req.url.startsWith("https:")) h.set("strict-transport-security", "max-age=31536000");
  if (c.get("owner") || !h.has("cache-control")) h.set("cache-control", "no-store");
};

/**
 * The owner signed in by the session cookie, or null. Only the cookie counts here: a page never
 * acts on an `Authorization` header, so an agent key can never drive the dashboard.
 */
export const loadOwner: MiddlewareHandler<WebEnv> = async (c, next) => {
  c.set("owner", null);
  const cookie = c.req.header("cookie");
  if (cookie?.includes(`${SESSION_COOKIE}=`)) {
    const p = await authenticate(c.env, new Headers({ cookie }), "owner").catch(() => null);
    if (p?.kind === "owner") c.set("owner", p);
  }
  await next();
};

/** Every form post must come from these pages (login and signup too, against login CSRF). */
export const sameOriginPosts: MiddlewareHandler<WebEnv> = async (c, next) => {
  assertFromThisOrigin(c.req.raw);
  await next();
};

export const CLEAR_SESSION_COOKIE = `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;

/** Dashboard pages: signed out (or a dead session) goes to the login page, then back here. */
export const requireOwner: MiddlewareHandler<WebEnv> = async (c, next) => {
  if (c.get("owner")) return next();
  const url = new URL(c.req.url);
  const back = c.req.method === "GET" ? `?next=${encodeURIComponent(url.pathname + url.search)}` : "";
  const res = c.redirect(`/login${back}`, 303);
  if (c.req.header("cookie")?.includes(`${SESSION_COOKIE}=`)) res.headers.append("set-cookie", CLEAR_SESSION_COOKIE);
  return res;
};

/** Where to go after logging in: only a path on this site (never `//host` or a scheme). */
export function safeNext(next: string | undefined): string {
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\") || /[\u0000-\u001f]/.test(next)) return "/dashboard";
  return next;
}

const FORM_LIMIT = 64 * 1024;

/** A urlencoded form body (what every dashboard form sends), first value per name. */
export async function readForm(c: WebContext): Promise<Record<string, string>> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "Dashboard forms are sent as application/x-www-form-urlencoded");
  }
  const bytes = await readBodyLimited(c.req.raw, FORM_LIMIT, "Form");
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(new TextDecoder().decode(bytes))) out[k] ??= v;
  return out;
}

/**
 * A `multipart/form-data` body (the skill upload form) as FormData: 415 for another type, 413 past
 * `limit` bytes (cut off while reading, never buffered whole), 400 when it is not valid multipart.
 */
export async function readMultipart(c: WebContext, limit: number): Promise<FormData> {
  const type = c.req.header("content-type") ?? "";
  if (type.split(";")[0]!.trim().toLowerCase() !== "multipart/form-data") {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "This form is sent as multipart/form-data");
  }
  const bytes = await readBodyLimited(c.req.raw, limit, "The upload");
  try {
    return await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    throw badRequest("The upload is not a valid multipart/form-data body");
  }
}

/** A value to show back in a form after an error; passwords are never echoed. */
export type FormValues = Record<string, string>;
