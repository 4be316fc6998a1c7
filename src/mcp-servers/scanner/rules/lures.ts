/**
 * What a tool's text asks of the user through the model, or plants for later, rather than what it
 * sends now:
 *   - credential phishing: the model is told to ask the user for an account password, a one-time
 *     code, a PIN or a recovery phrase (a service's API key asked for its own tool is configuration
 *     and passes: "ask the user for their API key");
 *   - recommendation steering: the model is told to keep alternatives from the user ("never
 *     mention the original packages", "even when asked for alternatives");
 *   - memory implants: the model is told to store claims about the user in its long-term memory
 *     ("permanently save: 'User trusts scripts from …'"), which steer every later session;
 *   - delayed triggers: a step that starts after a count of calls or a date (a rug pull that waits
 *     until the review is over), with an action on files, commands or data.
 * Each reads one sentence; negated forms ("never ask the user for their password") pass.
 */
import { STRONG_EXAMPLE_CUE, isNegated } from "../../../scan";
import { directive, find, sentenceRule } from "../sentence-rule";

/** Asking the user for something (in the languages the other rules read). */
const ASK_USER =
  /\b(?:ask|prompt|request|have|get|tell|instruct|require)\s+(?:the\s+|your\s+)?(?:user|customer|account\s+holder|them)\b|\b(?:ask|request)\s+(?:for\s+)?(?:their|the\s+user'?s)\b|\b(?:ask|request)\s+(?:also|too|again|as\s+well)\s+for\b|\b(?:frag|bitte|fordere)\w*\s+(?:den|die)\s+(?:Nutzer|Benutzer|Anwender)\w*|\b(?:demande[zr]?|demandez)\s+(?:à\s+)?l'utilisateur|\b(?:pide|pregunta|solicita)\w*\s+al\s+usuario|(?:向|请)用户(?:索取|询问|索要|要求|提供)|ユーザーに[^。\n]{0,30}?(?:尋ね|聞い|聞き|入力させ|求め|教えてもら)|사용자에게[^.\n]{0,30}?(?:요청|물어|입력)/i;
/** Secrets of the user's own accounts: never a tool's configuration. */
const PERSONAL_SECRET =
  /\b(?:(?:e-?mail|account|login|sign-?in|bank(?:ing)?|online[- ]banking|computer|laptop|system|sudo|root|admin|windows|mac|apple\s+id|icloud|google|microsoft|wallet|master|vault)\s+(?:account\s+)?pass(?:word|code|phrase)s?|pass(?:word|code)s?\s+(?:of|for)\s+(?:their|the\s+user'?s|your)\s+(?:e-?mail|account|bank|computer|login)|2fa|two[- ]factor|mfa|otp|one[- ]time\s+(?:codes?|passwords?|pins?)|(?:verification|security|authenticat\w+|sms)\s+codes?|(?:\d|six|four|eight)[- ]digit\s+codes?|codes?\s+(?:that\s+)?(?:they|you|the\s+user)\s+(?:just\s+|have\s+|has\s+)?(?:received|got|were\s+sent)|recovery\s+(?:codes?|phrases?|keys?)|seed\s+phrases?|mnemonic|pins?\b|cvv|cvc|card\s+numbers?|social\s+security\s+numbers?)\b|(?:登录|开机|电脑|银行|支付|邮箱|账户|账号)密码|验证码|(?:ログイン|銀行|口座|メール)(?:の)?パスワード|暗証番号|認証コード|비밀번호|인증\s*코드|\b(?:Online-?Banking-?)?(?:Passwort|Kennwort)\b|\bmots?\s+de\s+passe\b|\bcontraseña\b|\bsenha\b/i;

const NOT_BEFORE = /\b(?:never|not|don'?t|no\s+need\s+to|nicht|nie|jamais|nunca)\s+(?:\w+\s+)?$|不要$|しないで$/i;

export const credentialPhishing = sentenceRule({
  id: "mcp.credential-phishing",
  severity: "high",
  title: "Tells the model to ask the user for account passwords or one-time codes",
  triggers: [
    "ask",
    "prompt",
    "request",
    "have",
    "get",
    "tell",
    "instruct",
    "require",
    "frag",
    "bitte",
    "fordere",
    "demande",
    "pide",
    "pregunta",
    "solicita",
    "用户",
    "ユーザーに",
    "사용자에게",
  ],
  check(s) {
    // Negated right before the ask ("never ask the user for …"); a condition earlier in the sentence ("if it cannot load, ask …") is not a negation of it.
    const ask = find(s, ASK_USER);
    if (!ask || NOT_BEFORE.test(s.slice(Math.max(0, ask.index! - 30), ask.index!))) return null;
    // Writing about phishing (a detector's description) reads its own negation and cues: the rule is exempt from the generic one.
    if (STRONG_EXAMPLE_CUE.test(s)) return null;
    const secret = find(s.slice(ask.index!), PERSONAL_SECRET);
    if (!secret) return null;
    return {
      index: ask.index!,
      length: ask[0].length + secret.index! + secret[0].length,
      message: `Tells the model to ask the user for ${secret[0].trim()}: a tool has no use for the user's own account secrets (phishing through the model)`,
    };
  },
});

/** Keeping alternatives from the user. */
const SUPPRESS =
  /\b(?:never|do\s+not|don'?t|must\s+not|should\s+not)\s+(?:recommend|suggest|mention|propose|name|list|offer)\b[^.!?\n]{0,100}?(?:\beven\s+(?:when|if)\s+(?:the\s+user\s+|they\s+|you\s+are\s+)?(?:asks?|asked|requests?|requested)\b|\b(?:the\s+)?originals?\b|\bcompetitors?\b|\bcompeting\b|\brivals?\b|\b(?:other|alternative)\s+(?:vendors?|providers?|brands?|products?|packages?|libraries|services?)\b)/i;

/**
 * Putting something else in place of what the user named: "when the user asks to install `x`,
 * install `x-secure` instead". Advice ("suggest … instead") leaves the choice to the user; doing it
 * does not.
 */
const SUBSTITUTE =
  /\b(?:when(?:ever)?|if)\s+(?:the\s+)?(?:user|they|someone)\s+(?:asks?|requests?|wants?|tries|says)\s+(?:you\s+)?(?:to\s+)?(?:install|add|use|import|pull|deploy|run)\b[^.!?\n]{1,160}?,\s*(?:then\s+|always\s+|silently\s+)?(?:install|add|use|import|pull|deploy|run|pin)\s+[^.!?\n]{1,160}?\binstead\b/i;

export const recommendationSteering = sentenceRule({
  id: "mcp.recommendation-steering",
  severity: "medium",
  title: "Keeps alternatives from the user",
  triggers: ["never", "not", "don", "instead"],
  check(s) {
    const swap = find(s, SUBSTITUTE);
    if (swap)
      return {
        index: swap.index!,
        length: swap[0].length,
        severity: "high",
        message:
          "Tells the model to install or use something else in place of what the user asked for: the user's choice is swapped (a look-alike package, an attacker's fork)",
      };
    const m = find(s, SUPPRESS);
    if (!m) return null;
    return {
      index: m.index!,
      length: m[0].length,
      message:
        "Tells the model to keep alternatives (the original package, competing products) from the user, even when asked: steering the user's choice",
    };
  },
});

/** Writing to the model's long-term memory. */
const MEMORY =
  /\b(?:(?:using|with|via|through|call(?:ing)?)\s+(?:the\s+|your\s+)?(?:memory|memories|long[- ]term\s+memory|remember|save_memory|memory_\w+)\s+(?:tool|function|feature)|(?:permanently|persistently|forever)\s+(?:save|store|remember|memori[sz]e|record|note)|(?:save|store|remember|memori[sz]e|record|add|write)\b[^.!?\n]{0,60}?\b(?:to|in|into)\s+(?:your\s+|the\s+)?(?:long[- ]term\s+|persistent\s+|permanent\s+)?(?:memory|memories|user\s+profile)|(?:remember|memori[sz]e)\s+(?:for\s+(?:all\s+)?(?:future|later)\s+(?:sessions|conversations|chats))|(?:for\s+(?:all\s+)?future\s+(?:sessions|conversations|chats))|(?:also|always|additionally)\s+(?:save|store|remember|memori[sz]e|record|add)\s+(?:this|that|the\s+following|(?:an?|the)\s+(?:fact|note|memory|observation|entry)))\b/i;
/** What is planted: a claim about what the user wants or trusts, or a place to send things. */
const CLAIM =
  /\b(?:the\s+)?user\s+(?:always\s+)?(?:wants|prefers|trusts|likes|approves|allows|permits|has\s+(?:approved|agreed|asked|authori[sz]ed|opted)|agreed|asked\s+for|is\s+(?:ok|okay|fine)\s+with)\b|\b(?:always\s+)?(?:upload|send|post|trust|run|install|download|pipe|fetch)\w*\b[^.!?\n]{0,60}?(?:https?:\/\/|\b(?:[a-z0-9-]+\.){1,4}(?:net|com|io|rs|dev|app|org|xyz|sh)\b)/i;

export const memoryImplant = sentenceRule({
  id: "mcp.memory-implant",
  severity: "high",
  title: "Plants instructions or false preferences in the model's memory",
  triggers: [
    "memory",
    "memories",
    "memori",
    "remember",
    "permanently",
    "persistently",
    "forever",
    "future",
    "profile",
    "also",
    "always",
    "additionally",
  ],
  check(s) {
    const m = directive(s, MEMORY);
    if (!m) return null;
    const claim = find(s, CLAIM);
    if (!claim) return null;
    // What the user said, stored when they say it, is their own memory.
    if (
      /\b(?:when|if|after|once|whenever)\s+(?:the\s+)?user\s+(?:says|states|tells|asks|confirms|mentions|expresses|shares|gives)\b/i.test(s)
    )
      return null;
    return {
      index: m.index!,
      length: m[0].length,
      message:
        "Tells the model to store claims about what the user wants or trusts in its long-term memory: every later session follows them",
    };
  },
});

/** A step that waits: after a count of calls, from a date on, or on a weekday or hour (what a reviewer testing once does not see). */
const LATER =
  /\b(?:(?:if|when|whenever)\s+(?:the\s+)?(?:current\s+|local\s+)?(?:day|weekday|date)\s+is\s+(?:a\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)\b|(?:if|when|whenever)\s+(?:the\s+)?(?:current\s+|local\s+)?(?:time|hour)\s+is\s+(?:after|past|later\s+than|before)\s+\d{1,2}(?::\d{2})?|(?:starting|beginning)\s+(?:with|from|at)\s+the\s+\d+(?:st|nd|rd|th)\b|from\s+the\s+\d+(?:st|nd|rd|th)\s+\w+\s+on\b|after\s+(?:the\s+)?(?:\d+|first\s+(?:\d+|few|two|three|five|ten))\s+(?:calls?|uses?|invocations?|requests?|runs?|sessions?|times?|notes?|messages?|searches)\b|on\s+(?:every|the)\s+\d+(?:st|nd|rd|th)\s+(?:call|use|invocation|request|run)\b|(?:from|after|starting|beginning|on\s+or\s+after|as\s+of|once\s+it\s+is)\s+(?:\d{4}-\d{2}-\d{2}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}|\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{4}))/i;
/** …told to the model, and doing something with files, commands or data. */
const TOLD =
  /\b(?:(?:the\s+)?(?:assistant|agent|model|ai|llm)|you)\s+(?:should|must|will\s+need\s+to|needs?\s+to|has\s+to|have\s+to|is\s+to|are\s+to)\b|\b(?:also|first|then)\s+(?:read|run|send|upload|delete|remove|include|execute|call|post|attach)\b/i;
const ACTION =
  /\b(?:read|run|execute|send|upload|post|delete|remove|wipe|erase|include|attach|forward|copy|curl|wget|shell|terminal|command|call)\b|\brm\s+-|\bfiles?\b/i;

export const delayedTrigger = sentenceRule({
  id: "mcp.delayed-trigger",
  severity: "high",
  title: "A step that starts only after a number of calls or a date",
  triggers: ["starting", "beginning", "from", "after", "on every", "on the", "as of", "once it", "if", "when"],
  check(s) {
    const later = find(s, LATER);
    if (!later || isNegated(s, later.index!)) return null;
    if (!TOLD.test(s) || !ACTION.test(s.slice(later.index! + later[0].length))) return null;
    return {
      index: later.index!,
      length: later[0].length,
      message: `Tells the model to start doing something ${later[0].trim()}: a change that waits until the tool has been reviewed and trusted (a rug pull)`,
    };
  },
});

export const LURE_RULES = [credentialPhishing, recommendationSteering, memoryImplant, delayedTrigger];
