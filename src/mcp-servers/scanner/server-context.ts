/**
 * What the rules know about the server being scanned: its own tool names. A description that
 * names one of them ("call `get-library-docs` next") is describing its own server; one that names
 * any other tool is reaching into another server's. Set for the duration of one synchronous scan
 * (`withServer`), so the rule list stays one static array (compiled once, not per scan).
 */
import { normalizeToolName } from "./known-tools";

let own: ReadonlySet<string> = new Set();
let security = false;

export const ownTools = (): ReadonlySet<string> => own;
/** The server says its purpose is security work (a secret scanner, a prompt-injection detector): its "for example" lead-ins mark examples. */
export const securityServer = (): boolean => security;

/** What a server's tools are for, as their names and first sentences say it. */
const SECURITY_PURPOSE =
  /\b(?:scan(?:s|ner|ners|ning)?|detect\w*|audit\w*|lint(?:s|er|ing)?|sast|vulnerab\w*|secret\s+scann\w*|prompt[- ]injection|tool[- ]poisoning|malware|threat\w*|security\s+(?:review|scan|audit|check)s?|leak(?:ed|s)?\s+(?:secrets?|credentials?))\b/i;

export function isSecurityServer(tools: readonly { name: string; description?: string }[]): boolean {
  return tools.some((t) => SECURITY_PURPOSE.test(`${t.name.replace(/[_.-]/g, " ")} ${(t.description ?? "").slice(0, 300).split(/(?<=[.!?])\s/)[0]}`));
}

export function withServer<T>(tools: readonly { name: string; description?: string }[], run: () => T): T {
  const prev = [own, security] as const;
  own = new Set(tools.map((t) => normalizeToolName(t.name)));
  security = isSecurityServer(tools);
  try {
    return run();
  } finally {
    [own, security] = prev;
  }
}
