/**
 * Bulk writes for D1 without hitting its limits (100 bound parameters and 100 KB of SQL per
 * statement, 1,000 statements per invocation): rows travel as one JSON array parameter and SQLite
 * unpacks them with json_each, so 5,000 rows cost one statement and one parameter, not 5,000.
 *
 *   INSERT INTO t (a, b) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]')
 *     FROM json_each(?1) WHERE true ON CONFLICT …
 */
export function jsonCols(n: number): string {
  return Array.from({ length: n }, (_, i) => `json_extract(value, '$[${i}]')`).join(", ");
}

/** Splits rows into JSON arrays of at most `maxBytes` each (D1 caps a value at 2 MB). */
export function jsonChunks(rows: readonly unknown[], maxBytes = 400_000): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let size = 2;
  for (const r of rows) {
    const s = JSON.stringify(r);
    if (cur.length && size + s.length + 1 > maxBytes) {
      out.push(`[${cur.join(",")}]`);
      cur = [];
      size = 2;
    }
    cur.push(s);
    size += s.length + 1;
  }
  if (cur.length) out.push(`[${cur.join(",")}]`);
  return out;
}

/** Prepared statements that run `sql` (with ?1 = the JSON array, ?2.. = `extra`) over every chunk. */
export function bulkStatements(db: D1Database, sql: string, rows: readonly unknown[], extra: unknown[] = [], maxBytes?: number) {
  return jsonChunks(rows, maxBytes).map((chunk) => db.prepare(sql).bind(chunk, ...extra));
}

/** Lines of a text file without blank lines and `#` comments. */
export const dataLines = (text: string) => text.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.startsWith("#"));
