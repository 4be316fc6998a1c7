import harnessData from "../../data/harnesses.json";

export interface HarnessSetup {
  id: string;
  name: string;
  instructionFiles: string[];
  skillsDir: string | null;
  /** `format`, `snippet` and `file` are null for a harness with no MCP client (aider). */
  mcp: { file: string | null; format: string | null; snippet: string | null; cli: string | null };
  skillInstall: string | null;
  /**
   * How the `skills` CLI (npm `skills`) installs into this harness: its agent id (`-a <agent>`),
   * whether the harness only reads the user-level folder (`-g`), and the folder files land in.
   * Null where the CLI has no agent for the harness, or the harness has no skills at all.
   */
  skillsCli: { agent: string; global: boolean; dir: string } | null;
  notes: string[];
}

export const HARNESS_IDS = [
  "claude-code",
  "openclaude",
  "hermes",
  "opencode",
  "kimi",
  "openclaw",
  "codex",
  "gemini",
  "cursor",
  "copilot",
  "windsurf",
  "cline",
  "aider",
] as const;
export type HarnessId = (typeof HARNESS_IDS)[number];

export const HARNESSES = (harnessData as { harnesses: HarnessSetup[] }).harnesses;
export const HARNESS_AS_OF = (harnessData as { asOfDate: string }).asOfDate;

export const harnessById = (id: string): HarnessSetup | undefined => HARNESSES.find((h) => h.id === id);

/** A placeholder the user must replace with the key itself (the harness expands no variable there). */
export const LITERAL_KEY_PLACEHOLDER = "<your-api-key>";

/** `~/…` paths are the user's (home directory) files; everything else is relative to the project root. */
export const scopeOf = (path: string | null): "project" | "user" | null =>
  path === null ? null : path.startsWith("~/") ? "user" : "project";

/** The harness's setup data for this server: the endpoint URL filled in; the key stays an environment variable. */
export function setupFor(h: HarnessSetup, origin: string) {
  const url = `${origin}/v1/mcp`;
  const fill = (s: string | null) => (s === null ? null : s.replaceAll("{{MCP_URL}}", url));
  return {
    harness: h.id as HarnessId,
    name: h.name,
    asOfDate: HARNESS_AS_OF,
    instructionFiles: h.instructionFiles,
    skillsDir: h.skillsDir,
    mcp: {
      file: h.mcp.file,
      format: h.mcp.format,
      snippet: fill(h.mcp.snippet),
      cli: fill(h.mcp.cli),
      url: h.mcp.snippet === null ? null : url,
      scope: scopeOf(h.mcp.file),
      literalKey: !!h.mcp.snippet?.includes(LITERAL_KEY_PLACEHOLDER),
    },
    skillInstall: h.skillInstall,
    notes: h.notes,
  };
}
