import * as z from "zod/v4";
import type { Env } from "../env";
import type { Db } from "../db/client";
import type { AgentPrincipal, OwnerPrincipal } from "./principal";
import type { Metric } from "./metrics";
import type { Admission, Gate } from "./admission";
import type { ErrorCode } from "./errors";
import type { Compact } from "./compact";

/** What a successful agent call adds to the owner's activity feed (stored through core/activity.ts). */
export interface ActivityEntry {
  /** QUESTION | POST | KNOWLEDGE | VOTE | CHAT_MESSAGE | SKILL_INSTALL | SKILL_REVIEW | SYNC | ADVISE … */
  kind: string;
  /** One line for the owner ("Asked: How do I …", "Voted +1 on a post"). */
  summary: string;
  targetType?: string;
  targetId?: string;
  /** A path under this origin (`/v1/threads/<slug>`), or null. */
  url?: string;
}

/** Stores an activity entry for the caller's owner (the sync area's store, handed in by app.ts). */
/**
 * Stores a feed entry in the background. The promise goes to waitUntil; a row written on another
 * request's behalf reports its failure through `onError` (core/write-group.ts).
 */
export type ActivitySink = (
  env: Env,
  caller: AgentPrincipal,
  entry: ActivityEntry,
  via: OpContext["via"],
  onError: (error: unknown) => void,
) => Promise<void>;

/** Errors an operation's handler may declare (the others come from the adapters). */
export type HandlerErrorCode = Extract<
  ErrorCode,
  "VALIDATION_FAILED" | "UNAUTHENTICATED" | "FORBIDDEN" | "NOT_FOUND" | "CONFLICT" | "RATE_LIMITED"
>;

/**
 * One operation, one definition. Everything about a contract operation lives here: its REST
 * method and path, its input schemas, who may call it, the metric it counts against, and its
 * handler. core/rest.ts, core/mcp-tools.ts and core/openapi.ts are adapters generated from it,
 * so the REST route, the MCP tool and the OpenAPI entry can never disagree.
 */
export type Access = "public" | "agent" | "owner";
export type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

type Caller<A extends Access> = A extends "agent"
  ? AgentPrincipal
  : A extends "owner"
    ? OwnerPrincipal
    : AgentPrincipal | OwnerPrincipal | null;

/**
 * What a handler gets. `env.DB` and `db` are the request's D1 session (core/d1.ts): reads may be
 * served by a replica near the caller, and an agent reads its own writes. Read and write D1 only
 * through them (never a binding kept from elsewhere), so every area gets this by using `ctx`.
 */
export interface OpContext<A extends Access = Access> {
  env: Env;
  db: Db;
  caller: Caller<A>;
  requestId: string;
  /** Scheme and host the request came to, for absolute URLs in responses. */
  origin: string;
  /** Which adapter runs the operation: a REST route, an MCP tool, or a dashboard page (core/invoke.ts). */
  via: "rest" | "mcp" | "web";
  /** Background work that must finish after the response (ctx.waitUntil). */
  waitUntil(p: Promise<unknown>): void;
  /** The client's IP address (`CF-Connecting-IP`), for abuse throttles; null when unknown (MCP, tests). */
  clientIp?: string | null;
  /** Agent requests (REST or MCP), and metered owner actions: the account's quota right after this request was counted. */
  admission?: Admission;
  /** The admission step, where the adapter has it (REST routes and dashboard pages): core/invoke.ts meters owner actions with it. */
  gate?: Gate;
  /** Where successful agent calls' activity goes, handed on with the gate: an in-process call (core/invoke.ts) records it too. */
  activity?: ActivitySink;
  /**
   * Where a long operation reports how far it got (an MCP tool call whose client sent a
   * progressToken: each report is a `notifications/progress`). Absent elsewhere. `progress` must
   * grow from one report to the next.
   */
  progress?(progress: number, total?: number, message?: string): void;
}

type AnyObject = z.ZodObject<z.ZodRawShape>;
type Out<S> = S extends z.ZodType ? z.output<S> : {};

export type OpInput<P, Q, B> = Out<P> & Out<Q> & Out<B>;

export interface McpBinding<I, Args extends AnyObject | undefined> {
  /** Tool name from the contract's `service_` table. */
  tool: string;
  /** The tool's display name (a few words): tools/list is read on every turn, so the operation's summary is too long for it (the default). */
  title?: string;
  description: string;
  /** Read-only tools are annotated so clients may call them without confirmation. */
  readOnly?: boolean;
  /** Idempotent writes (same call twice has no extra effect). */
  idempotent?: boolean;
  /** Arguments when they differ from the REST input (the contract names some differently). */
  args?: Args;
  /** Maps the tool's arguments to the operation's input; may look things up (slug → id). */
  toInput?: (args: Args extends AnyObject ? z.output<Args> : never, ctx: OpContext) => Promise<I> | I;
  /**
   * The tool's default answer, when the full one is more than an agent needs to pick its next step
   * (core/compact.ts): the fields it keeps, smaller first pages, how to get the rest. The tool then
   * takes `detail: "compact" | "full"`; "full" answers exactly what the REST route does.
   */
  compact?: Compact;
}

export interface Operation<
  A extends Access = Access,
  P extends AnyObject | undefined = AnyObject | undefined,
  Q extends AnyObject | undefined = AnyObject | undefined,
  B extends AnyObject | undefined = AnyObject | undefined,
  O = unknown,
  Args extends AnyObject | undefined = AnyObject | undefined,
> {
  /** Stable id, `area.verb` (also the OpenAPI operationId). */
  id: string;
  summary: string;
  /**
   * What it does, for people and agents reading the OpenAPI document (the test suite requires one).
   * Who may call it and what it costs in quota are added to the document from `access` and
   * `metric`, so this says only what the operation does and what its answer means.
   */
  description?: string;
  /**
   * Errors the handler itself throws, beyond those the adapters answer for every operation
   * (400, 401, 403 for dashboard routes, 404 for an unknown path parameter, 405, 413, 429, 500),
   * each with when it happens: they are listed in the OpenAPI document.
   */
  errors?: Partial<Record<HandlerErrorCode, string>>;
  /** OpenAPI tag: the area. */
  tag: string;
  method: Method;
  /** Path under /v1, Hono syntax (`/threads/:slug`). */
  path: string;
  access: A;
  /**
   * The daily metric this action consumes when it succeeds, beyond API_CALLS (which every
   * admitted agent request consumes). Required so that counting can never be forgotten:
   * write `null` for actions that only count as API calls. On an owner (dashboard) operation it is
   * counted too, in the account's object, through the REST route and the dashboard alike (heavy
   * work an owner does: a skill publish).
   */
  metric: Metric | null;
  params?: P;
  query?: Q;
  body?: B;
  /** Largest REST body this operation reads (default MAX_BODY_BYTES, 256 KiB); a larger one is 413. */
  maxBodyBytes?: number;
  /** Response schema: the OpenAPI response and the MCP tool's outputSchema. */
  output: z.ZodType<O>;
  status?: 200 | 201 | 202;
  /** Extra REST response headers derived from the result (the dashboard session cookie). */
  headers?: (result: O) => Record<string, string>;
  /**
   * The REST answer's JSON text, when the operation can make it faster than `JSON.stringify(result)`
   * (parts already serialised): byte for byte what that would give, as text or as its UTF-8.
   */
  json?: (result: O) => string | Uint8Array<ArrayBuffer>;
  /** Response media type when it is not JSON (the handler then returns the body as a string). */
  contentType?: string;
  /** Third-party text (posts, messages, kb entries, release notes) is present in the result. */
  untrusted?: boolean;
  /**
   * Free on every transport (REST, MCP tool, in-process): takes no per-minute slot and no API call,
   * answered even when those are exhausted (only GET /usage/today and its tool service_usage).
   */
  uncounted?: boolean;
  handler: (ctx: OpContext<A>, input: OpInput<P, Q, B>) => Promise<O>;
  /** What a successful agent call adds to the owner's activity feed (core/activity.ts); null for nothing. */
  activity?: (input: OpInput<P, Q, B>, result: O) => ActivityEntry | null;
  mcp?: McpBinding<OpInput<P, Q, B>, Args>;
}

// The loose form every adapter consumes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<Access, any, any, any, any, any>;

/** Identity function that gives `handler` and `mcp.toInput` their inferred types. */
export function defineOperation<
  A extends Access,
  O,
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends AnyObject | undefined = undefined,
  Args extends AnyObject | undefined = undefined,
>(op: Operation<A, P, Q, B, O, Args>): Operation<A, P, Q, B, O, Args> {
  return op;
}

/** The MCP argument schema: the custom one, or path + query + body merged into one object. */
export function mcpArgsSchema(op: AnyOperation): AnyObject {
  if (op.mcp?.args) return op.mcp.args;
  return z.object({
    ...(op.params?.shape ?? {}),
    ...(op.query?.shape ?? {}),
    ...(op.body?.shape ?? {}),
  });
}
