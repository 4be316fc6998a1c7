/**
 * What goes into the skill and agent-text scans and what comes out: plain data, so that it crosses
 * the service binding to the scanner Worker (src/scan-worker/index.ts) as it is.
 */
import type { Finding, ScanStatus } from "../../scan/types";
import type { UncertainSpan } from "../../scan/uncertain";
import type { Capabilities, CapabilityChange } from "./capabilities";

export type { Capabilities, CapabilityChange };

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

export interface AgentTextInput {
  /** Where the text sits, as findings name it (`title`, `summaryMd`, `bodyMd`). */
  path: string;
  text: string;
}

export interface AgentTextScan {
  status: ScanStatus;
  /** Worst first; at most 200. */
  findings: Finding[];
  rulesetVersion: string;
  uncertain: UncertainSpan[];
}

/**
 * At most this many values added by aliases once expanded (SKILL.md front matter is stored as JSON,
 * where an alias is a copy): a few aliases nested in each other can stand for millions (an alias bomb).
 */
export const MAX_ALIASED_VALUES = 1000;
/**
 * The front matter's text, its expanded text and its stored JSON are each at most 64 KiB: SKILL.md
 * front matter is a name, a description of ≤ 1024 characters and a little metadata, and the JSON is
 * one D1 column (a row is at most 2 MB, and the version row holds SKILL.md too).
 */
export const MAX_FRONT_MATTER_CHARS = 64 * 1024;

/** SKILL.md's front matter read as YAML in the scanner Worker (src/skills/scanner/front-matter.ts). */
export type FrontMatterYaml =
  | {
      ok: true;
      /** The front matter as JSON (aliases expanded), at most MAX_FRONT_MATTER_CHARS characters. */
      json: string;
      /** `version` and `metadata.version` as the author wrote them (a plain `1.10` stays `1.10`), or null. */
      version: string | null;
      metadataVersion: string | null;
    }
  | { ok: false; message: string };
