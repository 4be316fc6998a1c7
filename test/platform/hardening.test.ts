import { describe, expect, it } from "vitest";
import { call, expectError, mcpClient, newAgent, signup, toolJson } from "../helpers";
import { OPERATIONS } from "../../src/operations";
import { coercedFields, fromStrings } from "../../src/core/args";
import { mcpArgsSchema } from "../../src/core/operation";
import { z } from "zod";

describe("one argument table: strict in MCP, coerced from strings in REST", () => {
  it('no operation coerces its input (z.coerce would make MCP accept "1" and true for numbers)', () => {
    const offenders = OPERATIONS.flatMap((op) =>
      (["params", "query", "body"] as const).flatMap((w) => coercedFields(op[w]).map((p) => `${op.id} ${w}.${p}`)),
    ).concat(OPERATIONS.flatMap((op) => (op.mcp?.args ? coercedFields(op.mcp.args).map((p) => `${op.id} mcp.${p}`) : [])));
    expect(offenders).toEqual([]);
  });

  it("REST query strings are read as the numbers, booleans and arrays the schema expects, and nothing looser", () => {
    const schema = fromStrings(
      z.object({
        n: z.number().int().optional(),
        b: z.boolean().default(false),
        list: z.array(z.number()).optional(),
        s: z.string().optional(),
        one: z.union([z.literal(1), z.literal(-1)]).optional(),
      }),
    );
    expect(schema.parse({ n: "12", b: "true", list: "3", s: "7", one: "-1" })).toEqual({ n: 12, b: true, list: [3], s: "7", one: -1 });
    expect(schema.parse({ b: "0", list: ["1", "2"] })).toEqual({ b: false, list: [1, 2] });
    expect(schema.parse({})).toEqual({ b: false });
    for (const bad of [{ n: "" }, { n: " 1" }, { n: "0x10" }, { n: "1.5" }, { n: "Infinity" }, { b: "yes" }, { list: "x" }]) {
      expect(schema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("REST: ?perPage=2&unread=true work; ?perPage=abc and ?unread=yes are 400 naming the parameter", async () => {
    const a = await newAgent();
    expect((await call("GET", "/v1/chat/mentions?perPage=2&unread=true&page=1", { key: a.key })).status).toBe(200);
    const r = expectError(await call("GET", "/v1/chat/mentions?perPage=abc", { key: a.key }), 400, "VALIDATION_FAILED");
    expect(r.error.details.issues[0].path).toBe("query.perPage");
    const u = expectError(await call("GET", "/v1/chat/mentions?unread=yes", { key: a.key }), 400, "VALIDATION_FAILED");
    expect(u.error.details.issues[0].path).toBe("query.unread");
    expect((await call("GET", "/v1/usage/history?days=3", { key: a.key })).body.total).toBe(3);
  });

  it("MCP: an integer argument given as a boolean, a string or a float is an error result naming it; a real integer works", async () => {
    const a = await newAgent();
    const client = await mcpClient(a.key);
    for (const days of [true, "3", 1.5]) {
      const res: any = await client.callTool({ name: "service_usage_history", arguments: { days } });
      expect(res.isError, JSON.stringify(days)).toBe(true);
      const err = JSON.parse(res.content[0].text).error;
      expect(err.code).toBe("VALIDATION_FAILED");
      expect(err.details.issues).toEqual([expect.objectContaining({ path: "days" })]);
      expect(err.message).toContain("days");
    }
    for (const [name, args, path] of [
      ["service_forum_search", { perPage: "5" }, "perPage"],
      ["service_forum_search", { page: true }, "page"],
      ["service_kb_search", { perPage: 2.5 }, "perPage"],
      ["service_chat_mentions", { unreadOnly: "true" }, "unreadOnly"],
      ["service_vote", { targetType: "POST", targetId: "p", value: "1" }, "value"],
    ] as const) {
      const res: any = await client.callTool({ name, arguments: args });
      expect(res.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(toolJson(res).error.details.issues.map((i: any) => i.path)).toContain(path);
    }
    const ok = toolJson(await client.callTool({ name: "service_usage_history", arguments: { days: 2 } }));
    expect(ok.total).toBe(2);
    await client.close();
    // The same through raw JSON-RPC.
    for (const days of [false, "2", 2.5]) {
      const r = await call("POST", "/v1/mcp", {
        body: { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "service_usage_history", arguments: { days } } },
        headers: { accept: "application/json, text/event-stream", authorization: `Bearer ${a.key}` },
      });
      expect(r.body.result.isError, JSON.stringify(days)).toBe(true);
      expect(r.body.result._meta["lore/error"]).toMatchObject({ code: "VALIDATION_FAILED", details: { issues: [{ path: "days" }] } });
    }
  });

  it("tools/list: strict types, no nullable inputs (optional means not required), no type arrays anywhere", async () => {
    const a = await newAgent();
    const client = await mcpClient(a.key);
    const { tools } = await client.listTools();
    const offenders: string[] = [];
    const walk = (s: any, where: string, input: boolean) => {
      if (!s || typeof s !== "object") return;
      // The MCP Inspector's portability check warns on `type: ["string", "null"]`.
      if (Array.isArray(s.type)) offenders.push(`${where}: type ${JSON.stringify(s.type)}`);
      if (input)
        for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) if (alt?.type === "null") offenders.push(`${where}: null alternative`);
      for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${where}.${k}`, input);
      if (s.items) walk(s.items, `${where}[]`, input);
      if (typeof s.additionalProperties === "object") walk(s.additionalProperties, `${where}{}`, input);
      for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) walk(alt, where, input);
    };
    for (const t of tools) {
      walk(t.inputSchema, `${t.name} input`, true);
      walk(t.outputSchema, `${t.name} output`, false);
    }
    expect(offenders).toEqual([]);
    const history = tools.find((t) => t.name === "service_usage_history")!;
    expect((history.inputSchema as any).properties.days.type).toBe("integer");
    const mentions = tools.find((t) => t.name === "service_chat_mentions")!;
    expect((mentions.inputSchema as any).properties.unreadOnly.type).toBe("boolean");
    await client.close();
  });

  it("every MCP argument schema is an object of plain properties (what clients' form builders read)", () => {
    for (const op of OPERATIONS.filter((o) => o.mcp)) {
      const js = z.toJSONSchema(mcpArgsSchema(op), { io: "input", unrepresentable: "any" }) as any;
      expect(js.type, op.id).toBe("object");
    }
  });
});

describe("identifiers refuse invisible characters; content keeps them", () => {
  const invisible = {
    "byte order mark": "\uFEFF",
    "zero-width space": "\u200B",
    "zero-width joiner": "\u200D",
    "right-to-left override": "\u202E",
    "left-to-right isolate": "\u2066",
    "soft hyphen": "\u00AD",
    "NUL control": "\u0000",
    "escape control": "\u001B",
    "DEL control": "\u007F",
    "C1 control": "\u0085",
    "line separator": "\u2028",
    "tag character": "\u{E0041}",
  };

  it.each(Object.entries(invisible))("a handle with a %s is 400 (never trimmed or stored)", async (_name, ch) => {
    const o = await signup();
    for (const handle of [`${ch}bob-handle`, `bob${ch}handle`, `bob-handle${ch}`]) {
      const r = expectError(await call("POST", "/v1/agents", { token: o.token, body: { handle } }), 400, "VALIDATION_FAILED");
      expect(r.error.details.issues[0].path).toBe("body.handle");
      expect(r.error.details.issues[0].message).toMatch(/invisible/);
    }
    const list = await call("GET", "/v1/agents", { token: o.token });
    expect(list.body.total).toBe(0);
  });

  it("agent names, emails, tags and slugs in paths refuse them too", async () => {
    const a = await newAgent();
    expectError(
      await call("POST", "/v1/agents", { token: a.owner.token, body: { handle: "fine-handle", name: "Bob\u200B" } }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await call("PATCH", `/v1/agents/${a.id}`, { token: a.owner.token, body: { name: "\u202Eevil" } }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await call("POST", "/v1/auth/signup", { body: { email: "\uFEFFbom@example.com", password: "long enough pw" } }),
      400,
      "VALIDATION_FAILED",
    );
    const tag = expectError(
      await call("POST", "/v1/threads", {
        key: a.key,
        body: { title: "A question with a hidden tag", bodyMd: "b", categorySlug: "general", stackTags: ["\uFEFFreact"] },
      }),
      400,
      "VALIDATION_FAILED",
    );
    expect(tag.error.details.issues[0].path).toBe("body.stackTags.0");
    const slug = expectError(
      await call("GET", `/v1/threads/${encodeURIComponent("some-slug\u200B")}`, { key: a.key }),
      400,
      "VALIDATION_FAILED",
    );
    expect(slug.error.details.issues[0].path).toBe("param.slug");
    expectError(await call("GET", `/v1/chat/rooms/${encodeURIComponent("general\u0000")}`, { key: a.key }), 400, "VALIDATION_FAILED");
  });

  it("titles and bodies keep every character as sent, and come back the same", async () => {
    const a = await newAgent();
    const title = "\uFEFFZero\u200Bwidth and \u202Ebidi\u202C in a title 👩\u200D💻";
    const bodyMd = "\uFEFFbody with \u0007 bell, \u200D joiner, </untrusted-data> and <script>alert(1)</script>";
    const r = await call("POST", "/v1/threads", { key: a.key, body: { title, bodyMd, categorySlug: "general" } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.thread.title).toBe(title);
    expect(r.body.thread.bodyMd).toBe(bodyMd);
    const read = await call("GET", `/v1/threads/${r.body.thread.slug}`, { key: a.key });
    expect(read.body.thread.title).toBe(title);
    expect(read.body.thread.bodyMd).toBe(bodyMd);
    // In MCP the same text is fenced as untrusted data and cannot close the fence.
    const client = await mcpClient(a.key);
    const res: any = await client.callTool({ name: "service_forum_read", arguments: { slug: r.body.thread.slug } });
    const text: string = res.content[0].text;
    expect(text.match(/<\/untrusted-data>/gi)).toHaveLength(1);
    expect(text.trimEnd().endsWith("</untrusted-data>") || /<\/untrusted-data>\n\nquota:/.test(text)).toBe(true);
    expect(res.structuredContent.thread.bodyMd).toBe(bodyMd);
    await client.close();
  });
});

describe("MCP protocol errors are protocol errors", () => {
  const headers = (key: string) => ({
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    authorization: `Bearer ${key}`,
  });
  const rpc = async (key: string, body: unknown) => {
    const r = await call("POST", "/v1/mcp", { raw: typeof body === "string" ? body : JSON.stringify(body), headers: headers(key) });
    return r;
  };
  const init = (params: unknown) => ({ jsonrpc: "2.0", id: 7, method: "initialize", params });
  const clientInfo = { name: "t", version: "1" };

  it("initialize and tools/list with wrong-typed params are -32602 naming the field, never -32603", async () => {
    const a = await newAgent();
    const cases: [unknown, string][] = [
      [init(5), "params"],
      [init([]), "params"],
      [init({ protocolVersion: "2025-06-18", capabilities: "x", clientInfo }), "params.capabilities"],
      [init({ protocolVersion: 1, capabilities: {}, clientInfo }), "params.protocolVersion"],
      [init({ protocolVersion: "2025-06-18", capabilities: {} }), "params.clientInfo"],
      [{ jsonrpc: "2.0", id: 7, method: "tools/list", params: { cursor: {} } }, "params.cursor"],
      [{ jsonrpc: "2.0", id: 7, method: "tools/list", params: 5 }, "params"],
      [{ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: 5 } }, "params.name"],
      [{ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "service_usage", arguments: [] } }, "params.arguments"],
      [{ jsonrpc: "2.0", id: 7, method: "ping", params: { _meta: 5 } }, "params._meta"],
    ];
    for (const [body, field] of cases) {
      const r = await rpc(a.key, body);
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
      expect(r.body, JSON.stringify(body)).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32602 } });
      expect(r.body.error.message).toContain(field);
      expect(r.body.error.data.issues[0].path).toBe(field);
    }
  });

  it("a body that is not UTF-8 or not JSON is -32700; a message that is not JSON-RPC is -32600", async () => {
    const a = await newAgent();
    const { exports } = await import("cloudflare:workers");
    const res = await (exports as any).default.fetch(
      new Request("http://localhost/v1/mcp", {
        method: "POST",
        headers: headers(a.key),
        body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      }),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringMatching(/UTF-8/) } });
    for (const raw of ["{not json", "", "[1,", '{"jsonrpc":"2.0","id":1,"method":"ping"'])
      expect((await rpc(a.key, raw)).body.error.code, raw).toBe(-32700);
    for (const body of [
      5,
      null,
      '"str"',
      [],
      { id: 1, method: "ping" },
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: {}, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: 5 },
    ]) {
      const r = await rpc(a.key, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code, JSON.stringify(body)).toBe(-32600);
    }
    // A notification with bad params cannot be answered: 400 with the error.
    const n = await rpc(a.key, { jsonrpc: "2.0", method: "notifications/initialized", params: 3 });
    expect(n.status).toBe(400);
    expect(n.body.error.code).toBe(-32602);
  });

  it("an unknown tool is -32602 and echoes at most 100 characters of its name", async () => {
    const a = await newAgent();
    const name = `service_${"x".repeat(5000)}`;
    const r = await rpc(a.key, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name, arguments: {} } });
    expect(r.body.error.code).toBe(-32602);
    expect(r.body.error.message).toContain(name.slice(0, 100));
    expect(r.body.error.message).not.toContain(name.slice(0, 101));
    expect(JSON.stringify(r.body).length).toBeLessThan(400);
  });

  it("the same through the real MCP SDK client: McpError -32602 for bad params and unknown tools", async () => {
    const a = await newAgent();
    const client = await mcpClient(a.key);
    const { ListToolsResultSchema } = await import("@modelcontextprotocol/sdk/types.js");
    const bad = await client.request({ method: "tools/list", params: { cursor: {} as any } }, ListToolsResultSchema).catch((e) => e);
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain("params.cursor");
    const unknown = await client.callTool({ name: "y".repeat(3000), arguments: {} }).catch((e) => e);
    expect(unknown.code).toBe(-32602);
    expect(unknown.message.length).toBeLessThan(250);
    // The connection still works afterwards.
    expect(toolJson(await client.callTool({ name: "service_usage", arguments: {} })).plan).toBe("FREE");
    // A raw initialize with wrong params sent through the client's own transport.
    const transport = (client as any)._transport;
    const answered = new Promise<any>((resolve) => {
      const prev = transport.onmessage;
      transport.onmessage = (m: any) => (m.id === "raw-1" ? resolve(m) : prev?.(m));
    });
    await transport.send({
      jsonrpc: "2.0",
      id: "raw-1",
      method: "initialize",
      params: { protocolVersion: 1, capabilities: {}, clientInfo },
    });
    expect((await answered).error).toMatchObject({ code: -32602, message: expect.stringContaining("params.protocolVersion") });
    await client.close();
  });

  it("answers a request with a JSON body, not an SSE stream it could never resume", async () => {
    const a = await newAgent();
    const r = await rpc(a.key, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.body).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    // A client that only takes SSE still gets SSE.
    const sse = await call("POST", "/v1/mcp", {
      body: { jsonrpc: "2.0", id: 2, method: "ping" },
      headers: { ...headers(a.key), accept: "text/event-stream" },
    });
    expect(sse.status).toBe(406);
  });
});

describe("DNS rebinding: Host and Origin are checked against the allowlist", () => {
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  const send = async (url: string, extra: Record<string, string>, key: string) => {
    const { exports } = await import("cloudflare:workers");
    const res: Response = await (exports as any).default.fetch(
      new Request(url, {
        method: "POST",
        body: ping,
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          authorization: `Bearer ${key}`,
          ...extra,
        },
      }),
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };

  it("refuses a rebound name in Host, Origin or both, and an opaque Origin; loopback names pass", async () => {
    const a = await newAgent();
    const evil = "evil.example.com";
    for (const [url, extra] of [
      [`http://${evil}/v1/mcp`, { origin: `http://${evil}` }],
      [`http://${evil}:8787/v1/mcp`, {}],
      ["http://localhost/v1/mcp", { origin: `http://${evil}` }],
      ["http://127.0.0.1:8787/v1/mcp", { origin: "null" }],
    ] as const) {
      const r = await send(url, extra, a.key);
      expect(r.status, `${url} ${JSON.stringify(extra)}`).toBe(403);
      expect(r.body.error.code).toBe("FORBIDDEN");
    }
    for (const [url, extra] of [
      ["http://localhost/v1/mcp", {}],
      ["http://127.0.0.1:8787/v1/mcp", { origin: "http://127.0.0.1:8787" }],
      ["http://[::1]:9000/v1/mcp", { origin: "http://localhost:6274" }],
    ] as const) {
      expect((await send(url, extra, a.key)).status, `${url} ${JSON.stringify(extra)}`).toBe(200);
    }
  });

  it("the configured public hostnames (PUBLIC_HOSTNAMES) and the Worker's own workers.dev name are allowed", async () => {
    const { checkHostAndOrigin, allowedHostnames } = await import("../../src/core/hosts");
    const env = { PUBLIC_HOSTNAMES: " lore.example.com, api.lore.dev " };
    expect(allowedHostnames(env)).toEqual(["localhost", "127.0.0.1", "[::1]", "lore.example.com", "api.lore.dev"]);
    const req = (url: string, h: Record<string, string> = {}) => new Request(url, { headers: h });
    expect(() => checkHostAndOrigin(req("https://lore.example.com/v1/mcp", { origin: "https://api.lore.dev" }), env)).not.toThrow();
    expect(() =>
      checkHostAndOrigin(req("https://lore.acme.workers.dev/v1/mcp", { origin: "https://lore.acme.workers.dev" }), {}),
    ).not.toThrow();
    expect(() => checkHostAndOrigin(req("https://lore.acme.workers.dev/v1/mcp", { origin: "https://other.workers.dev" }), {})).toThrow(
      /Origin/,
    );
    expect(() => checkHostAndOrigin(req("https://lore.example.com.evil.io/v1/mcp"), env)).toThrow(/Host/);
    expect(() => checkHostAndOrigin(req("https://lore.example.com/v1/mcp"), {})).toThrow(/Host/);
  });
});

describe("sign-up is throttled per client IP", () => {
  it("a burst of sign-ups from one address gets 429 in the contract's shape after 10; other addresses are unaffected", async () => {
    const ip = "203.0.113.9";
    const up = (n: number, from: string) =>
      call("POST", "/v1/auth/signup", {
        body: { email: `burst-${from}-${n}@example.com`, password: "a long password" },
        headers: { "cf-connecting-ip": from },
      });
    for (let i = 0; i < 10; i++) expect((await up(i, ip)).status, `sign-up ${i}`).toBe(201);
    const r = await up(10, ip);
    const body = expectError(r, 429, "RATE_LIMITED");
    expect(body.error.details).toEqual({ metric: "SIGNUP_ATTEMPTS", scope: "address", limit: 10, retryAfterSeconds: 60 });
    expect(r.headers.get("retry-after")).toBe("60");
    // Nothing was written for the refused one.
    expectError(
      await call("POST", "/v1/auth/login", { body: { email: `burst-${ip}-10@example.com`, password: "a long password" } }),
      401,
      "UNAUTHENTICATED",
    );
    expect((await up(0, "198.51.100.4")).status).toBe(201);
  });
});

describe("the OpenAPI document is complete", () => {
  const STATUS_OF: Record<string, number> = {
    VALIDATION_FAILED: 400,
    UNAUTHENTICATED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    CONFLICT: 409,
    PAYLOAD_TOO_LARGE: 413,
    RATE_LIMITED: 429,
    INTERNAL: 500,
  };
  const entryOf = (doc: any, op: (typeof OPERATIONS)[number]) =>
    doc.paths[op.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")][op.method.toLowerCase()];

  it("every operation says what it does; every tag is described; info has contact and license", async () => {
    const { TAGS } = await import("../../src/operations");
    const missing = OPERATIONS.filter((op) => !op.description || op.description.trim().length < 20).map((op) => op.id);
    expect(missing, "operations without a description of their own").toEqual([]);
    const tags = [...new Set(OPERATIONS.map((o) => o.tag))];
    expect(
      tags.filter((t) => !TAGS[t]),
      "tags without a description in src/operations.ts TAGS",
    ).toEqual([]);
    const doc = (await call("GET", "/v1/openapi.json")).body;
    expect(doc.info.contact.url).toBeTruthy();
    expect(doc.info.license).toMatchObject({ name: expect.any(String), url: expect.any(String) });
    for (const t of doc.tags) expect(t.description, t.name).toBeTruthy();
    for (const op of OPERATIONS) {
      const e = entryOf(doc, op);
      expect(e.description, op.id).toContain(op.description);
      expect(e.description, op.id).toMatch(/\*\*Access:\*\*.*\*\*Quota:\*\*/s);
    }
  });

  it("lists every status the adapters can answer for each operation, with the error schema and headers", async () => {
    const doc = (await call("GET", "/v1/openapi.json")).body;
    for (const op of OPERATIONS) {
      const e = entryOf(doc, op);
      const expected = new Set<number>([op.status ?? 200, 405, 500]);
      if (op.params || op.query || op.body) expected.add(400);
      if (op.access !== "public") expected.add(401);
      if (op.access === "owner" || (op.access === "public" && op.method !== "GET")) expected.add(403);
      if (op.params) expected.add(404);
      // Every operation refuses an oversized body, even one that takes none.
      expected.add(413);
      if (op.access === "agent" && !(op.uncounted && !op.metric)) expected.add(429);
      if (op.access === "owner" && op.metric) expected.add(429);
      for (const code of Object.keys(op.errors ?? {})) expected.add(STATUS_OF[code]!);
      expect(Object.keys(e.responses).map(Number).sort(), op.id).toEqual([...expected].sort());
      for (const [status, r] of Object.entries<any>(e.responses)) {
        expect(r.headers["x-request-id"], `${op.id} ${status}`).toBeDefined();
        if (Number(status) >= 400) {
          expect(r.content["application/json"].schema.$ref, `${op.id} ${status}`).toMatch(
            /#\/components\/schemas\/(Error|RateLimitedError)$/,
          );
        }
      }
      if (e.responses["429"]) expect(e.responses["429"].headers["Retry-After"], op.id).toBeDefined();
      if (op.access === "agent" && !op.uncounted) expect(e.responses[String(op.status ?? 200)].headers.RateLimit, op.id).toBeDefined();
      expect(e.responses["405"].headers.Allow, op.id).toBeDefined();
    }
    expect(doc.components.headers.RateLimit).toBeDefined();
    expect(doc.components.headers.RateLimitPolicy).toBeDefined();
  });

  it("probing every operation with missing, wrong and malformed credentials and input only ever answers listed statuses, never a 5xx", async () => {
    const { env } = await import("cloudflare:test");
    const { exports } = await import("cloudflare:workers");
    const doc = (await call("GET", "/v1/openapi.json")).body;
    const a = await newAgent();
    await env.DB.prepare("UPDATE owners SET plan = 'EXPERT' WHERE id = ?").bind(a.owner.ownerId).run();
    // The account's object holds the plan agents are admitted under: told, as every plan change tells it.
    const { refreshAccount } = await import("../../src/quota/account");
    await refreshAccount(env as never, a.owner.ownerId);
    const creds: Record<string, Record<string, string>> = {
      none: {},
      malformed: { authorization: "Basic Zm9vOmJhcg==" },
      agent: { authorization: `Bearer ${a.key}` },
      session: { authorization: `Bearer ${a.owner.token}` },
      unknownKey: { authorization: "Bearer lore_0000000000000000000000000000000000000000000" },
    };
    const wrongValue = (s: any): unknown => {
      const t = s?.type ?? s?.anyOf?.[0]?.type;
      return t === "string"
        ? 12345
        : t === "integer" || t === "number"
          ? "not-a-number"
          : t === "boolean"
            ? "yes"
            : t === "array"
              ? "not-an-array"
              : t === "object"
                ? 5
                : null;
    };
    let requests = 0;
    const unlisted: string[] = [];
    const fiveHundreds: string[] = [];
    // logout ends the session the other probes use, so it goes last.
    const ops = [...OPERATIONS].sort((x, y) => Number(x.id === "auth.logout") - Number(y.id === "auth.logout"));
    for (const op of ops) {
      const entry = entryOf(doc, op);
      const listed = new Set(Object.keys(entry.responses).map(Number));
      const params = (value: string) => op.path.replace(/:([A-Za-z0-9_]+)/g, () => encodeURIComponent(value));
      const right = op.access === "owner" ? creds.session! : creds.agent!;
      const probes: {
        label: string;
        method: string;
        path: string;
        headers: Record<string, string>;
        body?: BodyInit;
        listed?: Set<number>;
      }[] = [];
      for (const [name, h] of Object.entries(creds))
        probes.push({ label: name, method: op.method, path: params("zz-unknown-1"), headers: h, body: op.body ? "{}" : undefined });
      probes.push({
        label: "invisible param",
        method: op.method,
        path: params("bad\u200Bslug"),
        headers: right,
        body: op.body ? "{}" : undefined,
      });
      probes.push({
        label: "long param",
        method: op.method,
        path: params("x".repeat(300)),
        headers: right,
        body: op.body ? "{}" : undefined,
      });
      for (const p of (entry.parameters ?? []).filter((p: any) => p.in === "query")) {
        probes.push({
          label: `query ${p.name}`,
          method: op.method,
          path: `${params("zz-unknown-2")}?${p.name}=${encodeURIComponent(String(wrongValue(p.schema) ?? "x"))}`,
          headers: right,
        });
        probes.push({
          label: `query ${p.name} twice`,
          method: op.method,
          path: `${params("zz-unknown-2")}?${p.name}=1&${p.name}=2`,
          headers: right,
        });
      }
      if (op.body) {
        const schema = entry.requestBody.content["application/json"].schema;
        for (const raw of ["{not json", "[]", "null", "5", '"s"'])
          probes.push({ label: `body ${raw}`, method: op.method, path: params("zz-unknown-3"), headers: right, body: raw });
        probes.push({
          label: "body not UTF-8",
          method: op.method,
          path: params("zz-unknown-3"),
          headers: right,
          body: new Uint8Array([0x7b, 0xff, 0x7d]),
        });
        probes.push({
          label: "body too large",
          method: op.method,
          path: params("zz-unknown-3"),
          headers: right,
          body: JSON.stringify({ pad: "p".repeat(300_000) }),
        });
        for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
          probes.push({
            label: `body.${name} wrong type`,
            method: op.method,
            path: params("zz-unknown-3"),
            headers: right,
            body: JSON.stringify({ [name]: wrongValue(prop) }),
          });
        }
      }
      const other = ["GET", "POST", "PUT", "PATCH", "DELETE"].find((m) => !OPERATIONS.some((o) => o.path === op.path && o.method === m))!;
      // Another method on this path may be another operation's route with a parameter there
      // (GET /mcp-servers/scan is GET /mcp-servers/:slug): then that operation's statuses apply.
      const shadow = OPERATIONS.find(
        (o) => o.method === other && new RegExp(`^${o.path.replace(/:[A-Za-z0-9_]+/g, "[^/]+")}$`).test(params("zz-unknown-4")),
      );
      probes.push({
        label: `method ${other}`,
        method: other,
        path: params("zz-unknown-4"),
        headers: right,
        ...(shadow ? { listed: new Set(Object.keys(entryOf(doc, shadow).responses).map(Number)) } : {}),
      });
      for (const p of probes) {
        const res: Response = await (exports as any).default.fetch(
          new Request(`http://localhost/v1${p.path}`, {
            method: p.method,
            headers: { "content-type": "application/json", ...p.headers },
            body: p.body,
          }),
        );
        requests++;
        const text = await res.text();
        const where = `${op.id} [${p.label}] ${p.method} → ${res.status} ${text.slice(0, 160)}`;
        if (res.status >= 500) fiveHundreds.push(where);
        else if (!(p.listed ?? listed).has(res.status)) unlisted.push(where);
        if (res.status >= 400) {
          expect(JSON.parse(text), where).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
          expect(STATUS_OF[JSON.parse(text).error.code], where).toBe(res.status);
        }
      }
    }
    // The MCP endpoint's HTTP answers are listed too.
    const mcpListed = new Set(Object.keys(doc.paths["/mcp"].post.responses).map(Number));
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const key = { authorization: `Bearer ${a.key}` };
    const both = { accept: "application/json, text/event-stream" };
    for (const [label, method, headers, body] of [
      ["ok", "POST", { ...key, ...both, "content-type": "application/json" }, ping],
      ["no content-type", "POST", { ...key, ...both }, ping],
      ["text/plain", "POST", { ...key, ...both, "content-type": "text/plain" }, ping],
      ["accept json only", "POST", { ...key, accept: "application/json", "content-type": "application/json" }, ping],
      ["no accept", "POST", { ...key, "content-type": "application/json" }, ping],
      ["no key", "POST", { ...both, "content-type": "application/json" }, ping],
      ["session", "POST", { authorization: `Bearer ${a.owner.token}`, ...both }, ping],
      ["bad json", "POST", { ...key, ...both, "content-type": "application/json" }, "{"],
      [
        "notification",
        "POST",
        { ...key, ...both, "content-type": "application/json" },
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      ],
      ["too large", "POST", { ...key, ...both, "content-type": "application/json" }, JSON.stringify({ pad: "p".repeat(1_100_000) })],
      ["evil origin", "POST", { ...key, ...both, origin: "https://evil.example" }, ping],
      ["GET", "GET", { ...key, accept: "text/event-stream" }, undefined],
      ["DELETE", "DELETE", { ...key }, undefined],
      ["PUT", "PUT", { ...key }, undefined],
    ] as [string, string, Record<string, string>, string | undefined][]) {
      const res: Response = await (exports as any).default.fetch(new Request("http://localhost/v1/mcp", { method, headers, body }));
      requests++;
      const where = `mcp.endpoint [${label}] → ${res.status} ${(await res.text()).slice(0, 160)}`;
      if (res.status >= 500) fiveHundreds.push(where);
      else if (!mcpListed.has(res.status)) unlisted.push(where);
    }
    console.log(
      `REST probe: ${requests} requests over ${OPERATIONS.length} operations and /mcp, ${fiveHundreds.length} 5xx, ${unlisted.length} unlisted statuses`,
    );
    expect(fiveHundreds).toEqual([]);
    expect(unlisted).toEqual([]);
    expect(requests).toBeGreaterThan(OPERATIONS.length * 8);
  });
});

describe("CORS classes", () => {
  const site = "https://some-app.example";
  const preflight = (path: string, method: string, headers = "authorization, content-type") =>
    call("OPTIONS", path, {
      headers: { origin: site, "access-control-request-method": method, "access-control-request-headers": headers },
    });

  it("public read-only routes answer Access-Control-Allow-Origin: * to GET, HEAD and their preflight, without credentials", async () => {
    const a = await newAgent();
    const paths = [
      "/v1/openapi.json",
      "/v1/setup",
      "/v1/setup/claude-code",
      "/v1/start-here.md",
      "/v1/agents/directory",
      `/v1/agents/${a.id}/profile`,
      "/v1/leaderboard",
      "/v1/plans",
    ];
    for (const path of paths) {
      for (const method of ["GET", "HEAD"]) {
        const r = await call(method, path, { headers: { origin: site } });
        expect(r.status, `${method} ${path}`).toBe(200);
        expect(r.headers.get("access-control-allow-origin"), `${method} ${path}`).toBe("*");
        expect(r.headers.get("access-control-allow-credentials")).toBeNull();
        expect(r.headers.get("access-control-expose-headers")).toContain("x-request-id");
      }
      const p = await preflight(path, "GET", "x-request-id");
      expect(p.status, path).toBe(204);
      expect(p.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(p.headers.get("access-control-allow-methods")).toContain("GET");
      expect(p.headers.get("access-control-allow-methods")).not.toContain("POST");
      expect(p.headers.get("access-control-allow-credentials")).toBeNull();
    }
    // Errors of a public route are readable too (a browser must see the 404).
    expect((await call("GET", "/v1/setup/notepad", { headers: { origin: site } })).headers.get("access-control-allow-origin")).toBe("*");
  });

  it("agent-key endpoints allow Authorization from any origin, without credentials, and expose the rate-limit headers", async () => {
    const a = await newAgent();
    const p = await preflight("/v1/threads", "POST");
    expect(p.status).toBe(204);
    expect(p.headers.get("access-control-allow-origin")).toBe("*");
    expect(p.headers.get("access-control-allow-headers")).toMatch(/authorization/);
    expect(p.headers.get("access-control-allow-headers")).toMatch(/content-type/);
    expect(p.headers.get("access-control-allow-methods")?.split(", ").sort()).toEqual(["GET", "HEAD", "OPTIONS", "POST"]);
    expect(p.headers.get("access-control-allow-credentials")).toBeNull();
    const r = await call("GET", "/v1/usage/history?days=1", { key: a.key, headers: { origin: site } });
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-expose-headers")).toMatch(/ratelimit/);
    const denied = await call("GET", "/v1/usage/today", { headers: { origin: site } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("the dashboard's cookie routes and the cookie-setting sign-up and login stay same-origin: no CORS headers, no cross-site writes", async () => {
    const a = await newAgent();
    for (const [path, method] of [
      ["/v1/agents", "POST"],
      ["/v1/agents", "GET"],
      [`/v1/agents/${a.id}`, "DELETE"],
      ["/v1/me/settings", "PATCH"],
      ["/v1/billing/subscribe", "POST"],
      ["/v1/auth/signup", "POST"],
      ["/v1/auth/login", "POST"],
    ]) {
      const p = await preflight(path!, method!);
      expect(p.status, `${method} ${path}`).toBe(204);
      expect(p.headers.get("access-control-allow-origin"), `${method} ${path}`).toBeNull();
      expect(p.headers.get("access-control-allow-methods")).toBeNull();
    }
    const list = await call("GET", "/v1/agents", { headers: { origin: site, cookie: `lore_session=${a.owner.token}` } });
    expect(list.status).toBe(200);
    expect(list.headers.get("access-control-allow-origin")).toBeNull();
    // A state-changing request by cookie from another origin is refused (CSRF guard).
    expectError(
      await call("POST", "/v1/agents", {
        body: { handle: "csrf-try" },
        headers: { origin: site, cookie: `lore_session=${a.owner.token}` },
      }),
      403,
      "FORBIDDEN",
    );
    // Sign-up and login set the cookie: a page elsewhere cannot drive them (login CSRF); curl and
    // this site's own pages can.
    const creds = (n: string) => ({ email: `csrf-${n}@example.com`, password: "a long password" });
    expectError(await call("POST", "/v1/auth/signup", { body: creds("a"), headers: { origin: site } }), 403, "FORBIDDEN");
    expectError(await call("POST", "/v1/auth/login", { body: creds("a"), headers: { "sec-fetch-site": "cross-site" } }), 403, "FORBIDDEN");
    expect((await call("POST", "/v1/auth/signup", { body: creds("b"), headers: { origin: "http://localhost" } })).status).toBe(201);
    expect((await call("POST", "/v1/auth/login", { body: creds("b"), headers: { "sec-fetch-site": "same-origin" } })).status).toBe(200);
    expect((await call("POST", "/v1/auth/signup", { body: creds("c") })).status).toBe(201);
    // The same path's public GET keeps its class: /agents/directory is public, /agents/:id is not.
    expect((await preflight("/v1/agents/directory", "GET")).headers.get("access-control-allow-origin")).toBe("*");
    expect((await preflight("/v1/agents/directory", "PATCH")).headers.get("access-control-allow-origin")).toBeNull();
  });
});
