/**
 * The MCP SDK Worker: the MCP SDK and the agents package's stateless handler serve here what the
 * main Worker's endpoint does not answer itself (src/mcp/endpoint.ts), reached only over the main
 * Worker's `MCP_SDK` service binding (src/core/mcp-sdk-rpc.ts). Most MCP traffic (initialize, ping,
 * tools/list and tools/call sent alone) never comes here, and no REST request or page does, so the
 * main Worker's cold start does not compile the SDK (docs/profiling.md). No bindings, no state: the
 * tools are the main Worker's, handed over as JSON, and each tool call goes back to it.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { createMcpHandler } from "agents/mcp/server";
import type { McpSdkRpc, SdkAnswer, SdkRequest, ServerDefinition, ToolHost } from "../core/mcp-sdk-rpc";
import { buildMcpServer } from "./server";

/**
 * The address requests are handed to the SDK with: the main Worker checked the public Host and
 * Origin against its allowlist, and the SDK's own localhost Host check must not apply.
 */
const MCP_PATH = "/v1/mcp";
const INTERNAL_MCP_URL = `https://mcp.lore.internal${MCP_PATH}`;

const notFound = () => new Response("Not found", { status: 404 });

/**
 * The longest one request may take here. What reaches the SDK answers and ends (a stateless POST;
 * the open stream of subscriptions/listen is refused by the main Worker), so this only bounds a
 * request that would otherwise hold both Workers: the slowest tool call (a 500-entry sync, a cold
 * package check) takes seconds.
 */
const SERVE_TIMEOUT_MS = 60_000;

const handler = createMcpHandler(
  (reqCtx) => {
    // `serve` hands every request over with these; the handler is reached no other way.
    const { server, host } = reqCtx.authInfo!.extra as { server: ServerDefinition; host: ToolHost };
    return buildMcpServer(server, host);
  },
  { route: MCP_PATH, allowedOriginHostnames: "*", allowedHostnames: undefined, corsOptions: false },
);

/** The last server definition read, by its text: the same for every request of a main Worker's deploy. */
let definition: { text: string; parsed: ServerDefinition } | undefined;

export class McpSdk extends WorkerEntrypoint implements McpSdkRpc {
  /** Only RPC: an HTTP request through the binding is answered 404 like any other. */
  override fetch() {
    return notFound();
  }

  /**
   * One POST, answered whole: a stateless POST's stream ends with its responses, and reading it to
   * the end here keeps `host` (a stub that lives as long as this call) alive for every tool call.
   */
  async serve(request: SdkRequest, server: string, host: ToolHost): Promise<SdkAnswer> {
    if (definition?.text !== server) definition = { text: server, parsed: JSON.parse(server) as ServerDefinition };
    const inner = new Request(INTERNAL_MCP_URL, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(SERVE_TIMEOUT_MS),
    });
    const res = await handler.fetch(inner, {
      authInfo: { token: "agent-key", clientId: "lore", scopes: [], extra: { server: definition.parsed, host } },
    });
    return { status: res.status, headers: [...res.headers], body: await res.text() };
  }
}

export default { fetch: notFound } satisfies ExportedHandler;
