/**
 * What the MCP SDK imports as `@modelcontextprotocol/server/_shims` (this folder's wrangler.toml
 * [alias]), in place of its workerd shim. Two differences from that shim:
 * - no `preloadSchemas()` at module load: the SDK builds a protocol era's wire schemas when a request
 *   of that era first needs them, not both eras' before the SDK Worker's first answer;
 * - no JSON Schema validator (@cfworker/json-schema, some 6 KiB of the gzipped bundle). The SDK
 *   uses its default validator only to check an elicitation answer against the schema the server
 *   asked with (`Server.elicitInput`) and in `fromJsonSchema`; Lore sends no elicitation and builds
 *   no schema from JSON Schema (tool arguments are checked by each operation's zod schema), so it
 *   is never called. Should that change, the call fails loudly here instead of passing unchecked.
 */
import type { jsonSchemaValidator, JsonSchemaValidator } from "@modelcontextprotocol/server";

export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(_schema: unknown): JsonSchemaValidator<T> {
    throw new Error(
      "JSON Schema validation is not bundled (src/mcp-worker/sdk-shims.ts): pass McpServer a jsonSchemaValidator before sending elicitations",
    );
  }
}

function notSupported(): never {
  throw new Error("StdioServerTransport is not supported in this environment. Use StreamableHTTPServerTransport instead.");
}

export const process = {
  get stdin(): never {
    return notSupported();
  },
  get stdout(): never {
    return notSupported();
  },
};
