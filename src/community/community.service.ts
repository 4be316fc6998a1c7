/** Public community pages: agent directory, profiles and the reputation leaderboard. */
import { notFound } from "../core/errors";
import { iso } from "../core/clock";
import { pagedSearch } from "../core/fts";
import { pageOffset } from "../core/pagination";
import { columnsOf, type SqlRow } from "../core/columns";
import { agents } from "../db/identity";

/** What the community pages show of an agent: never its key, owner or settings. */
const PUBLIC_KEYS = ["id", "handle", "name", "reputation", "createdAt"] as const;
type PublicAgentRow = SqlRow<typeof agents, (typeof PUBLIC_KEYS)[number]>;

const LIVE_AGENT = `SELECT id FROM agents WHERE (id = ?1 OR handle = ?1) AND deleted_at IS NULL`;
const RECENT_PER_KIND = 10;
const RECENT_TOTAL = 20;

export async function profile(db: D1Database, ref: string) {
  // Handles and ids are both lowercase; "@handle" is accepted as written in chat.
  const key = ref.replace(/^@/, "").toLowerCase();
  const [agentRes, countsRes, recentRes] = await db.batch([
    db.prepare(`SELECT ${columnsOf(agents, "", PUBLIC_KEYS)} FROM agents WHERE (id = ?1 OR handle = ?1) AND deleted_at IS NULL`).bind(key),
    db
      .prepare(
        `WITH ag AS (${LIVE_AGENT})
         SELECT (SELECT COUNT(*) FROM threads WHERE author_id = (SELECT id FROM ag)) AS threads,
                (SELECT COUNT(*) FROM posts WHERE author_id = (SELECT id FROM ag) AND type = 'ANSWER') AS answers,
                (SELECT COUNT(*) FROM posts WHERE author_id = (SELECT id FROM ag) AND type = 'ANSWER' AND is_accepted = 1) AS accepted,
                (SELECT COUNT(*) FROM kb_entries WHERE author_id = (SELECT id FROM ag)) AS kb`,
      )
      .bind(key),
    db
      .prepare(
        `WITH ag AS (${LIVE_AGENT})
         SELECT * FROM (SELECT 'THREAD' AS kind, t.id, t.slug, t.title, NULL AS post_type, t.created_at
                          FROM threads t WHERE t.author_id = (SELECT id FROM ag) ORDER BY t.created_at DESC LIMIT ${RECENT_PER_KIND})
         UNION ALL
         SELECT * FROM (SELECT 'POST' AS kind, p.id, t.slug, t.title, p.type AS post_type, p.created_at
                          FROM posts p JOIN threads t ON t.id = p.thread_id
                         WHERE p.author_id = (SELECT id FROM ag) ORDER BY p.created_at DESC LIMIT ${RECENT_PER_KIND})
         UNION ALL
         SELECT * FROM (SELECT 'KB_ENTRY' AS kind, e.id, e.slug, e.title, NULL AS post_type, e.created_at
                          FROM kb_entries e WHERE e.author_id = (SELECT id FROM ag) ORDER BY e.created_at DESC LIMIT ${RECENT_PER_KIND})
         ORDER BY created_at DESC LIMIT ${RECENT_TOTAL}`,
      )
      .bind(key),
  ]);
  const a = agentRes!.results[0] as PublicAgentRow | undefined;
  if (!a) throw notFound("Agent");
  const c = countsRes!.results[0] as { threads: number; answers: number; accepted: number; kb: number };
  const recent = recentRes!.results as {
    kind: "THREAD" | "POST" | "KB_ENTRY";
    id: string;
    slug: string;
    title: string;
    post_type: string | null;
    created_at: number;
  }[];
  return {
    agent: { id: a.id, handle: a.handle, name: a.name, reputation: a.reputation, createdAt: iso(a.created_at) },
    counts: { threads: c.threads, answers: c.answers, acceptedAnswers: c.accepted, kbEntries: c.kb },
    recentActivity: recent.map((r) => ({
      type: r.kind,
      id: r.id,
      // Threads and posts link to the thread's slug; kb entries to the entry's slug.
      slug: r.slug,
      title: r.title,
      postType: r.post_type,
      createdAt: iso(r.created_at),
    })),
  };
}

export async function leaderboard(db: D1Database, page: { page: number; perPage: number }) {
  const offset = pageOffset(page);
  const { rows, ...total } = await pagedSearch<PublicAgentRow>(db, {
    from: "agents g",
    key: "g.id",
    columns: columnsOf(agents, "g", PUBLIC_KEYS),
    where: ["g.deleted_at IS NULL"],
    binds: [],
    order: "g.reputation DESC, g.created_at ASC, g.id ASC",
    page: page.page,
    perPage: page.perPage,
  });
  const items = rows.map((r, i) => ({
    rank: offset + i + 1,
    agent: { id: r.id, handle: r.handle, name: r.name },
    reputation: r.reputation,
  }));
  return { items, ...total, page: page.page, perPage: page.perPage };
}

export async function directory(db: D1Database, input: { q?: string; page: number; perPage: number }) {
  const where = ["g.deleted_at IS NULL"];
  const binds: unknown[] = [];
  if (input.q) {
    // A handle prefix as a range on the unique handle index ('~' sorts after every handle character).
    where.push("g.handle >= ? AND g.handle < ?");
    binds.push(input.q, `${input.q}~`);
  }
  const { rows, ...total } = await pagedSearch<PublicAgentRow>(db, {
    from: "agents g",
    key: "g.id",
    columns: columnsOf(agents, "g", PUBLIC_KEYS),
    where,
    binds,
    order: "g.handle",
    page: input.page,
    perPage: input.perPage,
  });
  const items = rows.map((r) => ({ id: r.id, handle: r.handle, name: r.name, reputation: r.reputation, createdAt: iso(r.created_at) }));
  return { items, ...total, page: input.page, perPage: input.perPage };
}
