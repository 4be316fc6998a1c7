import * as z from "zod/v4";
import { pageOut } from "../core/fts";
import { defineOperation } from "../core/operation";
import { list, text } from "../core/compact";
import * as svc from "./freshness.service";
import { deprecationOut, deprecationsQuery, freshnessOut, freshnessQuery, topicOut, topicsQuery, trackBody } from "./freshness.schemas";

const TAG = "freshness";

export const getFreshness = defineOperation({
  id: "freshness.get",
  summary: "Dated release changes of a topic, or since a date",
  description:
    "`topic` is a package or project name (aliases resolve: `react-dom` → `react`, `Next.js` → `next`); `ecosystem` " +
    "(npm default, pypi, go, cargo) picks the package namespace. With `version` the answer is for the caller: the releases in " +
    "(version, latest] in the ecosystem's own version order, each with its breaking-change count, their total, and the " +
    "deprecated APIs removed in between. `since` (YYYY-MM-DD) keeps changes dated on or after it; without `topic`, the newest " +
    "changes of every topic. `dataAsOf` and `stale` say how old the topic's release data is (stale after a day without a " +
    "registry answer: `latestVersion` may not be the latest and `upgrade.upToDate` is never true). With `version`, `security` " +
    "lists the advisories of that version of the package named, with their coverage per ecosystem (sources, dates, current or " +
    "stale) and whether it is `unchecked`. Release notes are third-party text. Costs one FRESHNESS_CALLS. Agent key required.",
  tag: TAG,
  method: "GET",
  path: "/freshness",
  access: "agent",
  metric: "FRESHNESS_CALLS",
  query: freshnessQuery,
  output: freshnessOut,
  untrusted: true,
  handler: (ctx, q) => svc.getFreshness(ctx.env.DB, q),
  mcp: {
    tool: "service_freshness",
    title: "Release changes",
    description: "Dated releases of one library; `version` gives those after yours, with breaking counts.",
    compact: {
      view: {
        topic: true,
        ecosystem: true,
        tracked: true,
        latestVersion: true,
        latestDate: true,
        yourVersion: true,
        upgrade: {
          from: true,
          to: true,
          releases: true,
          breaking: true,
          removedDeprecations: list({ api: text(100), removedIn: true, replacement: text(120) }, 5),
          upToDate: true,
          note: true,
        },
        changes: { version: true, date: true, title: text(100), breaking: true, url: true },
        total: true,
        page: true,
        perPage: true,
        dataAsOf: true,
        stale: true,
        security: {
          vulnerabilities: list(
            { name: true, version: true, advisory: { id: true, severity: true, summary: text(80) }, fixedVersions: list(true, 3) },
            5,
          ),
          coverage: list({ ecosystem: true, status: true, asOf: true, checked: true, unchecked: true }, 4),
          unchecked: list(true, 5),
        },
      },
      defaults: { perPage: 5 },
    },
  },
});

export const getDeprecations = defineOperation({
  id: "freshness.deprecations",
  summary: "Deprecated or removed APIs with their replacements",
  description:
    "Full-text search (`q`, bm25 over API names, replacements and notes) and/or a `topic`; `status` filters " +
    "(deprecated, removed, renamed, moved, incompatible). Each record: {topic, api, status, since, removedIn, replacement, asOfDate, source}. " +
    "Costs one FRESHNESS_CALLS. Agent key required.",
  tag: TAG,
  method: "GET",
  path: "/freshness/deprecations",
  access: "agent",
  metric: "FRESHNESS_CALLS",
  query: deprecationsQuery,
  output: z.object({ items: z.array(deprecationOut), ...pageOut }),
  untrusted: true,
  handler: (ctx, q) => svc.searchDeprecations(ctx.env.DB, q),
  mcp: {
    tool: "service_deprecations",
    title: "Deprecations",
    description: "Is an API deprecated or removed, and what replaces it?",
    compact: {
      view: {
        items: {
          id: true,
          topic: true,
          api: text(120),
          status: true,
          since: true,
          removedIn: true,
          replacement: text(200),
          asOfDate: true,
        },
        total: true,
        page: true,
        perPage: true,
      },
      defaults: { perPage: 5 },
    },
  },
});

export const listTopics = defineOperation({
  id: "freshness.topics",
  summary: "Tracked topics with their ecosystems, sources and last ingest",
  description:
    "Topics Lore tracks (and ones requested for tracking), each with its ecosystem, packages, aliases, sources, latest known version " +
    "and last successful ingest. Filters: `q` (topic or alias prefix), `ecosystem`, `status`. Costs one FRESHNESS_CALLS. Agent key required.",
  tag: TAG,
  method: "GET",
  path: "/freshness/topics",
  access: "agent",
  metric: "FRESHNESS_CALLS",
  query: topicsQuery,
  output: z.object({ items: z.array(topicOut), ...pageOut }),
  handler: (ctx, q) => svc.listTopics(ctx.env.DB, q),
});

export const requestTracking = defineOperation({
  id: "freshness.track",
  summary: "Request tracking of a topic from public repositories",
  description:
    "Body {topic, ecosystem?, sources: [{repoUrl}]} (1–5 sources). Each repoUrl must be an https URL of a repository on github.com, " +
    "gitlab.com or codeberg.org, with no credentials, port, IP address or private name (anything else is 400). A repeated request " +
    "merges into the stored one (`merged: true`). Answers 202: the topic is queued for the scheduled ingest. Costs one FRESHNESS_CALLS. Agent key required.",
  tag: TAG,
  method: "POST",
  path: "/freshness/topics",
  access: "agent",
  metric: "FRESHNESS_CALLS",
  status: 202,
  body: trackBody,
  output: z.object({ topic: topicOut, merged: z.boolean(), accepted: z.array(z.string()) }),
  handler: (ctx, b) => svc.requestTracking(ctx.env.DB, ctx.caller.ownerId, b),
});

export const freshnessOperations = [getFreshness, getDeprecations, listTopics, requestTracking];
