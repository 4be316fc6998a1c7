/**
 * What every source client shares: a descriptive User-Agent (crates.io refuses anonymous
 * clients), a timeout on every call, and one error type that says what went wrong (the network,
 * a timeout, an unexpected status, a malformed body) without ever being mistaken for "not found".
 */
export interface SourceCtx {
  userAgent: string;
  timeoutMs: number;
  /** GitHub token for 5,000 requests/hour instead of 60 (optional). */
  githubToken?: string;
}

export function sourceCtx(env: { SOURCE_CONTACT?: string; GITHUB_TOKEN?: string }, timeoutMs = 5_000): SourceCtx {
  const contact = env.SOURCE_CONTACT?.trim() || "operator contact not configured";
  return { userAgent: `lore/0.1 (freshness ingest and pre-install package checks; ${contact})`, timeoutMs, githubToken: env.GITHUB_TOKEN };
}

export type SourceErrorKind = "timeout" | "network" | "status" | "malformed";

export class SourceError extends Error {
  constructor(
    readonly source: string,
    readonly kind: SourceErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(`${source}: ${message}`);
    this.name = "SourceError";
  }
}

/** fetch with the context's User-Agent and timeout; network failures and timeouts become SourceError. */
export async function sourceFetch(
  source: string,
  url: string,
  ctx: SourceCtx,
  init: RequestInit = {},
  fetcher: typeof fetch = fetch,
): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("user-agent", ctx.userAgent);
  try {
    return await fetcher(url, { ...init, headers, signal: AbortSignal.timeout(ctx.timeoutMs) });
  } catch (e) {
    const err = e as Error;
    if (err?.name === "TimeoutError" || err?.name === "AbortError")
      throw new SourceError(source, "timeout", `no answer within ${ctx.timeoutMs} ms`);
    // workerd reports a name that does not resolve (or a host it cannot connect to) as "internal
    // error; reference = …": its reference means nothing to a reader, the host was not reached.
    const detail = String(err?.message ?? e);
    throw new SourceError(
      source,
      "network",
      /internal error; reference/i.test(detail)
        ? "unreachable (the host could not be resolved or connected to)"
        : `unreachable (${detail})`,
    );
  }
}

/** Reads a JSON body; a body that is not JSON (an HTML error page, a truncated answer) is `malformed`. */
export async function readJson<T>(source: string, res: Response): Promise<T> {
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    throw new SourceError(source, "network", `body could not be read (${(e as Error).message})`);
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null || typeof v !== "object") throw new Error("not an object");
    return v as T;
  } catch {
    throw new SourceError(source, "malformed", `malformed JSON body (HTTP ${res.status})`);
  }
}

export function unexpectedStatus(source: string, res: Response): SourceError {
  return new SourceError(source, "status", `unexpected HTTP ${res.status}`, res.status);
}

/** What a registry says about one package, normalised across ecosystems. */
export interface PackageFacts {
  name: string;
  latestVersion: string | null;
  versions: string[];
  /** ISO time of the first publication, when the registry's dates can be trusted. */
  firstPublished: string | null;
  /** False when the answer came without trustworthy dates (a mirror that re-stamps or drops them). */
  datesTrusted: boolean;
  /** Deprecation messages by version. */
  deprecated: Record<string, string>;
  /** The whole package is deprecated/archived (PyPI project status, Go `// Deprecated:`), with the reason. */
  packageDeprecated: string | null;
  /** Yanked (PyPI, crates.io) or retracted (Go) versions, with the reason when given. */
  yanked: Record<string, string>;
  /** Versions that run install scripts (npm preinstall/install/postinstall). */
  installScripts: string[];
  /** npm replaced the package with a `0.0.1-security` stub after removing malware. */
  securityHolder: boolean;
  /** PyPI quarantined the project (reported malicious; nothing installable). */
  quarantined: boolean;
  source: string;
  /** npm dist-tags (`latest`, `next`, `canary`…) and their versions. */
  distTags?: Record<string, string>;
  /** False when the document came from a mirror that keeps only some tags (npm: no `time.created` / `modified`). */
  distTagsComplete?: boolean;
}

export type Lookup = { status: "found"; facts: PackageFacts } | { status: "missing"; source: string; detail: string };
