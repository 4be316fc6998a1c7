import * as z from "zod/v4";

/**
 * Identifiers people read and type (handles, names, slugs, tags, ids in paths) must not hide
 * anything: control characters (Cc), format characters (Cf: the byte order mark, zero-width
 * spaces and joiners, bidi embeddings, overrides and isolates, soft hyphen, tag characters) and
 * the line and paragraph separators are refused with a 400 instead of being trimmed or stored.
 * They make two names that look the same differ, or make text display in another order than it
 * is stored. Titles and bodies are content, not identifiers: they are kept byte for byte.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** The first invisible or control character in `s`, as `U+XXXX at position N` (1-based), or null. */
export function findInvisible(s: string): string | null {
  const m = INVISIBLE.exec(s);
  if (!m) return null;
  const cp = m[0].codePointAt(0)!;
  const position = [...s.slice(0, m.index)].length + 1;
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")} at position ${position}`;
}

const message = (v: unknown) => {
  const found = typeof v === "string" ? findInvisible(v) : null;
  return `must not contain control, zero-width, bidi or other invisible characters (found ${found})`;
};

/**
 * A string that refuses invisible and control characters. Checked before any `.trim()` or
 * `.toLowerCase()` added after it, so a leading byte order mark is an error, not trimmed away.
 */
export const visibleString = () => z.string().refine((s) => !INVISIBLE.test(s), { error: (iss) => message(iss.input) });

/** An id or slug in a path or argument (threads, posts, kb entries, rooms, agents). */
export const ref = (max = 200) => visibleString().min(1, "must not be empty").max(max, `at most ${max} characters`);

/** URL-safe slug from a title plus a short random suffix, so equal titles never collide. */
export function slugify(text: string, id: string): string {
  const base = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/g, "");
  return `${base || "item"}-${id.slice(-8)}`;
}
