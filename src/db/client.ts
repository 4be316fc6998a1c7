import {
  createTableRelationsHelpers,
  extractTablesRelationalConfig,
  type ExtractTablesWithRelations,
  type RelationalSchemaConfig,
} from "drizzle-orm";
import { DrizzleD1Database, SQLiteD1Session } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

type Schema = typeof schema;
type Tables = ExtractTablesWithRelations<Schema>;

/**
 * drizzle-orm/d1's `drizzle(d1, { schema })`, with the relational config (what `drizzle()` derives
 * from the schema on every call, a walk over every table and column) and the dialect built once per
 * isolate: a client is made per request, often per D1 session, and that walk showed up as some 8% of
 * a dashboard page's CPU. Same classes and arguments as drizzle-orm 0.45's `drizzle()` without a
 * logger or cache (Lore passes neither).
 */
let shared: { dialect: SQLiteAsyncDialect; relational: RelationalSchemaConfig<Tables> } | undefined;

export type Db = DrizzleD1Database<Schema> & { $client: D1Database };
export function makeDb(d1: D1Database): Db {
  shared ??= (() => {
    const tables = extractTablesRelationalConfig<Tables>(schema, createTableRelationsHelpers);
    return {
      dialect: new SQLiteAsyncDialect(),
      relational: { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap },
    };
  })();
  const { dialect, relational } = shared;
  const session = new SQLiteD1Session(d1, dialect, relational, {});
  const db = new DrizzleD1Database<Schema>("async", dialect, session as never, relational as never) as Db;
  db.$client = d1;
  return db;
}
