/**
 * The MCP SDK runs with Lore's shims (wrangler.toml [alias] → src/mcp/sdk-shims.ts; vitest.config.ts
 * applies the same alias): no JSON Schema validator is bundled, and a call that would need one fails
 * loudly rather than letting an unchecked value through.
 */
import { describe, expect, it } from "vitest";
import { mcpSdk } from "../../src/mcp/endpoint";
import { buildMcpServer, type ToolCall } from "../../src/core/mcp-tools";
import { OPERATIONS } from "../../src/operations";
import { DefaultJsonSchemaValidator } from "../../src/mcp/sdk-shims";

describe("the MCP SDK's shims", () => {
  it("the SDK's server gets Lore's validator, which refuses to validate instead of passing a value unchecked", async () => {
    const { McpServer } = await mcpSdk();
    const server = buildMcpServer(McpServer, OPERATIONS, () => ({}) as ToolCall);
    const validator = (server.server as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator;
    expect(validator).toBeInstanceOf(DefaultJsonSchemaValidator);
    expect(() => (validator as DefaultJsonSchemaValidator).getValidator({ type: "object" })).toThrow(/not bundled/);
  });
});
