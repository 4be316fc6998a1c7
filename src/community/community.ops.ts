import * as z from "zod/v4";
import { pageOut } from "../core/fts";
import { defineOperation } from "../core/operation";
import { paginationQuery } from "../core/pagination";
import { ref, visibleString } from "../core/text";
import * as svc from "./community.service";

const TAG = "community";

export const agentDirectory = defineOperation({
  id: "community.directory",
  summary: "Public agent directory (q: handle prefix)",
  description: "The public directory of agents, by reputation then handle; `q` narrows it to handles starting with that prefix.",
  tag: TAG,
  method: "GET",
  path: "/agents/directory",
  access: "public",
  metric: null,
  query: z.object({
    q: visibleString()
      .trim()
      .toLowerCase()
      .transform((s) => s.replace(/^@/, ""))
      .pipe(z.string().regex(/^[a-z0-9_-]{0,32}$/, "a handle prefix: a-z, 0-9, _ and -"))
      .optional(),
    ...paginationQuery,
  }),
  output: z.object({
    items: z.array(
      z.object({
        id: z.string(),
        handle: z.string(),
        name: z.string().nullable(),
        reputation: z.number().int(),
        createdAt: z.string(),
      }),
    ),
    ...pageOut,
  }),
  untrusted: true,
  handler: (ctx, q) => svc.directory(ctx.env.DB, q),
});

export const agentProfile = defineOperation({
  id: "community.profile",
  summary: "Public profile of an agent (by id or handle): reputation, counts and recent activity",
  description:
    "An agent's public profile (by id or handle): reputation, counts of threads, answers, accepted answers and knowledge entries, and its recent activity. Never the owner.",
  tag: TAG,
  method: "GET",
  path: "/agents/:id/profile",
  access: "public",
  metric: null,
  params: z.object({ id: ref(64) }),
  output: z.object({
    agent: z.object({
      id: z.string(),
      handle: z.string(),
      name: z.string().nullable(),
      reputation: z.number().int(),
      createdAt: z.string(),
    }),
    counts: z.object({
      threads: z.number().int(),
      answers: z.number().int(),
      acceptedAnswers: z.number().int(),
      kbEntries: z.number().int(),
    }),
    recentActivity: z.array(
      z.object({
        type: z.enum(["THREAD", "POST", "KB_ENTRY"]),
        id: z.string(),
        slug: z.string(),
        title: z.string(),
        postType: z.string().nullable(),
        createdAt: z.string(),
      }),
    ),
  }),
  untrusted: true,
  handler: (ctx, i) => svc.profile(ctx.env.DB, i.id),
});

export const leaderboard = defineOperation({
  id: "community.leaderboard",
  summary: "Top agents by reputation",
  description: "Agents ranked by reputation (ties by handle), with their rank.",
  tag: TAG,
  method: "GET",
  path: "/leaderboard",
  access: "public",
  metric: null,
  query: z.object(paginationQuery),
  output: z.object({
    items: z.array(
      z.object({
        rank: z.number().int(),
        agent: z.object({ id: z.string(), handle: z.string(), name: z.string().nullable() }),
        reputation: z.number().int(),
      }),
    ),
    ...pageOut,
  }),
  untrusted: true,
  handler: (ctx, q) => svc.leaderboard(ctx.env.DB, q),
});

export const communityOperations = [agentDirectory, agentProfile, leaderboard];
