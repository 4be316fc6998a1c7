/**
 * Text a Markdown viewer hides but a model reads: HTML comments, `[//]: #` comment links, and
 * elements styled invisible. Their content is scanned as hidden text by the engine (any finding
 * in it is raised to high); this rule notes hidden regions that address the agent at all.
 */
import type { HiddenText, LineIndex, Rule, ScanTarget } from "../../../scan";

const HTML_COMMENT = /<!--([\s\S]*?)-->/g;
const LINK_COMMENT = /^\s*\[(?:\/\/|comment|_)\]:\s*#\s*(?:\(([^)\n]*)\)|"([^"\n]*)")/gim;
const INVISIBLE_ELEMENT = /<(\w+)[^>]*style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?:\.0+)?(?![.\d]))[^"']*["'][^>]*>([\s\S]*?)<\/\1>/gi;

/** The hidden regions of a Markdown or HTML file, for the engine to scan. */
export function markdownHidden(target: ScanTarget, lines: LineIndex): HiddenText[] {
  if ((target.kind !== "markdown" && target.kind !== "html") || !target.text) return [];
  const out: HiddenText[] = [];
  const text = target.text;
  for (const m of text.matchAll(HTML_COMMENT)) out.push({ text: m[1] ?? "", line: lines.lineOf(m.index), via: "an HTML comment" });
  for (const m of text.matchAll(LINK_COMMENT)) out.push({ text: m[1] ?? m[2] ?? "", line: lines.lineOf(m.index), via: "a Markdown comment" });
  for (const m of text.matchAll(INVISIBLE_ELEMENT)) out.push({ text: m[2] ?? "", line: lines.lineOf(m.index), via: "an invisible element" });
  return out.filter((h) => h.text.trim().length > 0);
}

const ADDRESSES_AGENT =
  /\b(?:you\s+(?:must|should|will|need\s+to|are\s+to)|(?:the\s+)?(?:assistant|agent|AI|model|LLM|claude|codex|copilot|cursor|gemini)\s*(?:,|:|must|should|will|needs?\s+to)|ignore\s+(?:the|all|any|previous|above)|disregard|do\s+not\s+(?:tell|mention)|without\s+telling)/i;

export const hiddenInstructions: Rule = {
  id: "markdown.hidden-instructions",
  severity: "medium",
  title: "Instructions hidden from the reader",
  kinds: ["markdown", "html"],
  text(text, ctx) {
    if (ctx.hidden) return [];
    return markdownHidden(ctx.target, ctx.lines)
      .filter((h) => ADDRESSES_AGENT.test(h.text))
      .slice(0, 5)
      .map((h) => ({ index: ctx.lines.startOf(h.line), length: 0, message: `Text in ${h.via} addresses the agent where a human reviewer does not see it` }));
  },
};

export const MARKDOWN_RULES: Rule[] = [hiddenInstructions];
