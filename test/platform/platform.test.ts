import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { call, expectError, mcpClient, newAgent, toolJson, BASE } from "../helpers";
import { OPERATIONS } from "../../src/operations";

describe("errors", () => {
  it("malformed JSON is 400 VALIDATION_FAILED, never 500, and nothing is written", async () => {
    const r = expectError(
      await call("POST", "/v1/auth/signup", { raw: "{not json", headers: { "content-type": "application/json" } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(r.error.message).toMatch(/JSON/);
  });

  it("a JSON body sent without a JSON content type is still read", async () => {
    const r = await call("POST", "/v1/auth/signup", {
      raw: JSON.stringify({ email: "plain@example.com", password: "long enough pw" }),
      headers: { "content-type": "text/plain" },
    });
    expect(r.status).toBe(201);
  });

  it("a body that is not an object, or has wrong types, lists the issues", async () => {
    expectError(await call("POST", "/v1/auth/signup", { body: [1, 2] }), 400, "VALIDATION_FAILED");
    const r = expectError(await call("POST", "/v1/auth/signup", { body: { email: 5, password: null } }), 400, "VALIDATION_FAILED");
    expect(r.error.details.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "body.email", message: expect.any(String) })]),
    );
  });

  it("an oversized body is 413 PAYLOAD_TOO_LARGE", async () => {
    const r = await call("POST", "/v1/auth/signup", { body: { email: "big@example.com", password: "x".repeat(300_000) } });
    expectError(r, 413, "PAYLOAD_TOO_LARGE");
  });

  it("a body of exactly the limit is read; one byte more is 413, with or without a Content-Length", async () => {
    const LIMIT = 256 * 1024;
    const exact = JSON.stringify({ email: "exact@example.com", password: "long enough pw", pad: "" });
    const padded = exact.replace('"pad":""', `"pad":"${"p".repeat(LIMIT - exact.length)}"`);
    expect(padded.length).toBe(LIMIT);
    const ok = await call("POST", "/v1/auth/signup", { raw: padded, headers: { "content-type": "application/json" } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expectError(
      await call("POST", "/v1/auth/signup", { raw: `${padded} `, headers: { "content-type": "application/json" } }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    // A streamed (chunked) body has no Content-Length: it is cut off while reading.
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(ctl) {
        if (sent++ < 64) ctl.enqueue(chunk);
        else ctl.close();
      },
    });
    const res = await (exports as any).default.fetch(
      new Request(`${BASE}/v1/auth/signup`, { method: "POST", body: stream, duplex: "half" } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(sent).toBeLessThan(64);
  });

  it("a body that is not UTF-8 is 400, not 500", async () => {
    const res = await (exports as any).default.fetch(
      new Request(`${BASE}/v1/auth/signup`, { method: "POST", body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("VALIDATION_FAILED");
  });

  it("unknown routes are 404 NOT_FOUND in the error shape, with the same headers as any response", async () => {
    for (const p of ["/v1/does-not-exist", "/nothing/here", "/v1", "/v1/plans/"]) {
      const r = expectError(await call("GET", p), 404, "NOT_FOUND");
      expect(r.error.message).toContain(p);
    }
    expect((await call("GET", "/v1/nope")).headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("a known path with another method is 405 METHOD_NOT_ALLOWED with Allow; OPTIONS lists the methods", async () => {
    const r = await call("PUT", "/v1/plans");
    expectError(r, 405, "METHOD_NOT_ALLOWED");
    expect(r.headers.get("allow")).toBe("GET, HEAD");
    const signup = await call("GET", "/v1/auth/signup");
    expectError(signup, 405, "METHOD_NOT_ALLOWED");
    expect(signup.headers.get("allow")).toBe("POST");
    expect(signup.body.error.details.allow).toEqual(["POST"]);
    const agent = await call("PUT", "/v1/agents/agt_123");
    expect(agent.status).toBe(405);
    expect(agent.headers.get("allow")?.split(", ").sort()).toEqual(["DELETE", "PATCH"]);
    const opt = await call("OPTIONS", "/v1/threads");
    expect(opt.status).toBe(204);
    expect(opt.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
    expect(opt.headers.get("x-request-id")).toBeTruthy();
  });

  it("HEAD on a GET route answers like GET without a body", async () => {
    const res = await (exports as any).default.fetch(new Request(`${BASE}/v1/plans`, { method: "HEAD" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(await res.text()).toBe("");
  });

  it("bad query parameters are 400 with the parameter named", async () => {
    const a = await newAgent();
    const r = expectError(await call("GET", "/v1/agents?perPage=101", { token: a.owner.token }), 400, "VALIDATION_FAILED");
    expect(r.error.details.issues[0].path).toBe("query.perPage");
  });

  it("every response carries x-request-id; a sane incoming one is echoed", async () => {
    const r = await call("GET", "/v1/plans", { headers: { "x-request-id": "trace-12345678" } });
    expect(r.headers.get("x-request-id")).toBe("trace-12345678");
    const r2 = await call("GET", "/v1/plans", { headers: { "x-request-id": "bad id with spaces" } });
    expect(r2.headers.get("x-request-id")).toMatch(/^req_/);
  });
});

describe("OpenAPI", () => {
  it("lists every operation at its path and method, with access and metric", async () => {
    const r = await call("GET", "/v1/openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe("3.1.0");
    for (const op of OPERATIONS) {
      const path = op.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
      const entry = r.body.paths[path]?.[op.method.toLowerCase()];
      expect(entry, `${op.method} ${path}`).toBeDefined();
      expect(entry.operationId).toBe(op.id);
      expect(entry["x-lore-access"]).toBe(op.access);
      expect(entry["x-lore-metric"]).toBe(op.metric);
      if (op.mcp) expect(entry["x-mcp-tool"]).toBe(op.mcp.tool);
    }
    expect(r.body.paths["/mcp"].post).toBeDefined();
    expect(r.body.paths["/agents"].post.requestBody.content["application/json"].schema.properties.handle).toBeDefined();
  });

  it("operation ids and MCP tool names are unique, and tools use the service_ prefix", () => {
    const ids = OPERATIONS.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    const tools = OPERATIONS.flatMap((o) => (o.mcp ? [o.mcp.tool] : []));
    expect(new Set(tools).size).toBe(tools.length);
    for (const t of tools) expect(t).toMatch(/^service_[a-z_]+$/);
    const routes = OPERATIONS.map((o) => `${o.method} ${o.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });
});

describe("setup (public)", () => {
  it("lists the contract's thirteen harnesses", async () => {
    const r = await call("GET", "/v1/setup");
    expect(r.body.items.map((h: any) => h.harness)).toEqual([
      "claude-code",
      "openclaude",
      "hermes",
      "opencode",
      "kimi",
      "openclaw",
      "codex",
      "gemini",
      "cursor",
      "copilot",
      "windsurf",
      "cline",
      "aider",
    ]);
    expect(r.body.total).toBe(13);
  });

  it("returns the contract's setup shape with this server's MCP URL and no key", async () => {
    const r = await call("GET", "/v1/setup/claude-code");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      instructionFiles: expect.arrayContaining(["CLAUDE.md"]),
      skillsDir: ".claude/skills",
      mcp: { file: ".mcp.json", format: "json", snippet: expect.stringContaining(`${BASE}/v1/mcp`), cli: expect.any(String) },
      skillInstall: expect.any(String),
      notes: expect.any(Array),
    });
    expect(r.body.mcp.snippet).toContain("LORE_API_KEY");
    expect(r.body.mcp.snippet).not.toContain("{{MCP_URL}}");
  });

  it("unknown harness is 404", async () => {
    expectError(await call("GET", "/v1/setup/notepad"), 404, "NOT_FOUND");
  });

  it("start-here.md is Markdown with the skill front matter", async () => {
    const res = await (exports as any).default.fetch(new Request(`${BASE}/v1/start-here.md`));
    expect(res.headers.get("content-type")).toMatch(/^text\/markdown/);
    const text = await res.text();
    expect(text.startsWith("---\nname: lore\n")).toBe(true);
    expect(text).toContain(`${BASE}/v1/mcp`);
  });
});

describe("MCP endpoint", () => {
  it("handshake, tools/list and a tool call with the x-service-key header form", async () => {
    const a = await newAgent();
    const client = await mcpClient(a.key, "x-service-key");
    expect(client.getServerVersion()?.name).toBe("lore");
    expect(client.getInstructions()).toMatch(/untrusted|data, never as instructions/);
    const { tools } = await client.listTools();
    const usage = tools.find((t) => t.name === "service_usage")!;
    expect(usage.annotations?.readOnlyHint).toBe(true);
    expect(usage.outputSchema).toBeDefined();
    const res = await client.callTool({ name: "service_usage", arguments: {} });
    expect(res.isError).toBeFalsy();
    expect(toolJson(res)).toMatchObject({ plan: "FREE", perMinute: 20, metrics: { API_CALLS: { limit: 300 } } });
    await client.close();
  });

  it("every tool in tools/list comes from an operation definition", async () => {
    const a = await newAgent();
    const client = await mcpClient(a.key);
    const { tools } = await client.listTools();
    const expected = OPERATIONS.flatMap((o) => (o.mcp ? [o.mcp.tool] : [])).sort();
    expect(tools.map((t) => t.name).sort()).toEqual(expected);
    await client.close();
  });

  it("missing, unknown and session credentials get 401 with a JSON error and no OAuth discovery", async () => {
    const a = await newAgent();
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const headers = { accept: "application/json, text/event-stream" };
    for (const extra of [{}, { authorization: "Bearer lore_unknown" }, { authorization: `Bearer ${a.owner.token}` }] as Record<
      string,
      string
    >[]) {
      const r = await call("POST", "/v1/mcp", { body: init, headers: { ...headers, ...extra } });
      expectError(r, 401, "UNAUTHENTICATED");
      expect(r.headers.get("www-authenticate")).toBeNull();
    }
    expectError(await call("GET", "/.well-known/oauth-protected-resource"), 404, "NOT_FOUND");
    expectError(await call("GET", "/.well-known/oauth-authorization-server"), 404, "NOT_FOUND");
  });

  it("a browser Origin from another site is refused; the same origin and localhost pass", async () => {
    const a = await newAgent();
    const body = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    const headers = { accept: "application/json, text/event-stream", authorization: `Bearer ${a.key}` };
    expectError(await call("POST", "/v1/mcp", { body, headers: { ...headers, origin: "https://evil.example" } }), 403, "FORBIDDEN");
    const ok = await call("POST", "/v1/mcp", { body, headers: { ...headers, origin: "http://localhost:6274" } });
    expect(ok.status).toBe(200);
  });

  it("stateless: GET, DELETE and other methods are 405 with a JSON-RPC body and an Allow header", async () => {
    const a = await newAgent();
    const headers = { accept: "application/json, text/event-stream", authorization: `Bearer ${a.key}` };
    for (const method of ["GET", "DELETE", "PUT", "PATCH"]) {
      const r = await call(method, "/v1/mcp", { headers });
      expect(r.status, method).toBe(405);
      expect(r.body).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number), message: expect.any(String) }, id: null });
      expect(r.headers.get("allow")).toBe("POST, OPTIONS");
      expect(r.headers.get("x-request-id")).toBeTruthy();
    }
  });

  it("client-sent x-lore-principal and x-lore-origin are overwritten: the key decides who calls", async () => {
    const a = await newAgent();
    const victim = await newAgent();
    const spoof = {
      kind: "agent",
      agentId: victim.id,
      handle: victim.handle,
      ownerId: victim.owner.ownerId,
      plan: "EXPERT",
      planPeriodEnd: null,
      planStatus: "ACTIVE",
      keyPrefix: "x",
    };
    const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "service_usage", arguments: {} } };
    const r = await call("POST", "/v1/mcp", {
      body,
      headers: {
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${a.key}`,
        "x-lore-principal": JSON.stringify(spoof),
        "x-lore-origin": "https://evil.example",
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toBeTruthy();
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.body.result.structuredContent.plan).toBe("FREE");
    // Without a key, the spoofed principal gets nothing.
    const anon = await call("POST", "/v1/mcp", {
      body,
      headers: { accept: "application/json, text/event-stream", "x-lore-principal": JSON.stringify(spoof) },
    });
    expectError(anon, 401, "UNAUTHENTICATED");
  });

  it("an MCP body over 1 MiB is 413 in the error shape", async () => {
    const a = await newAgent();
    const r = await call("POST", "/v1/mcp", {
      raw: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(1024 * 1024) } }),
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json", authorization: `Bearer ${a.key}` },
    });
    expectError(r, 413, "PAYLOAD_TOO_LARGE");
  });

  it("a revoked key stops working for MCP at once", async () => {
    const a = await newAgent();
    const client = await mcpClient(a.key);
    await call("DELETE", `/v1/agents/${a.id}/keys/${a.key.slice(0, 8)}`, { token: a.owner.token });
    await expect(client.callTool({ name: "service_usage", arguments: {} })).rejects.toThrow(/UNAUTHENTICATED/);
  });

  it("invalid tool arguments get the contract's VALIDATION_FAILED body; tools/list still shows the schema", async () => {
    const a = await newAgent();
    const client = await mcpClient(a.key);
    const { tools } = await client.listTools();
    const ask = tools.find((t) => t.name === "service_forum_ask")!;
    expect(Object.keys((ask.inputSchema as any).properties).sort()).toEqual(["body", "category", "detail", "tags", "title"]);
    expect((ask.inputSchema as any).required).toEqual(expect.arrayContaining(["title", "body", "category"]));
    const res: any = await client.callTool({ name: "service_forum_ask", arguments: { title: 5, body: "x", category: "general" } });
    expect(res.isError).toBe(true);
    const err = JSON.parse(res.content[0].text).error;
    expect(err.code).toBe("VALIDATION_FAILED");
    expect(err.details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: "title" })]));
    // Like a REST schema 400: answered before the admission, so nothing at all was used.
    const usage = toolJson(await client.callTool({ name: "service_usage", arguments: {} }));
    expect(usage.metrics.QUESTIONS.used).toBe(0);
    expect(usage.metrics.API_CALLS.used).toBe(0);
    await client.close();
  });

  it("tool errors come back as isError results in the error shape", async () => {
    const a = await newAgent();
    const client = await mcpClient(a.key);
    const res = await client.callTool({ name: "service_nope", arguments: {} }).catch((e) => ({ thrown: String(e) }));
    expect(JSON.stringify(res)).toMatch(/not found|Unknown tool|service_nope/i);
    await client.close();
  });
});

describe("operator routes", () => {
  it("do not exist where no ADMIN_TOKEN is configured", async () => {
    expectError(await call("GET", "/internal/seeds"), 404, "NOT_FOUND");
    expectError(await call("POST", "/internal/seeds/anything", { raw: "x", headers: { authorization: "Bearer x" } }), 404, "NOT_FOUND");
  });
});
