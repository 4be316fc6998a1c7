import harnessData from "../../data/harnesses.json";

export interface HarnessSetup {
  id: string;
  name: string;
  instructionFiles: string[];
  skillsDir: string | null;
  mcp: { file: string | null; format: string; snippet: string; cli: string | null };
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

export const HARNESSES = (harnessData as { harnesses: HarnessSetup[] }).harnesses;
export const HARNESS_AS_OF = (harnessData as { asOfDate: string }).asOfDate;
