import * as z from "zod/v4";
import { pageOut } from "../core/fts";
import { defineOperation } from "../core/operation";
import { list, text } from "../core/compact";
import { paginationQuery } from "../core/pagination";
import { SCAN_STATUSES } from "../scan/types";
import { listCategories, listSkills } from "./catalog";
import { getSkill } from "./detail";
import { installSkill } from "./installs";
import { mySkill, mySkills } from "./mine";
import { reviewSkill } from "./reviews";
import { publishSkill } from "./publish";
import {
  findingOut,
  installBody,
  listQuery,
  mySkillOut,
  publishBody,
  publishOut,
  reviewBody,
  skillDetailOut,
  skillItemOut,
  slugParam,
} from "./skills.schemas";

const TAG = "skills";

const listOut = z.object({ items: z.array(skillItemOut), ...pageOut });

export const publish = defineOperation({
  id: "skills.publish",
  summary: "Publish a skill version (dashboard)",
  description:
    "Publishes a new version of a skill from its files (SKILL.md at the root with YAML front matter `name` and `description`; " +
    "relative paths, no links, at most 100 files and 5 MiB, `encoding` utf8 or base64). The security scan runs before anything is " +
    "visible; only a `passed` version is listed and installable. The first publisher of a name owns it (409 for anyone else). " +
    "Dashboard session only. Each publish counts one SCANS unit of the plan's daily limit (given back when it fails); a skill gets at " +
    "most 10 versions a UTC day (429, `details.metric` SKILL_VERSIONS), and an account keeps at most its plan's bytes of skill files " +
    "(409, `details.reason` STORAGE_LIMIT).",
  errors: {
    CONFLICT:
      "the name belongs to another account or is reserved, the version label is taken, or the account's stored skill files would pass the plan's limit",
    RATE_LIMITED: "the plan's daily SCANS limit is used up, or this skill already got 10 versions today",
  },
  tag: TAG,
  method: "POST",
  path: "/me/skills",
  access: "owner",
  metric: "SCANS",
  status: 201,
  // 5 MiB of files, base64-encoded (4/3) or JSON-escaped, plus the envelope.
  maxBodyBytes: 12 * 1024 * 1024,
  body: publishBody,
  output: publishOut,
  handler: (ctx, b) => publishSkill(ctx.env, ctx.caller.ownerId, b, ctx.admission),
});

export const mine = defineOperation({
  id: "skills.mine",
  summary: "Your published skills, with every version's scan (dashboard)",
  description:
    "Lists the account's skills, newest first, each with all versions (status, findings, capabilities, files, artifact digest) " +
    "and `notListedReason` when the skill is not in the discovery indexes. Dashboard session only.",
  tag: TAG,
  method: "GET",
  path: "/me/skills",
  access: "owner",
  metric: null,
  query: z.object({ ...paginationQuery }),
  output: z.object({ items: z.array(mySkillOut), total: z.number().int(), page: z.number().int(), perPage: z.number().int() }),
  handler: (ctx, q) => mySkills(ctx.env.DB, ctx.caller.ownerId, q),
});

export const mineOne = defineOperation({
  id: "skills.mineOne",
  summary: "One of your published skills, with every version's scan (dashboard)",
  description:
    "One skill of the account by name: every version (status, findings, capabilities and their changes, files, artifact digest) " +
    "and `notListedReason` when it is not in the discovery indexes. Another account's skill is 404. Dashboard session only; no quota.",
  errors: { NOT_FOUND: "this account has no skill with that name" },
  tag: TAG,
  method: "GET",
  path: "/me/skills/:slug",
  access: "owner",
  metric: null,
  params: slugParam,
  output: mySkillOut,
  handler: (ctx, p) => mySkill(ctx.env.DB, ctx.caller.ownerId, p.slug),
});

export const search = defineOperation({
  id: "skills.search",
  summary: "Search the skills catalog",
  description:
    "Full-text search (bm25) over names, descriptions, tags and SKILL.md, with filters `category`, `harness`, `tag` and " +
    "`security=passed`; `sort` relevance (default with q), installs (default without), rating or recent. Every skill carries its " +
    "scan status; only `passed` ones are installable. Agent key; counts as an API call.",
  tag: TAG,
  method: "GET",
  path: "/skills",
  access: "agent",
  metric: null,
  query: listQuery,
  output: listOut,
  untrusted: true,
  handler: (ctx, q) => listSkills(ctx.env.DB, q),
  mcp: {
    tool: "service_skills_search",
    title: "Search skills",
    description: "Find security-scanned Agent Skills; only `passed` ones install.",
    compact: {
      view: {
        items: {
          slug: true,
          name: true,
          description: text(120),
          category: true,
          securityStatus: true,
          listed: true,
          installs: true,
          rating: true,
          // Lore's own or an account's: what tells a name that reads like Lore's from Lore's.
          official: true,
        },
        total: true,
        page: true,
        perPage: true,
      },
      defaults: { perPage: 5 },
      hint: "service_skill_get {slug} for one skill",
    },
  },
});

export const categories = defineOperation({
  id: "skills.categories",
  summary: "Skill categories with counts",
  description:
    "The fixed category catalog with the number of published skills in each and how many of them passed the scan. Agent key; counts as an API call.",
  tag: TAG,
  method: "GET",
  path: "/skills/categories",
  access: "agent",
  metric: null,
  output: z.object({
    items: z.array(
      z.object({ slug: z.string(), name: z.string(), description: z.string(), count: z.number().int(), passed: z.number().int() }),
    ),
    total: z.number().int(),
  }),
  handler: (ctx) => listCategories(ctx.env.DB),
});

export const get = defineOperation({
  id: "skills.get",
  summary: "One skill: scan result, files, versions and reviews",
  description:
    "The skill with `securityStatus`, `securityFindings`, `securityScanHash` (the discovery digest), its files and SKILL.md text, " +
    "capabilities, every version's scan and what each version added, and the latest reviews. Agent key; counts as an API call.",
  tag: TAG,
  method: "GET",
  path: "/skills/:slug",
  access: "agent",
  metric: null,
  params: slugParam,
  output: skillDetailOut,
  untrusted: true,
  handler: (ctx, p) => getSkill(ctx.env.DB, ctx.origin, p.slug),
  mcp: {
    tool: "service_skill_get",
    title: "Read skill",
    description: "A skill by slug before installing: scan, capabilities, SKILL.md, versions.",
    compact: {
      view: {
        skill: {
          slug: true,
          name: true,
          description: text(200),
          category: true,
          latestVersion: true,
          securityStatus: true,
          securityScanHash: true,
          listed: true,
          securityFindings: list(true, 5),
          capabilities: true,
          rating: true,
          reviewCount: true,
          installs: true,
          official: true,
          skillMd: text(600),
          skillMdTruncated: true,
        },
        versions: list({ version: true, status: true, findingsCount: true, capabilityChanges: list(true, 3) }, 3),
        reviews: list({ rating: true, succeeded: true, notes: text(120) }, 3),
      },
      hint: "service_skill_install {slug} gives the install command",
    },
  },
});

export const install = defineOperation({
  id: "skills.install",
  summary: "Install command for a scan-passed skill (counts as a skill install)",
  description:
    "Returns the command to run (`npx skills add <root> --skill <name> -a <agent>` with the harness's agent id from the `skills` CLI), " +
    "where the files land, the files with their digests, and the scan summary. 409 unless the skill's latest version passed its scan, " +
    "and for a harness with no skills support. Counts as SKILL_INSTALLS only when it succeeds. Agent key.",
  tag: TAG,
  method: "POST",
  path: "/skills/:slug/install",
  access: "agent",
  metric: "SKILL_INSTALLS",
  params: slugParam,
  body: installBody,
  output: z.object({
    skill: z.string(),
    version: z.string(),
    command: z.string(),
    harness: z.string().nullable(),
    agent: z.string().nullable(),
    installDir: z.string(),
    files: z.array(z.object({ path: z.string(), url: z.string(), size: z.number().int(), digest: z.string() })),
    notes: z.array(z.string()),
    scan: z.object({ status: z.enum(SCAN_STATUSES), hash: z.string(), findings: z.array(findingOut) }),
  }),
  untrusted: true,
  handler: (ctx, i) => installSkill(ctx.env.DB, ctx.origin, i.slug, i.harness),
  activity: (_i, r) => ({
    kind: "SKILL_INSTALL",
    summary: `Installed the skill ${r.skill} ${r.version}${r.harness ? ` for ${r.harness}` : ""}`,
    targetType: "SKILL",
    targetId: r.skill,
    url: `/v1/skills/${r.skill}`,
  }),
  mcp: {
    tool: "service_skill_install",
    title: "Install skill",
    description: "The install command for a scan-passed skill; run it in the project root.",
    compact: {
      view: {
        skill: true,
        version: true,
        command: true,
        harness: true,
        agent: true,
        installDir: true,
        notes: list(text(160), 5),
        scan: { status: true, hash: true, findings: list(true, 3) },
      },
    },
    idempotent: false,
  },
});

export const review = defineOperation({
  id: "skills.review",
  summary: "Review a skill (one review per account; a repeat replaces it)",
  description:
    "Rates a skill 1-5 and says whether installing it worked, with optional notes (shown as third-party text). One review per " +
    "account and skill; a repeat replaces it. An account cannot review its own skill (403). Agent key; counts as an API call.",
  tag: TAG,
  method: "POST",
  path: "/skills/:slug/review",
  access: "agent",
  metric: null,
  params: slugParam,
  body: reviewBody,
  output: z.object({
    review: z.object({
      rating: z.number().int(),
      succeeded: z.boolean(),
      notes: z.string().nullable(),
      author: z.object({ id: z.string(), handle: z.string() }),
      createdAt: z.string(),
      updatedAt: z.string(),
    }),
    skill: z.object({ slug: z.string(), rating: z.number(), successRate: z.number(), reviewCount: z.number().int() }),
  }),
  untrusted: true,
  handler: (ctx, i) => reviewSkill(ctx.env.DB, ctx.caller, i.slug, i),
  activity: (i, r) => ({
    kind: "SKILL_REVIEW",
    summary: `Reviewed the skill ${i.slug}: ${r.review.rating}/5${r.review.succeeded ? "" : ", did not work"}`,
    targetType: "SKILL",
    targetId: i.slug,
    url: `/v1/skills/${i.slug}`,
  }),
  mcp: {
    tool: "service_skill_review",
    title: "Review skill",
    description: "Review a skill you used (rating 1-5, succeeded, notes).",
    idempotent: true,
  },
});

export const skillsOperations = [publish, mine, mineOne, search, categories, get, install, review];
