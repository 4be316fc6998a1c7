/**
 * What the main Worker and the MCP SDK Worker (src/mcp-worker/) say to each other over the `MCP_SDK`
 * service binding. Types only: neither side's code is imported by the other.
 *
 * The SDK serves what the endpoint does not answer itself (src/mcp/endpoint.ts): methods other than
 * initialize, ping, tools/list and tools/call (alone or in a batch), clients that accept only SSE,
 * the 2026 protocol, and the first initialize and tools/list of each isolate.
 * It runs in a Worker of its own so that the main Worker's every cold start does not compile it (the
 * SDK and the agents package are some 190 KB of the upload: docs/profiling.md). The tools stay the
 * main Worker's: the SDK is handed their definitions as JSON and calls back for each tool call.
 */

/** A tool call's result as MCP carries it (core/mcp-tools.ts callTool makes it; the SDK answers it as is). */
export type ToolResult = {
  isError?: boolean;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

/** A tool as tools/list advertises it, its schemas as JSON Schema (core/mcp-tools.ts `serverDefinitionJson`). */
export interface ToolDefinitionJson {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint: boolean };
}

/** The MCP server the SDK Worker builds for a request. */
export interface ServerDefinition {
  instructions: string;
  /** The Standard Schema vendor of the operations' schemas ("zod"). */
  vendor: string;
  tools: ToolDefinitionJson[];
}

/** The main Worker's side of a request the SDK serves: it runs each tool call (admission, operation, result). */
export interface ToolHost {
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
}

/** The POST the SDK is handed: the route already checked its Host, Origin, key and body. */
export interface SdkRequest {
  headers: [string, string][];
  body: Uint8Array;
}

/** The SDK's whole answer (a stateless POST's stream ends with its responses, so it is read to the end). */
export interface SdkAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

export interface McpSdkRpc {
  /** `server`: a ServerDefinition as JSON text (the same text for every request of an isolate). */
  serve(request: SdkRequest, server: string, host: ToolHost): Promise<SdkAnswer>;
}
