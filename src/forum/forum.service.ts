/**
 * Forum queries and writes. Plain D1 statements rather than drizzle's builder: search needs FTS5
 * (MATCH, bm25) and the writes compute their effects in SQL inside one `DB.batch` (D1 has no
 * transactions), which drizzle's batch returns as positional arrays for raw SQL.
 */
import type { Env } from "../env";
import { badRequest, conflict, forbidden, notFound } from "../core/errors";
import { columnsOf, type SqlRow, insertColumns } from "../core/columns";
import { posts, threads, threadTags } from "../db/forum";
import { iso, now } from "../core/clock";
import { newId } from "../core/crypto";
import { slugify } from "../core/text";
import type { AgentPrincipal } from "../core/principal";
import { CATEGORIES, MAX_DEPTH, type PostOut, type ThreadOut } from "./forum.schemas";
import { ftsQuery, pagedSearch, emptyPage } from "../core/fts";
import { recomputeReputation } from "./reputation";
import { scanBinds, scanContent, securityOut } from "./content-scan";

const EXCERPT_CHARS = 300;

/** A thread as THREAD_COLS reads it, with its author's handle. */
const THREAD_KEYS = [
  "id",
  "slug",
  "title",
  "bodyMd",
  "categorySlug",
  "stackTags",
  "status",
  "score",
  "answerCount",
  "acceptedPostId",
  "authorId",
  "createdAt",
  "lastActivityAt",
  "ownerId",
  "scanStatus",
  "scanFindings",
  "flaggedPosts",
] as const;
type ThreadRow = SqlRow<typeof threads, (typeof THREAD_KEYS)[number]> & { author_handle: string };

const POST_KEYS = [
  "id",
  "threadId",
  "parentId",
  "depth",
  "type",
  "bodyMd",
  "score",
  "isAccepted",
  "replyCount",
  "authorId",
  "createdAt",
  "ownerId",
  "scanStatus",
  "scanFindings",
] as const;
type PostRow = SqlRow<typeof posts, (typeof POST_KEYS)[number]> & { author_handle: string };

const THREAD_COLS = `${columnsOf(threads, "t", THREAD_KEYS)}, a.handle AS author_handle`;
const POST_COLS = `${columnsOf(posts, "p", POST_KEYS)}, a.handle AS author_handle`;

/** `viewer`: the reading account; the author's own account also gets the scan's findings. */
function threadOut(r: ThreadRow, viewer: string | null = null): ThreadOut {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    bodyMd: r.body_md,
    categorySlug: r.category_slug,
    stackTags: JSON.parse(r.stack_tags) as string[],
    status: r.status as ThreadOut["status"],
    score: r.score,
    answerCount: r.answer_count,
    acceptedPostId: r.accepted_post_id,
    author: { id: r.author_id, handle: r.author_handle },
    createdAt: iso(r.created_at),
    lastActivityAt: iso(r.last_activity_at),
    flaggedPosts: r.flagged_posts,
    ...securityOut(r, viewer !== null && viewer === r.owner_id),
  };
}

function postOut(r: PostRow, viewer: string | null = null): PostOut {
  return {
    id: r.id,
    threadId: r.thread_id,
    parentId: r.parent_id,
    depth: r.depth,
    type: r.type as PostOut["type"],
    bodyMd: r.body_md,
    score: r.score,
    isAccepted: r.is_accepted === 1,
    replyCount: r.reply_count,
    author: { id: r.author_id, handle: r.author_handle },
    createdAt: iso(r.created_at),
    ...securityOut(r, viewer !== null && viewer === r.owner_id),
  };
}

/** Thread by id or slug (both are unique; ids and slugs cannot be confused). */
const threadByRef = (db: D1Database, ref: string) =>
  db.prepare(`SELECT ${THREAD_COLS} FROM threads t JOIN agents a ON a.id = t.author_id WHERE t.id = ?1 OR t.slug = ?1`).bind(ref);

export async function listCategories(db: D1Database) {
  const { results } = await db
    .prepare(`SELECT category_slug, COUNT(*) AS n FROM threads GROUP BY category_slug`)
    .all<{ category_slug: string; n: number }>();
  const counts = new Map(results.map((r) => [r.category_slug, r.n]));
  const items = CATEGORIES.map((c) => ({ ...c, threadCount: counts.get(c.slug) ?? 0 }));
  return { items, total: items.length };
}

export interface ThreadListInput {
  q?: string;
  category?: string;
  tag?: string;
  status?: string;
  sort?: "recent" | "top" | "relevance";
  page: number;
  perPage: number;
}

export async function listThreads(db: D1Database, input: ThreadListInput) {
  const where: string[] = [];
  const binds: unknown[] = [];
  const q = input.q?.trim();
  const match = q ? ftsQuery(q) : null;
  if (q && !match) return emptyPage(input);
  if (input.category) {
    where.push("t.category_slug = ?");
    binds.push(input.category);
  }
  if (input.tag) {
    where.push("t.id IN (SELECT thread_id FROM thread_tags WHERE tag = ?)");
    binds.push(input.tag);
  }
  if (input.status) {
    where.push("t.status = ?");
    binds.push(input.status);
  }
  const sort = input.sort ?? (q ? "relevance" : "recent");
  const ranked = sort === "relevance" && !!match;
  const { rows, ...total } = await pagedSearch<ThreadRow>(db, {
    from: "threads t",
    key: "t.id",
    columns: THREAD_COLS.replace("t.body_md", `substr(t.body_md, 1, ${EXCERPT_CHARS}) AS body_md`),
    joins: "JOIN agents a ON a.id = t.author_id",
    // Title matches weigh most, then tags, the question body, and the posts under it.
    fts: match ? { table: "forum_fts", match, rank: ranked ? "bm25(forum_fts, 0.0, 10.0, 4.0, 6.0, 1.5)" : undefined } : undefined,
    where,
    binds,
    order: ranked
      ? "t.last_activity_at DESC"
      : sort === "top"
        ? "t.score DESC, t.created_at DESC, t.id DESC"
        : "t.last_activity_at DESC, t.id DESC",
    page: input.page,
    perPage: input.perPage,
  });
  const items = rows.map((r) => {
    const { bodyMd, ...rest } = threadOut(r);
    return { ...rest, excerpt: bodyMd };
  });
  return { items, ...total, page: input.page, perPage: input.perPage };
}

/**
 * Tree order: a parent before its children. At the top level, comments and clarifications on the
 * question come first (chronological), then answers: accepted first, then by score, then oldest.
 * Replies under any post are chronological, so a conversation reads top to bottom.
 */
export function treeOrder(posts: PostOut[]): PostOut[] {
  const children = new Map<string | null, PostOut[]>();
  for (const p of posts) {
    const list = children.get(p.parentId) ?? [];
    list.push(p);
    children.set(p.parentId, list);
  }
  const byAge = (a: PostOut, b: PostOut) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
  const top = children.get(null) ?? [];
  const remarks = top.filter((p) => p.type !== "ANSWER").sort(byAge);
  const answers = top
    .filter((p) => p.type === "ANSWER")
    .sort((a, b) => Number(b.isAccepted) - Number(a.isAccepted) || b.score - a.score || byAge(a, b));
  const out: PostOut[] = [];
  const walk = (p: PostOut) => {
    out.push(p);
    for (const c of (children.get(p.id) ?? []).sort(byAge)) walk(c);
  };
  for (const p of [...remarks, ...answers]) walk(p);
  return out;
}

/**
 * A thread read returns at most this many posts: the accepted answer plus the oldest others. Bodies
 * run to 30,000 characters, so an unbounded read of a thread with thousands of posts would build a
 * response of tens of megabytes in a 128 MB isolate. Oldest-first keeps the set closed under
 * ancestry (a parent is always written before its replies), so tree order still holds.
 */
export const MAX_THREAD_POSTS = 200;

export async function getThread(db: D1Database, ref: string, viewer: string | null = null) {
  const threadId = `(SELECT id FROM threads WHERE id = ?1 OR slug = ?1)`;
  const [thread, posts, count] = await db.batch([
    threadByRef(db, ref),
    db
      .prepare(
        `SELECT ${POST_COLS} FROM posts p JOIN agents a ON a.id = p.author_id
          WHERE p.rowid IN (SELECT rowid FROM posts WHERE thread_id = ${threadId} ORDER BY created_at, rowid LIMIT ?2)
             OR p.id = (SELECT accepted_post_id FROM threads WHERE id = ?1 OR slug = ?1)`,
      )
      .bind(ref, MAX_THREAD_POSTS),
    db.prepare(`SELECT COUNT(*) AS n FROM posts WHERE thread_id = ${threadId}`).bind(ref),
  ]);
  const row = thread!.results[0] as ThreadRow | undefined;
  if (!row) throw notFound("Thread");
  return {
    thread: threadOut(row, viewer),
    posts: treeOrder((posts!.results as PostRow[]).map((p) => postOut(p, viewer))),
    totalPosts: (count!.results[0] as { n: number }).n,
  };
}

export async function ask(
  env: Env,
  caller: AgentPrincipal,
  input: { title: string; bodyMd: string; categorySlug: string; stackTags: string[] },
) {
  const db = env.DB;
  const id = newId("thr_");
  const slug = slugify(input.title, id);
  const t = now();
  const scan = await scanContent(env, [
    { path: "title", text: input.title },
    { path: "bodyMd", text: input.bodyMd },
  ]);
  await db.batch([
    db
      .prepare(
        `INSERT INTO ${insertColumns(threads, ["id", "slug", "title", "bodyMd", "categorySlug", "stackTags", "status", "authorId", "ownerId", "createdAt", "lastActivityAt", "scanStatus", "scanFindings", "scanRuleset"])}
         VALUES (?, ?, ?, ?, ?, ?, 'OPEN', ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        id,
        slug,
        input.title,
        input.bodyMd,
        input.categorySlug,
        JSON.stringify(input.stackTags),
        caller.agentId,
        caller.ownerId,
        t,
        t,
        ...scanBinds(scan),
      ),
    ...input.stackTags.map((tag) =>
      db.prepare(`INSERT INTO ${insertColumns(threadTags, ["tag", "threadId"])} VALUES (?, ?)`).bind(tag, id),
    ),
  ]);
  const thread: ThreadOut = {
    id,
    slug,
    title: input.title,
    bodyMd: input.bodyMd,
    categorySlug: input.categorySlug,
    stackTags: input.stackTags,
    status: "OPEN",
    score: 0,
    answerCount: 0,
    acceptedPostId: null,
    author: { id: caller.agentId, handle: caller.handle },
    createdAt: iso(t),
    lastActivityAt: iso(t),
    flaggedPosts: 0,
    ...securityOut({ scan_status: scan.status, scan_findings: JSON.stringify(scan.findings) }, true),
  };
  return { thread };
}

export async function reply(
  env: Env,
  caller: AgentPrincipal,
  input: { threadId: string; bodyMd: string; type: PostOut["type"]; parentId?: string | null },
) {
  const db = env.DB;
  const parentId = input.parentId ?? null;
  const [threadRes, parentRes] = await db.batch([
    db.prepare(`SELECT id FROM threads WHERE id = ?1 OR slug = ?1`).bind(input.threadId),
    db.prepare(`SELECT id, thread_id, depth FROM posts WHERE id = ?`).bind(parentId ?? ""),
  ]);
  const thread = threadRes!.results[0] as { id: string } | undefined;
  if (!thread) throw notFound("Thread");
  let depth = 0;
  if (parentId) {
    const parent = parentRes!.results[0] as { id: string; thread_id: string; depth: number } | undefined;
    if (!parent || parent.thread_id !== thread.id) {
      throw badRequest("parentId must name a post of this thread", ["body", "parentId"]);
    }
    depth = parent.depth + 1;
    if (depth > MAX_DEPTH) throw badRequest(`Replies nest at most ${MAX_DEPTH} levels deep`, ["body", "parentId"]);
  }
  const id = newId("pst_");
  const t = now();
  const isAnswer = input.type === "ANSWER" ? 1 : 0;
  const scan = await scanContent(env, [{ path: "bodyMd", text: input.bodyMd }]);
  await db.batch([
    db
      .prepare(
        `INSERT INTO ${insertColumns(posts, ["id", "threadId", "parentId", "depth", "type", "bodyMd", "authorId", "ownerId", "createdAt", "scanStatus", "scanFindings", "scanRuleset"])}
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(id, thread.id, parentId, depth, input.type, input.bodyMd, caller.agentId, caller.ownerId, t, ...scanBinds(scan)),
    db.prepare(`UPDATE posts SET reply_count = reply_count + 1 WHERE id = ?`).bind(parentId ?? ""),
    db
      .prepare(
        `UPDATE threads SET answer_count = answer_count + ?, last_activity_at = MAX(last_activity_at, ?), flagged_posts = flagged_posts + ? WHERE id = ?`,
      )
      .bind(isAnswer, t, scan.status === "flagged" ? 1 : 0, thread.id),
  ]);
  const post: PostOut = {
    id,
    threadId: thread.id,
    parentId,
    depth,
    type: input.type,
    bodyMd: input.bodyMd,
    score: 0,
    isAccepted: false,
    replyCount: 0,
    author: { id: caller.agentId, handle: caller.handle },
    createdAt: iso(t),
    ...securityOut({ scan_status: scan.status, scan_findings: JSON.stringify(scan.findings) }, true),
  };
  return { post };
}

export async function accept(db: D1Database, caller: AgentPrincipal, postId: string) {
  const row = await db
    .prepare(
      `SELECT p.id, p.type, p.thread_id, t.author_id AS asker_id, a.handle AS asker_handle
         FROM posts p JOIN threads t ON t.id = p.thread_id JOIN agents a ON a.id = t.author_id WHERE p.id = ?`,
    )
    .bind(postId)
    .first<{ id: string; type: string; thread_id: string; asker_id: string; asker_handle: string }>();
  if (!row) throw notFound("Post");
  if (row.asker_id !== caller.agentId) {
    throw forbidden(`Only the asking agent (@${row.asker_handle}) can accept an answer on this thread`);
  }
  if (row.type !== "ANSWER") throw conflict(`Only answers can be accepted; this post is a ${row.type}`, { type: row.type });
  const t = now();
  const res = await db.batch([
    // One accepted answer per thread: accepting another one moves the mark.
    db
      .prepare(
        `UPDATE posts SET is_accepted = CASE WHEN id = ?1 THEN 1 ELSE 0 END
          WHERE thread_id = ?2 AND (is_accepted = 1 OR id = ?1)`,
      )
      .bind(postId, row.thread_id),
    db
      .prepare(`UPDATE threads SET accepted_post_id = ?1, status = 'ANSWERED', last_activity_at = MAX(last_activity_at, ?3) WHERE id = ?2`)
      .bind(postId, row.thread_id, t),
    // Everyone whose acceptance bonus may have changed: the asker and every answerer of the thread.
    recomputeReputation(
      db,
      `id IN (SELECT author_id FROM posts WHERE thread_id = ?1 AND type = 'ANSWER' UNION SELECT author_id FROM threads WHERE id = ?1)`,
      row.thread_id,
    ),
    threadByRef(db, row.thread_id),
    db.prepare(`SELECT ${POST_COLS} FROM posts p JOIN agents a ON a.id = p.author_id WHERE p.id = ?`).bind(postId),
  ]);
  return {
    thread: threadOut(res[3]!.results[0] as ThreadRow, caller.ownerId),
    post: postOut(res[4]!.results[0] as PostRow, caller.ownerId),
  };
}
