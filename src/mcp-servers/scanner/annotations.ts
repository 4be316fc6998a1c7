/**
 * Annotations that contradict the tool's own text. Clients skip the confirmation prompt for a
 * tool annotated `readOnlyHint: true` or `destructiveHint: false`; a description that says the
 * tool deletes, empties or overwrites something is either wrong or lying to get past that prompt
 * ("the remote bucket is emptied first; the annotations say this is read-only"). Read in the
 * description and title only, one pass; negated ("nothing is deleted") and conditional ("would be
 * deleted", a dry run) forms pass, and so does removing what is not stored (characters of the text given). With concealment in the same text it is high.
 */
import { isNegated, visible, type Severity } from "../../scan";
import type { McpToolInput } from "./types";
import { schemaTexts } from "./schema";

const DESTROYS =
  /\b(?:(?:is|are|gets?|will\s+be|being|been)\s+(?:first\s+|then\s+|also\s+|permanently\s+|silently\s+|irreversibly\s+)?(?:deleted|removed|wiped|erased|emptied|purged|dropped|truncated|overwritten|destroyed|cleared)|(?:deletes|removes|wipes|erases|empties|purges|drops|truncates|overwrites|destroys))\b/gi;
const NOTHING = /\b(?:nothing|never|not|no|none|without)\b[^.;!?\n]{0,40}$/i;
const WOULD = /\b(?:would|could|might|may|can|will\s+not|preview\s+of\s+what|dry[- ]run|simulat\w*)\b[^.;!?\n]{0,40}$/i;
/** What a deletion matters for: stored things, not the characters of a string the tool was given. */
const STORED =
  /\b(?:files?|folders?|director(?:y|ies)|buckets?|objects?|databases?|tables?|rows?|records?|repositor(?:y|ies)|repos?|branch(?:es)?|data|backups?|snapshots?|volumes?|disks?|accounts?|users?|e-?mails?|messages?|issues?|pages?|documents?|everything|all|remote|cloud|storage|history|commits?|keys?|secrets?|projects?|workspaces?|containers?|instances?|clusters?|resources?|entries|notes?|events?)\b/i;
/** Drag and drop: "drops files onto an element" moves something onto a target; it destroys nothing. */
const ONTO =
  /^[^.;!?\n]{0,60}?\b(?:onto|on\s+to|into\s+(?:a|an|the)\s+(?:drop\s*zone|element|target|field|input|page|area|canvas|window))\b/i;
const HIDE =
  /\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:warn|tell|inform|notify|mention|alert)\b|\bwithout\s+(?:warning|telling|informing)\b/i;

export interface AnnotationLie {
  severity: Severity;
  field: string;
  excerpt: string;
  message: string;
}

/** An order to destroy, as notes on a schema put it: "implementation: DELETE every object under prefix". */
const IMPERATIVE =
  /(?:^|[:;.]\s*|\b(?:then|and|also|actually)\s+)(delete|remove|wipe|erase|purge|drop|truncate|destroy|overwrite|empty)\s+(?:every|all|each|any|the\s+(?:whole|entire))\b[^.;!?\n]{0,60}/gi;

export function annotationLies(tool: McpToolInput): AnnotationLie[] {
  const a = tool.annotations;
  if (!a || (a.readOnlyHint !== true && a.destructiveHint !== false)) return [];
  const claim = a.readOnlyHint === true ? "read-only (readOnlyHint)" : "not destructive (destructiveHint: false)";
  // The schema's own notes and parameter descriptions say what the tool does as much as its description.
  const schema =
    tool.inputSchema && typeof tool.inputSchema === "object"
      ? schemaTexts(tool.inputSchema, "inputSchema", 8)
          .filter((s) => s.prose)
          .slice(0, 50)
          .map((s) => [s.path, s.text] as const)
      : [];
  for (const [field, text] of [["description", tool.description] as const, ["title", tool.title] as const, ...schema]) {
    if (typeof text !== "string" || text === "") continue;
    const t = text.slice(0, 65_536);
    IMPERATIVE.lastIndex = 0;
    for (let m = IMPERATIVE.exec(t); m; m = IMPERATIVE.exec(t)) {
      const at = m.index + m[0].search(/\S/) + (/^[:;.]/.test(m[0]) ? 1 : 0);
      if (isNegated(t, at) || WOULD.test(t.slice(Math.max(0, at - 60), at)) || !STORED.test(m[0])) continue;
      return [
        {
          severity: HIDE.test(t) ? "high" : "medium",
          field,
          excerpt: visible(t.slice(Math.max(0, m.index - 60), m.index + m[0].length + 20)),
          message: `Annotated ${claim}, but its own text says to ${m[1]!.toLowerCase()} things: clients skip the user's confirmation on that annotation`,
        },
      ];
    }
    DESTROYS.lastIndex = 0;
    for (let m = DESTROYS.exec(t); m; m = DESTROYS.exec(t)) {
      const before = t.slice(Math.max(0, m.index - 60), m.index);
      if (isNegated(t, m.index) || NOTHING.test(before) || WOULD.test(before)) continue;
      // The passive names its object before the verb ("the remote bucket is emptied"), the active after it.
      // Within the same sentence: "Removes mocks. Use the latest snapshot" removes no snapshot.
      const object = /^(?:is|are|get|will|being|been)/i.test(m[0])
        ? before.replace(/^[\s\S]*[.;!?\n]/, "")
        : t.slice(m.index + m[0].length, m.index + m[0].length + 60).replace(/[.;!?\n][\s\S]*$/, "");
      if (!STORED.test(object)) continue;
      if (/^drop/i.test(m[0]) && ONTO.test(t.slice(m.index + m[0].length))) continue;
      return [
        {
          severity: HIDE.test(t) ? "high" : "medium",
          field,
          excerpt: visible(t.slice(Math.max(0, m.index - 60), m.index + m[0].length + 60)),
          message: `Annotated ${claim}, but its own text says it ${m[0].trim()} things: clients skip the user's confirmation on that annotation`,
        },
      ];
    }
  }
  return [];
}
