/**
 * The `since` cursor of a sync: opaque to clients, documented here and in docs/behaviour-sync.md.
 *
 *   c2.<payload>.<mac>
 *   payload = base64url(JSON {"v":2,"s":<seq>,"u":<seq>,"t":<issued at, ms>})
 *   mac     = base64url of the first 128 bits of HMAC-SHA256 under CURSOR_SECRET of
 *             "lore-sync-cursor" NUL agentId NUL payload
 *
 * `s` and `u` are positions in the change log (`sync_changes.seq`, assigned in commit order), so
 * "changed after the cursor" can never skip a fact written late under an early timestamp, and never
 * repeat one. `s` is how far the holder has the full payload (releases, deprecations, knowledge,
 * skill statuses, recommendations); `u` how far it has the urgent items (advisories, flagged
 * skills), which an `up_to_date` answer delivers without moving `s`. The MAC makes the cursor one
 * only Lore can write, for one agent: another agent's cursor, an altered or made-up one is a 400
 * that keeps the freshness call it reserved (failing on purpose buys no work). The secret rotates
 * with CURSOR_SECRET_PREVIOUS, which still verifies cursors issued before the rotation.
 *
 * Cursors of the first format (`c1.`, checked by a keyless SHA-256 anyone could compute) are not
 * trusted: one is answered as if no cursor was sent (a complete answer, with a new cursor).
 */
import type { Env } from "../env";
import { ApiError, keepingQuota } from "../core/errors";
import { macCandidates, macSign, sameText, type MacSecrets } from "../core/mac";

export const CURSOR_VERSION = 2;
const PREFIX = "c2";
const SHAPE = /^c2\.([A-Za-z0-9_-]{8,200})\.([A-Za-z0-9_-]{22})$/;
const FIRST_FORMAT = /^c1\.[A-Za-z0-9_-]{8,200}\.[A-Za-z0-9_-]{12}$/;

export interface Cursor {
  /** The change-log position the holder has the full payload up to. */
  seq: number;
  /** The change-log position the holder has the urgent items up to (≥ seq). */
  urgentSeq: number;
  /** When the cursor was issued (ms). */
  issuedAt: number;
}

const secrets = (env: Env): MacSecrets => ({ name: "CURSOR_SECRET", current: env.CURSOR_SECRET, previous: env.CURSOR_SECRET_PREVIOUS });

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

function fromB64url(s: string): string | null {
  try {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

const signed = (agentId: string, payload: string) => `lore-sync-cursor\u0000${agentId}\u0000${payload}`;
const macText = (mac: Uint8Array) => b64url(mac.subarray(0, 16));

export async function encodeCursor(env: Env, agentId: string, c: Cursor): Promise<string> {
  const payload = b64url(new TextEncoder().encode(JSON.stringify({ v: CURSOR_VERSION, s: c.seq, u: c.urgentSeq, t: c.issuedAt })));
  return `${PREFIX}.${payload}.${macText(await macSign(secrets(env), signed(agentId, payload)))}`;
}

const invalid = (why: string) =>
  new ApiError(
    "VALIDATION_FAILED",
    `since: ${why}; pass the \`cursor\` of this agent's previous sync unchanged, or omit since for a complete answer`,
    {
      issues: [{ path: "body.since", message: why }],
    },
  );

/**
 * The cursor in `since`; null for a cursor of the first format (answered as if none was sent); a
 * 400 that says why it is not one Lore gave this agent (keeping the freshness call when it is a
 * cursor's shape with a MAC that does not verify: altered, made up, or another agent's).
 */
export async function decodeCursor(env: Env, agentId: string, since: string): Promise<Cursor | null> {
  const text = since.trim();
  if (FIRST_FORMAT.test(text)) return null;
  const m = SHAPE.exec(text);
  if (!m) throw invalid("not a sync cursor");
  let verified = false;
  for (const mac of await macCandidates(secrets(env), signed(agentId, m[1]!))) verified ||= sameText(macText(mac), m[2]!);
  if (!verified) throw keepingQuota(invalid("the cursor was issued to another agent, or was altered"));
  const json = fromB64url(m[1]!);
  let body: unknown = null;
  try {
    body = json === null ? null : JSON.parse(json);
  } catch {
    body = null;
  }
  const b = body as { v?: unknown; s?: unknown; u?: unknown; t?: unknown } | null;
  const ok = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!b || b.v !== CURSOR_VERSION || !ok(b.s) || !ok(b.u) || (b.u as number) < (b.s as number) || !ok(b.t))
    throw invalid("not a sync cursor");
  return { seq: b.s as number, urgentSeq: b.u as number, issuedAt: b.t as number };
}
