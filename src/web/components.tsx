import type { Child } from "hono/jsx";
import { attrs, el, esc, markup } from "./markup";

/** Field name → message, from an ApiError's `details.issues` (core/invoke.ts `fieldErrors`). */
export type Errors = Record<string, string>;

export interface FieldProps {
  /** Form field name; also the key into `errors` (the issue path without `body.`). */
  name: string;
  label: string;
  /** Unique on the page (several forms may use the same name). */
  id?: string;
  type?: "text" | "email" | "password" | "search";
  value?: string;
  errors?: Errors;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  maxlength?: number;
  minlength?: number;
  pattern?: string;
  placeholder?: string;
}

/**
 * A labelled input with its hint and its error (tied by aria-describedby, so a screen reader reads
 * them). Written as text (markup.ts): it is on most forms, and the agents page draws one per agent.
 */
export function fieldHtml(p: FieldProps): string {
  const id = p.id ?? `f-${p.name}`;
  const err = p.errors?.[p.name];
  const described = [p.hint ? `${id}-hint` : "", err ? `${id}-err` : ""].filter(Boolean).join(" ") || undefined;
  const input = attrs({
    id,
    name: p.name,
    type: p.type ?? "text",
    value: p.type === "password" ? undefined : p.value,
    required: p.required ? "" : undefined,
    autocomplete: p.autocomplete,
    maxlength: p.maxlength,
    minlength: p.minlength,
    pattern: p.pattern,
    placeholder: p.placeholder,
    "aria-invalid": err ? "true" : undefined,
    "aria-describedby": described,
  });
  return `<div class="field">${el("label", { for: id }, esc(p.label))}<input${input}/>${p.hint ? el("p", { class: "hint", id: `${id}-hint` }, esc(p.hint)) : ""}${err ? el("p", { class: "error", id: `${id}-err` }, esc(err)) : ""}</div>`;
}

export const Field = (p: FieldProps) => markup(fieldHtml(p));

/** An error about the whole form (wrong password, a declined change), announced when the page loads. */
export function formErrorHtml(errors?: Errors): string {
  const msg = errors?._form;
  return msg ? `<p class="banner bad" role="alert">${esc(msg)}</p>` : "";
}

export function FormError({ errors }: { errors?: Errors }) {
  return errors?._form ? markup(formErrorHtml(errors)) : null;
}

export function Banner({ kind, children }: { kind: "ok" | "bad" | "warn"; children: Child }) {
  return (
    <p class={`banner ${kind}`} role={kind === "bad" ? "alert" : "status"}>
      {children}
    </p>
  );
}

/** Text shown as code with a copy button (hidden until the script runs; selectable without it). */
export function CopyBlock({ id, text, label }: { id: string; text: string; label: string }) {
  return (
    <div class="keybox">
      <pre>
        <code id={id}>{text}</code>
      </pre>
      <button type="button" class="secondary" data-copy={id} hidden aria-label={`Copy ${label}`}>
        Copy
      </button>
    </div>
  );
}

/** A horizontal usage bar (SVG: no inline style is allowed by the CSP; written as text, markup.ts says why). */
export function Meter({ used, limit, label }: { used: number; limit: number | null; label: string }) {
  if (limit === null) return null;
  const ratio = limit > 0 ? Math.min(1, used / limit) : 1;
  const level = ratio >= 1 ? "fill full" : ratio >= 0.8 ? "fill high" : "fill";
  return markup(
    el(
      "svg",
      { class: "meter", viewBox: "0 0 100 10", preserveAspectRatio: "none", role: "img", "aria-label": `${label}: ${used} of ${limit}` },
      el("rect", { class: "track", width: "100", height: "10", rx: "2" }) +
        el("rect", { class: level, width: (ratio * 100).toFixed(2), height: "10", rx: "2" }),
    ),
  );
}

const fmt = new Intl.NumberFormat("en-US");
/**
 * A count as en-US writes it (`12,345`). The pages show only whole counts, and Intl's formatter
 * (ICU) was 2.7% of a profile of /dashboard (about 0.15 ms a page under the profiler): a safe
 * integer is grouped by hand, anything else (a fraction, -0, a non-finite) is left to Intl.
 */
export function num(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return fmt.format(n);
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
export const limitText = (n: number | null) => (n === null ? "unlimited" : num(n));

/** `2026-11-23 14:05 UTC`: one unambiguous form everywhere (quotas reset at 00:00 UTC). */
export function utc(isoOrMs: string | number | null): string {
  if (isoOrMs === null) return "—";
  const d = new Date(isoOrMs);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

/** `in 5 h 12 min` from `now` (server time). */
export function until(iso: string, nowMs: number): string {
  const s = Math.max(0, Math.round((Date.parse(iso) - nowMs) / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `in ${d} d ${h} h`;
  if (h > 0) return `in ${h} h ${m} min`;
  if (m > 0) return `in ${m} min`;
  return `in ${s} s`;
}

export interface PagerProps {
  /** Keeps its own query; `page=` is added. */
  base: string;
  page: number;
  perPage: number;
  total: number;
  label?: string;
}

/** Previous / next links for a paginated list; nothing when there is one page. Written as text (markup.ts). */
export function pagerHtml({ base, page: p, perPage, total, label = "Pages" }: PagerProps): string {
  const last = Math.max(1, Math.ceil(total / perPage));
  if (last === 1) return "";
  const sep = base.includes("?") ? "&" : "?";
  return el(
    "nav",
    { class: "row", "aria-label": label },
    (p > 1 ? el("a", { href: `${base}${sep}page=${p - 1}` }, "Previous") : "") +
      `<span class="muted">Page ${p} of ${last}</span>` +
      (p < last ? el("a", { href: `${base}${sep}page=${p + 1}` }, "Next") : ""),
  );
}

export const Pager = (p: PagerProps) => {
  const html = pagerHtml(p);
  return html ? markup(html) : null;
};

const ESCAPED_BYTES: Record<string, number> = { "&": 5, "<": 4, ">": 4, '"': 6, "'": 5 };
const utf8Bytes = (cp: number) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

/**
 * Third-party text cut so that, escaped into the page, it takes at most `maxBytes` (an ellipsis
 * marks the cut). Budgets in bytes, not characters, keep a page's weight bounded whatever the text
 * holds: 1,000 quotes would otherwise become 6,000 bytes of `&quot;`.
 */
export function fit(text: string, maxBytes: number): string {
  let used = 0;
  let cut = -1;
  let i = 0;
  for (const ch of text) {
    used += ESCAPED_BYTES[ch] ?? utf8Bytes(ch.codePointAt(0)!);
    // Where to cut if the whole does not fit: the last point that leaves room for the ellipsis (3 bytes).
    if (cut < 0 && used > maxBytes - 3) cut = i;
    if (used > maxBytes) return `${text.slice(0, cut)}…`;
    i += ch.length;
  }
  return text;
}
