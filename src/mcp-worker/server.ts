import { McpServer } from "@modelcontextprotocol/server";
import type { ServerDefinition, ToolHost } from "../core/mcp-sdk-rpc";

/**
 * A schema as the SDK sees it: the JSON Schema the main Worker made from the operation's zod schema
 * (advertised in tools/list) and a validator that lets the value through. Arguments are validated by
 * the operation itself in the main Worker (core/mcp-tools.ts callTool), so a bad argument gets the
 * contract's VALIDATION_FAILED body with `details.issues` instead of the SDK's plain text.
 */
function advertised(vendor: string, json: Record<string, unknown>) {
  const schema = () => json;
  return {
    "~standard": {
      version: 1 as const,
      vendor,
      jsonSchema: { input: schema, output: schema },
      validate: (value: unknown) => ({ value: value ?? {} }),
    },
  };
}

/**
 * A fresh SDK McpServer with the main Worker's tools: each call goes back to the main Worker
 * (`host.callTool`), which admits it, runs the operation and answers the tool result, errors included.
 */
export function buildMcpServer(def: ServerDefinition, host: ToolHost): McpServer {
  // listChanged: false, said explicitly (the SDK says true when a tool is registered): the tool list is
  // fixed per deploy, no notification of a change is ever sent, and subscriptions/listen is refused
  // before it gets here (src/mcp/protocol.ts).
  const server = new McpServer(
    { name: "lore", version: "1.0.0" },
    { capabilities: { tools: { listChanged: false }, logging: {} }, instructions: def.instructions },
  );
  for (const { name, inputSchema, outputSchema, ...config } of def.tools) {
    server.registerTool(
      name,
      { ...config, inputSchema: advertised(def.vendor, inputSchema) as never, outputSchema: advertised(def.vendor, outputSchema) as never },
      (async (args: Record<string, unknown> | undefined) => host.callTool(name, args ?? {})) as never,
    );
  }
  return server;
}
