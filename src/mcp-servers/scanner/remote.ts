/**
 * The tool-poisoning scan as the main Worker runs it: over the `SCANNER` service binding in the
 * scanner Worker (src/scan-worker/index.ts, which implements this interface), so that none of the
 * rules is bundled into the main Worker. Inputs and results are plain data (structured clone).
 */
import type { Env } from "../../env";
import { callScanner, checkedScan, scannerOf } from "../../scan/remote";
import { MCP_RULESET } from "./ruleset";
import type { McpScan, McpScanInput } from "./types";

export interface McpScannerRpc {
  scanMcpTools(input: McpScanInput): McpScan | Promise<McpScan>;
}

/** scanMcpTools (src/mcp-servers/scanner/index.ts) in the scanner Worker. */
export const scanMcpToolsRemote = (env: Pick<Env, "SCANNER">, input: McpScanInput) =>
  callScanner(
    "MCP tools",
    () => scannerOf<McpScannerRpc>(env).scanMcpTools(input),
    (r) => checkedScan(r, MCP_RULESET.version),
  );
