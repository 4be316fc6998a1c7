/**
 * Calling the scanner Worker (src/scan-worker/index.ts) over the `SCANNER` service binding. The rules
 * run there so that the main Worker's every cold start does not parse them (docs/scanner.md, "Where
 * the rules run"); each area's client (src/skills/scanner/remote.ts, src/mcp-servers/scanner/remote.ts)
 * types the binding with the methods it calls.
 *
 * A scanner that cannot be reached (or fails) is an error, never a verdict: not analysed is not a
 * pass (the rule the second opinion follows, src/scan/judge.ts), and unlike the judge there are no
 * rule findings to fall back on. A write that needs a scan fails with INTERNAL in the contract's
 * shape and stores nothing (the caller may retry); a rescan job stops and leaves what it had not
 * rescanned due for the next run.
 */
import { ApiError } from "../core/errors";

/** The binding as an area's client sees it: only the methods it calls. */
export function scannerOf<T>(env: { SCANNER: Fetcher }): T {
  return env.SCANNER as unknown as T;
}

export async function callScanner<T>(what: string, call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof ApiError) throw e;
    const error = e instanceof Error ? e.message : String(e);
    console.error(JSON.stringify({ level: "error", what: "scanner-unavailable", scan: what, error: error.slice(0, 300) }));
    throw new ApiError("INTERNAL", `The content scanner could not run the ${what} scan; nothing was stored. Try again in a moment.`, {
      retryable: true,
    });
  }
}
