/**
 * Stage 2 of a sync: what kind of answer it gives. Full (and why) or up to date; complete or a
 * delta after the cursor; and the change-log positions each part of the answer starts from.
 */
import type { Cursor } from "../cursor";
import { refreshDue } from "../schedule";
import type { SyncInput, SyncOut } from "../sync.schemas";
import type { ResolvedStack } from "./resolve-stack";

export interface SyncMode {
  /** Why this sync is a full refresh; null: up to date. */
  reason: SyncOut["reason"];
  full: boolean;
  /** Only what changed after the cursor (`since`), not the complete payload. */
  delta: boolean;
  /** What the holder of the cursor already has: the full payload up to `since`, urgent items up to `sinceUrgent` (null: no delta). */
  since: number | null;
  sinceUrgent: number | null;
  /** Urgent means new since the last full refresh (and, with a cursor, not yet delivered). */
  urgentFrom: number;
  /** Said in the answer's notices, in this order, before any later stage's. */
  notices: string[];
}

export function chooseMode(
  stack: Pick<ResolvedStack, "known" | "lastFullAt" | "lastFullSeq" | "newTopics" | "schedule" | "changeLogStart" | "entries">,
  input: Pick<SyncInput, "force" | "stack">,
  cursorIn: Cursor | null,
  at: number,
): SyncMode {
  let reason: SyncOut["reason"] = null;
  if (input.force) reason = "force";
  else if (!stack.known || stack.lastFullAt === null) reason = "first_sync";
  else if (stack.newTopics.length) reason = "new_topics";
  else if (refreshDue(stack.schedule, stack.lastFullAt, at)) reason = "schedule";

  const notices: string[] = [];
  // `force` always gives the complete payload; otherwise `since` turns the answer into a delta.
  let delta = !!cursorIn && !input.force;
  const lo = stack.changeLogStart;
  if (cursorIn && delta && cursorIn.seq > 0 && lo !== null && cursorIn.seq < lo - 1) {
    delta = false;
    notices.push("The since cursor is older than the change log kept (90 days): this answer is complete, not a delta.");
  }
  if (cursorIn && input.force) notices.push("force: true gives the complete payload; since was not applied.");
  if (!stack.entries.length)
    notices.push(
      input.stack ? "The stack is empty." : "No stack reported yet: send `stack` (name, version, ecosystem) once; later syncs may omit it.",
    );
  const sinceUrgent = delta ? cursorIn!.urgentSeq : null;
  return {
    reason,
    full: reason !== null,
    delta,
    since: delta ? cursorIn!.seq : null,
    sinceUrgent,
    urgentFrom: Math.max(stack.lastFullSeq ?? 0, sinceUrgent ?? 0),
    notices,
  };
}
