import { getTableColumns, getTableName, type Table } from "drizzle-orm";

/**
 * Raw SQL against a drizzle table without writing its columns twice (docs/storage.md): the SELECT
 * list and the row's type both come from the table in src/db.
 *
 * The row type is what D1 hands back for a raw statement, not drizzle's `$inferSelect`: keys are
 * the SQL column names (`owner_id`, not `ownerId`) and values are SQLite's (a boolean column reads
 * 0 or 1, a JSON text column reads a string), since no drizzle mapping runs on `prepare().all()`.
 */
type Columns<T extends Table> = T["_"]["columns"];
type Raw<C> = C extends { _: { notNull: true; driverParam: infer D } } ? D : C extends { _: { driverParam: infer D } } ? D | null : never;

/** One row of `table` as a raw SELECT returns it; `K` (drizzle keys) narrows it to the columns selected. */
export type SqlRow<T extends Table, K extends keyof Columns<T> = keyof Columns<T>> = {
  [P in K as Columns<T>[P]["_"]["name"]]: Raw<Columns<T>[P]>;
};

/** `table`'s drizzle keys, in schema order, but `omit`: the key list for a row that leaves a wide column out. */
export function keysOf<T extends Table, O extends keyof Columns<T> & string = never>(
  table: T,
  omit: readonly O[] = [],
): Exclude<keyof Columns<T> & string, O>[] {
  return Object.keys(getTableColumns(table)).filter((k) => !(omit as readonly string[]).includes(k)) as Exclude<
    keyof Columns<T> & string,
    O
  >[];
}

/**
 * The SELECT list for `table`'s columns (all of them, or `keys`, in that order), each prefixed by
 * `alias` when given: `columnsOf(skills, "s")` is `s.id, s.slug, s.owner_id, …`.
 */
export function columnsOf<T extends Table, K extends keyof Columns<T> & string>(table: T, alias?: string, keys?: readonly K[]): string {
  const all = getTableColumns(table) as Record<string, { name: string }>;
  const prefix = alias ? `${alias}.` : "";
  return (keys ?? (Object.keys(all) as K[])).map((k) => `${prefix}${all[k]!.name}`).join(", ");
}

/**
 * The target of an INSERT: `insertColumns(skillTags, ["tag", "skillId"])` is `skill_tags (tag, skill_id)`.
 * Table and column names come from the table, so a column renamed or dropped in src/db fails the
 * type check here; the VALUES (or the `json_each` extracts, see core/bulk.ts) stay positional and
 * follow the order of `keys`.
 */
export function insertColumns<T extends Table, K extends keyof Columns<T> & string>(table: T, keys: readonly K[]): string {
  return `${getTableName(table)} (${columnsOf(table, undefined, keys)})`;
}

/**
 * An upsert's `DO UPDATE SET` for columns that take the new row's value: `upsertSet(t, ["a", "b"])`
 * is `a = excluded.a, b = excluded.b`.
 */
export function upsertSet<T extends Table, K extends keyof Columns<T> & string>(table: T, keys: readonly K[]): string {
  const all = getTableColumns(table) as Record<string, { name: string }>;
  return keys.map((k) => `${all[k]!.name} = excluded.${all[k]!.name}`).join(", ");
}

/** A row read through a LEFT JOIN: every column may be null (no row matched). */
export type LeftJoined<R> = { [P in keyof R]: R[P] | null };

/**
 * The values of one row as a positional INSERT sends them (a `json_each` element, see core/bulk.ts),
 * in the order of `K`: the same key list that feeds `insertColumns`.
 */
export type SqlTuple<T extends Table, K extends readonly (keyof Columns<T>)[]> = {
  -readonly [I in keyof K]: K[I] extends keyof Columns<T> ? Raw<Columns<T>[K[I]]> : never;
};
