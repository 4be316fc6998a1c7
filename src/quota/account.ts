import type { Env } from "../env";
import type { AccountQuota } from "./quota.do";

/**
 * The typed way into an account's AccountQuota object; nothing else builds its stubs. env.ts
 * declares the binding without the class (core depends on no area), so the type is given here.
 */
export function accountStub(env: Env, ownerId: string): DurableObjectStub<AccountQuota> {
  return env.ACCOUNT_QUOTA.get(env.ACCOUNT_QUOTA.idFromName(ownerId)) as unknown as DurableObjectStub<AccountQuota>;
}

/**
 * Tells the account's object that D1 changed for the account (a key or an agent created, revoked
 * or deleted; the plan changed), after the D1 write and before the change is answered: the object
 * reads its copy again, so the very next request, in any isolate, sees the change. Tried twice;
 * a failure is thrown, so the request that made the change answers 500 instead of claiming an
 * effect the object has not seen (it reads D1 again within the hour regardless).
 */
export async function refreshAccount(env: Env, ownerId: string): Promise<void> {
  try {
    await accountStub(env, ownerId).refresh(ownerId);
  } catch {
    await accountStub(env, ownerId).refresh(ownerId);
  }
  // The account's MCP sessions of a key revoked just now end now (src/mcp/sessions.do.ts). Typed
  // by hand: the quota area does not depend on the MCP area. A failure leaves them to end at their
  // next tool call, which the account's object refuses.
  const sessions = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(ownerId)) as unknown as { recheck(): Promise<void> };
  await sessions.recheck().catch(() => {});
}
