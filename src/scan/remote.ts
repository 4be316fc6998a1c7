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
import { SEVERITIES, statusOf, type Finding, type ScanStatus } from "./types";

/** The binding as an area's client sees it: only the methods it calls. */
export function scannerOf<T>(env: { SCANNER: Fetcher }): T {
  return env.SCANNER as unknown as T;
}

/** What every scan result carries, checked before it is believed. */
interface ScanResult {
  status: ScanStatus;
  findings: readonly Pick<Finding, "severity">[];
  rulesetVersion: string;
}

const SEVERITY_SET: ReadonlySet<unknown> = new Set(SEVERITIES);

/**
 * A result is believed only when it has the shape the main Worker stores, comes from the ruleset
 * the main Worker compares stored verdicts with (a scanner Worker of another deploy would have its
 * verdicts stored as current, or rescanned forever), and its status is recomputed from its findings
 * (a `passed` beside a critical finding is not stored as passed). Anything else is the scanner failing.
 */
export function checkedScan<T extends ScanResult>(r: T, version: string): T {
  if (!r || typeof r !== "object" || !Array.isArray(r.findings)) throw new Error("the scanner answered without findings");
  if (r.rulesetVersion !== version)
    throw new Error(`the scanner runs ruleset ${String(r.rulesetVersion).slice(0, 60)}, this Worker ${version}`);
  for (const f of r.findings)
    if (!f || !SEVERITY_SET.has(f.severity)) throw new Error("the scanner answered a finding without a known severity");
  r.status = statusOf(r.findings);
  return r;
}

export async function callScanner<T>(what: string, call: () => Promise<T> | T, check: (r: T) => T = (r) => r): Promise<T> {
  try {
    return check(await call());
  } catch (e) {
    if (e instanceof ApiError) throw e;
    const error = e instanceof Error ? e.message : String(e);
    console.error(JSON.stringify({ level: "error", what: "scanner-unavailable", scan: what, error: error.slice(0, 300) }));
    throw new ApiError("INTERNAL", `The content scanner could not run the ${what} scan; nothing was stored. Try again in a moment.`, {
      retryable: true,
    });
  }
}
