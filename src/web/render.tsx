import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type ApiError, asApiError } from "../core/errors";
import { LruCache } from "../core/cache";
import { renderPage, type PageOptions } from "./layout";
import type { WebContext } from "./web.context";

/** Renders a page for the signed-in owner (or a visitor) with the given status. */
export function page(c: WebContext, opts: Omit<PageOptions, "owner">, content: Child, status: ContentfulStatusCode = 200) {
  return c.html(renderPage({ ...opts, owner: c.get("owner") }, content), status);
}

// Pages that are the same for every visitor of an origin (a handful of origins per deploy).
const anonymous = new LruCache<string, string>({ maxEntries: 32 });

/**
 * A page that is the same for every signed-out visitor of an origin (the landing page, the plain
 * login form): rendered once per isolate and origin, then served as the same string.
 */
export function anonymousPage(c: WebContext, key: string, opts: Omit<PageOptions, "owner">, content: () => Child) {
  const id = `${new URL(c.req.url).origin} ${key}`;
  let html = anonymous.get(id);
  if (html === undefined) {
    html = renderPage({ ...opts, owner: null }, content());
    anonymous.set(id, html);
  }
  return c.html(html);
}

// Page content that depends only on its key (an origin, a harness, signed in or not), not on the
// account or the data: bounded by count and bytes, as the key holds the client's Host header.
const fixed = new LruCache<string, { title: string; html: HtmlEscapedString }>({ maxEntries: 128, maxBytes: 4 * 1024 * 1024 });

/**
 * A page's content rendered once per isolate and key, then served as the same (already escaped)
 * HTML: for content made only of shipped data (the harness setup pages, the publish form). The
 * key must name everything the content depends on; a build that throws caches nothing.
 */
export async function fixedContent(
  key: string,
  build: () => { title: string; content: Child } | Promise<{ title: string; content: Child }>,
): Promise<{ title: string; content: HtmlEscapedString }> {
  let hit = fixed.get(key);
  if (hit === undefined) {
    const { title, content } = await build();
    const html = (<>{content}</>).toString() as string;
    hit = { title, html: raw(html) };
    fixed.set(key, hit, 2 * (html.length + key.length + title.length));
  }
  return { title: hit.title, content: hit.html };
}

/** An ApiError's status as a page status (the contract's codes are all contentful). */
export const statusOf = (err: ApiError) => err.status as ContentfulStatusCode;

/** A message for a `?done=` code after a redirect. Fixed texts only: nothing from the URL is shown. */
export function doneMessage(c: WebContext, messages: Record<string, string>): string | null {
  const code = c.req.query("done");
  return code && Object.hasOwn(messages, code) ? messages[code]! : null;
}

const TITLES: Record<number, string> = {
  400: "That did not work",
  401: "Please log in",
  403: "Not allowed",
  404: "Not found",
  409: "That conflicts with the current state",
  413: "Too large",
  415: "Unsupported form",
  429: "Slow down",
  500: "Something went wrong",
};

/**
 * The pages' error renderer: the same ApiError the API would answer, as a page. Unexpected errors
 * are logged with the request id (never the form, which may hold a password or key) and shown as
 * a 500 with only that id.
 */
export function errorPage(err: Error, c: WebContext) {
  const e = asApiError(err, { requestId: c.get("requestId"), path: new URL(c.req.url).pathname });
  const res = page(
    c,
    { title: TITLES[e.status] ?? "Error" },
    <>
      <h1>{TITLES[e.status] ?? "Error"}</h1>
      <p class="banner bad" role="alert">
        {e.message}
      </p>
      {e.code === "INTERNAL" ? <p class="muted small">{`Request id: ${c.get("requestId")}`}</p> : null}
      <p>
        <a href={c.get("owner") ? "/dashboard" : "/"}>Back to {c.get("owner") ? "the dashboard" : "the start page"}</a>
      </p>
    </>,
    statusOf(e),
  );
  for (const [k, v] of Object.entries(e.headers)) res.headers.set(k, v);
  return res;
}
