import { ApiError } from "./errors";

/**
 * Reads a request body, refusing it with 413 as soon as it passes `limit` bytes: a declared
 * Content-Length over the limit is refused before reading, and a chunked body without one is
 * cut off mid-stream instead of being buffered whole (Workers have 128 MB of memory).
 */
export async function readBodyLimited(req: Request, limit: number, what = "Request body"): Promise<Uint8Array> {
  const tooLarge = () => new ApiError("PAYLOAD_TOO_LARGE", `${what} is larger than ${limit} bytes`, { limit });
  const header = req.headers.get("content-length");
  const declared = Number(header ?? "0");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!req.body) return new Uint8Array(0);
  // A declared length within the limit frames the body (HTTP never delivers more): read it whole.
  if (header !== null && Number.isInteger(declared) && declared >= 0) {
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge();
    return bytes;
  }
  return readStreamLimited(req.body, limit, tooLarge);
}

/** Reads a stream whole, cancelling it and throwing `tooLarge()` as soon as it passes `limit` bytes. */
export async function readStreamLimited(body: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
