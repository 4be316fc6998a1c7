/**
 * Skill bytes in R2, addressed by content: key `sha256/<hex>`. Writes pass the digest to R2, which
 * refuses a body that does not match it; reads hash what came back and refuse to serve bytes that
 * do not match (a corrupted or tampered object is a logged 500, never served).
 */
import { ApiError } from "../core/errors";
import { sha256Hex } from "../core/crypto";

export const blobKey = (hex: string) => `sha256/${hex}`;

export interface Blob {
  digest: string;
  bytes: Uint8Array;
  contentType: string;
}

/** Stores every distinct blob (idempotent: the key is the content). Throws when R2 fails: nothing is published then. */
export async function putBlobs(bucket: R2Bucket, blobs: readonly Blob[]): Promise<void> {
  const distinct = new Map(blobs.map((b) => [b.digest, b]));
  await Promise.all(
    [...distinct.values()].map((b) =>
      bucket.put(blobKey(b.digest), b.bytes, { sha256: b.digest, httpMetadata: { contentType: b.contentType } }),
    ),
  );
}

export class IntegrityError extends Error {}

/** Reads a blob and checks its SHA-256; throws IntegrityError when it is missing or does not match. */
export async function getVerified(bucket: R2Bucket, digest: string): Promise<Uint8Array> {
  const obj = await bucket.get(blobKey(digest));
  if (!obj) throw new IntegrityError(`blob ${digest} is missing from R2`);
  const bytes = new Uint8Array(await obj.arrayBuffer());
  const actual = await sha256Hex(bytes);
  if (actual !== digest) throw new IntegrityError(`blob ${digest} hashes to ${actual}`);
  return bytes;
}

/** The contract's 500 for an integrity failure, logged with what was expected. */
export function integrityFailure(err: unknown, requestId: string, what: string): ApiError {
  console.error(
    JSON.stringify({ level: "error", what: "skill-integrity", requestId, object: what, error: String((err as Error)?.message ?? err) }),
  );
  return new ApiError("INTERNAL", "Internal error: stored skill bytes failed verification and were not served", { requestId });
}
