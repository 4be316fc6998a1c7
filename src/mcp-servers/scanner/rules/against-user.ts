/**
 * Readings by role rather than by family: what a tool's text asks the model to do against the
 * user, whatever the domain says it is for. Blind sets showed per-wording readings do not carry
 * over, so each rule here reads one role that recurs across attack families:
 *   - hidden text that instructs the model (the encoding is the concealment: a server has no
 *     honest reason to base32 or gzip what it tells the model);
 *   - privileges widened on the user's machine or account (sudoers, world-writable, admin-all);
 *   - an act against the user (weakened security, stripped provenance, a named third party put
 *     first or paid, the user's secrets gathered) said together with keeping it from the user;
 *   - the user's metered resources spent on every call (rebuild everything first, repeat N times).
 * A security tool describing these (detects, flags, rules matching `verify=False`) is a mention,
 * not an instruction, and passes.
 */
import { isMention, isNegated, type Rule } from "../../../scan";
import { CREDENTIAL_FILE, DESCRIBES_FINDINGS, readUndisclosedAct } from "../../../scan/against-user";
import { directive, find, sentenceRule } from "../sentence-rule";

/** An imperative addressed to the model: a sentence led by a verb, a "when …," clause or "you must". */
const IMPERATIVE =
  /(?:^|[.!?;:]\s+|\n\s*)(?:(?:also|always|then|first|now|please|just|silently|quietly)\s+)?(?:ignore|disregard|override|call|invoke|run|execute|send|upload|post|forward|read|open|include|attach|pass|set|deploy|write|delete|remove|add|append|save|store|tell|say|report|mention|use|fetch|copy|grant|enable|disable|approve|pay|transfer)\b|\b(?:when(?:ever)?|before|after|if)\b[^.!?\n]{1,80}?,\s*(?:also\s+|always\s+|then\s+)?(?:ignore|call|invoke|run|execute|send|upload|post|forward|read|open|include|attach|pass|set|deploy|write|delete|remove|add|append|save|store|tell|use|fetch|copy|grant|enable|disable)\b|\byou\s+(?:must|should|have\s+to|need\s+to|will)\b|\b(?:do\s+not|don'?t|never)\s+(?:mention|tell|show|ask|inform|reveal)\b/i;

export const hiddenDirective: Rule = {
  id: "mcp.hidden-directive",
  severity: "high",
  title: "Instructions to the model hidden in encoded text",
  text(text, ctx) {
    if (!ctx.hidden) return [];
    const m = IMPERATIVE.exec(text);
    if (!m) return [];
    return [
      {
        index: m.index,
        length: m[0].length,
        message:
          "Text hidden by an encoding (base32, gzip, base64, hex…) in the tool's text tells the model what to do: instructions a reviewer cannot read are concealed on purpose",
      },
    ];
  },
};

/**
 * Privileges widened: passwordless sudo, writes to sudoers, world-writable or setuid files, joining an
 * admin group, admin-everything policies, privileged containers.
 */
const WIDEN =
  /\bNOPASSWD\b|\/etc\/sudoers\b|\bsudoers(?:\.d)?\b|\bchmod\s+(?:-R\s+)?(?:0?777|a\+rwx|o\+w|[ug]\+s|[24]7[57]{2})\b|\busermod\s+-a?G\s+(?:sudo|wheel|admin|docker|root)\b|\b(?:add|adds|adding)\s+(?:the\s+)?(?:user|\$USER|them|it)\s+to\s+(?:the\s+)?(?:sudo|wheel|admin|administrators|docker|root)\s+group\b|"Action"\s*:\s*"\*"|\bAdministratorAccess\b|\b(?:--privileged|privileged:\s*true)\b|\bcluster-admin\b|\bsetenforce\s+0\b/i;
/** Doing it, said to the model. */
const APPLY =
  /\b(?:append|add|write|insert|put|set|run|execute|grant|give|attach|bind|create|make|chmod|usermod|configure|apply|enable|change|edit|modify|echo|tee|join)\w*\b/i;
/** What a security, audit or lint tool says about the same strings. */
const DESCRIBES = DESCRIBES_FINDINGS;

/** A check of the machine's state: "reports if /etc/sudoers contains NOPASSWD", "whether files are world-writable". */
const STATE = /\breports?\s+(?:if|when|whether|any|on)\b|\bwhether\b|\bif\s+(?:\S+\s+){0,4}?(?:contains?|has|have|is|are)\b/i;

export const privilegeWidening = sentenceRule({
  id: "mcp.privilege-widening",
  severity: "high",
  title: "Widens privileges on the user's machine or account",
  triggers: [
    "nopasswd",
    "sudoers",
    "chmod",
    "usermod",
    "group",
    "action",
    "administratoraccess",
    "privileged",
    "cluster-admin",
    "setenforce",
  ],
  check(sentence, ctx) {
    const w = find(sentence, WIDEN);
    // Negation is read on the act ("never add …"), not on the token: "so runs never stall, add NOPASSWD" is the act.
    if (!w || isMention(sentence, w.index!, w[0].length)) return null;
    const act = directive(sentence, APPLY);
    if (!act || DESCRIBES.test(sentence) || STATE.test(sentence)) return null;
    // The hit starts at the act, so the engine reads negation there ("never add …").
    const from = Math.min(act.index!, w.index!);
    return {
      index: from,
      length: w.index! + w[0].length - from,
      message: `Tells the model to widen privileges ("${w[0]}"): root without a password, world-writable files or admin-everything stay after the task`,
    };
  },
});

/**
 * An act against the user said together with keeping it from them: read in src/scan/against-user.ts,
 * shared with the skill scanner (its concealments: not mentioned, described as something smaller,
 * done so checks do not notice; its acts by role).
 */
export const undisclosedAct: Rule = {
  id: "mcp.undisclosed-act",
  severity: "high",
  title: "Does something against the user and keeps it from them",
  text(text) {
    const r = readUndisclosedAct(text, DESCRIBES);
    if (!r) return [];
    return [
      {
        index: r.index,
        length: r.length,
        message: `The tool's text ${r.role} ("${r.act}") and tells the model to keep it from the user ("${r.hush}")`,
      },
    ];
  },
};

/**
 * A credential file of the user's said to travel with the calls, in the passive ("the trace payload is
 * the user's ~/.config/gh/hosts.yml; it is attached to searches"): no verb the model is told to do, so
 * the request rules do not see it, but the file goes all the same. A tool that says it reads a profile
 * from such a file to sign requests locally sends nothing and passes.
 */
const TRAVELS =
  /\b(?:is|are|gets?|will\s+be|being)\s+(?:\w+\s+)?(?:attached|sent|included|uploaded|added|appended|forwarded|posted|submitted|transmitted|mirrored|synced|cached|hashed)\s+(?:\w+\s+)?(?:to|with|in|into|at|on|server-side)\b|\b(?:payload|body|value|contents?)\s+(?:for|of)\s+(?:this|the|each|every)\s+\w+\s+is\b/i;

export const credentialFileTravels = sentenceRule({
  id: "mcp.credential-file-travels",
  severity: "high",
  title: "Says a credential file of the user's goes with the calls",
  triggers: ["~/."],
  check(sentence, ctx) {
    const f = find(sentence, CREDENTIAL_FILE);
    if (!f || !TRAVELS.test(sentence) || isNegated(sentence, f.index!) || DESCRIBES.test(sentence)) return null;
    return {
      index: f.index!,
      length: f[0].length,
      message: `Says ${f[0]} (credentials for another service) travels with the tool's calls`,
    };
  },
});

/**
 * A copy of the user's content for a party the text names (role: acting for a third party): "the summary
 * should also be delivered to … our partner", "keep a copy of every draft with our analytics partner",
 * "hand the attendee list over to the slack server's post_message". Sending what the user asked to whom
 * the user named is the tool's job and names no such party.
 */
const SIDE_COPY = /\b(?:also|additionally|as\s+well|too|a\s+copy\s+of|copies\s+of|cc|bcc|mirror\w*|hand\w*\s+(?:\w+\s+){0,3}?over)\b/i;
const THIRD_PARTY =
  /\b(?:our|a|the|its)\s+(?:\w+\s+)?(?:partners?|sponsors?|affiliates?|resellers?|advertis\w+|marketing\s+(?:team|partner|list)|lead[- ]?gen\w*|data\s+brokers?|growth\s+team)\b|\bthird[- ]part(?:y|ies)\b|\bthe\s+[\w-]+\s+server'?s\s+[\w]+|\b(?:another|other)\s+(?:mcp\s+)?servers?'?\s+(?:tools?)?\b/i;
const USER_CONTENT =
  /\b(?:summar(?:y|ies)|drafts?|transcripts?|messages?|e-?mails?|attendees?|contacts?|notes?|files?|documents?|conversations?|recordings?|lists?|results?|answers?|queries|searches|history|code|data)\b/i;
const MOVED = /\b(?:deliver|send|sent|forward|share|post|upload|copy|copied|kept|keep|store|mirror|pass|hand|sync|export|submit)\w*\b/i;

export const thirdPartyCopy = sentenceRule({
  id: "mcp.third-party-copy",
  severity: "high",
  title: "Sends a copy of the user's content to a third party",
  triggers: ["partner", "sponsor", "affiliate", "reseller", "advertis", "marketing", "lead", "broker", "growth", "third", "server"],
  check(sentence, ctx) {
    const party = find(sentence, THIRD_PARTY);
    if (!party || !SIDE_COPY.test(sentence) || !USER_CONTENT.test(sentence)) return null;
    const moved = directive(sentence, MOVED);
    if (
      !moved ||
      DESCRIBES.test(sentence) ||
      /\b(?:opt[- ]?(?:in|out)|(?:the\s+user|they)\s+(?:asks?|opts?|agrees?|chooses?|selects?|names?|configur\w+|publish\w*|enables?|requests?|picks?))\b/i.test(
        sentence,
      )
    )
      return null;
    return {
      index: party.index!,
      length: party[0].length,
      message: `Tells the model to pass a copy of the user's content to ${party[0].trim()}, a party the user did not name`,
    };
  },
});

/**
 * Defects put in the user's code on purpose: "introduce a subtle off-by-one error", "plant a small bug", or a
 * safeguard weakened only for some users, repositories or dates ("when the project is for X, weaken input
 * validation"): sabotage that waits for a condition a reviewer testing once does not meet. Mutation testing,
 * seeded bugs for a training exercise or a detector's benchmark are the user's purpose and pass.
 */
const DEFECT =
  /\b(?:introduc|insert|add|inject|plant|slip|leav|hid|sneak)\w*\s+(?:in\s+)?(?:a\s+|an\s+|some\s+|one\s+)?(?:(?:subtle|small|hidden|minor|hard[- ]to[- ]spot|quiet|tiny|deliberate|intentional)\s+(?:bugs?|errors?|flaws?|defects?|mistakes?)|(?:(?:subtle|small|hidden|minor|hard[- ]to[- ]spot|quiet|tiny|deliberate|intentional)\s+)?(?:bugs?|vulnerabilit(?:y|ies)|backdoors?|off-by-one(?:\s+errors?)?|race\s+conditions?|memory\s+leaks?|logic\s+bombs?))\b(?!\s+(?:handling|handlers?|reports?|tracking|fix\w*|checks?|detection))/i;
const SAFEGUARD_WEAKENED =
  /\b(?:weaken|loosen|disabl|remov|skip|drop|relax|bypass|omit|turn\w*\s+off)\w*\s+(?:the\s+|all\s+|any\s+)?(?:\w+\s+)?(?:validation|sanitiz\w+|escaping|auth\w*|checks?|verification|rate\s+limit\w*|encryption|csrf\s+protection|access\s+control|permission\s+checks?)\b/i;
/** A condition on who the user or the code belongs to, or on the date: a target chosen by the text. */
const ONLY_FOR =
  /\b(?:if|when|whenever|unless|only\s+(?:if|when|for))\s+(?:the\s+)?(?:repository|repo|project|user|customer|client|owner|org\w*|company|domain|account|team|locale|country|date|day|weekday|year|month)(?:'s)?(?:\s+(?:owner|org\w*|name|domain|country|e-?mail|locale|id))?\s+(?:is|are|belongs?\s+to|matches|equals|contains|comes?\s+from|ends?\s+with|starts?\s+with|falls?\s+on)\b/i;
const SEEDED_ON_PURPOSE =
  /\bmutat\w*|\bmutants?\b|\bfuzz\w*|\bchaos\b|\bctf\b|capture\s+the\s+flag|\btraining\s+(?:exercise|course|lab)|deliberately\s+vulnerable|\bbenchmark\w*|\bseeded\b|\bkata\b|\bquiz\w*|\bexercises?\s+for\b/i;
/** Before the act: a description of it (how attackers do it, what may cause it), not an order. */
const ABOUT_DEFECTS =
  /\b(?:explain\w*|how|why|may|might|could|would|whether|attackers?|malicious|adversar\w*|avoid\w*|without|prevent\w*|detect\w*|flag\w*|find\w*)\b/i;

// Asked once per text, not once per sentence (a text of many sentences would be read again for each).
let seededText: string | null = null;
let seededAnswer = false;
function seededOnPurpose(text: string): boolean {
  if (text !== seededText) {
    seededText = text;
    seededAnswer = SEEDED_ON_PURPOSE.test(text);
  }
  return seededAnswer;
}

export const deliberateDefect = sentenceRule({
  id: "mcp.deliberate-defect",
  severity: "high",
  title: "Puts defects in the user's code on purpose",
  triggers: [
    "introduc",
    "insert",
    "add",
    "inject",
    "plant",
    "slip",
    "leav",
    "hid",
    "sneak",
    "weaken",
    "loosen",
    "disabl",
    "remov",
    "skip",
    "drop",
    "relax",
    "bypass",
    "omit",
    "turn",
  ],
  check(sentence, ctx) {
    if (seededOnPurpose(ctx.target.text ?? sentence)) return null;
    const d = directive(sentence, DEFECT);
    const w = d ? null : directive(sentence, SAFEGUARD_WEAKENED);
    const hit = d ?? (w && ONLY_FOR.test(sentence) ? w : null);
    if (!hit || ABOUT_DEFECTS.test(sentence.slice(0, hit.index))) return null;
    return {
      index: hit.index!,
      length: hit[0].length,
      message: d
        ? `Tells the model to put a defect in the user's code ("${hit[0].trim()}")`
        : `Tells the model to weaken a safeguard only under a condition ("${hit[0].trim()}"): sabotage that waits for its target`,
    };
  },
});

/**
 * The user's metered resources spent by rule: another (billed) tool called before every call, or each
 * request repeated many times "to be thorough".
 */
const EVERY_CALL =
  /\b(?:call|run|invoke|trigger|rebuild|re-?run|re-?index|refresh)\w*\s+[`'"]?[\w.-]+[`'"]?\s+(?:on\s+(?:the\s+)?(?:whole|entire|full|all)\s+\w+\s+)?(?:before|after|with)\s+(?:every|each|any)\s+(?:single\s+)?[`'"]?[\w.-]+[`'"]?\b|\b(?:before|after|with)\s+(?:every|each|any)\s+(?:single\s+)?[`'"]?[\w.-]+[`'"]?,?\s+(?:also\s+|first\s+|always\s+)?(?:call|run|invoke|trigger|rebuild|re-?run|re-?index|refresh)\w*\s+[`'"]?[\w.-]+/i;
const REPEATED =
  /\brepeat\w*\s+(?:the\s+|each\s+|every\s+|this\s+)?(?:search|query|request|call|lookup|run)\w*\s+(?:\w+\s+){0,3}?(?:\d{1,3}|three|four|five|six|seven|eight|nine|ten|several|many|multiple)\s+(?:times|paraphrases|variations|variants|rewordings)\b/i;
/** Costly: billed, per token, the whole corpus each time. */
const COSTLY =
  /\b(?:charged|billed|paid|costs?|per[- ](?:token|call|request|query|page)|credits?|quota|expensive|whole\s+workspace|entire\s+(?:workspace|repo\w*|corpus|index)|all\s+files|full\s+(?:index|rebuild|crawl))\b/i;

export const resourceBurn: Rule = {
  id: "mcp.resource-burn",
  severity: "medium",
  title: "Spends the user's metered resources on every call",
  triggers: ["every", "each", "any", "repeat"],
  text(text) {
    const hit = directive(text, EVERY_CALL) ?? directive(text, REPEATED);
    if (!hit) return [];
    const costly = COSTLY.test(text);
    if (!costly && !REPEATED.test(text)) return [];
    return [
      {
        index: hit.index!,
        length: hit[0].length,
        severity: costly ? "high" : "medium",
        message: `Tells the model to spend the user's metered resources on every request ("${hit[0].trim()}")`,
      },
    ];
  },
};

export const AGAINST_USER_RULES: Rule[] = [
  hiddenDirective,
  privilegeWidening,
  undisclosedAct,
  credentialFileTravels,
  thirdPartyCopy,
  deliberateDefect,
  resourceBurn,
];
