/**
 * Stage 5 of a sync: which of the stack's advisories and of the installed skills' statuses this
 * answer carries. A full answer lists the vulnerabilities (a delta: those changed after the cursor
 * or of entries and topics sent whole) and calls new the ones not told in a full refresh yet; an
 * up-to-date answer carries only what is urgent: new since the last full refresh and not delivered.
 */
import type { VulnerabilityOut } from "../../freshness";
import type { SkillStatus } from "../../skills";
import type { SyncMode } from "./choose-mode";
import { entryPinKey, type SyncEntry, vulnPinKey } from "./keys";
import { type ChangesRead, changedIn } from "./read-changes";
import { reportedNow, type ResolvedStack, skillFirstSeen } from "./resolve-stack";

export type AdvisoryMatch =
  /** `vulnerabilities`: what the answer lists; `advisories`: those not yet told in a full refresh. */
  { full: true; vulnerabilities: VulnerabilityOut[]; advisories: VulnerabilityOut[] } | { full: false; urgent: VulnerabilityOut[] };

export function matchAdvisories(
  stack: Pick<ResolvedStack, "entries" | "storedFirstSeen" | "lastFullAt" | "lastFullSeq">,
  mode: Pick<SyncMode, "full" | "delta" | "sinceUrgent" | "urgentFrom">,
  changes: Pick<ChangesRead, "cut" | "vulns" | "advSeqs" | "completeTopics"> & Partial<Pick<ChangesRead, "vulnEntries">>,
): AdvisoryMatch {
  const { lastFullAt, lastFullSeq } = stack;
  const { delta, sinceUrgent } = mode;
  // Entries of one pinned version share firstSeenAt, topic and reportedNow, so any of them answers for it.
  const entryByPin = new Map(stack.entries.map((e) => [entryPinKey(e), e]));
  // The entry a vulnerability was matched for carries its key already; the key made from the vulnerability is the same.
  const of = changes.vulnEntries ?? null;
  const entryOf = (v: VulnerabilityOut, i: number) => entryByPin.get(of ? entryPinKey(of[i]!) : vulnPinKey(v));
  const advSeq = (v: VulnerabilityOut) => changes.advSeqs.get(v.advisory.id);
  /** First reported after the last full refresh. */
  const sinceLastFull = (e: SyncEntry | undefined) => !!e && lastFullAt !== null && e.firstSeenAt > lastFullAt;
  if (!mode.full) {
    const urgent = changes.vulns.filter(
      (v, i) =>
        changedIn(changes, advSeq(v), mode.urgentFrom) || (sinceLastFull(entryOf(v, i)) && (!delta || reportedNow(stack, entryOf(v, i)))),
    );
    return { full: false, urgent };
  }
  /** Not yet told in a full refresh: first full, changed since the last one, or a version reported since. */
  const isNew = (v: VulnerabilityOut, i: number) =>
    lastFullSeq === null || changedIn(changes, advSeq(v), lastFullSeq) || sinceLastFull(entryOf(v, i));
  const inDelta = (v: VulnerabilityOut, i: number) =>
    !delta ||
    changedIn(changes, advSeq(v), sinceUrgent) ||
    reportedNow(stack, entryOf(v, i)) ||
    changes.completeTopics.has(entryOf(v, i)?.topic ?? "");
  const vulnerabilities: VulnerabilityOut[] = [];
  const advisories: VulnerabilityOut[] = [];
  changes.vulns.forEach((v, i) => {
    if (!inDelta(v, i)) return;
    vulnerabilities.push(v);
    if (isNew(v, i)) advisories.push(v);
  });
  return { full: true, vulnerabilities, advisories };
}

export type SkillMatch =
  /** `statuses`: the installed skills' statuses the answer lists. */
  | { full: true; statuses: SkillStatus[] }
  /** `flagged`: skills flagged since the last full refresh and not delivered yet. */
  | { full: false; flagged: SkillStatus[] };

export function matchSkills(
  stack: Pick<ResolvedStack, "storedSkillSeen" | "lastFullAt">,
  mode: Pick<SyncMode, "full" | "delta" | "since" | "sinceUrgent" | "urgentFrom">,
  changes: Pick<ChangesRead, "cut" | "statuses" | "skillSeqs">,
  at: number,
): SkillMatch {
  const { delta, since, sinceUrgent } = mode;
  const skillSeq = (name: string) => changes.skillSeqs.get(name.toLowerCase());
  const skillNew = (name: string) => !stack.storedSkillSeen.has(name.toLowerCase());
  if (mode.full) {
    // In a delta: statuses changed after `since`, except flags already delivered as urgent, and new installs.
    const statuses = changes.statuses.filter((st) => {
      if (!delta || skillNew(st.name)) return true;
      const seq = skillSeq(st.name);
      return changedIn(changes, seq, since) && !(seq! <= sinceUrgent! && st.securityStatus !== "passed");
    });
    return { full: true, statuses };
  }
  const flagged = changes.statuses.filter(
    (st) =>
      st.known &&
      st.securityStatus !== "passed" &&
      (changedIn(changes, skillSeq(st.name), mode.urgentFrom) ||
        (skillFirstSeen(stack, st.name, at) > (stack.lastFullAt ?? 0) && (!delta || skillNew(st.name)))),
  );
  return { full: false, flagged };
}
