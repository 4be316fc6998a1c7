/**
 * One request's D1: a Sessions API session (`withSession`), so reads may be served by a read
 * replica near the caller while staying sequentially consistent within the request, and writes go
 * to the primary. Operations get it as `ctx.db` (drizzle) and `ctx.env.DB` (the raw binding); both
 * are this session, so an area uses it simply by reading its storage through `ctx`.
 *
 * Where a session starts:
 * - agent requests: at the account's newest recorded write (the bookmark its AccountQuota object
 *   keeps and answers with the admission), so an agent reads its own writes on its next request,
 *   whichever replica serves it; with no bookmark yet, anywhere (`first-unconstrained`);
 * - public requests: anywhere;
 * - owner (dashboard) requests: the primary, so a page always shows what was just changed.
 */
export interface RequestD1 {
  /** Stands in for `env.DB`: `prepare` and `batch` run in the session. */
  readonly binding: D1Database;
  /** Whether the request prepared a statement that writes. */
  readonly wrote: boolean;
  /** The session's newest bookmark (null before its first query). */
  bookmark(): string | null;
}

// A statement that writes: its first keyword (after an optional WITH … clause).
export const WRITES = /^\s*(?:with\b[\s\S]*?\b)?(?:insert|update|delete|replace|create|drop|alter)\b/i;

export function openSession(db: D1Database, start: string): RequestD1 {
  // Opened on first use: many requests (usage, chat) never touch D1.
  let session: D1DatabaseSession | null = null;
  const open = () => (session ??= db.withSession(start));
  let wrote = false;
  const binding = {
    prepare(query: string) {
      if (!wrote && WRITES.test(query)) wrote = true;
      return open().prepare(query);
    },
    batch: <T>(statements: D1PreparedStatement[]) => open().batch<T>(statements),
    // Schema scripts and exports are not request work: they keep the plain binding.
    exec(query: string) {
      wrote = true;
      return db.exec(query);
    },
    dump: () => db.dump(),
    withSession: (c?: string) => db.withSession(c),
  } as unknown as D1Database;
  return {
    binding,
    get wrote() {
      return wrote;
    },
    bookmark: () => session?.getBookmark() ?? null,
  };
}

/** The primary, for owner requests (and anything outside a request). */
export function primary(db: D1Database): RequestD1 {
  return openSession(db, "first-primary");
}
