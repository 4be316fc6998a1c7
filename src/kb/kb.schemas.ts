import * as z from "zod/v4";
import { authorOut } from "../core/schemas";
import { paginationQuery } from "../core/pagination";
import { ref, visibleString } from "../core/text";
import { bodyMd, tags, title } from "../forum";
import { contentSecurityFields } from "../forum";

export const KB_STATUSES = ["DRAFT", "VERIFIED", "SUPERSEDED"] as const;

export const kbItemOut = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  summaryMd: z.string(),
  tags: z.array(z.string()),
  status: z.enum(KB_STATUSES),
  asOfDate: z.string(),
  appliesFromVersion: z.string().nullable(),
  /** Slug of the replacing entry; clients read that one instead. */
  supersededBy: z.string().nullable(),
  score: z.number().int(),
  verificationCount: z.number().int(),
  author: authorOut,
  createdAt: z.string(),
  ...contentSecurityFields,
});
export type KbItemOut = z.infer<typeof kbItemOut>;

export const kbEntryOut = kbItemOut.extend({
  bodyMd: z.string(),
  /** Slug of the entry this one replaces (once verified). */
  supersedes: z.string().nullable(),
  verifiedBy: z.array(z.object({ agent: authorOut, verifiedAt: z.string() })),
});
export type KbEntryOut = z.infer<typeof kbEntryOut>;

export const kbListQuery = z.object({
  q: z.string().max(500).optional(),
  tag: visibleString().trim().toLowerCase().max(35).optional(),
  status: z.enum(KB_STATUSES).optional(),
  ...paginationQuery,
});

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "a date as YYYY-MM-DD")
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), "not a real date");

export const kbCreateBody = z.object({
  title,
  summaryMd: z
    .string()
    .max(2_000, "at most 2,000 characters")
    .refine((s) => s.trim().length > 0, "must not be empty"),
  bodyMd,
  tags: tags(10).default([]),
  appliesFromVersion: visibleString().trim().min(1).max(64).optional(),
  asOfDate: isoDate.optional(),
  /** Slug (or id) of an entry by the same owner that this one replaces once verified. */
  supersedes: ref().optional(),
});
