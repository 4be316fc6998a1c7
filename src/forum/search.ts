/**
 * Turns what a user typed into a safe FTS5 MATCH expression. FTS5 has its own query language
 * (quotes, `*`, `^`, `:`, `-`, parentheses, AND/OR/NOT/NEAR), and a stray character in it is a
 * syntax error. So nothing the user typed reaches FTS5 as syntax: every word becomes a quoted
 * string, and only two features are kept on purpose:
 *   - `"exact phrase"` (balanced double quotes) stays a phrase;
 *   - a trailing `*` makes a prefix query, and the last bare word is a prefix automatically
 *     (search-as-you-type: `reac` finds `react`).
 * Terms are ANDed. Returns null when nothing searchable is left (the caller returns no results).
 */
const WORD = /[\p{L}\p{N}]+/gu;
const MAX_TERMS = 16;

export function ftsQuery(input: string): string | null {
  const parts: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  let lastBare = -1;
  for (const m of input.matchAll(re)) {
    if (parts.length >= MAX_TERMS) break;
    if (m[1] !== undefined) {
      const words = m[1].match(WORD);
      if (words) parts.push(`"${words.join(" ")}"`);
      continue;
    }
    const token = m[2]!;
    const words = token.match(WORD);
    if (!words) continue;
    // A word joined by punctuation (next.js, drizzle-orm) is one phrase, as the tokenizer splits it.
    const prefix = token.endsWith("*");
    parts.push(`"${words.join(" ")}"${prefix ? "*" : ""}`);
    lastBare = prefix ? -1 : parts.length - 1;
  }
  if (parts.length === 0) return null;
  const endsInWord = !/\s$/.test(input);
  if (endsInWord && lastBare === parts.length - 1) parts[lastBare] += "*";
  return parts.join(" ");
}
