import harnessData from "../../data/harnesses.json";

export interface HarnessSetup {
  id: string;
  name: string;
  instructionFiles: string[];
  skillsDir: string | null;
  mcp: { file: string | null; format: string; snippet: string; cli: string | null };
  skillInstall: string | null;
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
