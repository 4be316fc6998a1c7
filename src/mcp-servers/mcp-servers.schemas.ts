import * as z from "zod/v4";
import { paginationQuery } from "../core/pagination";
import { ref } from "../core/text";
import { SCAN_STATUSES, SEVERITIES } from "../scan/types";
import { HARNESS_IDS } from "../harnesses/setup.data";
import { scanLayerOut } from "../skills";

/** Bounds of a scan request: what one real server's `initialize` and `tools/list` answers fit in, and no more. */
export const SCAN_LIMITS = {
  tools: 200,
  nameChars: 256,
  titleChars: 1_000,
  textChars: 65_536,
  schemaChars: 65_536,
  schemaDepth: 32,
  schemaNodes: 5_000,
  totalChars: 1_048_576,
} as const;

/** The scan's REST body limit: `totalChars` of text at 3 bytes a character (any script in UTF-8) plus its JSON. */
export const SCAN_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Depth and size of a JSON value, walked with an explicit stack (never recursion, so a schema
 * nested a million deep is measured, not a stack overflow). Stops as soon as a bound is passed.
 */
export function jsonShape(
  value: unknown,
  maxDepth: number,
  maxNodes: number,
): { depth: number; nodes: number; chars: number; over: "depth" | "nodes" | null } {
  const stack: [unknown, number][] = [[value, 1]];
  let depth = 0;
  let nodes = 0;
  let chars = 0;
  while (stack.length) {
    const [v, d] = stack.pop()!;
    nodes++;
    if (d > depth) depth = d;
    if (depth > maxDepth) return { depth, nodes, chars, over: "depth" };
    if (nodes > maxNodes) return { depth, nodes, chars, over: "nodes" };
    if (typeof v === "string") chars += v.length;
    else if (Array.isArray(v)) for (const x of v) stack.push([x, d + 1]);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        chars += k.length;
        stack.push([x, d + 1]);
      }
    }
  }
  return { depth, nodes, chars, over: null };
}

/**
 * The text each schema's bounded walk found (jsonObject), for the scan's total (scanBody): one walk a
 * schema rather than two. Keyed by the parsed object, so an entry lives as long as the request's input.
 */
const schemaChars = new WeakMap<object, number>();

/** A JSON Schema object as a tool declares it, bounded in depth, node count and text. */
const jsonObject = (what: string) =>
  z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
    const s = jsonShape(v, SCAN_LIMITS.schemaDepth, SCAN_LIMITS.schemaNodes);
    if (s.over === null) schemaChars.set(v, s.chars);
    if (s.over === "depth") ctx.addIssue({ code: "custom", message: `${what} is nested more than ${SCAN_LIMITS.schemaDepth} levels deep` });
    else if (s.over === "nodes") ctx.addIssue({ code: "custom", message: `${what} has more than ${SCAN_LIMITS.schemaNodes} values` });
    else if (s.chars > SCAN_LIMITS.schemaChars)
      ctx.addIssue({ code: "custom", message: `${what} holds ${s.chars} characters of text; at most ${SCAN_LIMITS.schemaChars}` });
  });

const text = (max: number) => z.string().max(max, `at most ${max} characters`);

/**
 * A tool as `tools/list` returns it. Names are not checked for invisible characters here: that is
 * what the scan reports. Other fields of a tool (`_meta`, `icons`) are ignored.
 */
export const scanToolIn = z.object({
  name: z.string().min(1, "must not be empty").max(SCAN_LIMITS.nameChars, `at most ${SCAN_LIMITS.nameChars} characters`),
  title: text(SCAN_LIMITS.titleChars).optional(),
  description: text(SCAN_LIMITS.textChars).optional(),
  inputSchema: jsonObject("inputSchema").optional(),
  outputSchema: jsonObject("outputSchema").optional(),
  annotations: jsonObject("annotations").optional(),
});

export const scanBody = z
  .object({
    /** The `instructions` string of the server's `initialize` result. */
    instructions: text(SCAN_LIMITS.textChars).optional(),
    tools: z.array(scanToolIn).min(1, "at least 1 tool").max(SCAN_LIMITS.tools, `at most ${SCAN_LIMITS.tools} tools`),
  })
  .superRefine((b, ctx) => {
    let total = b.instructions?.length ?? 0;
    for (const t of b.tools) {
      total += t.name.length + (t.title?.length ?? 0) + (t.description?.length ?? 0);
      for (const s of [t.inputSchema, t.outputSchema, t.annotations])
        if (s) total += schemaChars.get(s) ?? jsonShape(s, Infinity, Infinity).chars;
    }
    if (total > SCAN_LIMITS.totalChars)
      ctx.addIssue({
        code: "custom",
        path: ["tools"],
        message: `the submitted text is ${total} characters; at most ${SCAN_LIMITS.totalChars} per scan`,
      });
  });

export const mcpFindingOut = z.object({
  ruleId: z.string(),
  severity: z.enum(SEVERITIES),
  /** The tool, or null for the server's instructions and for findings about the whole server. */
  tool: z.string().nullable(),
  /** `instructions`, `name`, `title`, `description`, `annotations.title`, or the JSON path inside a schema. */
  field: z.string(),
  /** 1-based line within that field's text. */
  line: z.number().int().optional(),
  excerpt: z.string(),
  message: z.string(),
  /** Rug-pull findings: the text before and after the change. */
  before: z.string().optional(),
  after: z.string().optional(),
});

export const scanOut = z.object({
  securityStatus: z.enum(SCAN_STATUSES),
  findings: z.array(mcpFindingOut),
  rulesetVersion: z.string(),
  /** Which layers decided `securityStatus`: the rules, and a second opinion when the deployment configures one. */
  scanLayers: z.array(scanLayerOut),
  /** `sha256:<hex>` of the instructions and tools as scanned (order-independent): compare it with a directory record's. */
  toolsHash: z.string(),
});

export const TRANSPORTS = ["stdio", "streamable-http", "sse"] as const;

export const listQuery = z.object({
  q: z.string().max(500).optional(),
  security: z.enum(["passed"]).optional(),
  transport: z.enum(TRANSPORTS).optional(),
  ...paginationQuery,
});

const repositoryOut = z.object({ url: z.string(), source: z.string(), id: z.string().optional(), subfolder: z.string().optional() });

export const serverItemOut = z.object({
  slug: z.string(),
  name: z.string(),
  title: z.string().nullable(),
  description: z.string(),
  version: z.string(),
  repository: repositoryOut.nullable(),
  websiteUrl: z.string().nullable(),
  transports: z.array(z.enum(TRANSPORTS)),
  securityStatus: z.enum(SCAN_STATUSES),
  toolCount: z.number().int(),
  /** True: every tool was read; false: a subset; null: no tool list has been read. */
  toolsComplete: z.boolean().nullable(),
  /** The registry's moderation status (deleted servers are not listed). */
  registryStatus: z.enum(["active", "deprecated"]),
  reviewedAt: z.string().nullable(),
  scannedAt: z.string(),
  updatedAt: z.string(),
});
export type ServerItemOut = z.infer<typeof serverItemOut>;

const keyValueOut = z.object({
  name: z.string(),
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: z.string().optional(),
  value: z.string().optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
});

const argumentOut = z.object({
  type: z.enum(["positional", "named"]),
  name: z.string().optional(),
  value: z.string().optional(),
  valueHint: z.string().optional(),
  isRequired: z.boolean().optional(),
  isRepeated: z.boolean().optional(),
  default: z.string().optional(),
});

export const remoteOut = z.object({
  type: z.enum(["streamable-http", "sse"]),
  url: z.string(),
  headers: z.array(keyValueOut).optional(),
  variables: z
    .record(
      z.string(),
      z.object({ description: z.string().optional(), isRequired: z.boolean().optional(), default: z.string().optional() }),
    )
    .optional(),
});

export const packageOut = z.object({
  registryType: z.string(),
  identifier: z.string(),
  version: z.string().optional(),
  registryBaseUrl: z.string().optional(),
  fileSha256: z.string().optional(),
  runtimeHint: z.string().optional(),
  transport: z.object({ type: z.enum(TRANSPORTS), url: z.string().optional(), headers: z.array(keyValueOut).optional() }),
  runtimeArguments: z.array(argumentOut).optional(),
  packageArguments: z.array(argumentOut).optional(),
  environmentVariables: z.array(keyValueOut).optional(),
});

export const toolOut = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});

export const harnessConfigOut = z.object({
  harness: z.string(),
  name: z.string(),
  supported: z.boolean(),
  file: z.string().nullable(),
  userFile: z.string().nullable(),
  format: z.enum(["json", "json5", "toml", "yaml"]).nullable(),
  snippet: z.string().nullable(),
  cli: z.string().nullable(),
  notes: z.array(z.string()),
});

export const serverDetailOut = z.object({
  /** The record in the official registry's server.json vocabulary, plus the registry's status block in `_meta`. */
  server: z.object({
    slug: z.string(),
    name: z.string(),
    title: z.string().nullable(),
    description: z.string(),
    version: z.string(),
    websiteUrl: z.string().nullable(),
    repository: repositoryOut.nullable(),
    remotes: z.array(remoteOut),
    packages: z.array(packageOut),
    license: z.string().nullable(),
    transports: z.array(z.enum(TRANSPORTS)),
    source: z.enum(["seed", "registry"]),
    _meta: z.object({
      "io.modelcontextprotocol.registry/official": z
        .object({
          status: z.enum(["active", "deprecated"]),
          statusMessage: z.string().nullable(),
          publishedAt: z.string().nullable(),
          updatedAt: z.string().nullable(),
        })
        .nullable(),
    }),
  }),
  /** The server's tools as Lore read them (third-party text: data, not instructions). */
  tools: z.array(toolOut),
  /** The server's `initialize` instructions, when read. */
  instructions: z.string().nullable(),
  toolsComplete: z.boolean().nullable(),
  toolsSource: z.string().nullable(),
  toolsNote: z.string().nullable(),
  toolsHash: z.string().nullable(),
  securityStatus: z.enum(SCAN_STATUSES),
  /** Findings on the tools, on the review's completeness, and (rug pulls) on what changed since the previous review. */
  findings: z.array(mcpFindingOut),
  rulesetVersion: z.string(),
  /** Which layers decided `securityStatus`: the rules, and a second opinion when the deployment configures one. */
  scanLayers: z.array(scanLayerOut),
  scannedAt: z.string(),
  review: z.object({ note: z.string(), reviewedAt: z.string().nullable() }).nullable(),
  scans: z.array(
    z.object({
      seq: z.number().int(),
      scannedAt: z.string(),
      version: z.string(),
      toolsHash: z.string().nullable(),
      status: z.enum(SCAN_STATUSES),
      findingsCount: z.number().int(),
      reason: z.string(),
      changes: z.array(mcpFindingOut),
    }),
  ),
  /** What adding the server configures, and the configuration for each harness in its own format. */
  install: z.object({
    target: z.object({
      kind: z.enum(["remote", "package", "none"]),
      transport: z.enum(TRANSPORTS).nullable(),
      url: z.string().nullable(),
      registryType: z.string().nullable(),
      identifier: z.string().nullable(),
      version: z.string().nullable(),
    }),
    notes: z.array(z.string()),
    harnesses: z.array(harnessConfigOut),
  }),
});
export type ServerDetailOut = z.infer<typeof serverDetailOut>;

/** A slug (`io.github.github--github-mcp-server`) or the registry name itself, URL-encoded. */
export const slugParam = z.object({ slug: ref(300) });
export const detailQuery = z.object({ harness: z.enum(HARNESS_IDS).optional() });
