import { ApiError } from "./errors";

/**
 * What is left of a request body once its answer is decided (a body past its limit, or one the
 * route never reads: a 401, a 404) is thrown away, never kept, up to this many bytes, before the
 * answer goes out; past that the body is cancelled. A client still sending a moderately oversized
 * body then reads its 413 on a connection that stays usable, instead of a reset mid-upload (HTTP/1.1
 * clients such as Node's fetch fail the request when the server stops reading), and wrangler dev's
 * front worker, which loses the connection when its worker leaves a body unread (workerd#1741),
 * does not turn the answer into a plain-text 500. A body further over is cut off.
 */
export const DISCARD_BYTES = 2 * 1024 * 1024;

/**
 * Reads a request body, refusing it with 413 as soon as it passes `limit` bytes: a declared
 * Content-Length over the limit is refused before reading, and a chunked body without one is
 * cut off mid-stream instead of being buffered whole (Workers have 128 MB of memory). What is left
 * is for `discardRest` (the app runs it on every request once its answer is ready).
 */
export async function readBodyLimited(req: Request, limit: number, what = "Request body"): Promise<Uint8Array> {
  const tooLarge = () => new ApiError("PAYLOAD_TOO_LARGE", `${what} is larger than ${limit} bytes`, { limit });
  const header = req.headers.get("content-length");
  const declared = Number(header ?? "0");
  if (Number.isFinite(declared) && declared > limit) {
    // Refused unread: the route's limit plus the usual allowance may still be thrown away.
    discardAllowance.set(req, limit + DISCARD_BYTES);
    throw tooLarge();
  }
  if (!req.body) return new Uint8Array(0);
  // A declared length within the limit frames the body (HTTP never delivers more): read it whole.
  if (header !== null && Number.isInteger(declared) && declared >= 0) {
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge();
    return bytes;
  }
  return readStreamLimited(req.body, limit, tooLarge, { leaveRest: true });
}

/**
 * Reads a stream whole, throwing `tooLarge()` as soon as it passes `limit` bytes: the stream is
 * cancelled then, or, with `leaveRest` (a request body), released for `discardRest`.
 */
export async function readStreamLimited(
  body: ReadableStream<Uint8Array>,
  limit: number,
  tooLarge: () => Error,
  opts: { leaveRest?: boolean } = {},
): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      if (opts.leaveRest) reader.releaseLock();
      else await reader.cancel().catch(() => {});
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

/**
 * What may be thrown away of a body refused by its declared length before any of it was read. A
 * browser keeps uploading until the server has read the body, and shows a reset instead of the
 * answer when the rest is cancelled: a form upload a little over its (large) limit should still see
 * the form's 413 page, so that allowance is the route's own limit plus DISCARD_BYTES.
 */
const discardAllowance = new WeakMap<Request, number>();

/**
 * Throws away what is left of a request body (nothing for one read whole, or none), at most
 * DISCARD_BYTES (the route's limit more for a body refused unread by its length), then cancels the rest. Never throws: a client that went away has nothing left.
 */
export async function discardRest(req: Request): Promise<void> {
  const body = req.body;
  if (!body || body.locked) return;
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = body.getReader();
  } catch {
    return;
  }
  try {
    // A declared length past the allowance (a body read whole is never here): no point reading any of it.
    const allowance = discardAllowance.get(req) ?? DISCARD_BYTES;
    const declared = Number(req.headers.get("content-length") ?? "0");
    if (Number.isFinite(declared) && declared > allowance) {
      await reader.cancel();
      return;
    }
    let left = allowance;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      left -= value.byteLength;
      if (left < 0) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    /* the client went away */
  }
}
