/**
 * The MCP SDK Worker (src/mcp-worker/) behind the main Worker's MCP_SDK service binding: the binding
 * reaches the real Worker (built by vitest.config.ts with its [alias]), it has no route of its own,
 * the SDK's tool calls come back to the main Worker and are admitted and counted there, the main
 * Worker checks messages with the SDK's own schemas, and an SDK Worker that cannot be reached is the
 * contract's INTERNAL for what it would have served and nothing else.
 */
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { specTypeSchemas, SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from "@modelcontextprotocol/server";
import { call, expectError, mcpPost, newAgent } from "../helpers";
import { METHOD_SCHEMAS, SUPPORTED_PROTOCOL_VERSIONS } from "../../src/mcp/spec";
import { serverDefinitionJson } from "../../src/core/mcp-tools";
import { OPERATIONS } from "../../src/operations";
import { buildMcpServer } from "../../src/mcp-worker/server";
import { DefaultJsonSchemaValidator } from "../../src/mcp-worker/sdk-shims";

const rpc = mcpPost;

/** What an unreachable SDK Worker looks like to the caller: every RPC call rejects. */
const lost = () => Promise.reject(new Error("Network connection lost."));
const DOWN = { MCP_SDK: { serve: lost, fetch: lost } };

/** A 2026-era request: the per-request envelope in `_meta` sends it to the SDK. */
const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
};

const usage = async (key: string) => (await call("GET", "/v1/usage/today", { key })).body.metrics;

describe("the MCP SDK Worker behind the MCP_SDK service binding", () => {
  it("is a real Worker with no route of its own (fetch answers 404)", async () => {
    const res = await env.MCP_SDK.fetch("http://mcp-sdk/v1/mcp", { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });

  it("serves what the endpoint does not answer itself: a method Lore has no capability for is the SDK's -32601", async () => {
    const a = await newAgent();
    const r = await rpc(a.key, { jsonrpc: "2.0", id: 7, method: "resources/list" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32601 } });
  });

  it("a tool call the SDK serves comes back to the main Worker: run, answered and counted as if sent alone", async () => {
    const a = await newAgent();
    const before = await usage(a.key);
    const r = await rpc(
      a.key,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "service_kb_search", arguments: { q: "retry" }, _meta: envelope },
      },
      { headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "service_kb_search" } },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.error, JSON.stringify(r.body)).toBeUndefined();
    expect(r.body.result.isError).toBeUndefined();
    expect(r.body.result._meta["lore/quota"]).toMatchObject({ metric: "API_CALLS" });
    const after = await usage(a.key);
    expect(after.API_CALLS.used).toBe(before.API_CALLS.used + 1);
  });

  it("unreachable, what the SDK would serve is INTERNAL and retryable; what the endpoint answers itself still works", async () => {
    const a = await newAgent();
    const r = await rpc(a.key, { jsonrpc: "2.0", id: 1, method: "resources/list" }, { env: DOWN });
    expectError(r, 500, "INTERNAL");
    expect(r.body.error.details).toEqual({ retryable: true });
    expect(r.body.error.message).toMatch(/MCP server could not answer/);
    const ping = await rpc(a.key, { jsonrpc: "2.0", id: 2, method: "ping" }, { env: DOWN });
    expect(ping.body).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    const tool = await rpc(
      a.key,
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "service_usage", arguments: {} } },
      { env: DOWN },
    );
    expect(tool.status).toBe(200);
    expect(tool.body.result.isError).toBeUndefined();
  });

  it("a batch message the SDK Worker cannot answer gets its JSON-RPC error; the rest of the batch is answered", async () => {
    const a = await newAgent();
    const r = await rpc(
      a.key,
      [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "resources/list" },
        { jsonrpc: "2.0", id: 3, method: "ping" },
      ],
      { env: DOWN },
    );
    expect(r.status).toBe(200);
    expect(r.body[0]).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(r.body[1]).toMatchObject({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32603, data: { code: "INTERNAL", details: { retryable: true } } },
    });
    expect(r.body[2]).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
  });

  it("failing after a tool call started is INTERNAL but not retryable: the call was counted and may have taken effect", async () => {
    const a = await newAgent();
    const before = await usage(a.key);
    const failsAfterTheCall = {
      MCP_SDK: {
        serve: async (_req: unknown, _server: string, host: { callTool(n: string, args: object): Promise<unknown> }) => {
          await host.callTool("service_kb_search", { q: "retry" });
          throw new Error("Network connection lost.");
        },
      },
    };
    const r = await rpc(a.key, { jsonrpc: "2.0", id: 1, method: "resources/list" }, { env: failsAfterTheCall });
    expectError(r, 500, "INTERNAL");
    expect(r.body.error.details).toBeUndefined();
    expect(r.body.error.message).toMatch(/may have taken effect/);
    expect((await usage(a.key)).API_CALLS.used).toBe(before.API_CALLS.used + 1);
  });

  it("hands the SDK only the headers it reads: never the key, the cookie or Lore's own", async () => {
    const a = await newAgent();
    let seen: [string, string][] = [];
    const recording = {
      MCP_SDK: {
        serve: async (req: { headers: [string, string][] }) => {
          seen = req.headers;
          return { status: 200, headers: [["content-type", "application/json"]], body: '{"jsonrpc":"2.0","id":1,"result":{}}' };
        },
      },
    };
    const r = await rpc(
      a.key,
      { jsonrpc: "2.0", id: 1, method: "resources/list" },
      {
        env: recording,
        headers: { cookie: "lore_session=secret", "x-service-key": a.key, "mcp-protocol-version": "2025-06-18", "x-lore-owner": "acct_x" },
      },
    );
    expect(r.status).toBe(200);
    expect(Object.fromEntries(seen)).toEqual({
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-protocol-version": "2025-06-18",
    });
  });

  it("subscriptions/listen is refused before the SDK (nothing to listen for), and initialize says listChanged: false", async () => {
    const a = await newAgent();
    const listen = await rpc(
      a.key,
      { jsonrpc: "2.0", id: 4, method: "subscriptions/listen", params: { _meta: envelope } },
      { headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" } },
    );
    expect(listen.body).toMatchObject({ jsonrpc: "2.0", id: 4, error: { code: -32601 } });
    expect(listen.body.error.message).toMatch(/^Method not found: subscriptions\/listen/);
    const init = await rpc(a.key, {
      jsonrpc: "2.0",
      id: 5,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(init.body.result.capabilities.tools).toEqual({ listChanged: false });
  });

  it("the main Worker checks messages with the SDK's own schemas and versions (the same objects)", () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_VERSIONS);
    const byObject = new Map<unknown, string>(Object.entries(specTypeSchemas).map(([name, schema]) => [schema, name]));
    const names = Object.fromEntries(Object.entries(METHOD_SCHEMAS).map(([method, schema]) => [method, byObject.get(schema)]));
    expect(names).toEqual({
      initialize: "InitializeRequest",
      ping: "PingRequest",
      "tools/list": "ListToolsRequest",
      "tools/call": "CallToolRequest",
      "resources/list": "ListResourcesRequest",
      "resources/templates/list": "ListResourceTemplatesRequest",
      "resources/read": "ReadResourceRequest",
      "resources/subscribe": "SubscribeRequest",
      "resources/unsubscribe": "UnsubscribeRequest",
      "prompts/list": "ListPromptsRequest",
      "prompts/get": "GetPromptRequest",
      "completion/complete": "CompleteRequest",
      "logging/setLevel": "SetLevelRequest",
      "notifications/initialized": "InitializedNotification",
      "notifications/cancelled": "CancelledNotification",
      "notifications/progress": "ProgressNotification",
      "notifications/roots/list_changed": "RootsListChangedNotification",
    });
  });

  it("the SDK's server gets Lore's validator, which refuses to validate instead of passing a value unchecked", () => {
    const server = buildMcpServer(JSON.parse(serverDefinitionJson(OPERATIONS)), { callTool: async () => ({ content: [] }) });
    const validator = (server.server as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator;
    expect(validator).toBeInstanceOf(DefaultJsonSchemaValidator);
    expect(() => (validator as DefaultJsonSchemaValidator).getValidator({ type: "object" })).toThrow(/not bundled/);
  });
});
