import * as z from "zod/v4";
import { pageOut } from "../core/fts";
import { defineOperation } from "../core/operation";
import { list, text } from "../core/compact";
import { scanMcpToolsRemote } from "./scanner/remote";
import { toolsHash } from "./scanner/hash";
import * as svc from "./mcp-servers.service";
import { judgeMcpScan } from "./second-opinion";
import { severityRank } from "../scan/types";
import { judgeFromEnv } from "../scan/workers-ai-judge";
import { decidedVersion } from "../scan/judge";
import { LruCache } from "../core/cache";
import { MCP_RULESET } from "./scanner/ruleset";
import {
  SCAN_BODY_BYTES,
  detailQuery,
  listQuery,
  scanBody,
  scanOut,
  serverDetailOut,
  serverItemOut,
  slugParam,
} from "./mcp-servers.schemas";

const TAG = "mcp-servers";

/**
 * Verdicts this isolate gave, by the tool list as submitted and the layers that decided them: the same
 * servers' lists come back again and again (each agent that has them configured scans them), and
 * a scan costs milliseconds of CPU where a lookup costs microseconds. Only the verdict is held, in
 * memory, never stored; a new ruleset or judge model is another key. The key is the list's JSON text
 * itself, not its SHA-256: hashing 28 KB (the bench's 30 tools) took 0.075 ms a request where the
 * Map's own string hash takes a few µs, and an exact key cannot collide. Its bytes count against the
 * bound, so large lists hold fewer verdicts, never more memory.
 */
const heldVerdicts = new LruCache<string, z.infer<typeof scanOut>>({ maxEntries: 256, maxBytes: 8_000_000 });

export const search = defineOperation({
  id: "mcpServers.search",
  summary: "Search the reviewed MCP servers",
  description:
    "Full-text search (FTS5, bm25) over server names, titles, descriptions and tool names, with filters `security=passed` (servers whose every " +
    "read tool passed the tool-poisoning scan) and `transport` (stdio, streamable-http, sse); paged with `total`. Without `q`, servers are listed by " +
    "title. Descriptions are third-party text. Agent key; counts as an API call.",
  tag: TAG,
  method: "GET",
  path: "/mcp-servers",
  access: "agent",
  metric: null,
  query: listQuery,
  output: z.object({ items: z.array(serverItemOut), ...pageOut }),
  untrusted: true,
  handler: (ctx, q) => svc.searchServers(ctx.env.DB, q),
  mcp: {
    tool: "service_mcp_servers_search",
    title: "Search MCP servers",
    description: "Search reviewed MCP servers and their tool-poisoning scan status.",
    compact: {
      view: {
        items: { slug: true, name: true, title: true, description: text(120), transports: true, securityStatus: true, toolCount: true },
        total: true,
        page: true,
        perPage: true,
      },
      defaults: { perPage: 5 },
      hint: "service_mcp_server_get {slug} for one server",
    },
  },
});

export const get = defineOperation({
  id: "mcpServers.get",
  summary: "One reviewed MCP server: tools, scan findings, review note and the configuration for each harness",
  description:
    "The server in the official registry's server.json vocabulary (remotes, packages, registry status), every tool Lore read with its schema, the " +
    "scan's status and findings (tool poisoning, and rug pulls: what changed since the previous review, with the old and new text), Lore's review " +
    "note, the recent scans with their tool-list hashes, and for each harness the configuration that adds the server in that harness's own file " +
    "format (`harness` narrows it to one). `slug` is the directory slug or the registry name, URL-encoded. Tool text and the review note are " +
    "third-party data. Agent key; counts as an API call.",
  errors: { NOT_FOUND: "when no listed server has this slug or name (deleted registry entries are not listed)" },
  tag: TAG,
  method: "GET",
  path: "/mcp-servers/:slug",
  access: "agent",
  metric: null,
  params: slugParam,
  query: detailQuery,
  output: serverDetailOut,
  untrusted: true,
  handler: (ctx, i) => svc.getServer(ctx.env.DB, i.slug, i.harness),
  mcp: {
    tool: "service_mcp_server_get",
    title: "Read MCP server",
    description: "A reviewed MCP server: tools, scan findings, config per harness.",
    compact: {
      view: {
        server: {
          slug: true,
          name: true,
          title: true,
          description: text(200),
          version: true,
          websiteUrl: true,
          transports: true,
          license: true,
        },
        tools: list({ name: true, description: text(100) }, 10),
        toolsComplete: true,
        toolsHash: true,
        securityStatus: true,
        findings: list({ ruleId: true, severity: true, tool: true, field: true, message: text(120) }, 5),
        scannedAt: true,
        review: true,
        install: {
          notes: list(text(160), 5),
          harnesses: list({ harness: true, supported: true, file: true, format: true, snippet: text(400), cli: true }, 1),
        },
      },
      hint: "harness:<id> for that harness's config",
    },
  },
});

export const scan = defineOperation({
  id: "mcpServers.scan",
  summary: "Scan an MCP server's instructions and tools for tool poisoning",
  description:
    "Runs Lore's tool-poisoning scanner on what an MCP server sent: the `instructions` of its `initialize` result and the tools of its " +
    "`tools/list` (1-200 tools; name, title, description, inputSchema, annotations). Lore never connects to the server, so this works for any " +
    "server an agent already has configured, stdio ones included. Answers `{securityStatus, findings, rulesetVersion, scanLayers, toolsHash}`: `flagged` on a " +
    "high or critical finding, `warn` on a medium one, else `passed`; each finding names the tool and the field (or the JSON path in the schema). " +
    "`scanLayers` says what decided it: the rules, and, where the deployment configures one, a second opinion (a model) on the passages the rules " +
    "were unsure about, which never clears a high finding and whose failure leaves the answer `warn`, never `passed`. " +
    "The submitted text is neither stored nor logged (the verdict is held in memory for the list as submitted, so the same list scanned again is answered without a second scan; with a second opinion configured, the uncertain passages, at most 12,000 characters, go to the deployment's Workers AI model and nowhere else). Limits: 64 KiB per description or instructions, schemas at most 32 levels deep and 64 KiB " +
    "of text, 1 MiB (1,048,576 characters) of text in all; the body itself may be up to 4 MiB of JSON, room for that much text in any script " +
    "(up to 3 bytes a character in UTF-8; `\\u` escapes take 6 and count against the 4 MiB). Agent key; counts as an API call and one SCANS unit.",
  tag: TAG,
  method: "POST",
  path: "/mcp-servers/scan",
  access: "agent",
  // Heavy work (the scanner over up to 1 MiB of text): limited per day like a skill publish.
  metric: "SCANS",
  // The text limit is in characters; a character is up to 3 bytes of UTF-8 (4 for a pair counted as 2), so
  // 1 MiB of text in any script, with its JSON around it, fits 4 MiB. A larger body still reaches
  // validation when its text is over a field's limit, so an oversized field is a 400 that names it.
  maxBodyBytes: SCAN_BODY_BYTES,
  body: scanBody,
  output: scanOut,
  untrusted: true,
  handler: async (ctx, b) => {
    const input = { instructions: b.instructions, tools: b.tools };
    const judge = judgeFromEnv(ctx.env);
    const decided = decidedVersion(MCP_RULESET.version, judge);
    // The list exactly as it will be read, not toolsHash (which sorts tools and keys): the judge reads
    // the texts in the order given (its budget shared among them, neighbours grouped past 40), so one
    // list in two orders may be judged apart. A held answer carries its toolsHash: a hit needs no other.
    const key = `${decided} ${JSON.stringify(input)}`;
    const held = heldVerdicts.get(key);
    if (held) {
      // A client that asked for progress hears the same two steps, both already done.
      ctx.progress?.(1, 2, "the verdict held for this tool list");
      ctx.progress?.(2, 2, "judged");
      return structuredClone(held);
    }
    const scanned = await scanMcpToolsRemote(ctx.env, input);
    ctx.progress?.(1, 2, "rules applied; asking the judge");
    const result = await judgeMcpScan(judge, scanned, input);
    ctx.progress?.(2, 2, "judged");
    const answer = {
      securityStatus: result.status,
      // Worst first, the scanner's order within a severity (a stable sort): a judge's findings join where they belong.
      findings: result.findings.sort((a, b) => severityRank(b.severity) - severityRank(a.severity)),
      rulesetVersion: result.rulesetVersion,
      scanLayers: result.layers,
      toolsHash: await toolsHash(input),
    };
    // Only a verdict every configured layer gave (not one whose judge is owed: that one is retried).
    if (result.rulesetVersion === decided) heldVerdicts.set(key, structuredClone(answer), 2 * key.length + JSON.stringify(answer).length);
    return answer;
  },
  mcp: {
    tool: "service_mcp_scan",
    title: "Scan MCP server",
    description: "Scan an MCP server's tools/list for tool poisoning; nothing is stored.",
    compact: {
      view: {
        securityStatus: true,
        findings: list({ ruleId: true, severity: true, tool: true, field: true, line: true, message: text(160) }, 10),
        rulesetVersion: true,
        toolsHash: true,
      },
    },
    readOnly: true,
    idempotent: true,
  },
});

export const mcpServerOperations = [search, scan, get];
