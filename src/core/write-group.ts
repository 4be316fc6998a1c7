/**
 * Background writes that many requests of one isolate make (the owner's activity feed: one row per
 * agent action), sent to D1 together: while one batch is in flight, the rows that arrive wait in
 * the isolate and go as the next batch (group commit). A quiet isolate writes each row at once, as
 * before; a busy one sends one batch per round trip instead of one round trip per row, which is
 * where a chat post's own D1 cost went (the D1 binding's per-call work, not SQLite's).
 *
 * The request that finds no batch in flight leads: its waitUntil sends the waiting rows, round after
 * round, for at most LEAD_MS, then lets the next arrival lead. The other requests only leave their
 * row and return. They cannot wait for the leader's answer: a request whose only pending work is a
 * promise that another request settles is cancelled by workerd as hung, and the reactions of such a
 * promise are not run until the waiting request has an event of its own. So a row's fate is
 * reported through `onError`, called in the leader's request, and the feed stays best-effort as it
 * always was (a lost row never fails the action it describes). A failed batch is retried row by
 * row, so one bad row (an agent deleted meanwhile) costs only its own entry.
 */

interface Row {
  stmt: D1PreparedStatement;
  onError: (error: unknown) => void;
}

interface Lane {
  rows: Row[];
  leading: boolean;
}

/** Rows per batch: a batch is one transaction, kept short. */
export const GROUP_MAX = 50;
/** How long one request's waitUntil keeps leading before the next arrival takes over. */
const LEAD_MS = 1_000;

const lanes = new WeakMap<D1Database, Lane>();

/**
 * Leaves `stmt` (a write) to be run on `db` with the other waiting rows. The promise is the lead's
 * work when this call leads (hand it to waitUntil), else already resolved: the row is on its way.
 */
export function groupedWrite(db: D1Database, stmt: D1PreparedStatement, onError: (error: unknown) => void): Promise<void> {
  let lane = lanes.get(db);
  if (!lane) {
    lane = { rows: [], leading: false };
    lanes.set(db, lane);
  }
  lane.rows.push({ stmt, onError });
  if (lane.leading) return Promise.resolve();
  lane.leading = true;
  return lead(db, lane);
}

async function lead(db: D1Database, lane: Lane): Promise<void> {
  const until = Date.now() + LEAD_MS;
  let leading = true;
  try {
    while (leading && lane.rows.length > 0) {
      // Past its time the lead is given up before the last round (a row arriving from now on starts
      // its own), and that round takes every row left, however many batches they make.
      if (Date.now() > until) {
        leading = lane.leading = false;
        const rest = lane.rows.splice(0);
        for (let i = 0; i < rest.length; i += GROUP_MAX) await send(db, rest.slice(i, i + GROUP_MAX));
      } else await send(db, lane.rows.splice(0, GROUP_MAX));
    }
  } finally {
    if (leading) lane.leading = false;
  }
}

async function send(db: D1Database, group: Row[]): Promise<void> {
  const [only] = group;
  if (only && group.length === 1) {
    await runAlone(only);
    return;
  }
  try {
    await db.batch(group.map((r) => r.stmt));
  } catch {
    for (const r of group) await runAlone(r);
  }
}

async function runAlone(r: Row): Promise<void> {
  try {
    await r.stmt.run();
  } catch (error) {
    r.onError(error);
  }
}
