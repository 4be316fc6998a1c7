/**
 * What the mcp-servers area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { MCP_INGEST_CRON, runMcpIngest } from "./ingest";
export { mcpServerOperations } from "./mcp-servers.ops";
export { loadMcpServers } from "./seed";
