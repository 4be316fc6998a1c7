/**
 * The SDK's stateless transport answers every POST with a one-shot SSE stream. A server that keeps
 * no sessions and cannot resume a stream (GET is 405) gains nothing from SSE, and a client that
 * sees an SSE stream expects resumability (a priming event, a `retry` field, Last-Event-ID). So a
 * stream that carries only the responses to the request is sent as the plain JSON body the
 * Streamable HTTP spec allows instead ("Content-Type: application/json … one JSON object"), when
 * the client accepts JSON. A stream that also carries notifications stays SSE.
 */
export async function preferJson(res: Response, opts: { batch: boolean; accept: string | null }): Promise<Response> {
  if (!res.body || !res.headers.get("content-type")?.includes("text/event-stream")) return res;
  if (!acceptsJson(opts.accept)) return res;
  const text = await res.text();
  const payloads = sseData(text);
  // One request's stream ends with its response, so a stream of one event is that response: the
  // payload (a tool list is some 100 KB) need not be parsed to be told apart from a notification.
  if (!opts.batch && payloads.length === 1 && payloads[0]!.startsWith("{")) return jsonResponse(res, payloads[0]!);
  let messages: unknown[];
  try {
    messages = payloads.map((p) => JSON.parse(p));
  } catch {
    return new Response(text, res);
  }
  const onlyResponses = messages.length > 0 && messages.every((m) => isResponse(m));
  if (!onlyResponses || (!opts.batch && messages.length !== 1)) return new Response(text, res);
  // Each payload is already one JSON text: joined, not parsed objects serialised again.
  return jsonResponse(res, opts.batch ? `[${payloads.join(",")}]` : payloads[0]!);
}

function jsonResponse(res: Response, body: string): Response {
  const headers = new Headers(res.headers);
  for (const h of ["content-type", "content-length", "cache-control", "x-accel-buffering", "transfer-encoding"]) headers.delete(h);
  headers.set("content-type", "application/json");
  return new Response(body, { status: res.status, headers });
}

function acceptsJson(accept: string | null): boolean {
  if (!accept) return true;
  return accept
    .split(",")
    .map((p) => p.split(";")[0]!.trim().toLowerCase())
    .some((t) => t === "application/json" || t === "application/*" || t === "*/*");
}

const isResponse = (m: unknown) => typeof m === "object" && m !== null && "id" in m && ("result" in m || "error" in m) && !("method" in m);

/** The data of each SSE event (multi-line data joined by newlines), in order. */
export function sseData(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0) out.push(data.join("\n"));
  }
  return out;
}
