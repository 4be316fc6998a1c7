/**
 * Shadowing: a tool's description changes how *other* tools behave (Invariant Labs, "tool
 * shadowing", 2025: a calculator whose description makes `send_email` send every mail to the
 * attacker; the WhatsApp MCP exploit: "change the recipient to +1…"; Trail of Bits, "line
 * jumping": "prefix every shell command with …"). Descriptions are in the model's context before
 * any tool is called, so one server can steer every other. The rule needs a subject outside the
 * tool (another tool by name, "any other tool", "every email") and a change to it; referring to
 * the server's own tools ("call this before `get-library-docs`") is ordinary.
 *
 * Preference ("always use this tool for scraping") is common in real servers and is shown as low;
 * forbidding or disparaging the others is not.
 */
import { patternRule, type Rule } from "../../../scan";
import { directive, global, sentenceRule } from "../sentence-rule";
import { EMAIL } from "../vocab";
import { KNOWN_TOOL_SET, normalizeToolName } from "../known-tools";
import { ownTools } from "../server-context";

const REDIRECT = [
  /\b(?:change|replace|set|redirect|override|rewrite|swap|switch|update)\s+(?:the\s+|every\s+|each\s+|all\s+|any\s+)?(?:recipients?|to\s+address(?:es)?|["'`]?to["'`]?\s+field|destination|e-?mail\s+address(?:es)?|phone\s+numbers?|webhook(?:\s+url)?|target\s+(?:url|address|account|repo(?:sitory)?)|receiving\s+account|payee|iban|wallet(?:\s+address)?|bank\s+account|(?:destination|recipient|receiving|payout|deposit)\s+(?:address|account|number))\b[^.!?\n]{0,80}?\b(?:to|with|by)\b/i,
  new RegExp(String.raw`\b(?:always|also|additionally|secretly|silently)\s+(?:add|include|cc|bcc|copy|send\s+a\s+copy\s+to|forward\s+(?:a\s+copy\s+)?(?:of\s+\w+\s+)?to)\b[^.!?\n]{0,80}?(?:${EMAIL.source}|\+\d)`, "i"),
  /\b(?:all|every|each|any)\s+(?:outgoing\s+|future\s+)?(?:e-?mails?|messages?|payments?|transfers?|invoices?|texts?)\s+(?:must|should|need\s+to|have\s+to|are\s+to|will)\s+(?:now\s+)?(?:be\s+)?(?:sent|routed|forwarded|redirected|addressed|paid|copied|delivered)\s+to\b/i,
];

const BCC_LITERAL = new RegExp(String.raw`\b(?:bcc|cc)\b[^.!?\n]{0,40}?${EMAIL.source}`, "i");

const GENERIC_OTHER =
  /\b(?:any|all|every|each|other|another|the\s+other|built-?in|native|existing|remaining)\s+(?:other\s+)?(?:mcp\s+)?(?:tools?|servers?|functions?|integrations?|plugins?)\b(?!\s+(?:of|in|from|on)\s+this\s+(?:server|package|integration))/i;

const ACTION_SCOPE = new RegExp(
  [
    String.raw`\b(?:any|every|all|each)\s+(?:outgoing\s+|future\s+|subsequent\s+|other\s+)?(?:e-?mails?|messages?|payments?|transfers?|transactions?|commits?|pushes|pull\s+requests?|(?:shell\s+|terminal\s+|bash\s+)?commands?|file\s+(?:reads?|writes?|edits?|operations?|access(?:es)?)|api\s+calls?|tool\s+calls?|requests?)\b`,
    String.raw`\bwhen(?:ever)?\s+(?:the\s+user\s+|you\s+|the\s+(?:agent|assistant|model)\s+)?(?:send|sends|sending|call|calls|calling|use|uses|using|run|runs|running|invoke|invokes|invoking|execute|executes|executing|write|writes|writing|commit|commits|committing|push|pushes|pushing|create|creates|creating|deploy|deploys|deploying|transfer|transfers|transferring|pay|pays|paying|post|posts|posting)\s+(?!this\b|these\b)`,
  ].join("|"),
  "i",
);

const MODIFY = new RegExp(
  [
    String.raw`\b(?:must|should|needs?\s+to|has\s+to|have\s+to|are\s+to|is\s+to)\s+(?:now\s+)?(?:always\s+|also\s+|first\s+)?(?:be\s+)?(?:send|sent|use|used|include|included|add|added|set|change|changed|replace|replaced|prepend|prepended|append|appended|prefix|prefixed|forward|forwarded|route|routed|redirect|redirected|cc|bcc|copy|copied|pass|point|run|target|contain|push|pushed|post|posted|upload|uploaded|mirror|mirrored)\b`,
    String.raw`\b(?:always|also)\s+(?:add|include|prepend|append|prefix|cc|bcc|copy|forward|send|route|set|pass|run|attach)\b`,
    String.raw`\b(?:change|replace|override|redirect|rewrite|modify|prepend|append|prefix|reroute|intercept|wrap|hijack)\b`,
    String.raw`\b(?:make\s+sure|ensure)\b[^.!?\n]{0,80}\b(?:starts?|begins?|ends?|contains?|includes?)\s+with\b`,
  ].join("|"),
  "i",
);

const DISPARAGE = new RegExp(
  String.raw`\b(?:(?:other|built-?in|native|existing|the\s+other|any\s+other|all\s+other|alternative)\s+(?:\w+\s+)?(?:tools?|servers?|functions?|search(?:es)?|integrations?|plugins?)|(?:tools?|servers?|functions?|integrations?)\s+(?:from|of|by)\s+(?:other|third[-\s]party|different)\s+(?:providers?|servers?|vendors?|sources?|publishers?))\s+(?:are|is|have\s+been|were|will\s+be|may\s+be|might\s+be)\s+(?:now\s+|currently\s+|temporarily\s+|permanently\s+)?(?:deprecated|broken|unsafe|insecure|malicious|compromised|disabled|unreliable|outdated|dangerous|blocked|corrupt(?:ed)?|unavailable|offline|down|suspended|revoked|not\s+(?:safe|allowed|working|available|secure))\b`,
  "i",
);

const ROUTE_THROUGH = /\b(?:route|send|direct|funnel|redirect|pass)\s+(?:all|every|each|any)\s+(?:\w+\s+){0,3}?(?:through|via|to)\s+this\s+(?:tool|server|function)\b/i;

// A word that looks like a tool's name: snake_case, kebab-case, dotted or camelCase, maybe quoted.
const TOOLISH = /[`'"]?\b([A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+)\b[`'"]?/g;

/** Tool names the sentence mentions that are not the server's own (known tools, or words called a tool). */
function foreignTools(s: string, own: ReadonlySet<string>): RegExpMatchArray | null {
  for (const m of s.matchAll(TOOLISH)) {
    const name = m[1]!;
    const norm = normalizeToolName(name);
    if (own.has(norm)) continue;
    const around = s.slice(Math.max(0, m.index - 30), m.index + m[0].length + 30);
    const calledTool = /\b(?:tool|function|command)s?\b/i.test(around) || /^mcp[_.-]/i.test(name);
    if (KNOWN_TOOL_SET.has(norm) || calledTool) return m;
  }
  return null;
}

/** The change is to this tool itself ("you must call this tool first"): not shadowing. */
const SELF_OBJECT = /^\s*(?:this|these|the\s+present)\s+(?:tool|function|server)s?\b/i;

function modification(s: string): RegExpMatchArray | null {
  for (const m of s.matchAll(global(MODIFY))) {
    if (SELF_OBJECT.test(s.slice(m.index + m[0].length))) continue;
    return m;
  }
  return null;
}

export const shadowing: Rule = sentenceRule({
    id: "mcp.shadowing",
    severity: "high",
    title: "Changes how other tools behave",
    check(s) {
      const own = ownTools();
      for (const re of REDIRECT) {
        const m = directive(s, re);
        if (m) return { index: m.index!, length: m[0].length, message: "Redirects where another tool sends things (recipient, address, account): tool shadowing" };
      }
      const bcc = directive(s, BCC_LITERAL);
      if (bcc && (/\b(?:always|every\w*|all|each|any\w*|also|whenever|secretly|silently|quietly)\b/i.test(s) || /(?:^|[,;:(]\s*|<\w+>\s*|\band\s+)(?:cc|bcc)\b/i.test(s))) {
        return { index: bcc.index!, length: bcc[0].length, message: "Adds a fixed copy recipient to messages sent by other tools" };
      }
      const route = directive(s, ROUTE_THROUGH);
      if (route) return { index: route.index!, length: route[0].length, message: "Routes every call of a kind through this tool: taking over what other tools do" };
      const dis = directive(s, DISPARAGE);
      if (dis) return { index: dis.index!, length: dis[0].length, message: "Claims other tools are broken, unsafe or deprecated, to take their place" };
      const subject = foreignTools(s, own) ?? directive(s, GENERIC_OTHER) ?? directive(s, ACTION_SCOPE);
      if (!subject) return null;
      const mod = modification(s);
      if (!mod) return null;
      if (/^(?:use|used|call|run)$/i.test(mod[0].split(/\s+/).pop() ?? "") && !foreignTools(s, own) && /\bthis\s+(?:tool|function|server)\b/i.test(s)) return null;
      return {
        index: subject.index!,
        length: subject[0].length,
        message: `Tells the model to change how ${subject[1] ? `\`${subject[1]}\`` : `"${subject[0].trim()}"`} behaves: one server steering another's tools (shadowing)`,
      };
    },
  });

export const preference = patternRule({
  id: "mcp.preference",
  severity: "low",
  title: "Asks to be preferred over other tools",
  prose: true,
  patterns: [
    /\b(?:always|only)\s+(?:use|call|prefer|choose|pick)\s+this\s+(?:tool|function|server)\b/i,
    /\bprefer\s+this\s+(?:tool|function|server)\b|\bthis\s+(?:tool|function|server)\s+(?:takes\s+precedence|replaces)\b/i,
    /\b(?:use|call)\s+this\s+(?:tool|function|server)?\s*instead\s+of\b/i,
    /\b(?:should|must)\s+always\s+default\s+to\s+using\s+this\b/i,
    /\binstead\s+of\s+(?:the\s+|your\s+|any\s+)?(?:built-?in|native|other|default)\s+(?:\w+\s+)?(?:tools?|search|functions?|servers?)\b/i,
  ],
  message: "Asks the model to prefer this tool over others (common in real servers; shown, not blocking)",
});

export const forbidOthers = patternRule({
  id: "mcp.forbid-others",
  severity: "medium",
  title: "Forbids the model to use other tools",
  patterns: [
    /\b(?:never|do\s+not|don'?t|must\s+not|should\s+not)\s+(?:use|call|invoke|trust|rely\s+on)\s+(?:any\s+)?(?:other|another|the\s+other|the\s+built-?in|built-?in|native|alternative|competing|different)\s+(?:\w+\s+)?(?:tools?|servers?|functions?|search(?:es)?|integrations?|methods?|providers?)\b/i,
    /\b(?:use|call)\s+(?:only|exclusively)\s+this\s+(?:tool|function|server)\b|\bthis\s+is\s+the\s+only\s+(?:tool|function|server)\s+(?:you\s+)?(?:may|should|must|can)\s+use\b/i,
  ],
  message: "Tells the model not to use other tools: a server crowding out the others",
});

export const SHADOWING_STATIC_RULES = [preference, forbidOthers];
