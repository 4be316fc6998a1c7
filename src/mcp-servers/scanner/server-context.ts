/**
 * What the rules know about the server being scanned: its own tool names. A description that
 * names one of them ("call `get-library-docs` next") is describing its own server; one that names
 * any other tool is reaching into another server's. Set for the duration of one synchronous scan
 * (`withServer`), so the rule list stays one static array (compiled once, not per scan).
 */
import { normalizeToolName } from "./known-tools";

let own: ReadonlySet<string> = new Set();

export const ownTools = (): ReadonlySet<string> => own;

export function withServer<T>(toolNames: readonly string[], run: () => T): T {
  const prev = own;
  own = new Set(toolNames.map(normalizeToolName));
  try {
    return run();
  } finally {
    own = prev;
  }
}
