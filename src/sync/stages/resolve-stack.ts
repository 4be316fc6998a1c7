/**
 * Stage 1 of a sync: what the agent runs. One D1 batch reads the agent's sync state, its stored
 * stack and skills and the change log's bounds, while the stack sent (if any) is normalised; the
 * result is the stack this sync answers for and how it differs from the stored one.
 */
import { columnsOf, type LeftJoined, type SqlRow } from "../../core/columns";
import type { AgentPrincipal } from "../../core/principal";
import type { owners } from "../../db/identity";
import { syncAgents, syncInstalledSkills, syncStackEntries } from "../../db/sync";
import { normaliseStack } from "../../freshness";
import { asSchedule, type RefreshSchedule } from "../schedule";
import type { SyncInput } from "../sync.schemas";
import type { Generation } from "../views";
import { copyPinKey, entryKey, entryPinKey, type SyncEntry } from "./keys";

const STATE_KEYS = ["agentId", "topics", "stackReportedAt", "skillsReportedAt", "lastSyncAt", "lastFullAt", "lastFullSeq"] as const;
/** The owner's schedule and the agent's sync state (LEFT JOIN: all null before its first sync). */
type StateRow = SqlRow<typeof owners, "refreshSchedule"> & LeftJoined<SqlRow<typeof syncAgents, (typeof STATE_KEYS)[number]>>;

const STORED_KEYS = ["ecosystem", "key", "version", "name", "topic", "pinned", "known", "firstSeenAt"] as const;
type StoredEntry = SqlRow<typeof syncStackEntries, (typeof STORED_KEYS)[number]>;
const SKILL_KEYS = ["name", "firstSeenAt"] as const;
// The statements' texts, made once (they depend on no request).
const STATE_SQL = `SELECT o.refresh_schedule, ${columnsOf(syncAgents, "s", STATE_KEYS)}
             FROM owners o LEFT JOIN sync_agents s ON s.agent_id = ?2 WHERE o.id = ?1`;
const STORED_SQL = `SELECT ${columnsOf(syncStackEntries, undefined, STORED_KEYS)} FROM sync_stack_entries WHERE agent_id = ? ORDER BY position`;
const SKILLS_SQL = `SELECT ${columnsOf(syncInstalledSkills, undefined, SKILL_KEYS)} FROM sync_installed_skills WHERE agent_id = ? ORDER BY position`;

export interface ResolvedStack {
  /** The agent has synced before. */
  known: boolean;
  schedule: RefreshSchedule;
  /** Topics the agent has been sent before (newest first, as stored). */
  rememberedTopics: string[];
  stackReportedAt: number | null;
  lastFullAt: number | null;
  lastFullSeq: number | null;
  /** The stack as sent, normalised (with each known topic's release data); null when omitted. */
  normalised: Awaited<ReturnType<typeof normaliseStack>> | null;
  /** The stack stored by the last sync that sent one. */
  stored: SyncEntry[];
  /** When each pinned version was first reported (the earliest of its spellings). */
  storedFirstSeen: Map<string, number>;
  /** The stack this sync answers for: as sent (duplicates dropped), or the stored one. */
  entries: SyncEntry[];
  stackChanged: boolean;
  installed: string[];
  /** When each stored skill was first reported, by lowercase name. */
  storedSkillSeen: Map<string, number>;
  skillsChanged: boolean;
  topics: string[];
  /** Topics the agent has not been sent before (all of them for a new agent). */
  newTopics: string[];
  /** Topics whose pinned versions changed: a delta sends their whole view again (the range moved). */
  movedTopics: string[];
  /** The oldest change-log position kept (null: an empty log). */
  changeLogStart: number | null;
  /** The ingest generation the held release views belong to (views.ts). */
  generation: Generation;
}

function storedToEntry(r: StoredEntry): SyncEntry {
  return {
    name: r.name,
    version: r.version,
    ecosystem: r.ecosystem as SyncEntry["ecosystem"],
    key: r.key,
    topic: r.topic,
    known: !!r.known,
    pinned: r.pinned,
    firstSeenAt: r.first_seen_at,
  };
}

/** Each topic's pinned versions, as one comparable string. */
function pinsByTopic(list: SyncEntry[]): Map<string, string> {
  const pins = new Map<string, string[]>();
  for (const e of list) {
    const l = pins.get(e.topic);
    if (l) l.push(e.pinned ?? "");
    else pins.set(e.topic, [e.pinned ?? ""]);
  }
  const m = new Map<string, string>();
  for (const [t, l] of pins) m.set(t, l.length === 1 ? l[0]! : l.sort().join("\u0000"));
  return m;
}

export async function resolveStack(db: D1Database, caller: AgentPrincipal, input: SyncInput, at: number): Promise<ResolvedStack> {
  const [[stateRes, storedRes, skillsRes, boundsRes], normalised] = await Promise.all([
    db.batch([
      db.prepare(STATE_SQL).bind(caller.ownerId, caller.agentId),
      db.prepare(STORED_SQL).bind(caller.agentId),
      db.prepare(SKILLS_SQL).bind(caller.agentId),
      // The newest change also names the ingest generation the cached release views belong to (views.ts).
      db.prepare(
        `SELECT min(seq) AS lo, max(seq) AS hi, (SELECT at FROM sync_changes ORDER BY seq DESC LIMIT 1) AS hi_at FROM sync_changes`,
      ),
    ]),
    input.stack ? normaliseStack(db, input.stack) : Promise.resolve(null),
  ]);
  const state = stateRes!.results[0] as unknown as StateRow;
  const known = state.agent_id !== null;
  const rows = storedRes!.results as unknown as StoredEntry[];
  const stored = rows.map(storedToEntry);
  const storedSkills = skillsRes!.results as SqlRow<typeof syncInstalledSkills, (typeof SKILL_KEYS)[number]>[];
  const bounds = boundsRes!.results[0] as { lo: number | null; hi: number | null; hi_at: number | null };

  // The stack sent, each spelling once (the first).
  let sent: typeof normalised = null;
  if (normalised) {
    const seen = new Set<string>();
    sent = [];
    for (const e of normalised) {
      const k = entryKey(e);
      if (seen.has(k)) continue;
      seen.add(k);
      sent.push(e);
    }
  }
  // Most syncs send the stack stored, row for row (the same topic and pin too): then its pin keys
  // are the sent entries' (made once, kept on them), and no pin of any topic moved.
  const same =
    !!sent &&
    sent.length === rows.length &&
    sent.every((e, i) => {
      const r = rows[i]!;
      return (
        r.ecosystem === e.ecosystem &&
        r.key === e.key &&
        r.version === e.version &&
        r.name === e.name &&
        r.topic === e.topic &&
        r.pinned === e.pinned
      );
    });
  const storedFirstSeen = new Map<string, number>();
  stored.forEach((e, i) => {
    const k = same ? entryPinKey(sent![i]!) : entryPinKey(e);
    storedFirstSeen.set(k, Math.min(storedFirstSeen.get(k) ?? e.firstSeenAt, e.firstSeenAt));
  });

  let entries: SyncEntry[];
  if (sent)
    entries = sent.map((e) => {
      // The key first: the copy then carries it (keys.ts), not made or set again.
      const pk = entryPinKey(e);
      return copyPinKey(e, { ...e, firstSeenAt: storedFirstSeen.get(pk) ?? at });
    });
  else
    entries = stored.map((e) => {
      const pk = entryPinKey(e);
      return copyPinKey(e, { ...e, firstSeenAt: storedFirstSeen.get(pk)! });
    });
  const stackChanged =
    !!sent &&
    !same &&
    (entries.length !== stored.length || entries.some((e, i) => entryKey(e) !== entryKey(stored[i]!) || e.name !== stored[i]!.name));

  const installed = input.installedSkills
    ? [...new Set(input.installedSkills.map((n) => n.trim().toLowerCase()))]
    : storedSkills.map((s) => s.name);
  const skillsChanged =
    !!input.installedSkills && (installed.length !== storedSkills.length || installed.some((n, i) => n !== storedSkills[i]!.name));

  const topics = [...new Set(entries.map((e) => e.topic))];
  const rememberedTopics = JSON.parse(state.topics ?? "[]") as string[];
  const seenTopics = new Set<string>(rememberedTopics);
  const storedPins = same ? null : pinsByTopic(stored);
  const currentPins = same ? null : pinsByTopic(entries);

  return {
    known,
    schedule: asSchedule(state.refresh_schedule),
    rememberedTopics,
    stackReportedAt: state.stack_reported_at,
    lastFullAt: state.last_full_at,
    lastFullSeq: state.last_full_seq,
    normalised,
    stored,
    storedFirstSeen,
    entries,
    stackChanged,
    installed,
    storedSkillSeen: new Map(storedSkills.map((s) => [s.name.toLowerCase(), s.first_seen_at])),
    skillsChanged,
    topics,
    newTopics: known ? topics.filter((t) => !seenTopics.has(t)) : topics,
    movedTopics: same ? [] : topics.filter((t) => storedPins!.has(t) && storedPins!.get(t) !== currentPins!.get(t)),
    changeLogStart: bounds.lo,
    generation: { seq: bounds.hi ?? 0, at: bounds.hi_at },
  };
}

/** When a skill was first reported: stored, else now. */
export const skillFirstSeen = (stack: Pick<ResolvedStack, "storedSkillSeen">, name: string, at: number) =>
  stack.storedSkillSeen.get(name.toLowerCase()) ?? at;

/** Reported by this sync for the first time (its pinned version is not in the stored stack, whatever the spelling). */
export const reportedNow = (stack: Pick<ResolvedStack, "storedFirstSeen">, e: SyncEntry | undefined) =>
  !!e && !stack.storedFirstSeen.has(entryPinKey(e));
