/**
 * The tool-poisoning scanner: deterministic rules over what an MCP server puts in the model's
 * context, namely its `initialize` instructions and every tool's name, title, description and
 * the text inside its schemas (property descriptions, defaults, enums, nested schemas). Built on
 * the shared primitives of src/scan (hidden Unicode, decoding, egress classes, the rule engine)
 * and on the skills rules that apply to any text an agent reads (AGENT_TEXT_RULES), plus rules
 * for what tool descriptions do: ask for data as arguments, hide things from the user, shadow
 * other tools, vouch for themselves, name fixed destinations, imitate other tools' names.
 * docs/scanner.md explains the weighting; each rule's cases sit beside it (rules/*.cases.ts).
 */
import { findEncodedPayloads, findHiddenUnicode, runRules, severityRank, statusOf, type Finding, type Rule, type RulesetInfo, type ScanTarget } from "../../scan";
import { AGENT_TEXT_RULES, SKILL_RULESET } from "../../skills/scanner";
import { markdownHidden } from "../../skills/scanner/rules/markdown";
import { REQUEST_RULES } from "./rules/requests";
import { CONCEALMENT_RULES } from "./rules/concealment";
import { TRUST_RULES } from "./rules/trust";
import { SHADOWING_STATIC_RULES, shadowingRule } from "./rules/shadowing";
import { EXFILTRATION_RULES } from "./rules/exfiltration";
import { EXECUTION_RULES } from "./rules/execution";
import { DIRECTIVE_RULES } from "./rules/directives";
import { CONTROL_RULES } from "./rules/controls";
import { STEERING_RULES } from "./rules/steering";
import { checkNames } from "./names";
import { fixedDestinations, schemaTexts } from "./schema";
import { normalizeToolName } from "./known-tools";
import { collectUncertain, ruleDefaults } from "../../scan/uncertain";
import type { McpFinding, McpScan, McpScanInput } from "./types";

export type { McpFinding, McpScan, McpScanInput, McpToolInput, McpUncertainSpan } from "./types";
export { toolChanges, changedExcerpts } from "./rugpull";
export { toolsHash } from "./hash";

/**
 * Bump on every change to the MCP rules, and to the directory's review findings (store.ts
 * `reviewFindings`, runtime.ts): stored servers are re-reviewed when it changes (the daily job).
 * The skills ruleset is part of the version because the agent-text rules are shared: a change
 * there rescans MCP servers too. -3: the packages' runtime hint, runtime arguments and variables.
 */
export const MCP_RULESET: RulesetInfo = { id: "lore-mcp", version: `2026.11.24-3+${SKILL_RULESET.version}` };

/** The MCP rules that do not depend on the server's own tool names. */
export const MCP_STATIC_RULES: readonly Rule[] = [
  ...REQUEST_RULES,
  ...CONCEALMENT_RULES,
  ...TRUST_RULES,
  ...SHADOWING_STATIC_RULES,
  ...EXFILTRATION_RULES,
  ...EXECUTION_RULES,
  ...DIRECTIVE_RULES,
  ...CONTROL_RULES,
  ...STEERING_RULES,
];

/** Every rule id the scanner can report (the rule cases test checks each has positive and negative cases). */
export const MCP_RULE_IDS: readonly string[] = [
  ...new Set([...AGENT_TEXT_RULES.map((r) => r.id), ...MCP_STATIC_RULES.map((r) => r.id), "mcp.shadowing", "mcp.name-imitation", "mcp.schema-destination"]),
];

interface Where {
  tool: string | null;
  field: string;
  order: number;
}

/**
 * Rules that can fire on a single token (a tool or property name, an enum value, a default): the
 * ones that read characters and URLs, not prose. A token with nothing hidden in it gets only these;
 * everything else, and every token that decodes to hidden text, gets every rule.
 */
const TOKEN_RULE_IDS = new Set(["unicode.hidden", "mcp.control-characters", "egress.raw-ip", "egress.cloud-metadata", "egress.paste-site", "egress.collector", "egress.chat-webhook", "egress.tunnel"]);

// Printable ASCII only: Chinese or Japanese prose has no spaces either, and must get every rule.
const isPlainToken = (text: string) =>
  text.length <= 256 && /^[\x21-\x7e]*$/.test(text) && findEncodedPayloads(text).length === 0 && !findHiddenUnicode(text).some((r) => r.decoded);

export interface ScanOptions {
  /** More tool names to treat as well known (other servers' tools in the directory). */
  knownTools?: readonly string[];
}

export function scanMcpTools(input: McpScanInput, opts: ScanOptions = {}): McpScan {
  const targets: ScanTarget[] = [];
  const where = new Map<string, Where>();
  let order = 0;
  const add = (tool: string | null, field: string, text: string | undefined, prose: boolean) => {
    if (typeof text !== "string" || text === "") return;
    const path = `${order}\u0000${field}`;
    where.set(path, { tool, field, order: order++ });
    targets.push({ path, kind: prose ? "markdown" : "text", text });
  };
  add(null, "instructions", input.instructions, true);
  for (const t of input.tools) {
    add(t.name, "name", t.name, false);
    add(t.name, "title", t.title, false);
    add(t.name, "description", t.description, true);
    const annTitle = t.annotations?.title;
    if (typeof annTitle === "string") add(t.name, "annotations.title", annTitle, false);
    for (const [root, schema] of [["inputSchema", t.inputSchema], ["outputSchema", t.outputSchema]] as const) {
      if (schema === undefined || schema === null) continue;
      for (const s of schemaTexts(schema, root)) add(t.name, s.path, s.text, s.prose);
    }
  }
  const own = new Set(input.tools.map((t) => normalizeToolName(t.name)));
  const rules: Rule[] = [...AGENT_TEXT_RULES, ...MCP_STATIC_RULES, shadowingRule(own)];
  const tokenRules = rules.filter((r) => TOKEN_RULE_IDS.has(r.id));
  // Servers repeat the same parameter descriptions across tools: each distinct text is scanned once.
  const byText = new Map<string, { first: ScanTarget; paths: string[] }>();
  for (const t of targets) {
    const k = `${t.kind}\u0000${t.text}`;
    const seen = byText.get(k);
    if (seen) seen.paths.push(t.path);
    else byText.set(k, { first: t, paths: [t.path] });
  }
  const unique = [...byText.values()];
  const plainToken = unique.map((u) => isPlainToken(u.first.text!));
  const full = unique.filter((_u, i) => !plainToken[i]).map((u) => u.first);
  const tokens = unique.filter((_u, i) => plainToken[i]).map((u) => u.first);
  const once: Finding[] = [...runRules(rules, full, { derive: markdownHidden, totalCap: 1000 }), ...runRules(tokenRules, tokens, { totalCap: 1000 })];
  const copies = new Map(unique.map((u) => [u.first.path, u.paths]));
  const raw = once.flatMap((f) => (copies.get(f.path) ?? [f.path]).map((path) => ({ ...f, path })));

  const findings: (McpFinding & { order: number })[] = [];
  for (const f of raw) {
    const w = where.get(f.path)!;
    findings.push({ ruleId: f.ruleId, severity: f.severity, tool: w.tool, field: w.field, line: f.line, excerpt: f.excerpt, message: f.message, order: w.order });
  }
  const firstOrder = (tool: string) => [...where.values()].find((w) => w.tool === tool)?.order ?? 0;
  for (const n of checkNames(input.tools.map((t) => t.name), opts.knownTools)) {
    const tool = input.tools[n.index]!.name;
    findings.push({ ruleId: "mcp.name-imitation", severity: n.severity, tool, field: "name", line: 1, excerpt: n.excerpt, message: n.message, order: firstOrder(tool) });
  }
  for (const t of input.tools) {
    if (t.inputSchema === undefined || t.inputSchema === null) continue;
    for (const d of fixedDestinations(t.inputSchema, "inputSchema")) {
      findings.push({ ruleId: "mcp.schema-destination", severity: d.severity, tool: t.name, field: d.path, line: 1, excerpt: d.excerpt, message: d.message, order: firstOrder(t.name) });
    }
  }
  findings.sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || a.order - b.order || (a.field < b.field ? -1 : a.field > b.field ? 1 : 0) || (a.line ?? 0) - (b.line ?? 0) || (a.ruleId < b.ruleId ? -1 : 1));
  const out = findings.slice(0, 200).map(({ order: _o, ...f }) => f);
  const textAt = new Map<string, string>();
  for (const t of targets) {
    const w = where.get(t.path)!;
    textAt.set(`${w.tool ?? ""}\u0000${w.field}`, t.text!);
  }
  const label = (f: McpFinding) => (f.tool === null ? f.field : `tools/${f.tool}/${f.field}`);
  const uncertain = collectUncertain(
    out,
    (i) => {
      const f = out[i]!;
      const text = textAt.get(`${f.tool ?? ""}\u0000${f.field}`);
      return text === undefined ? null : { path: label(f), text };
    },
    ruleDefaults(rules),
  ).map((s) => ({ ...s, tool: out[s.covers[0]!]!.tool, field: out[s.covers[0]!]!.field }));
  return { status: statusOf(findings), findings: out, rulesetVersion: MCP_RULESET.version, uncertain };
}

/** Rule ids of medium-or-worse findings per tool (what a rug-pull diff compares). */
export function seriousRulesByTool(findings: readonly McpFinding[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const f of findings) {
    if (f.tool === null || severityRank(f.severity) < severityRank("medium")) continue;
    const set = out.get(f.tool) ?? new Set<string>();
    set.add(f.ruleId);
    out.set(f.tool, set);
  }
  return out;
}
