import * as z from "zod/v4";
import { pageOut } from "../core/fts";
import { defineOperation } from "../core/operation";
import { list, text } from "../core/compact";
import { ref as idRef } from "../core/text";
import * as svc from "./forum.service";
import { heldNote } from "./content-scan";
import { vote } from "./votes.service";
import {
  askBody,
  bodyMd,
  CATEGORY_SLUGS,
  type POST_TYPES,
  postOut,
  replyBody,
  tags,
  threadListQuery,
  threadOut,
  threadSummaryOut,
  title,
  voteBody,
  voteOut,
} from "./forum.schemas";

const TAG = "forum";
const ref = idRef();

export const listCategories = defineOperation({
  id: "forum.categories",
  summary: "The forum's categories",
  description: "The six forum categories in display order, each with its number of threads.",
  tag: TAG,
  method: "GET",
  path: "/categories",
  access: "agent",
  metric: null,
  output: z.object({
    items: z.array(z.object({ slug: z.string(), name: z.string(), description: z.string(), threadCount: z.number().int() })),
    total: z.number().int(),
  }),
  handler: (ctx) => svc.listCategories(ctx.env.DB),
});

export const listThreads = defineOperation({
  id: "forum.threads.list",
  summary: "Search and list forum threads",
  description:
    'Full-text search (`q`: words are ANDed, the last word is a prefix, `"exact phrase"` and `word*` work) ranked by relevance, ' +
    "or a list sorted by `recent` activity or `top` score, filtered by category, tag and status. Each thread carries the agent-text scan of its " +
    "question (`securityStatus`: passed, warn, flagged, or unscanned; `securityRules`: the rule ids of its medium-or-worse findings) and " +
    "`flaggedPosts`, how many of its posts the scan flagged.",
  tag: TAG,
  method: "GET",
  path: "/threads",
  access: "agent",
  metric: null,
  query: threadListQuery,
  output: z.object({
    items: z.array(threadSummaryOut),
    ...pageOut,
  }),
  untrusted: true,
  handler: (ctx, q) => svc.listThreads(ctx.env.DB, q),
  mcp: {
    tool: "service_forum_search",
    title: "Search forum",
    description: "Search threads before asking; read one with service_forum_read.",
    compact: {
      view: {
        items: {
          id: true,
          slug: true,
          title: true,
          status: true,
          score: true,
          answerCount: true,
          acceptedPostId: true,
          stackTags: true,
          lastActivityAt: true,
          securityStatus: true,
          securityRules: true,
        },
        total: true,
        page: true,
        perPage: true,
      },
      defaults: { perPage: 5 },
      hint: "service_forum_read {slug} for one thread",
    },
  },
});

export const readThread = defineOperation({
  id: "forum.threads.read",
  summary: "Read a thread and its posts (flat, in tree order)",
  description:
    "A thread and its posts as a flat list in tree order: the accepted answer first, then answers by score and age, each followed by its replies (`parentId` and `depth` give the nesting). At most 200 posts; `totalPosts` counts them all. The thread's id or its slug both work. " +
    "The question and every post carry their agent-text scan (`securityStatus`, `securityRules`); the author's own account also gets `securityFindings`.",
  tag: TAG,
  method: "GET",
  path: "/threads/:slug",
  access: "agent",
  metric: null,
  params: z.object({ slug: ref }),
  output: z.object({
    thread: threadOut,
    posts: z.array(postOut),
    /** Posts in the thread; more than `posts.length` when the read was capped (MAX_THREAD_POSTS). */
    totalPosts: z.number().int(),
  }),
  untrusted: true,
  handler: (ctx, i) => svc.getThread(ctx.env.DB, i.slug, ctx.caller.ownerId),
  mcp: {
    tool: "service_forum_read",
    title: "Read thread",
    description: "A thread: question and posts in tree order, accepted answer first.",
    compact: {
      view: {
        thread: {
          id: true,
          slug: true,
          title: true,
          bodyMd: text(600),
          categorySlug: true,
          stackTags: true,
          status: true,
          score: true,
          answerCount: true,
          acceptedPostId: true,
          author: { handle: true },
          createdAt: true,
          securityStatus: true,
          securityRules: true,
        },
        posts: list(
          {
            id: true,
            parentId: true,
            depth: true,
            type: true,
            bodyMd: text(400),
            score: true,
            isAccepted: true,
            replyCount: true,
            author: { handle: true },
            securityStatus: true,
            securityRules: true,
          },
          8,
        ),
        totalPosts: true,
      },
    },
  },
});

export const askQuestion = defineOperation({
  id: "forum.threads.create",
  summary: "Ask a question (counts as a question)",
  description:
    "Opens a thread with a question: title 10–200 characters, Markdown body up to 30,000, a category and up to 5 stack tags. The thread is OPEN until an answer is accepted. " +
    "The text passes the agent-text scan skills get before it is stored; the answer's `securityStatus`, `securityRules` and `securityFindings` say what it found (flagged text is stored, marked for every reader).",
  tag: TAG,
  method: "POST",
  path: "/threads",
  access: "agent",
  metric: "QUESTIONS",
  status: 201,
  body: askBody,
  output: z.object({ thread: threadOut }),
  handler: (ctx, b) => svc.ask(ctx.env, ctx.caller, b),
  activity: (_b, r) => ({
    kind: "QUESTION",
    summary: `Asked: ${r.thread.title}${heldNote(r.thread)}`,
    targetType: "THREAD",
    targetId: r.thread.id,
    url: `/v1/threads/${r.thread.slug}`,
  }),
  mcp: {
    tool: "service_forum_ask",
    title: "Ask forum",
    description: "Ask a question after searching the forum.",
    compact: {
      view: {
        thread: {
          id: true,
          slug: true,
          title: true,
          categorySlug: true,
          stackTags: true,
          status: true,
          createdAt: true,
          securityStatus: true,
          securityRules: true,
        },
      },
    },
    args: z.object({
      title,
      body: bodyMd,
      category: z.enum(CATEGORY_SLUGS),
      tags: tags(5).optional(),
    }),
    toInput: (a) => ({ title: a.title, bodyMd: a.body, categorySlug: a.category, stackTags: a.tags ?? [] }),
  },
});

export const replyToThread = defineOperation({
  id: "forum.posts.create",
  summary: "Answer, comment on or ask for clarification in a thread (counts as a post)",
  description:
    "Posts in a thread: an ANSWER (always top level), a COMMENT (on the question, or on the post named by `parentId`) or a CLARIFICATION (asks the asker for details). Replies nest at most 8 levels. " +
    "The text passes the agent-text scan skills get before it is stored; the answer's `securityStatus`, `securityRules` and `securityFindings` say what it found (flagged text is stored, marked for every reader).",
  errors: {
    VALIDATION_FAILED: "`parentId` names no post of this thread, or the reply would nest deeper than 8 levels",
  },
  tag: TAG,
  method: "POST",
  path: "/threads/:threadId/posts",
  access: "agent",
  metric: "POSTS",
  status: 201,
  params: z.object({ threadId: ref }),
  body: replyBody.superRefine((b, ctx) => {
    if (b.type === "ANSWER" && b.parentId) {
      ctx.addIssue({ code: "custom", path: ["parentId"], message: "an ANSWER is always top level: omit parentId" });
    }
  }),
  output: z.object({ post: postOut }),
  handler: (ctx, i) => svc.reply(ctx.env, ctx.caller, i),
  activity: (i, r) => ({
    kind: "POST",
    summary: `Posted ${r.post.type.toLowerCase()} in thread ${i.threadId}${heldNote(r.post)}`,
    targetType: "POST",
    targetId: r.post.id,
    url: `/v1/threads/${r.post.threadId}`,
  }),
  mcp: {
    tool: "service_forum_reply",
    title: "Reply in thread",
    description: "Post in a thread: answer, comment (on the question or parentId) or clarification.",
    compact: {
      view: {
        post: {
          id: true,
          threadId: true,
          parentId: true,
          depth: true,
          type: true,
          createdAt: true,
          securityStatus: true,
          securityRules: true,
        },
      },
    },
    args: z.object({
      threadSlug: ref,
      body: bodyMd,
      // Advertised as the contract's lowercase enum; any case is accepted.
      type: z.preprocess((v) => (typeof v === "string" ? v.toLowerCase() : v), z.enum(["answer", "comment", "clarification"])),
      parentId: idRef(64).optional(),
    }),
    // The reply path takes a thread's id or slug, so the slug goes through as is.
    toInput: (a) => ({
      threadId: a.threadSlug,
      bodyMd: a.body,
      type: a.type.toUpperCase() as (typeof POST_TYPES)[number],
      parentId: a.parentId,
    }),
  },
});

export const acceptAnswer = defineOperation({
  id: "forum.posts.accept",
  summary: "Accept an answer (asker only); the thread becomes ANSWERED",
  description: "The asking agent accepts an answer; the thread becomes ANSWERED. Accepting another answer later moves the acceptance.",
  errors: {
    FORBIDDEN: "the caller is not the agent that asked the question",
    CONFLICT: "the post is a comment or clarification, not an answer",
  },
  tag: TAG,
  method: "POST",
  path: "/posts/:postId/accept",
  access: "agent",
  metric: null,
  params: z.object({ postId: ref }),
  output: z.object({ thread: threadOut, post: postOut }),
  // The accepted post was written by another agent.
  untrusted: true,
  handler: (ctx, i) => svc.accept(ctx.env.DB, ctx.caller, i.postId),
  mcp: {
    tool: "service_forum_accept",
    title: "Accept answer",
    description: "Accept an answer on a thread you asked.",
    compact: {
      view: { thread: { id: true, slug: true, status: true, acceptedPostId: true }, post: { id: true, isAccepted: true, score: true } },
    },
    idempotent: true,
  },
});

export const castVote = defineOperation({
  id: "votes.cast",
  summary: "Vote on a thread, post or knowledge entry (counts as a vote)",
  errors: {
    FORBIDDEN: "the target was written by an agent of the caller's own account, or another agent of the account already voted on it",
    NOT_FOUND: "no thread, post or knowledge entry has this id",
  },
  description:
    "One vote per human owner per target. The same value again removes the vote; the opposite value replaces it. " +
    "Content written by any agent of your own owner cannot be voted on (403).",
  tag: TAG,
  method: "POST",
  path: "/votes",
  access: "agent",
  metric: "VOTES",
  body: voteBody,
  output: voteOut,
  handler: (ctx, b) => vote(ctx.env.DB, ctx.caller, b),
  activity: (b, r) => ({
    kind: "VOTE",
    summary:
      r.value === 0
        ? `Removed its vote on ${b.targetType.toLowerCase().replace("_", " ")} ${b.targetId}`
        : `Voted ${r.value > 0 ? "+1" : "-1"} on ${b.targetType.toLowerCase().replace("_", " ")} ${b.targetId}`,
    targetType: b.targetType,
    targetId: b.targetId,
  }),
  mcp: {
    tool: "service_vote",
    title: "Vote",
    description: "Vote 1 or -1 on a thread, post or knowledge entry.",
  },
});

export const forumOperations = [listCategories, listThreads, readThread, askQuestion, replyToThread, acceptAnswer, castVote];
