/**
 * Rug pulls: a server whose tools were reviewed changes them afterwards ("sleeper" servers:
 * Invariant Labs' WhatsApp MCP exploit served an innocent `get_fact_of_the_day` first and a
 * poisoned one later). Every refresh compares the tool list with the one reviewed before; each
 * changed description or schema is a finding of its own with the old and new text. A change that
 * came with a new version is ordinary (low: shown); one under the same version is the rug-pull
 * pattern (medium); one whose new text carries findings the old text did not is high.
 */
import { excerpt } from "../../scan/text";
import { severityRank, type Severity } from "../../scan/types";
import type { McpFinding, McpToolInput } from "./types";

export interface ToolChangeContext {
  previousVersion: string | null;
  version: string | null;
  /** Rule ids of medium-or-worse findings per tool name, in the old and the new scan. */
  oldRules: ReadonlyMap<string, ReadonlySet<string>>;
  newRules: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The changed region of two texts, each cut to an excerpt around the first difference. */
export function changedExcerpts(before: string, after: string): { before: string; after: string } {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endB = before.length;
  let endA = after.length;
  while (endB > start && endA > start && before[endB - 1] === after[endA - 1]) {
    endB--;
    endA--;
  }
  const cut = (s: string, from: number, to: number) => {
    const lo = Math.max(0, from - 40);
    const piece = s.slice(lo, Math.max(to, from) + 40);
    return `${lo > 0 ? "…" : ""}${excerpt(piece.replace(/\s+/g, " "), 0, 0)}${Math.max(to, from) + 40 < s.length ? "…" : ""}`;
  };
  return { before: cut(before, start, endB), after: cut(after, start, endA) };
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
  );

export function toolChanges(previous: readonly McpToolInput[], next: readonly McpToolInput[], ctx: ToolChangeContext): McpFinding[] {
  const out: McpFinding[] = [];
  const sameVersion = ctx.previousVersion !== null && ctx.previousVersion === ctx.version;
  const versionNote = sameVersion
    ? `under the same version ${ctx.version}`
    : `from version ${ctx.previousVersion ?? "?"} to ${ctx.version ?? "?"}`;
  const before = new Map(previous.map((t) => [t.name, t]));
  const base: Severity = sameVersion ? "medium" : "low";
  for (const t of next) {
    const old = before.get(t.name);
    if (!old) {
      out.push({
        ruleId: "rugpull.tool-added",
        severity: "low",
        tool: t.name,
        field: "name",
        excerpt: excerpt(t.name),
        message: `Tool added since the last review (${versionNote}); its text is scanned like the others`,
      });
      continue;
    }
    const gained = [...(ctx.newRules.get(t.name) ?? [])].filter((r) => !ctx.oldRules.get(t.name)?.has(r));
    const severity: Severity = gained.length ? "high" : base;
    const why = gained.length ? `; the new text carries findings the reviewed text did not (${gained.join(", ")})` : "";
    if ((old.description ?? "") !== (t.description ?? "")) {
      const ex = changedExcerpts(old.description ?? "", t.description ?? "");
      out.push({
        ruleId: "rugpull.description-changed",
        severity,
        tool: t.name,
        field: "description",
        excerpt: ex.after,
        before: ex.before,
        after: ex.after,
        message: `The description changed since the last review (${versionNote})${why}`,
      });
    } else if (canonical(old.inputSchema ?? null) !== canonical(t.inputSchema ?? null) || (old.title ?? "") !== (t.title ?? "")) {
      const a =
        canonical(old.inputSchema ?? null) !== canonical(t.inputSchema ?? null)
          ? [canonical(old.inputSchema ?? null), canonical(t.inputSchema ?? null)]
          : [old.title ?? "", t.title ?? ""];
      const ex = changedExcerpts(a[0]!, a[1]!);
      out.push({
        ruleId: "rugpull.schema-changed",
        severity,
        tool: t.name,
        field: a[0] === (old.title ?? "") ? "title" : "inputSchema",
        excerpt: ex.after,
        before: ex.before,
        after: ex.after,
        message: `The ${a[0] === (old.title ?? "") ? "title" : "input schema"} changed since the last review (${versionNote})${why}`,
      });
    }
  }
  const now = new Set(next.map((t) => t.name));
  for (const t of previous) {
    if (!now.has(t.name)) {
      out.push({
        ruleId: "rugpull.tool-removed",
        severity: "info",
        tool: t.name,
        field: "name",
        excerpt: excerpt(t.name),
        message: `Tool removed since the last review (${versionNote})`,
      });
    }
  }
  return out;
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
