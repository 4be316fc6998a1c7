/**
 * Reads a remote MCP server's `initialize` instructions and `tools/list` over Streamable HTTP, the
 * way a client does, and nothing more: no tool is ever called, no package is ever run. The URL
 * comes from a registry record, so it is third-party input: https only, no credentials, no IP
 * literal or private name, redirects followed by hand (at most 2) under the same rules, every
 * answer read with a size cap and a timeout. Answers may be JSON or a one-shot SSE stream.
 */
import { readStreamLimited } from "../core/body";
import { isPrivateHostname } from "./safe-url";
import { SourceError, type SourceCtx } from "./http";

const SOURCE = "mcp-remote";
const PROTOCOL = "2025-06-18";
const MAX_BYTES = 2 * 1024 * 1024;
const MAX_PAGES = 10;

export interface RemoteToolList {
  instructions?: string;
  tools: unknown[];
  serverInfo?: { name?: string; version?: string };
  protocolVersion?: string;
}

export function checkRemoteUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new SourceError(SOURCE, "status", "not a URL");
  }
  if (u.protocol !== "https:") throw new SourceError(SOURCE, "status", "only https endpoints are read");
  if (u.username || u.password) throw new SourceError(SOURCE, "status", "the URL carries credentials");
  if (isPrivateHostname(u.hostname)) throw new SourceError(SOURCE, "status", "the URL names an IP address or a private host");
  if (/[{}]/.test(decodeURIComponent(u.pathname + u.search))) throw new SourceError(SOURCE, "status", "the URL has variables to fill in");
  return u;
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return "";
  const bytes = await readStreamLimited(
    res.body,
    MAX_BYTES,
    () => new SourceError(SOURCE, "malformed", `answer larger than ${MAX_BYTES} bytes`),
  );
  return new TextDecoder().decode(bytes);
}

/** The JSON-RPC message answering `id`, from a JSON body or the `data:` lines of an SSE stream. */
function messageFor(body: string, contentType: string, id: number): Record<string, unknown> {
  const candidates: unknown[] = [];
  if (contentType.includes("text/event-stream")) {
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).replace(/^ /, ""))
        .join("\n");
      if (!data) continue;
      try {
        candidates.push(JSON.parse(data));
      } catch {
        /* a comment or keep-alive */
      }
    }
  } else {
    try {
      const v = JSON.parse(body) as unknown;
      candidates.push(...(Array.isArray(v) ? v : [v]));
    } catch {
      throw new SourceError(SOURCE, "malformed", "the answer is not JSON");
    }
  }
  const m = candidates.find((c) => !!c && typeof c === "object" && (c as { id?: unknown }).id === id) as
    | Record<string, unknown>
    | undefined;
  if (!m) throw new SourceError(SOURCE, "malformed", `no answer to request ${id}`);
  if (m.error) throw new SourceError(SOURCE, "status", `JSON-RPC error ${JSON.stringify(m.error).slice(0, 200)}`);
  if (!m.result || typeof m.result !== "object") throw new SourceError(SOURCE, "malformed", "the answer has no result");
  return m.result as Record<string, unknown>;
}

interface Session {
  url: URL;
  id: string | null;
  protocol: string;
}

async function post(ctx: SourceCtx, s: Session, message: Record<string, unknown>, fetcher: typeof fetch): Promise<Response> {
  let url = s.url;
  for (let hop = 0; hop <= 2; hop++) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "user-agent": ctx.userAgent,
      "mcp-protocol-version": s.protocol,
    };
    if (s.id) headers["mcp-session-id"] = s.id;
    let res: Response;
    try {
      res = await fetcher(url.toString(), {
        method: "POST",
        headers,
        body: JSON.stringify(message),
        redirect: "manual",
        signal: AbortSignal.timeout(ctx.timeoutMs),
      });
    } catch (e) {
      const err = e as Error;
      throw new SourceError(
        SOURCE,
        err?.name === "TimeoutError" || err?.name === "AbortError" ? "timeout" : "network",
        err?.message ?? String(e),
      );
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      await res.body?.cancel();
      url = checkRemoteUrl(new URL(res.headers.get("location")!, url).toString());
      s.url = url;
      continue;
    }
    return res;
  }
  throw new SourceError(SOURCE, "status", "too many redirects");
}

async function request(ctx: SourceCtx, s: Session, id: number, method: string, params: Record<string, unknown>, fetcher: typeof fetch) {
  const res = await post(ctx, s, { jsonrpc: "2.0", id, method, params }, fetcher);
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    throw new SourceError(SOURCE, "status", "the server needs authentication", res.status);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new SourceError(SOURCE, "status", `unexpected HTTP ${res.status}`, res.status);
  }
  const sid = res.headers.get("mcp-session-id");
  if (sid) s.id = sid;
  return messageFor(await readCapped(res), res.headers.get("content-type") ?? "", id);
}

export async function fetchRemoteTools(url: string, ctx: SourceCtx, fetcher: typeof fetch = fetch): Promise<RemoteToolList> {
  const s: Session = { url: checkRemoteUrl(url), id: null, protocol: PROTOCOL };
  const init = await request(
    ctx,
    s,
    1,
    "initialize",
    { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "lore-mcp-directory", version: "1.0.0" } },
    fetcher,
  );
  if (typeof init.protocolVersion === "string") s.protocol = init.protocolVersion;
  const caps = init.capabilities as Record<string, unknown> | undefined;
  const notified = await post(ctx, s, { jsonrpc: "2.0", method: "notifications/initialized" }, fetcher);
  await notified.body?.cancel();
  const tools: unknown[] = [];
  if (!caps || caps.tools !== undefined) {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const r = await request(ctx, s, 2 + page, "tools/list", cursor ? { cursor } : {}, fetcher);
      if (!Array.isArray(r.tools)) throw new SourceError(SOURCE, "malformed", "tools/list has no tools array");
      tools.push(...r.tools);
      cursor = typeof r.nextCursor === "string" && r.nextCursor !== "" ? r.nextCursor : undefined;
      if (!cursor || tools.length >= 1000) break;
    }
  }
  if (s.id) {
    // End the session politely; a server that does not support it answers 405, which is fine.
    await fetcher(s.url.toString(), {
      method: "DELETE",
      headers: { "mcp-session-id": s.id, "user-agent": ctx.userAgent },
      signal: AbortSignal.timeout(ctx.timeoutMs),
    })
      .then((r) => r.body?.cancel())
      .catch(() => {});
  }
  const info = init.serverInfo as { name?: string; version?: string } | undefined;
  return {
    ...(typeof init.instructions === "string" ? { instructions: init.instructions } : {}),
    tools,
    ...(info ? { serverInfo: { name: info.name, version: info.version } } : {}),
    protocolVersion: s.protocol,
  };
}
