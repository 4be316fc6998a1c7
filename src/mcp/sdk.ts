/**
 * The MCP SDK and the agents package, as the endpoint uses them. Loaded with `import()` on the
 * first request to /v1/mcp (endpoint.ts `mcpSdk`), never at module load: the SDK builds its
 * protocol's wire schemas when it loads, work no REST request, page or cron run needs. Only the
 * libraries are here: Lore's own modules imported from this one would be loaded lazily too, and so
 * be wrapped by the bundler, for nothing.
 */
export { createMcpHandler } from "agents/mcp/server";
export { McpServer, SUPPORTED_PROTOCOL_VERSIONS, specTypeSchemas } from "@modelcontextprotocol/server";
