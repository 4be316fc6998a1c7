/**
 * The skill and agent-text scans as the main Worker runs them: over the `SCANNER` service binding
 * in the scanner Worker (src/scan-worker/index.ts, which implements this interface), so that none of
 * the rules is bundled into the main Worker. Inputs and results are plain data (structured clone).
 */
import type { Env } from "../../env";
import { callScanner, checkedScan, scannerOf } from "../../scan/remote";
import { AGENT_TEXT_RULESET, SKILL_RULESET } from "./ruleset";
import {
  MAX_FRONT_MATTER_CHARS,
  type AgentTextInput,
  type AgentTextScan,
  type Capabilities,
  type FrontMatterYaml,
  type SkillFileInput,
  type SkillScan,
} from "./types";

export interface SkillScannerRpc {
  scanSkill(files: SkillFileInput[], previous: Capabilities | null): SkillScan | Promise<SkillScan>;
  scanAgentText(texts: AgentTextInput[]): AgentTextScan | Promise<AgentTextScan>;
  /** Many agent texts in one call (a rescan batch): one RPC call rather than one per row. */
  scanAgentTexts(items: AgentTextInput[][]): AgentTextScan[] | Promise<AgentTextScan[]>;
  /** SKILL.md's front matter read as YAML (src/skills/scanner/front-matter.ts). */
  readFrontMatter(source: string): FrontMatterYaml | Promise<FrontMatterYaml>;
}

/** scanSkill (src/skills/scanner/index.ts) in the scanner Worker; the caller has checked the bundle's size limits. */
export const scanSkillRemote = (env: Pick<Env, "SCANNER">, files: readonly SkillFileInput[], previous: Capabilities | null) =>
  callScanner(
    "skill",
    () =>
      scannerOf<SkillScannerRpc>(env).scanSkill(
        files.map((f) => ({ path: f.path, bytes: f.bytes, text: f.text })),
        previous,
      ),
    (r) => checkedScan(r, SKILL_RULESET.version),
  );

/** scanAgentText (src/skills/scanner/agent-text.ts) in the scanner Worker. */
export const scanAgentTextRemote = (env: Pick<Env, "SCANNER">, texts: readonly AgentTextInput[]) =>
  callScanner(
    "agent-text",
    () => scannerOf<SkillScannerRpc>(env).scanAgentText(texts.map((t) => ({ path: t.path, text: t.text }))),
    (r) => checkedScan(r, AGENT_TEXT_RULESET.version),
  );

/** scanAgentText over many texts in one call to the scanner Worker (the daily rescan's batch). */
export const scanAgentTextsRemote = (env: Pick<Env, "SCANNER">, items: readonly (readonly AgentTextInput[])[]) =>
  callScanner(
    "agent-text",
    () => scannerOf<SkillScannerRpc>(env).scanAgentTexts(items.map((texts) => texts.map((t) => ({ path: t.path, text: t.text })))),
    (rs) => {
      if (!Array.isArray(rs) || rs.length !== items.length) throw new Error("the scanner answered another number of results");
      return rs.map((r) => checkedScan(r, AGENT_TEXT_RULESET.version));
    },
  );

// A label is the author's text, bounded by the front matter's; the caller refuses one that is not a version.
const isLabel = (v: unknown) => v === null || (typeof v === "string" && v.length <= MAX_FRONT_MATTER_CHARS);

/** SKILL.md's front matter read as YAML in the scanner Worker; an answer of another shape is the scanner failing. */
export const readFrontMatterRemote = (env: Pick<Env, "SCANNER">, source: string) =>
  callScanner(
    "SKILL.md front matter",
    () => scannerOf<SkillScannerRpc>(env).readFrontMatter(source),
    (r) => {
      if (r?.ok === false && typeof r.message === "string") return { ok: false as const, message: r.message.slice(0, 500) };
      if (
        r?.ok === true &&
        typeof r.json === "string" &&
        r.json.length <= MAX_FRONT_MATTER_CHARS &&
        isLabel(r.version) &&
        isLabel(r.metadataVersion)
      )
        return r;
      throw new Error("the scanner answered the front matter in another shape");
    },
  );
