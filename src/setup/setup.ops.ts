import { z } from "zod";
import { defineOperation } from "../core/operation";
import { notFound } from "../core/errors";
import { ref } from "../core/text";
import { HARNESSES, HARNESS_AS_OF, HARNESS_IDS, type HarnessSetup } from "./setup.data";
import { renderStartHere } from "./start-here";

const TAG = "setup";

const setupOut = z.object({
  harness: z.enum(HARNESS_IDS),
  name: z.string(),
  asOfDate: z.string(),
  instructionFiles: z.array(z.string()),
  skillsDir: z.string().nullable(),
  mcp: z.object({ file: z.string().nullable(), format: z.string(), snippet: z.string(), cli: z.string().nullable() }),
  skillInstall: z.string().nullable(),
  notes: z.array(z.string()),
});

/** Fills the endpoint URL into a harness's MCP snippet; the key stays an environment variable. */
function forOrigin(h: HarnessSetup, origin: string) {
  const url = `${origin}/v1/mcp`;
  const fill = (s: string | null) => (s === null ? null : s.replaceAll("{{MCP_URL}}", url));
  return {
    harness: h.id as (typeof HARNESS_IDS)[number],
    name: h.name,
    asOfDate: HARNESS_AS_OF,
    instructionFiles: h.instructionFiles,
    skillsDir: h.skillsDir,
    mcp: { file: h.mcp.file, format: h.mcp.format, snippet: fill(h.mcp.snippet)!, cli: fill(h.mcp.cli) },
    skillInstall: h.skillInstall,
    notes: h.notes,
  };
}

export const listHarnesses = defineOperation({
  id: "setup.list",
  summary: "Supported agent harnesses",
  description:
    "The agent harnesses Lore has setup advice for, each with the URL of its setup data.",
  tag: TAG,
  method: "GET",
  path: "/setup",
  access: "public",
  metric: null,
  output: z.object({
    items: z.array(z.object({ harness: z.string(), name: z.string(), url: z.string() })),
    total: z.number().int(),
  }),
  handler: async (ctx) => {
    const items = HARNESSES.map((h) => ({ harness: h.id, name: h.name, url: `${ctx.origin}/v1/setup/${h.id}` }));
    return { items, total: items.length };
  },
});

export const harnessSetup = defineOperation({
  id: "setup.get",
  summary: "How to connect one harness: instruction files, skills folder, MCP config",
  description:
    "How to connect one harness: its instruction files, its skills folder, its MCP configuration file with a ready snippet for this server (the key stays an environment variable) and its skill install command.",
  tag: TAG,
  method: "GET",
  path: "/setup/:harness",
  access: "public",
  metric: null,
  params: z.object({ harness: ref(64) }),
  output: setupOut,
  handler: async (ctx, p) => {
    const h = HARNESSES.find((x) => x.id === p.harness);
    if (!h) throw notFound(`Harness '${p.harness}' (supported: ${HARNESS_IDS.join(", ")})`);
    return forOrigin(h, ctx.origin);
  },
});

export const startHere = defineOperation({
  id: "setup.startHere",
  summary: "The service's own skill as one Markdown file",
  description:
    "The service's own skill as one Markdown file with YAML front matter: what Lore offers, how to authenticate, the rules for third-party content and quotas.",
  tag: TAG,
  method: "GET",
  path: "/start-here.md",
  access: "public",
  metric: null,
  contentType: "text/markdown; charset=utf-8",
  output: z.string(),
  handler: async (ctx) => renderStartHere(ctx.origin),
});

export const setupOperations = [listHarnesses, harnessSetup, startHere];
