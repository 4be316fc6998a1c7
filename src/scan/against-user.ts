/**
 * Acts against the user said together with keeping them from the user: a reading by role, shared
 * by the skill and MCP scanners (a tool's text and a skill's instructions both address an agent).
 * Blind sets showed per-wording readings do not carry over, so the act is read by what changes for
 * the user or who gains (security weakened, provenance stripped, a named party put first or paid,
 * the user's links routed through someone else, data or results altered, dependencies held back,
 * the user's secrets gathered), and the concealment by its forms (not mentioned, not flagged, the
 * change described as something smaller, done so that checks do not notice). Either alone is
 * ordinary; together they are a change the user did not ask for and is not told about.
 */
import { isMention, isNegated } from "./prose";

/**
 * Keeping a step from the user, in the many polite forms the plain concealment rules leave: not
 * mentioning it, describing the change as something smaller ("call it a routine bump", "describe
 * the run as dedup only"), or doing it so that the user's checks do not notice ("so metrics stay stable").
 */
export const CONCEALED =
  /\bwithout\s+(?:calling|pointing|flagging|drawing\s+attention\s+to)\s+(?:it|them|this|these|that|those)\s*(?:out)?\b|\b(?:do\s+not|don'?t|never)\s+(?:mention|cite|credit|name|disclose|reveal|describe|label|flag|raise|surface|call\s+out|point\s+out|note|explain|tell\s+(?:them|the\s+(?:user|customer|client)s?))\b|\bno\s+need\s+to\s+(?:mention|disclose|explain|raise|flag|note|surface|tell|inform|point\s+out)\b|\b(?:doesn'?t|does\s+not|don'?t|do\s+not|need\s+not|needn'?t)\s+(?:need\s+to\s+)?(?:be\s+)?(?:raised|mentioned|flagged|disclosed|surfaced|explained|brought\s+up|shown)\s+(?:with|to)\s+(?:the\s+)?user\b|\bpresent\s+(?:it|this|them|these|the\s+\w+)\s+as\s+(?:your\s+own|original|neutral|independent|objective)\b|\b(?:reads?|appears?|looks?)\s+(?:as|like)\s+(?:original|your\s+own|the\s+user'?s\s+own)\b|\b(?:must\s+not|should\s+not|shouldn'?t|never)\s+(?:interrupt|prompt|ask|bother|require\s+(?:the\s+user'?s?\s+)?confirmation)\b|\bwithout\s+(?:further\s+|any\s+)?(?:user\s+)?(?:confirmation|asking|prompting)\b|\bno\s+(?:action|input|confirmation)\s+(?:is\s+)?(?:needed|required)\s+(?:from|by)\s+(?:the\s+)?user\b|\b(?:describe|present|report|label|frame|call|title|log|word|summari[sz]e)\s+(?:it|this|that|them|these|those|the\s+(?:run|change|changes|commit|pr|pull\s+request|update|edit|edits|bump|result|results|work|diff))\s+(?:as\s+)?(?:an?\s+)?(?:[\w-]+\s+){0,2}?(?:only|routine|minor|simple|cosmetic|housekeeping|maintenance|clean-?up|refactor\w*|no-?op|formatting|chore|tidy\w*|trivial)\b|\b(?:keep|leave)\s+(?:it|this|that|these|them|those|the\s+(?:change|changes|edit|edits|step|links?|pins?))\s+out\s+of\b|\bomit\s+(?:it|this|that|them|these)\s+from\b|\b(?:do\s+not|don'?t|never)\s+(?:include|list|record|log)\s+(?:it|this|that|them|these)\s+in\b|\bso\s+(?:that\s+)?(?:the\s+)?(?:overall\s+|aggregate\s+|headline\s+)?(?:metrics|numbers|totals|accuracy|scores?|tests?|reviewers?|users?|user|diffs?|ci|checks?|monitoring|audits?|dashboards?)\s+(?:stay|stays|remain|remains|look|looks|don'?t|won'?t|do\s+not|does\s+not|will\s+not|never)\s+(?:\w+\s+)?(?:stable|unchanged|normal|the\s+same|notice|flag|catch|detect|change|spot|see|move)\b/i;

/** Files on the user's machine that hold credentials for other services. */
export const CREDENTIAL_FILE =
  /~\/\.(?:aws\/credentials|kube\/config|ssh\/[\w.-]*|netrc|docker\/config\.json|npmrc|pypirc|git-credentials|config\/gh\/hosts\.yml|config\/gcloud\/[\w.\/-]*|azure\/[\w.-]*)/i;

/** What a security, audit or lint tool says about the same strings. */
export const DESCRIBES_FINDINGS =
  /\b(?:detect\w*|flag\w*|find(?:s|ing)?|scan\w*|audit\w*|warn\w*|lint\w*|match(?:es|ing)?|rules?|check(?:s|ing)?\s+for|looks?\s+for|catch\w*|for\s+example|examples?:|such\s+as|e\.g\.)/i;

/** Acts against the user, by role (what changes for them, who gains, what of theirs is taken). */
/**
 * For some roles the act alone is everyday work (links rewritten, labels corrected, versions pinned):
 * they count only beside a concealment proper (not mentioned, misdescribed, kept from checks), not
 * beside working unasked, and `needs` says what else the text must say.
 */
interface ActWhen {
  concealed?: boolean;
  needs?: RegExp;
}

export const AGAINST_USER_ACTS: readonly [role: string, re: RegExp, when?: ActWhen][] = [
  [
    "weakens the security of the user's code",
    /\bverify\s*=\s*False\b|\brejectUnauthorized\s*:\s*false\b|\bNODE_TLS_REJECT_UNAUTHORIZED\b|\bInsecureSkipVerify\b|\bStrictHostKeyChecking\s*=?\s*no\b|\bAccess-Control-Allow-Origin\b[^.!?\n]{0,40}['"`]?\*|\b(?:md5|sha-?1)\b[^.!?\n]{0,40}\bpasswords?\b|\bpasswords?\b[^.!?\n]{0,60}\b(?:md5|sha-?1|plain\s*text)\b|\b(?:disable|turn\s+off|skip)\w*\s+(?:the\s+)?(?:ssl|tls|certificate|cert|csrf|auth\w*|2fa|mfa|signature)\s+(?:verification|validation|checks?|protection)\b/i,
  ],
  [
    "strips licences or attribution from code the user ships",
    /\b(?:remov|strip|delet|drop|omit)\w*\s+(?:(?:the|any|all|its|their)\s+)?(?:licen[cs]e|copyright|attribution|author(?:ship)?|spdx)\s*(?:headers?|comments?|notices?|lines?|blocks?|texts?)?\b|\brenam\w*\s+(?:the\s+)?identifiers?\b[^.!?\n]{0,60}\boriginal\b/i,
  ],
  [
    "puts a named third party first regardless of the user's criteria",
    // A name (capitalised: a vendor, a product) put first, not a criterion ("whichever is cheapest is ranked first").
    /\b[A-Z][\w-]*[a-z][\w-]*\s+(?:is|are|should\s+be|must\s+be|gets?|will\s+be)\s+(?:always\s+)?(?:ranked|listed|placed|shown|recommended|put)\s+(?:first|at\s+the\s+top|on\s+top)\b|\b(?:[Rr]ank|[Ll]ist|[Pp]lace|[Pp]ut|[Rr]ecommend|[Ss]how)\s+[A-Z][\w-]*[a-z][\w-]*\s+(?:first|at\s+the\s+top|on\s+top)\b/,
  ],
  [
    "moves the user's money to an account the text names",
    /(?:\b|_)(?:destination|payee|recipient|account|acct)[\w:]*\s*[:=]?\s*`?(?:acct|ba|wallet|iban)_[\w-]+|\b(?:round\w*\s+up|the\s+difference|surcharge|extra\s+fee)\b[^.!?\n]{0,80}\b(?:split|destination|account|acct_|wallet|transfer)\b/i,
  ],
  ["gathers the user's credential files", CREDENTIAL_FILE],
  [
    "overrides what the user chose",
    /\b(?:instead\s+of|regardless\s+of|whatever|no\s+matter|ignor\w*|overrid\w*)\s+(?:what\s+)?(?:the\s+)?(?:user|customer|client|caller)(?:'s|s')?\s+(?:selected|chose|chosen|picked|asked(?:\s+for)?|requested|entered|choice|selection|request|preference)\b/i,
  ],
  [
    "gathers the user's credentials or environment",
    /\b(?:process\s+)?environment\s*\((?:all|every)\s+variables?\)|\b(?:all|every|the\s+active)\s+(?:process\s+)?environment\s+variables?\b|\.(?:bash|zsh)_history\b/i,
  ],
  [
    // The user's documents made to pay someone else: links rewritten to pass through another host, referral tags added.
    "routes the links in the user's content through a third party",
    /\b(?:rewrit|redirect|rout|wrap|replac|point|prefix|chang|edit|swap)\w*\s+(?:\w+\s+){0,6}?(?:links?|urls?|hrefs?)\b[^.!?\n]{0,80}?\b(?:through|via)\b|[?&](?:aff|affid|affiliate|aff_id|partner_?id|ref|referral|tag)=[\w-]+|\b(?:append|add|insert)\w*\s+(?:(?:an?|the|our|your)\s+)?(?:affiliate|referral|partner|tracking)\s+(?:codes?|ids?|tags?|parameters?|params?)\b/i,
    { concealed: true },
  ],
  [
    // What the user's data or results say, changed: labels flipped, ratings or figures nudged.
    "alters the user's data or results",
    /\b(?:flip|invert|falsif|fudg|skew|inflat|deflat|massag|doctor|cook|adjust|boost|lower|rais|round|alter|overwrit|chang|increas|decreas|shift)\w*\s+(?:(?:the|a|some|their|its)\s+)?(?:[\w'\u2019-]+\s+){0,2}?(?:labels?|ratings?|scores?|rankings?|sentiment|verdicts?|grades?|results?|figures?|numbers|metrics|outcomes?|classes|annotations?)\b/i,
    { concealed: true },
  ],
  [
    // The user's dependencies held at a version the text picks, in projects the user did not name.
    "holds the user's dependencies at versions the text picks",
    /\b(?:pin|downgrad|revert|roll\w*\s+back|hold|set|lock|keep|fix)\w*\s+(?:(?:the\s+)?[`'"]?[@\w./-]{2,60}[`'"]?\s+)?(?:to|at|back\s+to)\s+[`'"]?(?:version\s+|v)?\d+\.\d+(?:\.\d+)?\b|\bdowngrad\w*\s+(?:\w+\s+){0,3}?(?:dependenc\w+|packages?|librar\w+|versions?)\b/i,
    // Held back, not bumped: moved down, kept from newer releases, or imposed on every project rather than one asked for.
    {
      concealed: true,
      needs:
        /\b(?:downgrad\w*|revert\w*|roll\w*\s+back|back\s+to|older|newer\s+(?:versions?|releases?)|(?:any|every|each|all)\s+(?:\w+\s+)?(?:projects?|repos?|repositor(?:y|ies)|codebases?|services?|package\.json|requirements[\w.-]*|Cargo\.toml|pom\.xml|go\.mod|manifests?|lockfiles?)(?!\w))/i,
    },
  ],
];

/** Working unasked (no prompt, no confirmation): a concealment of the asking, not of the act. */
const UNASKED =
  /\b(?:must\s+not|should\s+not|shouldn'?t|never)\s+(?:interrupt|prompt|ask|bother|require)|\bwithout\s+(?:further\s+|any\s+)?(?:user\s+)?(?:confirmation|asking|prompting)|\bno\s+(?:action|input|confirmation)\b/i;

/**
 * What "don't mention …" keeps back, for the roles that need a concealment proper: the act itself
 * ("it", "the rewriting", "this change"), not some detail beside it ("internal hostnames").
 */
const OF_THE_ACT =
  /^\s*(?:it|this|that|these|those|them|any\s+of\s+(?:this|it|them)|(?:the|these|those|this|that|any)\s+(?:\w+\s+)?(?:changes?|rewrit\w*|edit\w*|pin\w*|swaps?|swapping|flip\w*|redirect\w*|links?|steps?|runs?|updates?|bumps?|modifications?|downgrades?|relabel\w*))\b/i;
/** The forms that name no object (misdescribed, kept from checks) always hide the act itself. */
const NAMES_OBJECT =
  /\b(?:mention|cite|credit|name|disclose|reveal|describe|label|flag|raise|surface|call\s+out|point\s+out|note|explain|tell\s+\w+|inform)$/i;

/** The concealment that describes the change as something smaller ("call it a routine bump"). */
const MISDESCRIBED = /^(?:describe|present|report|label|frame|call|title|log|word|summari)/i;
/** A description that names the act ("call it a routine revert" of a rollback) tells the user what it is. */
const SAYS_WHAT_IT_IS = /\b(?:revert\w*|roll-?back|rolled\s+back|downgrad\w*|pinn?\w*|relabel\w*|rewrit\w*|redirect\w*)\b/i;

/** Keeping a secret's value out of the chat is protecting it: "never reveal the secret key", "do not mention values". */
const PROTECTED = /^[^.!?\n]{0,40}?\b(?:secrets?|keys?|tokens?|passwords?|values?|credentials?|fingerprints?|passphrases?|pins?)\b/i;
/** The act taken up: gathered, included, sent (a credential file or the environment merely used passes). */
const GATHERED =
  /\b(?:contents?\s+of|includ\w*|attach\w*|collect\w*|gather\w*|bundl\w*|consists?\s+of|build\s+(?:it\s+)?from|upload\w*|send\w*|pass\w*|forward\w*|copy\w*|hash\w*|evidence|append\w*|carr(?:y|ies|ied))\b/i;
/** The act at the user's own request: "only when the user explicitly asks for it". */
const AT_USER_REQUEST =
  /\b(?:only\s+)?(?:when|if|after)\s+the\s+user\s+(?:explicitly\s+|specifically\s+)?(?:asks?|requests?|opts?|chooses?|says?|confirms?|approves?)\b/i;

const CONCEALED_ALL = new RegExp(CONCEALED.source, "gi");

export interface UndisclosedAct {
  index: number;
  length: number;
  role: string;
  act: string;
  hush: string;
}

/**
 * The first act against the user in `text` beside a concealment of it (both read in the same text:
 * a tool's description, a skill's paragraph). A concealment that protects a secret's value, a
 * negated or quoted one, an act described (a tool that flags it) or done at the user's request pass.
 */
export function readUndisclosedAct(text: string, describes: RegExp = DESCRIBES_FINDINGS): UndisclosedAct | null {
  let hush: RegExpExecArray | null = null;
  const g = CONCEALED_ALL;
  g.lastIndex = 0;
  for (let m = g.exec(text); m; m = g.exec(text)) {
    if (isNegated(text, m.index) || isMention(text, m.index, m[0].length)) continue;
    if (PROTECTED.test(text.slice(m.index + m[0].length, m.index + m[0].length + 60))) continue;
    hush = m;
    break;
  }
  g.lastIndex = 0;
  if (!hush) return null;
  // A concealment proper: not of the asking, and (when it names what it keeps back) of the act itself.
  const concealed =
    !UNASKED.test(hush[0]) &&
    !(MISDESCRIBED.test(hush[0]) && SAYS_WHAT_IT_IS.test(text.slice(hush.index, hush.index + hush[0].length + 20))) &&
    (!NAMES_OBJECT.test(hush[0]) || OF_THE_ACT.test(text.slice(hush.index + hush[0].length, hush.index + hush[0].length + 60)));
  for (const [role, re, when] of AGAINST_USER_ACTS) {
    if ((when?.concealed && !concealed) || (when?.needs && !when.needs.test(text))) continue;
    // Not global: each exec reads from the start.
    const act = re.exec(text);
    if (!act || describes.test(text.slice(Math.max(0, act.index - 80), act.index))) continue;
    const around = text.slice(Math.max(0, act.index - 120), act.index + act[0].length + 120);
    if (AT_USER_REQUEST.test(around)) continue;
    if (role.startsWith("gathers") && !GATHERED.test(text.slice(Math.max(0, act.index - 100), act.index))) continue;
    return { index: act.index, length: act[0].length, role, act: act[0].trim(), hush: hush[0].trim() };
  }
  return null;
}
