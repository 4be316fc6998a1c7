/**
 * The `since` cursor of a sync: opaque to clients, documented here and in the README.
 *
 *   c1.<payload>.<check>
 *   payload = base64url(JSON {"v":1,"s":<seq>,"u":<seq>,"t":<issued at, ms>})
 *   check   = the first 12 base64url characters of SHA-256("lore-sync-cursor" NUL agentId NUL payload)
 *
 * `s` and `u` are positions in the change log (`sync_changes.seq`, assigned in commit order), so
 * "changed after the cursor" can never skip a fact written late under an early timestamp, and never
 * repeat one. `s` is how far the holder has the full payload (releases, deprecations, knowledge,
 * skill statuses, recommendations); `u` how far it has the urgent items (advisories, flagged
 * skills), which an `up_to_date` answer delivers without moving `s`. The check binds the cursor to the agent it was issued to: another agent's cursor, an
 * altered one, or anything else is a 400, never a silent full answer.
 */
import { ApiError } from "../core/errors";
import { sha256Hex } from "../core/crypto";

export const CURSOR_VERSION = 1;
const PREFIX = "c1";
const SHAPE = /^c1\.([A-Za-z0-9_-]{8,200})\.([A-Za-z0-9_-]{12})$/;

export interface Cursor {
  /** The change-log position the holder has the full payload up to. */
  seq: number;
  /** The change-log position the holder has the urgent items up to (≥ seq). */
  urgentSeq: number;
  /** When the cursor was issued (ms). */
  issuedAt: number;
}

const b64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function fromB64url(s: string): string | null {
  try {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

async function check(agentId: string, payload: string): Promise<string> {
  const hex = await sha256Hex(`lore-sync-cursor\u0000${agentId}\u0000${payload}`);
  const bytes = Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));
  return b64url(bytes).slice(0, 12);
}

export async function encodeCursor(agentId: string, c: Cursor): Promise<string> {
  const payload = b64url(new TextEncoder().encode(JSON.stringify({ v: CURSOR_VERSION, s: c.seq, u: c.urgentSeq, t: c.issuedAt })));
  return `${PREFIX}.${payload}.${await check(agentId, payload)}`;
}

const invalid = (why: string) =>
  new ApiError("VALIDATION_FAILED", `since: ${why}; pass the \`cursor\` of this agent's previous sync unchanged, or omit since for a complete answer`, {
    issues: [{ path: "body.since", message: why }],
  });

/** The cursor in `since`, or a 400 that says why it is not one this agent was given. */
export async function decodeCursor(agentId: string, since: string): Promise<Cursor> {
  const m = SHAPE.exec(since.trim());
  if (!m) throw invalid("not a sync cursor");
  const json = fromB64url(m[1]!);
  let body: unknown = null;
  try {
    body = json === null ? null : JSON.parse(json);
  } catch {
    body = null;
  }
  const b = body as { v?: unknown; s?: unknown; u?: unknown; t?: unknown } | null;
  const ok = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!b || b.v !== CURSOR_VERSION || !ok(b.s) || !ok(b.u) || (b.u as number) < (b.s as number) || !ok(b.t)) throw invalid("not a sync cursor");
  if ((await check(agentId, m[1]!)) !== m[2]) throw invalid("the cursor was issued to another agent or was altered");
  return { seq: b.s as number, urgentSeq: b.u as number, issuedAt: b.t as number };
}
