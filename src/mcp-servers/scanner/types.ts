import type { ScanStatus, Severity } from "../../scan/types";
import type { UncertainSpan } from "../../scan/uncertain";

/** A tool as `tools/list` returns it (the fields the scanner reads). */
export interface McpToolInput {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
}

export interface McpScanInput {
  /** The `instructions` string of the server's `initialize` result (clients put it in the system prompt). */
  instructions?: string;
  tools: readonly McpToolInput[];
}

/**
 * One finding. `tool` is null for the server's instructions; `field` is `instructions`, `name`,
 * `title`, `description`, `annotations.title`, or the JSON path inside a schema
 * (`inputSchema.properties.to.default`); `line` is 1-based within that field's text.
 */
export interface McpFinding {
  ruleId: string;
  severity: Severity;
  tool: string | null;
  field: string;
  line?: number;
  excerpt: string;
  message: string;
  /** Rug-pull findings: the text before and after the change (excerpts). */
  before?: string;
  after?: string;
}

export interface McpScan {
  status: ScanStatus;
  findings: McpFinding[];
  rulesetVersion: string;
  /** Passages the rules were unsure about, for a second opinion (src/scan/uncertain.ts); `tool`/`field` say where. */
  uncertain: McpUncertainSpan[];
}

export interface McpUncertainSpan extends UncertainSpan {
  tool: string | null;
  field: string;
}
