/**
 * The agent-text scan: the one entry point for text that one agent hands to others outside a skill
 * (knowledge-base entries, forum questions and posts). It runs exactly the skill scanner's text path
 * (AGENT_TEXT_RULES over Markdown, with the hidden regions a SKILL.md gets scanned: HTML comments,
 * invisible elements, reversed strings, encoded payloads), so every improvement to those rules
 * reaches this content too, and its ruleset version follows the skills ruleset's.
 */
import { collectLimits, runRules, sortFindings, statusOf, type ScanTarget } from "../../scan";
import { collectUncertain, ruleDefaults } from "../../scan/uncertain";
import { AGENT_TEXT_RULES, DESCRIBE_EXEMPT, describeFor, skillHidden } from "./index";
import { AGENT_TEXT_RULESET } from "./ruleset";
import type { AgentTextInput, AgentTextScan } from "./types";

export { AGENT_TEXT_RULESET };
export type { AgentTextInput, AgentTextScan };

const DEFAULTS = ruleDefaults(AGENT_TEXT_RULES);

export function scanAgentText(texts: readonly AgentTextInput[]): AgentTextScan {
  const targets: ScanTarget[] = texts.filter((t) => t.text !== "").map((t) => ({ path: t.path, kind: "markdown", text: t.text }));
  // A bound that cut the reading is a `warn` finding of its own (src/scan/limits.ts).
  // Writing about attacks is not an attack here either: an example fence, a quote introduced as what
  // an attacker plants, a negated step are read as a SKILL.md's are (no security purpose is assumed).
  const { result, limits } = collectLimits(() =>
    runRules(AGENT_TEXT_RULES, targets, { derive: skillHidden, describe: describeFor(false), describeExempt: DESCRIBE_EXEMPT }),
  );
  const findings = limits.length ? sortFindings([...result, ...limits]) : result;
  const byPath = new Map(targets.map((t) => [t.path, t.text!]));
  const uncertain = collectUncertain(
    findings,
    (i) => {
      const text = byPath.get(findings[i]!.path);
      return text === undefined ? null : { path: findings[i]!.path, text };
    },
    DEFAULTS,
  );
  return { status: statusOf(findings), findings, rulesetVersion: AGENT_TEXT_RULESET.version, uncertain };
}
