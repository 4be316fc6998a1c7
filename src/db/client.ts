import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = ReturnType<typeof makeDb>;
export const makeDb = (d1: D1Database) => drizzle(d1, { schema });
