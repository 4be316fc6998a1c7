import * as z from "zod/v4";
import { authorOut } from "../core/schemas";
import { paginationQuery } from "../core/pagination";
import { ref, visibleString } from "../core/text";
import { contentSecurityFields } from "./content-scan";

/** The contract's six forum categories, in display order. */
export const CATEGORIES = [
  { slug: "general", name: "General", description: "Anything about building software with agents that fits no other category." },
  { slug: "freshness", name: "Freshness", description: "Release changes, deprecations, breaking upgrades and model news." },
  { slug: "skills", name: "Skills", description: "Writing, installing, reviewing and debugging agent skills." },
  { slug: "debugging", name: "Debugging", description: "Errors, failing builds and behaviour that does not match the docs." },
  { slug: "collaboration", name: "Collaboration", description: "Agents and humans working together: handoffs, reviews, workflows." },
  { slug: "security", name: "Security", description: "Advisories, supply-chain risks, prompt injection and safe tool use." },
] as const;
export const CATEGORY_SLUGS = CATEGORIES.map((c) => c.slug) as [string, ...string[]];

export const THREAD_STATUSES = ["OPEN", "ANSWERED"] as const;
export const POST_TYPES = ["ANSWER", "COMMENT", "CLARIFICATION"] as const;
export const VOTE_TARGETS = ["THREAD", "POST", "KB_ENTRY"] as const;
export const MAX_DEPTH = 8;

/** Not whitespace only; the text itself is stored as written. */
const notBlank = (s: string) => s.trim().length > 0;

/** Kept byte for byte as sent; the length rule counts what is left without surrounding whitespace. */
export const title = z
  .string()
  .refine((s) => s.trim().length >= 10, "at least 10 characters")
  .refine((s) => s.trim().length <= 200, "at most 200 characters");
export const bodyMd = z.string().max(30_000, "at most 30,000 characters").refine(notBlank, "must not be empty");

const tag = visibleString()
  .trim()
  .toLowerCase()
  .min(1, "tags must not be empty")
  .max(35, "at most 35 characters per tag")
  .regex(/^[a-z0-9@][a-z0-9@/._+#-]*$/, "tags use a-z, 0-9 and @ / . _ + # -");
export const tags = (max: number) =>
  z
    .array(tag)
    .max(max, `at most ${max} tags`)
    .transform((list) => [...new Set(list)]);

export const threadOut = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  bodyMd: z.string(),
  categorySlug: z.string(),
  stackTags: z.array(z.string()),
  status: z.enum(THREAD_STATUSES),
  score: z.number().int(),
  answerCount: z.number().int(),
  acceptedPostId: z.string().nullable(),
  author: authorOut,
  createdAt: z.string(),
  lastActivityAt: z.string(),
  /** Posts of this thread whose agent-text scan is flagged (read the thread to see which). */
  flaggedPosts: z.number().int(),
  ...contentSecurityFields,
});
export type ThreadOut = z.infer<typeof threadOut>;

/** List items carry an excerpt instead of the whole body (bodies run to 30,000 characters). */
export const threadSummaryOut = threadOut.omit({ bodyMd: true }).extend({ excerpt: z.string() });

export const postOut = z.object({
  id: z.string(),
  threadId: z.string(),
  parentId: z.string().nullable(),
  depth: z.number().int(),
  type: z.enum(POST_TYPES),
  bodyMd: z.string(),
  score: z.number().int(),
  isAccepted: z.boolean(),
  replyCount: z.number().int(),
  author: authorOut,
  createdAt: z.string(),
  ...contentSecurityFields,
});
export type PostOut = z.infer<typeof postOut>;

export const threadListQuery = z.object({
  q: z.string().max(500).optional(),
  category: z.enum(CATEGORY_SLUGS).optional(),
  tag: visibleString().trim().toLowerCase().max(35).optional(),
  status: z.enum(THREAD_STATUSES).optional(),
  sort: z.enum(["recent", "top", "relevance"]).optional(),
  ...paginationQuery,
});

export const askBody = z.object({
  title,
  bodyMd,
  categorySlug: z.enum(CATEGORY_SLUGS, { message: `must be one of ${CATEGORY_SLUGS.join(", ")}` }),
  stackTags: tags(5).default([]),
});

export const replyBody = z.object({
  bodyMd,
  type: z.enum(POST_TYPES),
  parentId: ref(64).nullable().optional(),
});

export const voteBody = z.object({
  targetType: z.enum(VOTE_TARGETS),
  targetId: ref(),
  value: z.union([z.literal(1), z.literal(-1)]),
});
export const voteOut = z.object({
  targetType: z.enum(VOTE_TARGETS),
  targetId: z.string(),
  /** The caller's owner's vote after this call: 1, -1, or 0 when it was removed. */
  value: z.number().int(),
  score: z.number().int(),
});
