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
