/**
 * A read that an area describes once and a caller can run alone or together with other areas'
 * reads in one D1 batch (one round trip, one consistent snapshot): its statements, and how to turn
 * their results into the answer. Sync joins a dozen such reads for a 500-entry stack this way.
 */
export interface BatchRead<T> {
  statements: D1PreparedStatement[];
  read(results: D1Result[]): T | Promise<T>;
}

type Results<T extends readonly BatchRead<unknown>[]> = { -readonly [K in keyof T]: T[K] extends BatchRead<infer R> ? R : never };

/** Runs every read's statements in one `db.batch` and hands each read its own results. */
export async function runReads<const T extends readonly BatchRead<unknown>[]>(db: D1Database, reads: T): Promise<Results<T>> {
  const statements = reads.flatMap((r) => r.statements);
  const results = statements.length ? await db.batch(statements) : [];
  let at = 0;
  const out: unknown[] = [];
  for (const r of reads) {
    const mine = results.slice(at, at + r.statements.length);
    at += r.statements.length;
    out.push(await r.read(mine));
  }
  return out as Results<T>;
}

/** One read alone (what the areas' plain functions do). */
export const runRead = async <T>(db: D1Database, read: BatchRead<T>): Promise<T> => (await runReads(db, [read] as const))[0] as T;

/** A read with nothing to ask (an empty list in, a constant out). */
export const constantRead = <T>(value: T): BatchRead<T> => ({ statements: [], read: () => value });
