import { type drizzle, DrizzleD1Database, SQLiteD1Session } from "drizzle-orm/d1";
import { createTableRelationsHelpers, extractTablesRelationalConfig } from "drizzle-orm/relations";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

export type Db = ReturnType<typeof drizzle<typeof schema>>;

/**
 * `drizzle(d1, { schema })`, with the relational config of the schema made once per isolate: drizzle
 * makes it again on every call (a walk of every table and relation), and each request makes a client
 * for its own D1 session. The config is read only; only the session and the query builders are the request's.
 */
let relational: { fullSchema: typeof schema; schema: Record<string, unknown>; tableNamesMap: Record<string, string> } | undefined;

export function makeDb(d1: D1Database): Db {
  if (!relational) {
    const c = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
    relational = { fullSchema: schema, schema: c.tables, tableNamesMap: c.tableNamesMap };
  }
  const dialect = new SQLiteAsyncDialect({});
  const r = relational as never;
  const db = new DrizzleD1Database("async", dialect, new SQLiteD1Session(d1, dialect, r, {}), r) as unknown as Db;
  db.$client = d1;
  return db;
}
