import { ApiError } from "./errors";
import { LruCache } from "./cache";

/**
 * Keyed MACs (HMAC-SHA256) with secrets from configuration, for values Lore hands out and must
 * recognise as its own without storage: the account named in an agent key (core/auth.ts) and the
 * sync cursor (src/sync/cursor.ts). Each use has its own secret and a domain label in what is
 * signed. Rotation: the current secret signs; it and the previous ones (`…_PREVIOUS`,
 * comma-separated) verify, so what was signed before a rotation keeps working while the previous
 * secret stays configured.
 */
export interface MacSecrets {
  /** The name of the variable, for the operator's error message. */
  name: string;
  current: string | undefined;
  previous: string | undefined;
}

interface Keys {
  sign: CryptoKey | null;
  verify: CryptoKey[];
}

/** Imported keys per configuration seen (one per isolate outside tests). */
const imported = new LruCache<string, Promise<Keys>>({ maxEntries: 16 });

const importKey = (secret: string) =>
  crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);

function keysOf(s: MacSecrets): Promise<Keys> {
  const current = s.current?.trim() || null;
  const previous = (s.previous ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p && p !== current);
  const id = `${s.name}\u0000${current}\u0000${previous.join("\u0000")}`;
  const keys = imported.getOrSet(id, async () => {
    const sign = current ? await importKey(current) : null;
    const older = await Promise.all(previous.map(importKey));
    return { sign, verify: sign ? [sign, ...older] : older };
  });
  return keys;
}

/** The MAC of `data` under the current secret; a 500 naming the variable when none is configured. */
export async function macSign(s: MacSecrets, data: string): Promise<Uint8Array> {
  const { sign } = await keysOf(s);
  if (!sign) {
    console.error(JSON.stringify({ level: "error", what: "configuration", missing: s.name }));
    throw new ApiError(
      "INTERNAL",
      `The server is not configured to do this: the operator must set ${s.name} (see the README's deploy section)`,
    );
  }
  return new Uint8Array(await crypto.subtle.sign("HMAC", sign, new TextEncoder().encode(data)));
}

/**
 * The MAC of `data` under the current and each previous secret (none when nothing is configured):
 * a value carrying any of them (as its owner encodes it) was signed by Lore. Compare with
 * `sameText`, which takes the same time wherever the texts differ.
 */
export async function macCandidates(s: MacSecrets, data: string): Promise<Uint8Array[]> {
  const { verify } = await keysOf(s);
  const bytes = new TextEncoder().encode(data);
  return Promise.all(verify.map(async (key) => new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes))));
}

/** Constant-time comparison of two strings (their lengths are not secret). */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `bytes` as a base62 number of exactly `length` characters (enough for the bytes: 22 for 16). */
export function toBase62(bytes: Uint8Array, length: number): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < length; i++) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}
