/**
 * The tool-poisoning scanner: deterministic rules over what an MCP server puts in the model's
 * context, namely its `initialize` instructions and every tool's name, title, description and
 * the text inside its schemas (property descriptions, defaults, enums, nested schemas). Built on
 * the shared primitives of src/scan (hidden Unicode, decoding, egress classes, the rule engine)
 * and on the skills rules that apply to any text an agent reads (ANY_TEXT_RULES), plus rules
 * for what tool descriptions do: ask for data as arguments, hide things from the user, shadow
 * other tools, vouch for themselves, name fixed destinations, imitate other tools' names.
 * docs/scanner.md explains the weighting; each rule's cases sit beside it (rules/*.cases.ts).
 */
import {
  collectLimits,
  INCOMPLETE_RULE_ID,
  limitScope,
  noteLimit,
  findEncodedPayloads,
  findHiddenUnicode,
  runRules,
  visible,
  severityRank,
  statusOf,
  type Finding,
  type Rule,
  type ScanTarget,
} from "../../scan";
import { ANY_TEXT_RULES } from "../../skills/scanner";
import { REQUEST_RULES } from "./rules/requests";
import { CONCEALMENT_RULES } from "./rules/concealment";
import { TRUST_RULES } from "./rules/trust";
import { SHADOWING_RULES, SHADOWING_STATIC_RULES } from "./rules/shadowing";
import { EXFILTRATION_RULES } from "./rules/exfiltration";
import { EXECUTION_RULES } from "./rules/execution";
import { DIRECTIVE_RULES } from "./rules/directives";
import { CONTROL_RULES } from "./rules/controls";
import { STEERING_RULES } from "./rules/steering";
import { FLOW_RULES } from "./rules/flow";
import { DESTRUCTIVE_RULES } from "./rules/destructive";
import { LURE_RULES } from "./rules/lures";
import { INTEREST_RULES } from "./rules/interest";
import { AGAINST_USER_RULES } from "./rules/against-user";
import { checkNames } from "./names";
import { fixedDestinations, scalarProperties, schemaTexts, secretValues } from "./schema";
import { collectUncertain, ruleDefaults } from "../../scan/uncertain";
import { joinTarget, locate, setScalarProperties, type Segment } from "./targets";
import { withServer } from "./server-context";
import { setSentenceGating } from "./sentence-rule";
import { DESCRIBE_EXEMPT, describeMcp } from "./describe";
import { mcpHidden } from "./hidden";
import { annotationLies } from "./annotations";
import { splitFlows } from "./split-flow";
import type { McpFinding, McpScan, McpScanInput } from "./types";
import { MCP_RULESET } from "./ruleset";
import { HANDED_TO_USER } from "./vocab";

export type { McpFinding, McpScan, McpScanInput, McpToolInput, McpUncertainSpan } from "./types";
export { toolChanges, changedExcerpts, seriousRulesByTool } from "./rugpull";
export { toolsHash } from "./hash";

export { MCP_RULESET };

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
  ...FLOW_RULES,
  ...DESTRUCTIVE_RULES,
  ...LURE_RULES,
  ...INTEREST_RULES,
  ...AGAINST_USER_RULES,
];

/** Every rule id the scanner can report (the rule cases test checks each has positive and negative cases). */
export const MCP_RULE_IDS: readonly string[] = [
  ...new Set([
    ...ANY_TEXT_RULES.map((r) => r.id),
    ...MCP_STATIC_RULES.map((r) => r.id),
    "mcp.shadowing",
    "mcp.name-imitation",
    "mcp.schema-destination",
    "mcp.schema-secret-value",
    "mcp.annotation-mismatch",
  ]),
];

/**
 * Rules that can fire on a single token (a tool or property name, an enum value, a default): the
 * ones that read characters and URLs, not prose. A token with nothing hidden in it gets only these;
 * everything else, and every token that decodes to hidden text, gets every rule.
 */
const TOKEN_RULE_IDS = new Set([
  "unicode.hidden",
  "mcp.control-characters",
  "egress.raw-ip",
  "egress.cloud-metadata",
  "egress.paste-site",
  "egress.collector",
  "egress.chat-webhook",
  "egress.tunnel",
]);

// Printable ASCII only: Chinese or Japanese prose has no spaces either, and must get every rule.
const isPlainToken = (text: string) =>
  text.length <= 256 &&
  /^[\x21-\x7e]*$/.test(text) &&
  findEncodedPayloads(text).length === 0 &&
  !findHiddenUnicode(text).some((r) => r.decoded);

/**
 * A rule's hits on one text, at most `max` of them, worst first: a text flooded with what a rule
 * looks for (300,000 zero-width runs) costs one excerpt per kept hit, not one per run.
 */
function capped(rule: Rule, max = 20): Rule {
  if (!rule.text) return rule;
  const text = rule.text.bind(rule);
  return {
    ...rule,
    text(t, ctx) {
      const hits = text(t, ctx);
      if (hits.length <= max) return hits;
      const rank = (h: (typeof hits)[number]) => severityRank(h.severity ?? rule.severity);
      let worst = 0;
      for (const h of hits) worst = Math.max(worst, rank(h));
      const out = hits.filter((h) => rank(h) === worst).slice(0, max);
      return out.length < max ? [...out, ...hits.filter((h) => rank(h) !== worst).slice(0, max - out.length)] : out;
    },
  };
}

/**
 * The shared pipe-to-shell rule reads a command the model would run. In a tool's text, a command the
 * model is told to show the user for the user to run (an official installer's documented line) is
 * the user's decision, made with the command in view: noted (low), not flagged.
 */
function handedToUser(rule: Rule): Rule {
  if (rule.id !== "exec.pipe-to-shell" || !rule.line) return rule;
  const line = rule.line.bind(rule);
  return {
    ...rule,
    line(l, ctx) {
      const hit = line(l, ctx);
      if (!hit || Array.isArray(hit) || !HANDED_TO_USER.test(l) || severityRank(hit.severity ?? rule.severity) < severityRank("medium"))
        return hit;
      return {
        ...hit,
        severity: "low",
        message: "Shows the user a pipe-to-shell command for them to run (an installer's documented line; still review it)",
      };
    },
  };
}

// One static list (the engine compiles a list's triggers once); the server's own tool names reach the rules through `withServer`.
const RULES: readonly Rule[] = [...ANY_TEXT_RULES.map(handedToUser), ...MCP_STATIC_RULES, ...SHADOWING_RULES].map((r) => capped(r));
const TOKEN_RULES: readonly Rule[] = RULES.filter((r) => TOKEN_RULE_IDS.has(r.id));
const RULE_DEFAULTS = ruleDefaults(RULES);

/** A tool whose purpose is to move what it is given somewhere else. */
const SENDING_TOOL =
  /\b(?:share\w*|upload\w*|publish\w*|send\w*|post\w*|sync\w*|export\w*|backup|back\s+up|mirror\w*|transfer\w*|link|bundle\w*|snapshot\w*|gist|paste\w*|submit\w*)\b/i;

export interface ScanOptions {
  /** More tool names to treat as well known (other servers' tools in the directory). */
  knownTools?: readonly string[];
  /** Tests: run every rule on every line and sentence, ignoring trigger words (they must never change a finding). */
  ungated?: boolean;
}

type Part = Omit<Segment, "start" | "line">;

/**
 * Characters of a server's texts the whole-text analyses read (the sentence rules, the intent
 * model; src/scan/engine.ts `analysisBudget`): three sixteenths of what a scan may carry, about twice
 * the largest real tool lists (a hundred tools with their schemas) and far more than any server of
 * the corpora and directory fixtures (the seed's largest is 2 KiB), so padding reaches it; it is
 * what bounds a 1 MiB scan's cost (a limit noted when it cuts: test/skills/scan-limits.test.ts).
 * At 256 KiB a scan of 200 tools of dense prose still cost about 0.5 s in a long-lived isolate.
 */
export const ANALYSIS_BUDGET = 192 * 1024;

/**
 * Characters of the tools' own texts the line rules and the search for encoded payloads and hidden
 * regions read (src/scan/engine.ts `lineBudget`): the whole-text bound. Unbounded, a 1 MiB scan of
 * dense text cost up to a second of CPU in a long-lived isolate (a limit noted when it cuts).
 */
export const LINE_BUDGET = 192 * 1024;

/** How much of a tool's annotations is read (what is not read is a `scan.incomplete` finding). */
const ANNOTATIONS_READ = 32;
const ANNOTATION_CHARS = 65_536;

export function scanMcpTools(input: McpScanInput, opts: ScanOptions = {}): McpScan {
  let order = 0;
  const full: ScanTarget[] = [];
  const tokens: Part[] = [];
  const texts: Part[] = [];
  const firstOrder = new Map<string, number>();
  const part = (tool: string | null, field: string, text: string | undefined): Part | null => {
    if (typeof text !== "string" || text === "") return null;
    const p = { tool, field, text, order: order++ };
    texts.push(p);
    if (tool !== null && !firstOrder.has(tool)) firstOrder.set(tool, p.order);
    return p;
  };
  const instructions = part(null, "instructions", input.instructions);
  if (instructions) full.push(joinTarget("instructions", "markdown", [instructions]));
  const schemaCuts: string[] = [];
  const annotationCuts: string[] = [];
  input.tools.forEach((t, i) => {
    const parts: Part[] = [];
    let cut = false;
    const add = (field: string, text: string | undefined, token: boolean) => {
      const p = part(t.name, field, text);
      if (!p) return;
      if (token && isPlainToken(p.text)) tokens.push(p);
      else parts.push(p);
    };
    add("name", t.name, true);
    add("title", t.title, true);
    add("description", t.description, false);
    const annTitle = t.annotations?.title;
    if (typeof annTitle === "string") add("annotations.title", annTitle, true);
    // Any other string an annotation carries ("x-llm-hint") reaches the model's context as much as the title does.
    if (t.annotations && typeof t.annotations === "object") {
      const entries = Object.entries(t.annotations);
      let annotationCut = entries.length > ANNOTATIONS_READ;
      for (const [k, v] of entries.slice(0, ANNOTATIONS_READ))
        if (k !== "title" && typeof v === "string") {
          if (v.length > ANNOTATION_CHARS) annotationCut = true;
          add(`annotations.${k}`, v.slice(0, ANNOTATION_CHARS), true);
        }
      if (annotationCut) annotationCuts.push(`tools[${i}]`);
    }
    for (const [root, schema] of [
      ["inputSchema", t.inputSchema],
      ["outputSchema", t.outputSchema],
    ] as const) {
      if (schema === undefined || schema === null) continue;
      for (const s of schemaTexts(schema, root, 64, () => {
        cut = true;
      }))
        add(s.path, s.text, !s.prose);
    }
    if (cut) schemaCuts.push(`tools[${i}]`);
    if (parts.length) {
      const target = joinTarget(`tools[${i}]`, "markdown", parts);
      if (t.inputSchema) setScalarProperties(target, scalarProperties(t.inputSchema, "inputSchema"));
      full.push(target);
    }
  });
  // Tokens one a line: the token rules read lines and URLs.
  if (tokens.length) full.push(joinTarget("tokens", "text", tokens, "\n"));
  const tokenTarget = tokens.length ? full.pop()! : null;

  const byPath = new Map([...full, ...(tokenTarget ? [tokenTarget] : [])].map((t) => [t.path, t]));
  const ungated = opts.ungated === true;
  if (ungated) setSentenceGating(false);
  let raw: Finding[];
  try {
    // A bound that cut the reading is a `warn` finding of its own, placed in the text it cut (src/scan/limits.ts).
    const { result, limits } = collectLimits(() => {
      // The schema walk runs before the collection: its cuts are noted here, in the tool they cut.
      for (const path of schemaCuts) limitScope(path, () => noteLimit("schema-strings"));
      for (const path of annotationCuts) limitScope(path, () => noteLimit("annotation-strings"));
      return withServer(
        input.tools,
        () => [
          ...runRules(RULES, full, {
            derive: mcpHidden,
            totalCap: 1000,
            ungated,
            describe: describeMcp,
            describeExempt: DESCRIBE_EXEMPT,
            analysisBudget: ANALYSIS_BUDGET,
            lineBudget: LINE_BUDGET,
          }),
          ...(tokenTarget ? runRules(TOKEN_RULES, [tokenTarget], { totalCap: 1000, ungated }) : []),
        ],
        input.instructions,
      );
    });
    raw = [...result, ...limits];
  } finally {
    if (ungated) setSentenceGating(true);
  }

  const findings: (McpFinding & { order: number })[] = [];
  for (const f of raw) {
    const target = byPath.get(f.path);
    const at = target ? locate(target, f.line) : null;
    if (!at) {
      // A limit is never dropped for want of a place: it is then the server's.
      if (f.ruleId === INCOMPLETE_RULE_ID)
        findings.push({
          ruleId: f.ruleId,
          severity: f.severity,
          tool: null,
          field: "tools",
          line: 1,
          excerpt: "",
          message: f.message,
          order: 0,
        });
      continue;
    }
    const { segment } = at;
    findings.push({
      ruleId: f.ruleId,
      severity: f.severity,
      tool: segment.tool,
      field: segment.field,
      line: at.line,
      excerpt: f.excerpt,
      message: f.message,
      order: segment.order,
    });
  }
  for (const n of checkNames(
    input.tools.map((t) => t.name),
    opts.knownTools,
  )) {
    const tool = input.tools[n.index]!.name;
    findings.push({
      ruleId: "mcp.name-imitation",
      severity: n.severity,
      tool,
      field: "name",
      line: 1,
      excerpt: n.excerpt,
      message: n.message,
      order: firstOrder.get(tool) ?? 0,
    });
  }
  for (const t of input.tools) {
    for (const lie of annotationLies(t)) {
      findings.push({
        ruleId: "mcp.annotation-mismatch",
        severity: lie.severity,
        tool: t.name,
        field: lie.field,
        line: 1,
        excerpt: lie.excerpt,
        message: lie.message,
        order: firstOrder.get(t.name) ?? 0,
      });
    }
  }
  // A secret defined in one place and asked for under its name in another (the per-text rules see each half alone).
  for (const f of splitFlows(texts)) {
    findings.push({
      ruleId: "mcp.data-flow",
      severity: "high",
      tool: f.tool,
      field: f.field,
      line: f.line,
      excerpt: visible(f.excerpt),
      message: f.message,
      order: f.tool === null ? 0 : (firstOrder.get(f.tool) ?? 0),
    });
  }
  for (const t of input.tools) {
    if (t.inputSchema === undefined || t.inputSchema === null) continue;
    const order = firstOrder.get(t.name) ?? 0;
    for (const d of fixedDestinations(t.inputSchema, "inputSchema")) {
      findings.push({
        ruleId: "mcp.schema-destination",
        severity: d.severity,
        tool: t.name,
        field: d.path,
        line: 1,
        excerpt: d.excerpt,
        message: d.message,
        order,
      });
    }
    const secrets = secretValues(t.inputSchema, "inputSchema");
    if (secrets.length) {
      // Offered to a tool that sends, shares or publishes what it is given: the secrets leave with it.
      const sends =
        SENDING_TOOL.test(`${t.name} ${t.title ?? ""} ${t.description ?? ""}`.replace(/[_-]/g, " ")) ||
        /public|share|upload/i.test(JSON.stringify(t.inputSchema).slice(0, 65_536));
      for (const v of secrets) {
        findings.push({
          ruleId: "mcp.schema-secret-value",
          severity: sends ? "high" : "low",
          tool: t.name,
          field: v.path,
          line: 1,
          excerpt: visible(v.value.slice(0, 200)),
          message: sends
            ? `The tool offers the credential file ${v.value} as a value of its input, and it sends or shares what it is given`
            : `The tool offers the credential file ${v.value} as a value of its input (a tool that uses it locally may need it)`,
          order,
        });
      }
    }
  }
  findings.sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      a.order - b.order ||
      (a.field < b.field ? -1 : a.field > b.field ? 1 : 0) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.ruleId < b.ruleId ? -1 : 1),
  );
  const out = findings.slice(0, 200).map(({ order: _o, ...f }) => f);
  const textAt = new Map<string, string>();
  for (const p of texts) textAt.set(`${p.tool ?? ""}\u0000${p.field}`, p.text);
  const label = (f: McpFinding) => (f.tool === null ? f.field : `tools/${f.tool}/${f.field}`);
  const uncertain = collectUncertain(
    out,
    (i) => {
      const f = out[i]!;
      const text = textAt.get(`${f.tool ?? ""}\u0000${f.field}`);
      return text === undefined ? null : { path: label(f), text };
    },
    RULE_DEFAULTS,
  ).map((s) => ({ ...s, tool: out[s.covers[0]!]!.tool, field: out[s.covers[0]!]!.field }));
  return { status: statusOf(findings), findings: out, rulesetVersion: MCP_RULESET.version, uncertain };
}
