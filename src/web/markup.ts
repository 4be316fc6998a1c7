import { raw } from "hono/html";
import { escapeToBuffer } from "hono/utils/html";
import type { HtmlEscapedString } from "hono/utils/html";

/**
 * Markup written as text, for the elements hono/jsx must not see: `<svg>` and `<head>`. The first
 * JSX `<svg>` or `<head>` an isolate renders creates hono/jsx's namespace context, and from then on
 * every element of every page asks it for its namespace (an AsyncLocalStorage read per element):
 * measured, the dashboard pages' render (docs/profiling.md). So the layout's head, the usage meter
 * and the usage chart are written here, escaped exactly as hono/jsx escapes (its own function).
 */
export function esc(text: string): string {
  const buffer: [string] = [""];
  escapeToBuffer(text, buffer);
  return buffer[0];
}

/** `name="value"` pairs, each value escaped; null and undefined are left out, as JSX leaves them. */
export function attrs(a: Record<string, string | number | null | undefined>): string {
  let out = "";
  for (const [k, v] of Object.entries(a)) if (v !== null && v !== undefined) out += ` ${k}="${esc(String(v))}"`;
  return out;
}

/** An element with attributes and (already escaped) content. */
export const el = (tag: string, a: Record<string, string | number | null | undefined>, inner = ""): string =>
  `<${tag}${attrs(a)}>${inner}</${tag}>`;

/** Text written by these helpers, as hono/jsx children take it (not escaped again). */
export const markup = (html: string): HtmlEscapedString => raw(html);
