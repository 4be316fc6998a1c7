import { sqliteTable, text, integer } from "drizzle-orm/sqlite-core";

/** Which shipped dataset (data/) was last loaded completely, from which file digest (src/admin). */
export const seedState = sqliteTable("seed_state", {
  dataset: text("dataset").primaryKey(),
  digest: text("digest").notNull(),
  rows: integer("rows").notNull(),
  loadedAt: integer("loaded_at").notNull(),
});
