/**
 * An MCP server's tool scan with its second opinion (src/scan/judge.ts): what the directory stores
 * and the scan endpoint answers. Without a configured judge this is the rules' scan as it is.
 */
import { secondOpinion, type Judge, type ScanLayer } from "../scan/judge";
import type { ScanStatus } from "../scan/types";
import { MCP_RULESET } from "./scanner/ruleset";
import type { McpFinding, McpScan } from "./scanner/types";

export interface JudgedMcpScan {
  status: ScanStatus;
  findings: McpFinding[];
  rulesetVersion: string;
  layers: ScanLayer[];
}

/** `scan` null: no tool list was read, so there is nothing for any layer to read. */
export async function judgeMcpScan(judge: Judge | null, scan: McpScan | null): Promise<JudgedMcpScan> {
  const input = scan ?? { status: "passed" as const, findings: [], rulesetVersion: MCP_RULESET.version, uncertain: [] };
  const v = await secondOpinion(judge, input, (span, ruleId, severity, message): McpFinding => {
    const first = span.covers.length ? input.findings[span.covers[0]!] : undefined;
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
