/**
 * Text a Markdown viewer hides but a model reads: HTML comments, `[//]: #` comment links, and
 * elements styled invisible. Their content is scanned as hidden text by the engine (any finding
 * in it is raised to high); this rule notes hidden regions that address the agent at all.
 */
import { LineKind, contextOf, firstAtLeast, type HiddenText, type LineIndex, type Rule, type ScanTarget } from "../../../scan";

const LINK_COMMENT = /^[ \t]*\[(?:\/\/|comment|_)\]:\s*#\s*(?:\(([^)\n]*)\)|"([^"\n]*)")/gim;
const HIDDEN_STYLE =
  /style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?:\.0+)?(?![.\d]))[^"']*["']/i;
// The boolean `hidden` attribute hides an element as `display:none` does.
const HIDDEN_ATTR = /\shidden(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]*))?(?=[\s/>])/i;
const MAX_TAG = 2000;

/** HTML comments, each to the first `-->` after it (an unclosed one hides nothing more: the search stops). */
function htmlComments(text: string, out: { text: string; at: number }[]) {
  for (let open = text.indexOf("<!--"); open !== -1; ) {
    const close = text.indexOf("-->", open + 4);
    if (close === -1) return;
    out.push({ text: text.slice(open + 4, close), at: open });
    open = text.indexOf("<!--", close + 3);
  }
}

/**
 * Elements styled invisible (`display:none`, `visibility:hidden`, `font-size:0`, `opacity:0`) or
 * carrying the `hidden` attribute, and their content up to the matching closing tag. Closing tags are indexed once, so the work is one
 * pass however many elements never close.
 */
function invisibleElements(text: string, out: { text: string; at: number }[]) {
  if (!/style|hidden/i.test(text)) return;
  let closers: Map<string, number[]> | null = null;
  for (let lt = text.indexOf("<"); lt !== -1; ) {
    const name = /^<(\w+)/.exec(text.slice(lt, lt + 100))?.[1];
    let end = -1;
    if (name) {
      // The opening tag ends at the first `>` outside quotes.
      let quote = "";
      for (let i = lt + 1 + name.length; i < text.length && i - lt < MAX_TAG; i++) {
        const c = text[i]!;
        if (quote) {
          if (c === quote) quote = "";
        } else if (c === '"' || c === "'") quote = c;
        else if (c === ">") {
          end = i + 1;
          break;
        } else if (c === "<") break;
      }
    }
    const tag = name && end !== -1 ? text.slice(lt, end) : "";
    if (name && tag && (HIDDEN_STYLE.test(tag) || HIDDEN_ATTR.test(tag))) {
      if (!closers) {
        closers = new Map();
        for (const m of text.matchAll(/<\/(\w+)>/g)) {
          const k = m[1]!.toLowerCase();
          const list = closers.get(k) ?? [];
          list.push(m.index);
          closers.set(k, list);
        }
      }
      const list = closers.get(name.toLowerCase()) ?? [];
      const close = list[firstAtLeast(list, end)];
      if (close !== undefined) {
        out.push({ text: text.slice(end, close), at: lt });
        lt = text.indexOf("<", close + name.length + 3);
        continue;
      }
    }
    lt = text.indexOf("<", lt + 1);
  }
}

/** Each target's regions, found once: the engine's `derive` and `markdown.hidden-instructions` both read them. */
const hiddenOf = new WeakMap<ScanTarget, { text: string; regions: HiddenText[] }>();

/** The hidden regions of a Markdown or HTML file, for the engine to scan. */
export function markdownHidden(target: ScanTarget, lines: LineIndex): HiddenText[] {
  if ((target.kind !== "markdown" && target.kind !== "html") || !target.text) return [];
  const known = hiddenOf.get(target);
  if (known && known.text === target.text) return known.regions;
  const regions = findHidden(target, target.text, lines);
  hiddenOf.set(target, { text: target.text, regions });
  return regions;
}

function findHidden(target: ScanTarget, text: string, lines: LineIndex): HiddenText[] {
  const out: HiddenText[] = [];
  const comments: { text: string; at: number }[] = [];
  htmlComments(text, comments);
  const elements: { text: string; at: number }[] = [];
  invisibleElements(text, elements);
  // In Markdown, a comment or an element inside a fenced block or an inline code span is shown as
  // it is written (a security skill quoting a hidden-text attack), not hidden.
  const markdown = target.kind === "markdown";
  const doc = markdown && (comments.length || elements.length) ? contextOf(target) : null;
  let spans: number[] | null = null;
  const shown = (at: number) => {
    if (!doc) return false;
    if (doc.kind[lines.lineOf(at)] === LineKind.Fence) return true;
    spans ??= codeSpans(text);
    return inSpans(spans, at);
  };
  for (const c of comments) if (!shown(c.at)) out.push({ text: c.text, line: lines.lineOf(c.at), via: "an HTML comment" });
  for (const m of text.includes("]:") ? text.matchAll(LINK_COMMENT) : [])
    out.push({ text: m[1] ?? m[2] ?? "", line: lines.lineOf(m.index), via: "a Markdown comment" });
  for (const e of elements) if (!shown(e.at)) out.push({ text: e.text, line: lines.lineOf(e.at), via: "an invisible element" });
  return out.filter((h) => h.text.trim().length > 0);
}

const INLINE_CODE_SPAN = /`[^`\n]{1,2000}`/g;

/** The single-backtick code spans of a text, as sorted [start, end) pairs, found in one pass. */
function codeSpans(text: string): number[] {
  const out: number[] = [];
  if (!text.includes("`")) return out;
  for (const m of text.matchAll(INLINE_CODE_SPAN)) out.push(m.index, m.index + m[0].length);
  return out;
}

/** Whether `at` lies strictly inside one of the spans (binary search). */
function inSpans(spans: readonly number[], at: number): boolean {
  let lo = 0;
  let hi = spans.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (at <= spans[2 * mid]!) hi = mid - 1;
    else if (at >= spans[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

const ADDRESSES_AGENT =
  /\b(?:you\s+(?:must|should|will|need\s+to|are\s+to)|(?:the\s+)?(?:assistant|agent|AI|model|LLM|claude|codex|copilot|cursor|gemini)\s*(?:,|:|must|should|will|needs?\s+to)|ignore\s+(?:the|all|any|previous|above)|disregard|do\s+not\s+(?:tell|mention)|without\s+telling|(?:notes?|instructions?|message|memo)\s+(?:for|to)\s+(?:the\s+|all\s+|any\s+)?(?:agents?|assistants?|AIs?|models?|LLMs?|bots?|coding\s+agents?)\b|keep\s+(?:it|this|them)\s+out\s+of\b|\b(?:agents?|assistants?|AI|models?|LLMs?)[- ](?:only|facing)\b|\bfor\s+(?:the\s+)?(?:agents?|assistants?|AI|models?)\s+only\b)/i;

export const hiddenInstructions: Rule = {
  id: "markdown.hidden-instructions",
  severity: "medium",
  title: "Instructions hidden from the reader",
  kinds: ["markdown", "html"],
  text(text, ctx) {
    if (ctx.hidden) return [];
    // The first five that address the agent (a loop that stops there: a text can hold half a million comments).
    const found: HiddenText[] = [];
    for (const h of markdownHidden(ctx.target, ctx.lines)) if (ADDRESSES_AGENT.test(h.text) && found.push(h) >= 5) break;
    return found.map((h) => ({
      index: ctx.lines.startOf(h.line),
      length: 0,
      message: `Text in ${h.via} addresses the agent where a human reviewer does not see it`,
    }));
  },
};

export const MARKDOWN_RULES: Rule[] = [hiddenInstructions];
