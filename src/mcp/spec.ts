/**
 * The MCP protocol's request schemas and versions, from the SDK's core package: the very objects the
 * SDK's `specTypeSchemas` names (test/mcp/mcp-sdk-worker.test.ts checks they are the same), without
 * the SDK's server, which runs in its own Worker (src/mcp-worker/). Loaded with `import()` on the
 * first MCP request (protocol.ts `mcpSpec`): the package builds its schemas when it loads.
 */
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ProgressNotificationSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/core/internal";

export { SUPPORTED_PROTOCOL_VERSIONS };

/** Client-to-server methods whose params the SDK checks with a spec schema. */
export const METHOD_SCHEMAS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
  "resources/list": ListResourcesRequestSchema,
  "resources/templates/list": ListResourceTemplatesRequestSchema,
  "resources/read": ReadResourceRequestSchema,
  "resources/subscribe": SubscribeRequestSchema,
  "resources/unsubscribe": UnsubscribeRequestSchema,
  "prompts/list": ListPromptsRequestSchema,
  "prompts/get": GetPromptRequestSchema,
  "completion/complete": CompleteRequestSchema,
  "logging/setLevel": SetLevelRequestSchema,
  "notifications/initialized": InitializedNotificationSchema,
  "notifications/cancelled": CancelledNotificationSchema,
  "notifications/progress": ProgressNotificationSchema,
  "notifications/roots/list_changed": RootsListChangedNotificationSchema,
} as Readonly<Record<string, { "~standard": StandardValidate }>>;

/** What checkOne calls: a Standard Schema's validate. */
type StandardValidate = {
  validate(
    value: unknown,
  ): { issues?: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }> } | Promise<unknown>;
};
