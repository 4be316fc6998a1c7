import { describe, expect, it } from "vitest";
import { call, expectError, mcpClient, newAgent, signup, toolJson } from "./helpers";

describe("foundation smoke", () => {
  it("signs up, creates an agent and reads usage with its key", async () => {
    const agent = await newAgent();
    expect(agent.key).toMatch(/^lore_[0-9A-Za-z]{43}$/);
    const r = await call("GET", "/v1/usage/today", { key: agent.key });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.plan).toBe("FREE");
  });

  it("unknown route is a 404 in the error shape", async () => {
    expectError(await call("GET", "/v1/nope"), 404, "NOT_FOUND");
  });

  it("MCP handshake and service_usage over a real v1 client", async () => {
    const agent = await newAgent();
    const client = await mcpClient(agent.key);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("service_usage");
    const res = await client.callTool({ name: "service_usage", arguments: {} });
    expect(toolJson(res).plan).toBe("FREE");
    await client.close();
  });
});
