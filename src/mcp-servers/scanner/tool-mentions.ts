/**
 * Other tools named in a sentence. A tool's description has every reason to talk about itself and
 * its own server's tools; when it tells the model what to do with a tool of another server (the
 * mail server's `send_email`, "the fetch tool", "whatever terminal tool is available"), it is
 * reaching past its own purpose: the shape of tool shadowing and of cross-tool exfiltration.
 */
import { KNOWN_TOOL_SET, normalizeToolName } from "./known-tools";

// A word that looks like a tool's name: snake_case, kebab-case, dotted or camelCase, maybe quoted.
const TOOLISH = /[`'"]?\b([A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+)\b[`'"]?/g;

/** "the email tool", "whatever terminal tool is available", "another server's install tool", "tools from other servers". */
const GENERIC =
  /\b(?:(?:the|a|an|any|whatever|whichever|your|another|other|each|every)\s+(?:(?:connected|available|other)\s+)?(?:server'?s\s+)?(?!(?:same|current|present|following|above|below|previous|next|this|tool|server|function)\b)[\w-]+(?:\s+[\w-]+)?\s+(?:tool|server|integration)s?\b(?!\s+(?:of|in|from|on)\s+this\b)|\b(?:tools?|functions?)\s+(?:from|of|on)\s+(?:any|another|other|different|all)\s+(?:connected\s+)?servers?\b|\((?:any|every|all)\s+servers?\)|\bfrom\s+any\s+connected\s+server\b)/gi;

const MODIFIER =
  /^[a-z]+-(?:only|write|in|party|server|servers|tool|tools|running|lived|capable|risk|side|source|known|step|destructive|approved|level|time|based|scoped|safe|sensitive|facing|wide|term|hosted|managed)$/;

export interface ToolMention {
  index: number;
  length: number;
  /** The tool's name, or null for a tool named by what it does ("the email tool"). */
  name: string | null;
}

/** The first tool of another server the sentence names (known tools, words called a tool, tools named by what they do). */
export function foreignTool(s: string, own: ReadonlySet<string>): ToolMention | null {
  TOOLISH.lastIndex = 0;
  for (let m = TOOLISH.exec(s); m; m = TOOLISH.exec(s)) {
    const name = m[1]!;
    const norm = normalizeToolName(name);
    if (own.has(norm)) continue;
    // "read-only tools", "long-running servers", "cross-server shadowing": a compound adjective, not a tool's name.
    if (MODIFIER.test(name) && !KNOWN_TOOL_SET.has(norm)) continue;
    const around = s.slice(Math.max(0, m.index - 30), m.index + m[0].length + 30);
    const calledTool = /\b(?:tool|function|command)s?\b/i.test(around) || /^mcp[_.-]/i.test(name);
    if (KNOWN_TOOL_SET.has(norm) || calledTool) return { index: m.index, length: m[0].length, name };
  }
  GENERIC.lastIndex = 0;
  for (let m = GENERIC.exec(s); m; m = GENERIC.exec(s)) {
    // "the dns_lookup tool" of this very server is its own.
    const words = m[0].split(/\s+/).map((w) => normalizeToolName(w.replace(/[`'"()]/g, "")));
    if (words.some((w) => own.has(w))) continue;
    return { index: m.index, length: m[0].length, name: null };
  }
  return null;
}
