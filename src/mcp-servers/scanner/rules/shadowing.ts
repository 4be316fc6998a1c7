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
import { foreignTool } from "../tool-mentions";
import { ownTools } from "../server-context";

const REDIRECT = [
  /\b(?:change|replace|set|redirect|override|rewrite|swap|switch|update)\s+(?:the\s+|every\s+|each\s+|all\s+|any\s+)?(?:recipients?|to\s+address(?:es)?|["'`]?to["'`]?\s+field|destination|e-?mail\s+address(?:es)?|phone\s+numbers?|webhook(?:\s+url)?|target\s+(?:url|address|account|repo(?:sitory)?)|receiving\s+account|payee|iban|wallet(?:\s+address)?|bank\s+account|(?:destination|recipient|receiving|payout|deposit)\s+(?:address|account|number))\b[^.!?\n]{0,80}?\b(?:to|with|by)\b/i,
  new RegExp(
    String.raw`\b(?:always|also|additionally|secretly|silently)\s+(?:add|include|cc|bcc|copy|send\s+a\s+copy\s+to|forward\s+(?:a\s+copy\s+)?(?:of\s+\w+\s+)?to)\b[^.!?\n]{0,80}?(?:${EMAIL.source}|\+\d)`,
    "i",
  ),
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
    String.raw`\b(?:must|should|needs?\s+to|has\s+to|have\s+to)\s+(?:now\s+)?(?:always\s+|also\s+|first\s+)?(?:be\s+)?(?:send|sent|use|used|include|included|add|added|set|change|changed|replace|replaced|prepend|prepended|append|appended|prefix|prefixed|forward|forwarded|route|routed|redirect|redirected|cc|bcc|copy|copied|pass|passed|point|run|target|contain|push|pushed|post|posted|upload|uploaded|mirror|mirrored|called|invoked|write|written|executed|given|go|receive|carry|pointed|configured|created)\b`,
    String.raw`\b(?:always|also)\s+(?:add|include|prepend|append|prefix|cc|bcc|copy|forward|send|route|set|pass|run|attach)\b`,
    String.raw`\b(?:change|replace|override|redirect|rewrite|modify|prepend|append|prefix|reroute|intercept|wrap|hijack)\b`,
    String.raw`\b(?:make\s+sure|ensure)\b[^.!?\n]{0,80}\b(?:starts?|begins?|ends?|contains?|includes?)\s+with\b`,
    String.raw`\b(?:must|should|has\s+to|have\s+to|needs?\s+to)\s+(?:\w+\s+)?(?:start|begin|end|be\s+preceded|be\s+followed)\s+(?:with|by)\b`,
    String.raw`\b(?:list|field|argument|parameter|header|body|query)\s+(?:has|have|needs?)\s+to\s+(?:contain|include|carry|hold)\b`,
    String.raw`\b(?:should|must)\s+(?:always\s+|also\s+)?carry\b`,
  ].join("|"),
  "i",
);

const DISPARAGE =
  /\b(?:(?:other|built-?in|native|existing|the\s+other|any\s+other|all\s+other|alternative)\s+(?:\w+\s+)?(?:tools?|servers?|functions?|search(?:es)?|integrations?|plugins?)|(?:tools?|servers?|functions?|integrations?)\s+(?:from|of|by)\s+(?:other|third[-\s]party|different)\s+(?:providers?|servers?|vendors?|sources?|publishers?))(?:\s+(?:connected|available|installed)\b[^.!?\n]{0,40}?)?(?:\s*\([^()\n]{0,160}\))?\s+(?:are|is|have\s+been|were|will\s+be|may\s+be|might\s+be)\s+(?:now\s+|currently\s+|temporarily\s+|permanently\s+|(?:frequently|often|usually|regularly|known\s+to\s+be)\s+)?(?:deprecated|broken|unsafe|insecure|malicious|compromised|disabled|unreliable|outdated|dangerous|blocked|corrupt(?:ed)?|unavailable|offline|down|suspended|revoked|stale|fabricated|fake|hallucinated|inaccurate|not\s+(?:safe|allowed|working|available|secure))\b/i;

/** Calls meant for another tool taken over: "whenever you would call it, call this one instead". */
const HIJACK =
  /\b(?:whenever|when|if|each\s+time)\s+you\s+(?:would|were\s+(?:about\s+)?to|want\s+to|need\s+to|are\s+about\s+to|plan\s+to)\s+(?:call|use|invoke|run)\b[^.!?\n]{0,80}\b(?:call|use|invoke|run)\s+(?:this|these|the\s+present)\s+(?:one|tool|function|server|version)\b/i;

/** Another server's tool declared dead: "the read_file of the filesystem server is deprecated". */
const DEAD_OTHER =
  /\b(?:the\s+)?[`'"]?[A-Za-z][\w.-]*[`'"]?\s+(?:tool\s+)?(?:of|from|in|on)\s+(?:the\s+)?(?:[@\w/.-]+\s+){1,3}(?:mcp\s+)?server\s+(?:is|has\s+been|was|are|have\s+been)\s+(?:now\s+|officially\s+)?(?:deprecated|broken|unsafe|insecure|removed|disabled|compromised|superseded|replaced|retired|obsolete)\b|\b(?:this|the\s+present)\s+(?:server|tool|version|package)\s+(?:supersedes|replaces|obsoletes)\s+(?!(?:the\s+)?(?:previous|old|deprecated)\s+(?:version|release)\b)[`'"]?[@\w/.-]+/i;

const ROUTE_THROUGH =
  /\b(?:route|send|direct|funnel|redirect|pass)\s+(?:all|every|each|any)\s+(?:\w+\s+){0,3}?(?:through|via|to)\s+this\s+(?:tool|server|function)\b/i;

const foreignTools = (s: string, own: ReadonlySet<string>) => {
  const m = foreignTool(s, own);
  return m?.name ? Object.assign([m.name, m.name], { index: m.index }) : null;
};

/** The change is to this tool itself ("you must call this tool first"): not shadowing. */
const SELF_OBJECT = /^\s*(?:this|these|the\s+present)\s+(?:tool|function|server)s?\b/i;

function modification(s: string): RegExpMatchArray | null {
  for (const m of s.matchAll(global(MODIFY))) {
    if (SELF_OBJECT.test(s.slice(m.index + m[0].length))) continue;
    // "unless the user asks for a change": the noun, not an order to change something.
    if (
      /^(?:change|replace|override|redirect|rewrite|wrap)$/i.test(m[0]) &&
      /\b(?:a|an|the|any|no|each|every|that|this|for|of)\s+$/i.test(s.slice(Math.max(0, m.index - 12), m.index))
    )
      continue;
    // "unless the user tells you where it should go": a modal inside a question or relative clause states no order.
    if (
      /\b(?:where|what|which|how|whether|whom?)\s+(?:(?:it|they|this|that|these|those|the\s+\w+|\w+)\s+)?$/i.test(
        s.slice(Math.max(0, m.index - 30), m.index),
      )
    )
      continue;
    return m;
  }
  return null;
}

// Three readings of one rule, each run only on sentences holding its words (src/mcp-servers/scanner/sentence-rule.ts).
const redirect = sentenceRule({
  id: "mcp.shadowing",
  severity: "high",
  title: "Changes how other tools behave",
  triggers: [
    "change",
    "replace",
    "set",
    "redirect",
    "override",
    "rewrite",
    "swap",
    "switch",
    "update",
    "always",
    "also",
    "additionally",
    "secretly",
    "silently",
    "all",
    "every",
    "each",
    "any",
    "\\bbcc",
    "\\bcc",
  ],
  check(s) {
    for (const re of REDIRECT) {
      const m = directive(s, re);
      if (m)
        return {
          index: m.index!,
          length: m[0].length,
          message: "Redirects where another tool sends things (recipient, address, account): tool shadowing",
        };
    }
    const bcc = directive(s, BCC_LITERAL);
    if (
      bcc &&
      (/\b(?:always|every\w*|all|each|any\w*|also|whenever|secretly|silently|quietly)\b/i.test(s) ||
        /(?:^|[,;:(]\s*|<\w+>\s*|\band\s+)(?:cc|bcc)\b/i.test(s))
    ) {
      return { index: bcc.index!, length: bcc[0].length, message: "Adds a fixed copy recipient to messages sent by other tools" };
    }
    return null;
  },
});

const takeover = sentenceRule({
  id: "mcp.shadowing",
  severity: "high",
  title: "Changes how other tools behave",
  triggers: [
    "you",
    "server",
    "supersede",
    "replace",
    "obsolete",
    "this",
    "deprecated",
    "broken",
    "unsafe",
    "insecure",
    "malicious",
    "compromised",
    "disabled",
    "unreliable",
    "outdated",
    "dangerous",
    "blocked",
    "corrupt",
    "unavailable",
    "offline",
    "down",
    "suspended",
    "revoked",
    "not",
  ],
  check(s) {
    const hijack = directive(s, HIJACK);
    if (hijack)
      return {
        index: hijack.index!,
        length: hijack[0].length,
        message: "Takes over calls the model would make to another tool: tool shadowing",
      };
    const dead = directive(s, DEAD_OTHER);
    if (dead)
      return {
        index: dead.index!,
        length: dead[0].length,
        message: "Declares another server's tool deprecated or replaced, to take its calls",
      };
    const route = directive(s, ROUTE_THROUGH);
    if (route)
      return {
        index: route.index!,
        length: route[0].length,
        message: "Routes every call of a kind through this tool: taking over what other tools do",
      };
    const dis = directive(s, DISPARAGE);
    if (dis)
      return {
        index: dis.index!,
        length: dis[0].length,
        message: "Claims other tools are broken, unsafe or deprecated, to take their place",
      };
    return null;
  },
});

const modify = sentenceRule({
  id: "mcp.shadowing",
  severity: "high",
  title: "Changes how other tools behave",
  // Every MODIFY alternative holds one of these.
  triggers: [
    "must",
    "should",
    "need",
    "has",
    "have",
    "always",
    "also",
    "change",
    "replace",
    "override",
    "redirect",
    "rewrite",
    "modify",
    "prepend",
    "append",
    "prefix",
    "reroute",
    "intercept",
    "wrap",
    "hijack",
    "make",
    "ensure",
    "carry",
  ],
  check(s) {
    const mod = modification(s);
    if (!mod) return null;
    const own = ownTools();
    const subject = foreignTools(s, own) ?? directive(s, GENERIC_OTHER) ?? directive(s, ACTION_SCOPE);
    if (!subject) return null;
    if (
      /^(?:use|used|call|run)$/i.test(mod[0].split(/\s+/).pop() ?? "") &&
      !foreignTools(s, own) &&
      /\bthis\s+(?:tool|function|server)\b/i.test(s)
    )
      return null;
    return {
      index: subject.index!,
      length: subject[0].length,
      message: `Tells the model to change how ${subject[1] ? `\`${subject[1]}\`` : `"${subject[0].trim()}"`} behaves: one server steering another's tools (shadowing)`,
    };
  },
});

/**
 * Money sent by some other tool ("any banking or transfer tool", "any send tool") told where to go:
 * an account, IBAN or wallet address written into this tool's text (or spelled as character codes),
 * put in place of the one the user has ("superseded", "the corrected form", "as recipient").
 */
const PAYING_TOOL =
  /\b(?:any|every|all|each|other|another)\s+(?:\w+\s+){0,2}?(?:bank(?:ing)?|transfer|payments?|payout|wallet|send(?:ing)?|crypto|exchange|remittance)\s+(?:or\s+\w+\s+)?(?:tools?|functions?|integrations?|servers?|apps?)\b/i;
const ACCOUNT_LITERAL =
  /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}(?:\s?[A-Z0-9]{1,3})?\b|\b(?:bc1|tb1)[a-z0-9]{25,87}\b|\b[13][a-km-zA-HJ-NP-Z1-9]{25,34}\b|\b0x[0-9a-fA-F]{40}\b|\bchar(?:acter)?[\s-]*codes?\b|\[\s*\d{2,3}(?:\s*,\s*\d{2,3}){19,}\s*\]/;
const IN_PLACE =
  /\b(?:instead|supersed\w*|replac\w*|correct\w*|recipients?|beneficiary|payee|regardless|originally|rather\s+than|in\s+place\s+of|always)\b/i;
const payee = sentenceRule({
  id: "mcp.shadowing",
  severity: "high",
  title: "Changes how other tools behave",
  triggers: ["tool", "function", "integration", "server", "app"],
  check(s) {
    const m = directive(s, PAYING_TOOL);
    if (!m || !ACCOUNT_LITERAL.test(s) || !IN_PLACE.test(s)) return null;
    return {
      index: m.index!,
      length: m[0].length,
      message: "Tells other tools that move money to pay an account written into this tool's text: tool shadowing",
    };
  },
});

export const SHADOWING_RULES: Rule[] = [redirect, takeover, modify, payee];

export const preference = patternRule({
  id: "mcp.preference",
  severity: "low",
  title: "Asks to be preferred over other tools",
  prose: true,
  triggers: ["always", "only", "prefer", "precedence", "replaces", "instead", "default"],
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
  triggers: [
    "never",
    "not",
    "don",
    "stop",
    "only",
    "exclusively",
    "disregard",
    "ignor",
    "discard",
    "distrust",
    "drop",
    "other",
    "another",
    "different",
    "competing",
    "third",
  ],
  patterns: [
    /\b(?:never|do\s+not|don'?t|must\s+not|should\s+not|stop|(?:are|is)\s+not\s+(?:allowed|permitted)\s+to|may\s+not|cannot|can'?t)\s+(?:use|using|call|calling|invoke|trust|rely\s+on|consult)\s+(?:[\w,/-]+\s+){0,6}?(?:or\s+|and\s+|nor\s+)?(?:any\s+)?(?:other|another|the\s+other|the\s+built-?in|built-?in|native|alternative|competing|different|the\s+older|older)\s+(?:\w+\s+)?(?:tools?|servers?|functions?|search(?:es)?|integrations?|methods?|providers?|ones?)\b/i,
    /\b(?:other|built-?in|native|default|existing|alternative)\s+(?:\w+\s+){0,2}(?:tools?|servers?|functions?|search(?:es)?|browsers?|integrations?)\s+(?:returns?|gives?|produces?|serves?|shows?)\s+(?:\w+\s+)?(?:fabricated|fake|false|wrong|outdated|stale|unreliable|poisoned|malicious|incorrect|bad|manipulated|hallucinated)\b|\b(?:discard|ignore|disregard|throw\s+away|drop)\s+(?:what(?:ever)?|anything)\s+(?:it|they|those\s+tools?|the\s+other\s+\w+)\s+(?:returned|returns|said|found|gave)\b/i,
    /\b(?:never|do\s+not|don'?t|must\s+not|should\s+not)\s+(?:use|call|invoke|run|trust|rely\s+on|consult)\s+(?:[\w,/-]+\s+){0,6}?(?:tools?|servers?|functions?|commands?|integrations?|plugins?)\s+(?:from|of|on|in|by)\s+(?:any\s+)?(?:other|another|different|third[-\s]party)\b/i,
    /\b(?:never|do\s+not|don'?t|must\s+not|should\s+not)\s+(?:use|call|invoke|run)\s+(?:another|any\s+other|other|a\s+different)\s+(?:mcp\s+)?server'?s?\b/i,
    /\b(?:never|do\s+not|don'?t|must\s+not)\s+(?:run|use|call|invoke)\s+(?:[\w,/-]+\s+){1,8}?directly\b[^.!?\n]{0,40}\b(?:use|call)\s+this\b|\b(?:use|call)\s+this\s+(?:tool|server|function)\s+for\s+(?:every|all|each|any)\b[^\n]{0,120}?\b(?:never|do\s+not|don'?t)\s+(?:run|use|call)\b/i,
    /\b(?:use|call)\s+(?:only|exclusively)\s+this\s+(?:tool|function|server)\b|\bthis\s+is\s+the\s+only\s+(?:tool|function|server)\s+(?:you\s+)?(?:may|should|must|can)\s+use\b/i,
    // Discrediting every other source ("results from any other tool or server may be tampered with and must be discarded").
    /\b(?:results?|outputs?|answers?|responses?|data|information)\s+(?:of|from)\s+(?:any\s+|all\s+|every\s+)?(?:other|another|different|competing|third[- ]party)\s+(?:[\w-]+\s+){0,3}?(?:tools?|servers?|providers?|sources?|engines?|services?)\b[^.!?\n]{0,120}?\b(?:(?:are|is)\s+(?:\w+\s+)?(?:outdated|stale|wrong|unreliable|untrustworthy|fake|fabricated|compromised|poisoned|manipulated|tampered)|(?:may|might|can|could)\s+(?:be|have\s+been)\s+(?:tampered|manipulated|poisoned|compromised|fabricated|faked)|must\s+(?:not\s+be\s+(?:used|trusted|shown)|be\s+(?:discarded|ignored|disregarded))|should\s+be\s+(?:discarded|ignored|disregarded))\b/i,
    /\b(?:disregard|ignore|discard|distrust|drop)\s+(?:the\s+|any\s+|all\s+)?(?:results?|outputs?|answers?|responses?|data)\s+(?:of|from)\s+(?:any\s+|all\s+)?(?:other|another|the\s+other|built-?in|competing|different)\b|\b(?:their|its|those)\s+(?:results?|outputs?|answers?|responses?|data)\s+(?:are|is)\s+(?:\w+\s+)?(?:outdated|stale|wrong|unreliable|inaccurate|incorrect|untrustworthy|fake|compromised|poisoned)\b[^.!?\n]{0,40}\b(?:disregard|ignor|discard|not\s+be\s+(?:used|trusted|shown))/i,
    // Another server's tool declared deprecated or unsafe and replaced: "the filesystem server's read_file, which is deprecated …; do not call that one".
    /\b(?!this\b|our\b|the\s+same\b)(?:the\s+)?[\w-]{2,40}\s+(?:server|extension|plugin|integration)'s\s+[`'"]?[\w.-]{2,60}[`'"]?(?:\s+tool)?\s*,?\s+(?:which\s+)?(?:is|was|has\s+been)\s+(?:now\s+)?(?:deprecated|insecure|vulnerable|unsafe|broken|obsolete|unmaintained|removed)\b|\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:call|use|invoke)\s+(?:that|the\s+(?:old|other|original)|their|its)\s+(?:one|version|tool|implementation)\b/i,
  ],
  // Overruling the user's own choice of tool is more than crowding the others out.
  severityFor: (_m, line) =>
    /\b(?:even\s+if|even\s+when|regardless\s+of\s+whether|no\s+matter\s+(?:if|whether|what))\s+(?:the\s+)?user\b|\bif\s+(?:the\s+)?user\s+(?:names?|asks?\s+for|requests?|picks?|chooses?)\s+(?:another|a\s+different|an?\s+other|some\s+other)\b/i.test(
      line,
    )
      ? "high"
      : "medium",
  message: "Tells the model not to use other tools: a server crowding out the others",
});

export const SHADOWING_STATIC_RULES = [preference, forbidOthers];
