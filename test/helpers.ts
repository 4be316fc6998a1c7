import { exports } from "cloudflare:workers";
import { env as testEnv, createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../src/index";
import { refreshAccount } from "../src/quota/account";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";

export const BASE = "http://localhost";

/**
 * A request through the real Worker's fetch (real local D1, R2 and Durable Objects). `env` adds or
 * overrides bindings for this request only (the Stripe configuration, for instance): the Worker's
 * own fetch handler is then called with the test environment plus those values.
 */
export async function call(
  method: string,
  path: string,
  opts: {
    body?: unknown;
    key?: string;
    token?: string;
    headers?: Record<string, string>;
    raw?: string | Uint8Array;
    env?: Record<string, unknown>;
  } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Uint8Array | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const request = new Request(BASE + path, { method, headers, body });
  let res: Response;
  if (opts.env) {
    const ctx = createExecutionContext();
    res = await worker.fetch!(request as any, { ...testEnv, ...opts.env } as any, ctx);
    await waitOnExecutionContext(ctx);
  } else {
    res = await (exports as any).default.fetch(request);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export interface TestOwner {
  token: string;
  ownerId: string;
  email: string;
}
export interface TestAgent {
  id: string;
  handle: string;
  key: string;
  owner: TestOwner;
}

export async function signup(email = `owner-${unique()}@example.com`): Promise<TestOwner> {
  const r = await call("POST", "/v1/auth/signup", { body: { email, password: "correct horse battery" } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { token: r.body.token, ownerId: r.body.owner.id, email };
}

export async function newAgent(owner?: TestOwner, handle = `a${unique()}`.slice(0, 30)): Promise<TestAgent> {
  const o = owner ?? (await signup());
  const r = await call("POST", "/v1/agents", { token: o.token, body: { handle } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.agent.id, handle: r.body.agent.handle, key: r.body.apiKey, owner: o };
}

/** Expects the contract's error shape with this status and code; returns the body. */
/**
 * Puts an account on a plan by writing D1 directly (no billing), then tells the account's
 * AccountQuota object, as every real plan change does (billing.service applySubscriptionState):
 * the object admits under the plan it holds.
 */
export async function setPlanDirect(ownerId: string, plan: string): Promise<void> {
  await testEnv.DB.prepare("UPDATE owners SET plan = ? WHERE id = ?").bind(plan, ownerId).run();
  await refreshAccount(testEnv as never, ownerId);
}

export function expectError(r: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ error: { code, message: expect.any(String) } });
  expect(Object.keys(r.body)).toEqual(["error"]);
  expect(r.headers.get("x-request-id")).toBeTruthy();
  return r.body;
}

/**
 * One POST to /v1/mcp as a Streamable HTTP client sends it (JSON and SSE accepted, the agent key as a
 * bearer token), through the Worker's fetch like `call`; `env` as for `call`.
 */
export const mcpPost = (key: string, body: unknown, opts: { headers?: Record<string, string>; env?: Record<string, unknown> } = {}) =>
  call("POST", "/v1/mcp", {
    raw: JSON.stringify(body),
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      authorization: `Bearer ${key}`,
      ...opts.headers,
    },
    env: opts.env,
  });

/** A real MCP SDK v1 client (what most harnesses speak) connected through the Worker's fetch. */
export async function mcpClient(key: string, header: "bearer" | "x-service-key" = "bearer") {
  const client = new Client({ name: "lore-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/v1/mcp`), {
    requestInit: {
      headers: header === "bearer" ? { authorization: `Bearer ${key}` } : { "x-service-key": key },
    },
    fetch: ((input: RequestInfo | URL, init?: RequestInit) =>
      (exports as any).default.fetch(new Request(input as any, init))) as typeof fetch,
  });
  await client.connect(transport);
  return client;
}

/** The JSON payload of a tool result (the structured content). */
export function toolJson(result: any) {
  if (result.isError) {
    // An untrusted operation's error comes fenced like its results (src/core/untrusted.ts).
    const text: string = result.content[0].text;
    const fenced = /<untrusted-data>\n([\s\S]*)\n<\/untrusted-data>$/.exec(text);
    return { error: JSON.parse(fenced ? fenced[1]! : text).error };
  }
  return result.structuredContent;
}
