/**
 * Stripe's webhook signature (https://docs.stripe.com/webhooks#verify-manually): the
 * `Stripe-Signature` header is `t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=…]`, each `v1` an
 * HMAC-SHA256, keyed with the endpoint's signing secret, of `<t>.<raw body>`. Several `v1`
 * appear while a secret is being rolled; one match is enough. Only `v1` is accepted (`v0` is a
 * test-mode scheme). Written for Web Crypto so it runs in the Worker with nothing else loaded;
 * the messages are the ones the official SDK gives, which the webhook route passes on.
 */
import { LruCache } from "../core/cache";

export class SignatureError extends Error {}

const encoder = new TextEncoder();
// One deployment has one or two secrets (while rolling); the bound only guards against misuse.
const keys = new LruCache<string, Promise<CryptoKey>>({ maxEntries: 8 });

const hmacKey = (secret: string): Promise<CryptoKey> =>
  keys.getOrSet(secret, () => crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]));

const hex = (buf: ArrayBuffer) => {
  const b = new Uint8Array(buf);
  let s = "";
  for (let i = 0; i < b.length; i++) s += b[i]!.toString(16).padStart(2, "0");
  return s;
};

/** Compares in time that depends on the lengths only, never on where the strings first differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The timestamp and `v1` signatures of a header; timestamp -1 when it has none that is a number. */
export function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } {
  let timestamp = -1;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === "t") {
      const t = /^\d{1,12}$/.test(v) ? Number(v) : NaN;
      timestamp = Number.isFinite(t) ? t : -1;
    } else if (k === "v1") signatures.push(v);
  }
  return { timestamp, signatures };
}

/** The `v1` signature of `payload` at `timestamp` (tests and tools sign with it too). */
export async function signPayload(payload: Uint8Array | string, secret: string, timestamp: number): Promise<string> {
  const body = typeof payload === "string" ? encoder.encode(payload) : payload;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);
  return hex(await crypto.subtle.sign("HMAC", await hmacKey(secret), signed));
}

/**
 * Checks the header against the raw body. Throws SignatureError when the header is missing or
 * malformed, when no `v1` matches, or when the signature is older than `toleranceS` at
 * `receivedAtMs` (a later timestamp is allowed, as Stripe's SDK allows it: clocks differ, and
 * only the holder of the secret can sign one).
 */
export async function verifySignature(
  payload: Uint8Array,
  header: string | null,
  secret: string,
  toleranceS: number,
  receivedAtMs: number,
): Promise<void> {
  if (!secret) throw new SignatureError("No webhook secret value was provided. It should start with `whsec_`");
  if (payload.length === 0) throw new SignatureError("No webhook payload was provided.");
  if (!header) throw new SignatureError("No stripe-signature header value was provided.");
  const { timestamp, signatures } = parseSignatureHeader(header);
  if (timestamp === -1) throw new SignatureError("Unable to extract timestamp and signatures from header");
  if (signatures.length === 0) throw new SignatureError("No signatures found with expected scheme");
  const expected = await signPayload(payload, secret, timestamp);
  // Every candidate is compared (no early exit), so the time says nothing about which one matched.
  let found = false;
  for (const s of signatures) found = constantTimeEqual(expected, s.toLowerCase()) || found;
  if (!found) {
    throw new SignatureError(
      "No signatures found matching the expected signature for payload. Are you passing the raw request body you received from Stripe?",
    );
  }
  if (toleranceS > 0 && Math.floor(receivedAtMs / 1000) - timestamp > toleranceS) {
    throw new SignatureError("Timestamp outside the tolerance zone");
  }
}
