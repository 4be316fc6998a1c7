/**
 * An MCP server's tool scan with its second opinion (src/scan/judge.ts): what the directory stores
 * and the scan endpoint answers. Without a configured judge this is the rules' scan as it is.
 */
import { secondOpinion, type Judge, type ScanLayer } from "../scan/judge";
import { wholeTextSpan } from "../scan/uncertain";
import type { ScanStatus } from "../scan/types";
import { MCP_RULESET } from "./scanner/ruleset";
import type { McpFinding, McpScan, McpScanInput, McpUncertainSpan } from "./scanner/types";

export interface JudgedMcpScan {
  status: ScanStatus;
  findings: McpFinding[];
  rulesetVersion: string;
  layers: ScanLayer[];
}

/** Schema keys whose values a client shows the model: the texts a tool's schema can carry. */
const SCHEMA_TEXT_KEYS = new Set(["title", "description", "enum", "const", "default", "examples", "example", "pattern", "format"]);
const SCHEMA_DEPTH = 12;

/** `path: value` lines for every text a schema holds (property descriptions, enums, defaults, examples). */
function schemaTexts(node: unknown, path: string, out: string[], depth = 0): void {
  if (depth > SCHEMA_DEPTH || node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) schemaTexts(v, `${path}[${i}]`, out, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    const at = `${path}.${k}`;
    if (SCHEMA_TEXT_KEYS.has(k) && v !== null && typeof v !== "object") out.push(`${at}: ${String(v)}`);
    else if (SCHEMA_TEXT_KEYS.has(k) && (k === "enum" || k === "examples" || k === "default" || k === "const"))
      out.push(`${at}: ${JSON.stringify(v)}`);
    else schemaTexts(v, at, out, depth + 1);
  }
}

/**
 * The instruction text a judge of scope "all" reads whole: the server's instructions, then one
 * text per tool with its name, title, description, annotations' title and every schema text.
 */
export function mcpReviewTexts(input: McpScanInput): McpUncertainSpan[] {
  const span = (tool: string | null, field: string, path: string, text: string, reason: string): McpUncertainSpan => ({
    ...wholeTextSpan(path, text, reason),
    tool,
    field,
  });
  const out: McpUncertainSpan[] = [];
  if (input.instructions?.trim())
    out.push(
      span(
        null,
        "instructions",
        "instructions",
        input.instructions,
        "the server's instructions (clients put them in the system prompt), read as a whole",
      ),
    );
  for (const t of input.tools) {
    const lines = [`name: ${t.name}`];
    if (t.title) lines.push(`title: ${t.title}`);
    const annTitle = t.annotations?.title;
    if (typeof annTitle === "string") lines.push(`annotations.title: ${annTitle}`);
    if (t.description) lines.push(`description: ${t.description}`);
    schemaTexts(t.inputSchema, "inputSchema", lines);
    schemaTexts(t.outputSchema, "outputSchema", lines);
    out.push(
      span(
        t.name,
        "description",
        `tools/${t.name}`,
        lines.join("\n"),
        "a tool as the model sees it (description and schema texts), read as a whole",
      ),
    );
  }
  return out;
}

/**
 * `scan` null: no tool list was read, so there is nothing for any layer to read. `input`: the tool
 * list scanned, for a judge of scope "all" (without it, only the uncertain passages are read).
 */
export async function judgeMcpScan(judge: Judge | null, scan: McpScan | null, input?: McpScanInput): Promise<JudgedMcpScan> {
  const rules = scan ?? { status: "passed" as const, findings: [], rulesetVersion: MCP_RULESET.version, uncertain: [] };
  const review = scan && input && judge && judge.scope !== "uncertain" ? mcpReviewTexts(input) : [];
  const v = await secondOpinion(judge, { ...rules, review }, (span, ruleId, severity, message): McpFinding => {
    const first = span.covers.length ? rules.findings[span.covers[0]!] : undefined;
    return {
      ruleId,
      severity,
      tool: span.tool,
      field: span.field,
      line: first?.line ?? span.line,
      excerpt: first?.excerpt ?? span.text.split("\n")[0]!.slice(0, 200),
      message,
    };
  });
  return { status: v.status, findings: v.findings, rulesetVersion: v.rulesetVersion, layers: v.layers };
}
