import * as z from "zod/v4";
import { pageOffset } from "./pagination";

/**
 * The paged list every search and list endpoint shares: an optional FTS5 MATCH, filters, an order,
 * a page, and a total, built as two statements that run in one D1 batch (or inside a caller's
 * larger batch, see `pagedStatements`).
 *
 * Two things keep a search's cost independent of how many rows match:
 *   - Totals are bounded: counted exactly up to TOTAL_BOUND, above it the answer is
 *     `total: TOTAL_BOUND, totalIsLowerBound: true` (the count reads at most TOTAL_BOUND + 1 rows).
 *   - Ranked first pages read a bounded candidate set: the RANK_CANDIDATES newest matches (highest
 *     FTS rowid, which FTS5 walks in order and stops), ranked by bm25 among themselves. With at most
 *     RANK_CANDIDATES matches this is exactly the full bm25 order; with more, the first pages rank the
 *     newest RANK_CANDIDATES matches (older matches are reached with more specific words). A page that
 *     reaches past the candidate set is answered by the full ranking, so deep pages stay complete.
 *
 * Every FTS table keeps rowid = its base row's rowid (its triggers write it), so the helper joins the
 * two on rowid: one b-tree step per row, where the id column costs a lookup in the FTS content table
 * and another in the base table's id index. A search with no filter on the base table (the common
 * case) counts and picks its candidates in the FTS index alone, and joins only the candidates; so an
 * FTS table holds only rows the list may show (skills_fts: listed skills only).
 */
export const TOTAL_BOUND = 10_000;
export const RANK_CANDIDATES = 1_000;

/** The page fields of every list answer; spread into a list's output schema beside `items`. */
export const pageOut = {
  total: z.number().int(),
  totalIsLowerBound: z
    .literal(true)
    .optional()
    .describe(`Present when there are more than ${TOTAL_BOUND.toLocaleString("en")} results: \`total\` is then a lower bound.`),
  page: z.number().int(),
  perPage: z.number().int(),
};

export interface FtsPart {
  /** The FTS5 table; it is aliased `f` (MATCH names the table: its hidden column keeps that name). */
  table: string;
  /** The MATCH expression (already made safe, see `ftsQuery`). */
  match: string;
  /** The bm25 expression (e.g. `bm25(forum_fts, 0.0, 10.0, 4.0)`), when the order is by relevance. */
  rank?: string;
}

export interface PagedQuery {
  /** The base table with its alias, e.g. `threads t`. */
  from: string;
  /** The base row's key, e.g. `t.id`; its alias names the base row (the FTS join is on that alias's rowid). */
  key: string;
  /** The selected columns. */
  columns: string;
  /** Joins the page's columns need (not the filters): left out of the count. */
  joins?: string;
  fts?: FtsPart;
  /** Filters on the base table (and its alias); their binds are `binds`, in order, as `?`. */
  where: string[];
  binds: unknown[];
  /** ORDER BY of the page; with `fts.rank` it follows the rank (the tie rule). */
  order: string;
  page: number;
  perPage: number;
}

export interface PageTotal {
  total: number;
  totalIsLowerBound?: true;
}

/** The page statement and the total statement, for a batch; `read` turns their results into rows and total. */
export function pagedStatements<Row>(db: D1Database, p: PagedQuery) {
  const filters = [...(p.fts ? [`${p.fts.table} MATCH ?`] : []), ...p.where];
  const binds = p.fts ? [p.fts.match, ...p.binds] : p.binds;
  const whereSql = filters.length ? `WHERE ${filters.join(" AND ")}` : "";
  const rowid = `${p.key.split(".")[0]}.rowid`;
  const source = p.fts ? `${p.fts.table} f JOIN ${p.from} ON ${rowid} = f.rowid` : p.from;
  // With only the MATCH to test, the FTS table alone is read (every FTS row has its base row).
  const matchSource = p.fts && p.where.length === 0 ? `${p.fts.table} f` : source;
  const joins = p.joins ? ` ${p.joins}` : "";
  const offset = pageOffset(p);
  let page: D1PreparedStatement;
  if (p.fts?.rank && offset + p.perPage <= RANK_CANDIDATES) {
    // FTS5 walks its matches by rowid descending and stops at the candidate limit; bm25 is computed
    // for those rows only, and only they are joined to their base rows. The subquery keeps its LIMIT
    // (SQLite does not flatten it into a join).
    page = db
      .prepare(
        `SELECT ${p.columns}
           FROM (SELECT f.rowid AS r_, ${p.fts.rank} AS rank_ FROM ${matchSource} ${whereSql} ORDER BY f.rowid DESC LIMIT ${RANK_CANDIDATES}) c_
           JOIN ${p.from} ON ${rowid} = c_.r_${joins}
          ORDER BY c_.rank_, ${p.order} LIMIT ? OFFSET ?`,
      )
      .bind(...binds, p.perPage, offset);
  } else {
    const order = p.fts?.rank ? `${p.fts.rank}, ${p.order}` : p.order;
    page = db
      .prepare(`SELECT ${p.columns} FROM ${source}${joins} ${whereSql} ORDER BY ${order} LIMIT ? OFFSET ?`)
      .bind(...binds, p.perPage, offset);
  }
  const count = db.prepare(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${matchSource} ${whereSql} LIMIT ${TOTAL_BOUND + 1})`).bind(...binds);
  return {
    statements: [page, count] as [D1PreparedStatement, D1PreparedStatement],
    read(pageResult: D1Result, countResult: D1Result): { rows: Row[] } & PageTotal {
      return { rows: pageResult.results as Row[], ...boundedTotal((countResult.results[0] as { n: number }).n) };
    },
  };
}

export const boundedTotal = (n: number): PageTotal => (n > TOTAL_BOUND ? { total: TOTAL_BOUND, totalIsLowerBound: true } : { total: n });

/** One paged list: both statements in one batch (one round trip). */
export async function pagedSearch<Row>(db: D1Database, p: PagedQuery): Promise<{ rows: Row[] } & PageTotal> {
  const q = pagedStatements<Row>(db, p);
  const [rows, count] = await db.batch(q.statements);
  return q.read(rows!, count!);
}

/** The answer when the query has nothing searchable left. */
export const emptyPage = (p: { page: number; perPage: number }) => ({ items: [], total: 0, page: p.page, perPage: p.perPage });

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
