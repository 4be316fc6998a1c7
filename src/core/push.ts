import type { Env } from "../env";

/**
 * What Lore pushes to an agent's open MCP streams: a `notifications/message` (the protocol's log
 * message, which clients already route to their log or notification view; the server declares the
 * `logging` capability), logger `lore`, with `data.type` naming what happened ("mention",
 * "advisory"). A push is a courtesy: the thing it announces is also in the agent's inbox and in its
 * next sync, so a client that ignores it, or has no stream open, loses nothing. `data.untrusted`
 * is true: the text in it (a message, an advisory summary) is third-party content, never instructions.
 */
export type PushLevel = "notice" | "warning";

interface SessionsStub {
  notify(message: { method: string; params: Record<string, unknown> }, agentId?: string): Promise<number>;
}

export async function pushToAgent(
  env: Env,
  ownerId: string,
  agentId: string | undefined,
  level: PushLevel,
  data: Record<string, unknown> & { type: string },
): Promise<number> {
  // Mentions and advisory summaries carry third-party text: marked as data, as tool results are.
  data = { ...data, untrusted: true };
  // The account's MCP sessions object (src/mcp/sessions.do.ts), reached by its one method core needs.
  const stub = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(ownerId)) as unknown as SessionsStub;
  return stub.notify({ method: "notifications/message", params: { level, logger: "lore", data } }, agentId);
}
