/**
 * A sync, as a pipeline of stages (src/sync/stages/, one file each, each with its own tests in
 * test/sync/sync-stages.test.ts):
 *
 * 1. resolveStack: the agent's state and stored stack read, the stack sent normalised;
 * 2. chooseMode: full or up to date, complete or a delta, and from which change-log positions;
 * 3. refreshStaleReleases: stale release data asked of the registries within the request's budget;
 * 4. readChanges: everything the answer is made of, in one D1 batch, cut at one change-log position;
 * 5. matchAdvisories, matchSkills: which vulnerabilities and skill statuses this answer carries;
 * 6. rankKnowledge: a full answer's knowledge and recommendations;
 * 7. buildAnswer: the answer itself and the notifications it leaves;
 * 8. saveSync: the agent's state, stack, skills, notifications and activity, in one batch.
 *
 * `bookkeeping` is the D1 binding outside the request's session (the primary, without a bookmark
 * to remember): saveSync writes through it when the sync changed nothing a later sync reads.
 */
import type { OpContext } from "../core/operation";
import type { AgentPrincipal } from "../core/principal";
import { type Cursor, decodeCursor } from "./cursor";
import { buildAnswer } from "./stages/build-answer";
import { chooseMode } from "./stages/choose-mode";
import { matchAdvisories, matchSkills } from "./stages/match";
import { rankKnowledge } from "./stages/rank-knowledge";
import { readChanges } from "./stages/read-changes";
import { refreshStaleReleases } from "./stages/refresh-releases";
import { resolveStack } from "./stages/resolve-stack";
import { saveSync } from "./stages/save";
import type { SyncInput, SyncOut } from "./sync.schemas";

export { DELTA_LIMIT } from "./stages/read-changes";
export { SYNC_REFRESH_MS, SYNC_REFRESH_SUBREQUESTS } from "./stages/refresh-releases";

export async function runSync(
  ctx: Pick<OpContext, "env" | "origin" | "via" | "progress">,
  caller: AgentPrincipal,
  input: SyncInput,
  at: number,
  bookkeeping: D1Database = ctx.env.DB,
): Promise<SyncOut> {
  const db = ctx.env.DB;
  const cursorIn: Cursor | null = input.since !== undefined ? await decodeCursor(ctx.env, caller.agentId, input.since) : null;
  const stack = await resolveStack(db, caller, input, at);
  const mode = chooseMode(stack, input, cursorIn, at);
  ctx.progress?.(1, 4, "state read");
  const { freshnessOf, notices } = await refreshStaleReleases(ctx.env, stack, mode.full, at);
  ctx.progress?.(2, 4, "release data current");
  const changes = await readChanges(db, caller.agentId, stack, mode, cursorIn, at);
  const { out, notify } = await buildAnswer({
    env: ctx.env,
    origin: ctx.origin,
    caller,
    input,
    at,
    stack,
    mode,
    notices,
    freshnessOf,
    changes,
    advisories: matchAdvisories(stack, mode, changes),
    skills: matchSkills(stack, mode, changes, at),
    ranked: mode.full ? rankKnowledge(ctx.origin, stack.topics, mode, changes) : null,
  });
  ctx.progress?.(3, 4, "answer built; saving");
  await saveSync(db, bookkeeping, caller, ctx.via, input, stack, mode, changes.cut, notify, at);
  return out;
}
