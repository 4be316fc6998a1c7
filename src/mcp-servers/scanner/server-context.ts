/**
 * What the rules know about the server being scanned: its own tool names. A description that
 * names one of them ("call `get-library-docs` next") is describing its own server; one that names
 * any other tool is reaching into another server's. Set for the duration of one synchronous scan
 * (`withServer`), so the rule list stays one static array (compiled once, not per scan).
 */
import { KNOWN_TOOL_SET, normalizeToolName } from "./known-tools";

let own: ReadonlySet<string> = new Set();
let security = false;
let services: ReadonlySet<string> = new Set();

export const ownTools = (): ReadonlySet<string> => own;
/** The server says its purpose is security work (a secret scanner, a prompt-injection detector): its "for example" lead-ins mark examples. */
export const securityServer = (): boolean => security;

/** What a server's tools are for, as their names and first sentences say it. */
const SECURITY_PURPOSE =
  /\b(?:secrets?\s+scann\w*|(?:scan|check|audit|search)\w*\s+(?:[\w-]+\s+){0,6}?(?:for\s+)?(?:(?:committed|leaked|exposed|hard-?coded)\s+)?(?:secrets?|credentials|vulnerabilit\w*|malware|leaks?|injections?|threats?|poison\w*|cves?)|vulnerab\w*|sast|malware|prompt[- ]injection|tool[- ]poisoning|security\s+(?:review|scan|audit|check|tool|finding)s?|detect\w*\s+(?:[\w-]+\s+){0,3}?(?:secrets?|injections?|attacks?|malware|leaks?|poison\w*|threats?|phishing)|(?:semgrep|codeql|yara|sigma|snort|suricata|bandit|gitleaks|trufflehog|trivy|grype|osv-scanner)\b|(?:detection|static[- ]analysis)\s+rules?)\b/i;

export function isSecurityServer(tools: readonly { name: string; description?: string }[]): boolean {
  return tools.some((t) =>
    SECURITY_PURPOSE.test(`${t.name.replace(/[_.-]/g, " ")} ${(t.description ?? "").slice(0, 300).split(/(?<=[.!?])\s/)[0]}`),
  );
}

/**
 * The server's own services: the words its tool names, titles, descriptions and instructions use
 * (`linear_create_issue`, "Current conditions from OpenWeather"). A service's own credential sent
 * to that service (a Linear API key to api.linear.app) is the tool doing its job.
 */
function serviceWords(tools: readonly Tool[], instructions: string | undefined): Set<string> {
  const out = new Set<string>();
  // Names, titles and what each text says first; addresses written in the text say where things go, not what the server is.
  const add = (text: string) => {
    const first = text
      .slice(0, 400)
      .split(/(?<=[.!?])\s|\n/, 1)[0]!
      .replace(/\S*(?:https?:\/\/|@|www\.)\S*/gi, " ");
    for (const w of first.toLowerCase().split(/[^a-z0-9]+/)) if (w.length >= 4 && !NOT_A_SERVICE.has(w)) out.add(w);
  };
  add(instructions ?? "");
  for (const t of tools) {
    add(t.name.replace(/[_.-]/g, " "));
    add(t.title ?? "");
    add(t.description ?? "");
  }
  return out;
}

const NOT_A_SERVICE = new Set([
  "example",
  "https",
  "http",
  "with",
  "from",
  "this",
  "that",
  "your",
  "their",
  "tool",
  "tools",
  "server",
  "returns",
  "return",
  "gets",
  "lists",
  "list",
  "create",
  "creates",
  "read",
  "reads",
  "send",
  "sends",
  "data",
  "file",
  "files",
  "user",
  "users",
]);

/** A word (a service's name) the server is about. */
export const ownWord = (word: string): boolean => services.has(word.toLowerCase());

const GENERIC_LABEL = new Set([
  "api",
  "www",
  "app",
  "apps",
  "auth",
  "login",
  "oauth",
  "cdn",
  "static",
  "com",
  "net",
  "org",
  "dev",
  "cloud",
  "service",
  "services",
]);

/** The host (or a credential's home domain) belongs to a service the server is about. */
export function ownService(host: string): boolean {
  const labels = host
    .toLowerCase()
    .split(".")
    .slice(0, -1)
    .filter((l) => l.length >= 4 && !GENERIC_LABEL.has(l));
  for (const l of labels) {
    if (services.has(l)) return true;
    for (const w of services) if (w.length >= 5 && (l.startsWith(w) || w.startsWith(l))) return true;
  }
  return false;
}

interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
}

export function withServer<T>(tools: readonly Tool[], run: () => T, instructions?: string): T {
  const prev = [own, security, services] as const;
  own = new Set(tools.map((t) => normalizeToolName(t.name)));
  // A tool's own parameters ("after `timeout_seconds`") are its own too, unless one is named like a well-known tool.
  for (const t of tools) {
    const props = t.inputSchema && typeof t.inputSchema === "object" ? (t.inputSchema as { properties?: unknown }).properties : undefined;
    if (!props || typeof props !== "object") continue;
    for (const k of Object.keys(props).slice(0, 200)) {
      const norm = normalizeToolName(k);
      if (!KNOWN_TOOL_SET.has(norm)) (own as Set<string>).add(norm);
    }
  }
  security = isSecurityServer(tools);
  services = serviceWords(tools, instructions);
  try {
    return run();
  } finally {
    [own, security, services] = prev;
  }
}
