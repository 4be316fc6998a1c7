/**
 * The skill scanner: every rule group over SKILL.md and every bundled file, plus the capability
 * diff against the previous version. Pure and deterministic: the same files (and previous
 * capabilities) always give the same findings. See docs/scanner.md for the rules and their
 * reasoning, and test/skills-scanner.test.ts for each rule's positive and negative cases and the
 * labelled corpus.
 */
import { archiveFormat, decodeLenient, executableFormat, kindFromContent, kindFromPath, mediaFormat, mediaMatchesPath, runRules, statusOf, sortFindings, type Finding, type LineIndex, type Rule, type RulesetInfo, type ScanStatus, type ScanTarget } from "../../scan";
import { INJECTION_RULES } from "./rules/injection";
import { EXECUTION_RULES, reversedStrings } from "./rules/execution";
import { EGRESS_RULES } from "./rules/egress";
import { EXFILTRATION_RULES } from "./rules/exfiltration";
import { DESTRUCTIVE_RULES } from "./rules/destructive";
import { PERSISTENCE_RULES } from "./rules/persistence";
import { FILE_RULES } from "./rules/files";
import { UNICODE_RULES } from "./rules/unicode";
import { MARKDOWN_RULES, markdownHidden } from "./rules/markdown";
import { collectUncertain, ruleDefaults, type UncertainSpan } from "../../scan/uncertain";
import { NO_CAPABILITIES, capabilityChanges, capabilityFindings, detectCapabilities, type Capabilities, type CapabilityChange } from "./capabilities";

/**
 * Bump on every change to the rules: stored versions scanned under another version are rescanned
 * by the daily job (src/skills/rescan.ts), so a newly flagged skill leaves the index.
 */
export const SKILL_RULESET: RulesetInfo = { id: "lore-skills", version: "2026.11.24-2" };

/**
 * Rules that apply to any text an agent reads (prompt injection, concealment, secrets, egress,
 * commands, hidden Unicode). The MCP tool-description scanner can reuse them as they are.
 */
export const AGENT_TEXT_RULES: readonly Rule[] = [
  ...INJECTION_RULES,
  ...EXECUTION_RULES,
  ...EGRESS_RULES,
  ...EXFILTRATION_RULES,
  ...DESTRUCTIVE_RULES,
  ...PERSISTENCE_RULES,
  ...UNICODE_RULES,
  ...MARKDOWN_RULES,
];

export const SKILL_RULES: readonly Rule[] = [...AGENT_TEXT_RULES, ...FILE_RULES];
const SKILL_RULE_DEFAULTS = ruleDefaults(SKILL_RULES);

export interface SkillFileInput {
  path: string;
  bytes: Uint8Array;
  /** The UTF-8 text when the file is text; null for binary content. */
  text: string | null;
}

export interface SkillScan {
  status: ScanStatus;
  findings: Finding[];
  rulesetVersion: string;
  capabilities: Capabilities;
  capabilityChanges: CapabilityChange[];
  /** Passages the rules were unsure about, for a second opinion (src/scan/uncertain.ts). */
  uncertain: UncertainSpan[];
}

/**
 * One scan target per file. Text is scanned as the kind its extension (or, without a telling
 * extension, its `#!` line) says. Bytes that are not UTF-8 stay binary only when they prove a
 * known format: an executable or an archive (rated by the file rules), or an image, document,
 * font or media file under a matching name. Anything else is decoded leniently and scanned as
 * text (`lossy`): `bash scripts/setup` runs a script with a stray invalid byte in front just the same.
 */
/** Hidden regions the engine scans besides encoded payloads and hidden Unicode: Markdown comments and invisible elements, reversed strings. */
export const skillHidden = (target: ScanTarget, lines: LineIndex) => [...markdownHidden(target, lines), ...reversedStrings(target, lines)];

export function toTargets(files: readonly SkillFileInput[]): ScanTarget[] {
  return [...files]
    .sort((a, b) => (a.path === "SKILL.md" ? -1 : b.path === "SKILL.md" ? 1 : a.path < b.path ? -1 : 1))
    .map((f): ScanTarget => {
      const byPath = kindFromPath(f.path);
      if (f.text !== null) return { path: f.path, kind: byPath ?? kindFromContent(f.text) ?? "text", text: f.text, bytes: f.bytes };
      const media = mediaFormat(f.bytes);
      if (executableFormat(f.bytes) || archiveFormat(f.bytes) || (media && mediaMatchesPath(media, f.path))) {
        return { path: f.path, kind: "binary", text: null, bytes: f.bytes };
      }
      const text = decodeLenient(f.bytes);
      return { path: f.path, kind: byPath ?? kindFromContent(text) ?? "text", text, bytes: f.bytes, lossy: true };
    });
}

/**
 * Scans a skill. `previous` is the capabilities of the version before (none for a first
 * publish): what this version adds is reported as `capability.added.*` findings (low severity:
 * shown, not blocking).
 */
export function scanSkill(files: readonly SkillFileInput[], previous: Capabilities | null = null): SkillScan {
  const targets = toTargets(files);
  const findings = runRules(SKILL_RULES, targets, { derive: skillHidden });
  const { caps, where } = detectCapabilities(targets);
  const changes = previous ? capabilityChanges(previous ?? NO_CAPABILITIES, caps) : [];
  const all = sortFindings([...findings, ...capabilityFindings(changes, where)]);
  const byPath = new Map(targets.map((t) => [t.path, t]));
  const uncertain = collectUncertain(
    all,
    (i) => {
      const t = byPath.get(all[i]!.path);
      return t?.text != null ? { path: t.path, text: t.text } : null;
    },
    SKILL_RULE_DEFAULTS,
    targets.filter((t) => t.lossy && t.text !== null).map((t) => ({ path: t.path, text: t.text! })),
  );
  return { status: statusOf(all), findings: all, rulesetVersion: SKILL_RULESET.version, capabilities: caps, capabilityChanges: changes, uncertain };
}

export type { Capabilities, CapabilityChange } from "./capabilities";
