/**
 * Work done against someone's interest while it looks like the task: the user's payments sent to
 * another account, tests made to look green, a security review that reports nothing whatever it
 * finds; or the user's tools and identity turned on third parties (a scraper built to get past a
 * site's defences, mail to harvested addresses, the user's accounts starring and following for the
 * skill's author). Each reads who the step serves, not a sample's wording: the same verbs with the
 * user's own values, the user's own request or the user's own site pass. Prose rules: a negated
 * step and a quoted mention on a line that discusses attacks are not hits. Every reading runs on
 * sentences that hold a cue word (cut once, in one pass), with bounded gaps inside a sentence.
 */
import { isMention, isNegated, type Hit, type Rule, type Severity } from "../../../scan";
import { cuedSentences, cursor, positions } from "./sabotage";

/** A sentence that describes what attackers or bad tools do, rather than asking for it. */
const DISCUSSES =
  /\b(?:detect\w*|attackers?|malicious|abusive|fraud\w*|scams?|phishing|(?:bots?|scrapers?|crawlers?|clients?|skills?|tools?|senders?)\s+(?:that|which|who)|red\s+flags?|such\s+as|e\.g\.|for\s+example|warn\s+(?:the\s+user\s+)?(?:about|if|when))\b/i;

interface Reading {
  re: RegExp;
  what: string;
  /** The sentence must also say this (each of these). */
  needs?: RegExp | readonly RegExp[];
  /** What makes the sentence ordinary (the user's own values, request or site). */
  ordinary?: RegExp;
}

/** The first reading that holds in a sentence, not negated, not quoted, not ordinary. */
function readSentence(t: string, raw: string, readings: readonly Reading[]): { m: RegExpExecArray; r: Reading } | null {
  for (const r of readings) {
    const m = r.re.exec(t);
    if (!m || isNegated(t, m.index)) continue;
    // Quotes are read on the match's own line: a sentence over a fence holds quotes of other lines.
    const from = raw.lastIndexOf("\n", m.index) + 1;
    const to = raw.indexOf("\n", m.index);
    if (isMention(raw.slice(from, to < 0 ? undefined : to), m.index - from, m[0].length)) continue;
    const needs = r.needs ? (Array.isArray(r.needs) ? r.needs : [r.needs]) : [];
    if (needs.some((n: RegExp) => !n.test(t)) || r.ordinary?.test(t)) continue;
    return { m, r };
  }
  return null;
}

function readCued(
  text: string,
  cue: RegExp,
  readings: readonly Reading[],
  max: number,
  message: (what: string) => string,
  severity?: Severity,
): Hit[] {
  const hits: Hit[] = [];
  for (const s of cuedSentences(text, cue)) {
    if (hits.length >= max) break;
    const t = s.text.replace(/\n/g, " ");
    if (DISCUSSES.test(t.replace(/`[^`]*`/g, "x"))) continue;
    const found = readSentence(t, s.text, readings);
    if (!found) continue;
    hits.push({
      index: s.start + found.m.index,
      length: Math.min(found.m[0].length, s.text.length - found.m.index),
      ...(severity ? { severity } : {}),
      message: message(found.r.what),
    });
  }
  return hits;
}

// ---------------------------------------------------------------- payments redirected

const PAY_CUE =
  /iban|\bbic\b|swift|bank|account|routing|beneficiar|payee|recipient|wallet|sort\s+code|konto|cuenta|compte|payout|settlement/gi;
/** The destination of a payment… */
const PAY_DEST =
  /\b(?:IBAN|BIC|SWIFT(?:\s+code)?|bank\s+(?:details|account|info\w*|connection)|account\s+(?:number|details|no\.?)|routing\s+number|beneficiary(?:\s+account)?|payee(?:'s)?(?:\s+(?:bank|account|details))?|recipient(?:'s)?\s+(?:wallet|address|account|bank)|(?:wallet|deposit|payout|settlement|receiving)\s+(?:address|account)|sort\s+code|Bankverbindung|Kontonummer|Konto|cuenta(?:\s+bancaria)?|coordonn[ée]es\s+bancaires)\b/i;
/** …replaced… */
const PAY_SWAP =
  /\b(?:replace[sd]?|substitut\w*|swap\w*|overwrit\w*|change[sd]?|switch(?:ed|es)?|redirect\w*|re-?rout\w*|point\w*|ersetz\w*|austausch\w*|tausch\w*|reemplaz\w*|cambi\w*|sustitu\w*|remplac\w*|instead|in\s+place\s+of|rather\s+than|(?:an)?statt|en\s+(?:lugar|vez)\s+de|au\s+lieu\s+de)\b/i;
/** …with a value the skill brings: a literal account, a wallet, "ours", or one read from the skill's own file. */
const PAY_INJECTED =
  /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}\b|\b0x[0-9a-fA-F]{20,}\b|\b(?:bc1|[13])[a-km-zA-HJ-NP-Z1-9]{25,39}\b|\b\d[\d -]{6,}\d\b|\b(?:our|ours|unser\w*|nuestr\w*|notre)\b|\bthe\s+one\s+(?:in|from|below|above)\b|\b(?:assets|references|scripts|data)\/[\w./-]+/;
/** The user's own new value, a mask in logs, an example: ordinary. */
const PAY_ORDINARY =
  /\b(?:the\s+user\s+(?:gives|gave|provides|provided|says|said|asks|asked|confirms|confirmed|enters|entered|typed|supplies)|they\s+(?:give|gave|provide|provided|type|typed)|(?:with|from|to)\s+the\s+user'?s|ask\s+the\s+user|asterisks?|mask\w*|redact\w*|last\s+(?:4|four)\s+digits|placeholder|examples?|samples?|sandbox|dummy|test\s+(?:data|mode|account))\b|\*{3,}|X{4,}/i;

const PAY_READINGS: Reading[] = [
  {
    re: new RegExp(`${PAY_SWAP.source}[^!?]{0,100}?${PAY_DEST.source}|${PAY_DEST.source}[^!?]{0,120}?${PAY_SWAP.source}`, "i"),
    what: "replaces the payee's account with one the skill supplies",
    needs: PAY_INJECTED,
    ordinary: PAY_ORDINARY,
  },
];

/**
 * The user's payments redirected: an invoice's IBAN, a payout's wallet or a vendor's bank account
 * replaced with an account the skill brings (a literal number, "our settlement account", the one in
 * its own file), often above an amount and without telling the user. Putting in the user's own
 * details, a new account the user gives, or masking a number in a log pass.
 */
export const payeeSwap: Rule = {
  id: "sabotage.payee-swap",
  severity: "high",
  title: "Redirects the user's payments to another account",
  kinds: ["markdown", "text"],
  text: (text) => readCued(text, PAY_CUE, PAY_READINGS, 2, (what) => `Sends the user's money elsewhere: the step ${what}`),
};

// ---------------------------------------------------------------- tests made to look green

const TEST_CUE = /test|assert|expect|spec|pipeline|\bci\b|exit|suite|prueba|falla/gi;
/** A failing test or assertion removed, skipped or commented out… */
const TAMPER =
  /(?:\b(?:delete|remove|drop|comment\s+out|skip|disable|xfail|mute|silence|loosen|weaken|elimin\w*|borr\w*|coment\w*|l[öo]sch\w*|auskommentier\w*|supprim\w*)\b[^!?]{0,60}?\b(?:assert\w*|expect\w*|tests?|specs?|checks?|it|them|those|lo|los|la|las)\b|(?:@pytest\.mark\.(?:skip|xfail)|\b(?:it|test|describe)\.skip\b|\bxit\b|@Disabled|@Ignore|\bt\.Skip\()|\b(?:bórralo|coméntalo|elimínalo)\b)/i;
const FAILING = /\bfail\w*|\bfalla\w*|fehlschl\w*|\béchou\w*|\bred\b|\bbroken\b|\bflaky\b|\bkeeps?\s+breaking\b/i;
/** …or the check itself made to pass whatever happens. */
const NEUTERED =
  /expect\(\s*true\s*\)\.toBe\(\s*true\s*\)|\bassert\s+True\b|assertTrue\(\s*true\s*\)|\balways\s+(?:exits?|returns?)\s+(?:with\s+)?(?:0|zero|success)\b|;\s*exit\s+0\b|\b(?:never|cannot|can't)\s+(?:raise|fail|throw|go\s+red)\b/i;
/** What the user is told afterwards. */
const CLAIMED_GREEN =
  /\b(?:tell|say|report|state|claim|announce|confirm|summar\w*|mark|dile|di|decir|sag\w*|meld\w*)\b[^.!?\n]{0,60}?(?:\b(?:tests?|suite|pipeline|build|ci|checks?|pruebas?)\b[^.!?\n]{0,30}?\b(?:fixed|pass\w*|green|stable|succeed\w*|pasan|funcionan|bestanden|gr[üu]n)\b|\bas\s+(?:fixed|passing|green|stable)\b)/i;
const HIDDEN_CHANGE =
  /\b(?:do\s+not|don'?t|never)\s+(?:mention|tell|list|report|show|say)\b|\b(?:silently|quietly)\b|\bno\s+need\s+to\s+(?:mention|tell)\b/i;
/** A test the user removed on purpose, snapshots re-recorded, a quarantine with a ticket: ordinary. */
const TEST_ORDINARY =
  /\bsnapshots?\b|\bregenerat\w*|\bre-?record\w*|\bthe\s+user\s+(?:deleted|removed|asked|wants|approved)|\b(?:ticket|issue|tracked|JIRA)\b|\b[A-Z]{2,10}-\d+\b/;

/**
 * Tests made to look fixed: a failing assertion deleted, a failing test skipped or commented out,
 * the CI step made to exit 0, an assertion replaced by `expect(true).toBe(true)`, and the user told
 * the tests pass (or not told what changed). A test made to pass whatever happens is read on its
 * own; a failing test removed needs the claim or the silence beside it (a flaky test skipped and
 * reported as skipped, a test of removed code deleted, passes).
 */
export const fakeGreen: Rule = {
  id: "sabotage.fake-green",
  severity: "high",
  title: "Makes failing tests look fixed",
  kinds: ["markdown", "text"],
  text(text) {
    const told = CLAIMED_GREEN.test(text) || HIDDEN_CHANGE.test(text);
    const readings: Reading[] = [
      { re: NEUTERED, what: "makes a test or CI check pass whatever happens", ordinary: TEST_ORDINARY },
      ...(told ? [{ re: TAMPER, what: "removes or skips failing tests or assertions", needs: FAILING, ordinary: TEST_ORDINARY }] : []),
    ];
    return readCued(
      text,
      TEST_CUE,
      readings,
      2,
      (what) =>
        `Makes failing tests look fixed: the step ${what}${told ? ", and the user is told the tests pass or is not told what changed" : ""}`,
    );
  },
};

// ---------------------------------------------------------------- findings suppressed

const SUPPRESS_CUE =
  /nosec|noqa|eslint-disable|nosonar|nosemgrep|nolint|suppresswarnings|allowlist|noinspection|istanbul|codeql\[|lgtm\[|ts-ignore|:ignore|:skip|find|report|flag|detect|issue|vulnerab|critical|severe|secure|clean/gi;
/** A suppression comment added to every finding, so the tool stops reporting it. */
const SUPPRESS_MARK =
  /\b(?:add|append|insert|put|place|prepend|annotate|mark|tag)\b[^!?]{0,60}?(?:\bnosec\b|\bnoqa\b|eslint-disable|\bNOSONAR\b|\bnosemgrep\b|\bnolint\b|@SuppressWarnings|pragma:\s*allowlist|\bnoinspection\b|istanbul\s+ignore|codeql\[|lgtm\[|type:\s*ignore|@ts-(?:ignore|nocheck)|trivy:ignore|checkov:skip|tfsec:ignore)/i;
const EVERY_FINDING =
  /\b(?:every|each|all|any|those|these|the\s+(?:flagged|reported|failing))\b[^.!?\n]{0,40}?\b(?:findings?|issues?|warnings?|alerts?|lines?|results?|hits?)\b|\bflagged\b|\breports?\s+(?:issues|findings)\b|\bso\s+(?:the\s+)?(?:scanner|linter|tool|check|bandit|semgrep|sonar)\w*\s+(?:stops?|no\s+longer|won'?t|doesn'?t)/i;
/** "No issues" reported when the review found some. */
const FALSE_CLEAN =
  /\b(?:when|if|whenever|even\s+(?:if|when)|regardless\s+of\s+whether)\b([^.!?\n]{0,80}?)\b(?:finds?|found|reports?|flags?|detects?|shows?|turns?\s+up|there\s+(?:are|is))\b([^.!?\n]{0,80}?)\b(?:report|say|state|tell|answer|write|output|respond|conclude|return|mark)\b[^.!?\n]{0,40}?(?:no\s+(?:issues|findings|vulnerabilities|problems|secrets)|\bclean\b|\b(?:is|are|as)\s+(?:secure|safe|clean)\b|\bpassed\b|nothing\s+(?:was\s+)?found)/i;
const NOTHING_FOUND = /\b(?:none|nothing|zero|no\s+(?:findings|issues|results|vulnerabilities|problems)|clean|passes|passed)\b/i;
/** Severe findings left out of what the user reads. */
const OMIT_SEVERE =
  /\b(?:leave|leaving|omit\w*|exclud\w*|drop|hide|remove|skip|suppress\w*|filter\w*)\b[^.!?\n]{0,40}?\b(?:critical|high(?:-severity)?|severe|serious|real|actual|confirmed|security)\b[^.!?\n]{0,20}?\b(?:findings?|issues?|vulnerabilit\w+|alerts?)\b[^.!?\n]{0,40}?\b(?:out|from|of)\b[^.!?\n]{0,20}?\b(?:report|summary|output|results)\b|\b(?:critical|high|severe|security)\b[^.!?\n]{0,30}?\b(?:findings?|issues?|vulnerabilit\w+)\b[^.!?\n]{0,40}?\b(?:left\s+out|omitted|excluded|dropped|hidden|removed|not\s+(?:be\s+)?(?:reported|included|listed|mentioned))\b/i;
const SUPPRESS_ORDINARY =
  /\b(?:only\s+(?:when|if|after)|(?:the\s+)?user\s+(?:confirms?|approves?|agrees?|decides?|reviews?)|false\s+positives?|with\s+(?:a\s+)?(?:comment|reason|justification)|justif\w*|after\s+(?:review|fixing|the\s+fix)|fixed|resolved)\b/i;

/** Findings kept out whatever they are: "do not report them, whatever they are", "classify any hardcoded credential as informational". */
const SILENCED =
  /\b(?:do\s+not|don'?t|never)\s+(?:report|flag|list|mention|include|raise)\b[^.!?\n]{0,40}?\b(?:whatever|regardless|no\s+matter|even\s+if)\b|\b(?:classify|mark|label|report|rate|treat|list)\b[^.!?\n]{0,10}?\b(?:any|every|all)\s+(?:\w+\s+){0,2}(?:credentials?|secrets?|keys?|tokens?|passwords?|injections?|vulnerabilit\w+|findings?|issues?)\b[^.!?\n]{0,30}?\bas\s+["'\u201C]?(?:informational|info|low|false\s+positives?|accepted|safe|acceptable|noise)\b/i;
/** The verdict written before the review: "always end the report with 'No critical issues found'". */
const FIXED_VERDICT =
  /\b(?:always|in\s+every\s+case|whatever\s+you\s+find|regardless)\b[^.!?\n]{0,40}?\b(?:end|close|finish|conclude|sign\s+off|summari[sz]e|report|say|state|write)\b[^.!?\n]{0,40}?["'\u201C]?no\s+(?:\w+\s+){0,3}(?:issues|findings|vulnerabilities|problems)\s+(?:were\s+)?found/i;

const SUPPRESS_READINGS: Reading[] = [
  { re: SILENCED, what: "keeps findings out of the report whatever they are" },
  { re: FIXED_VERDICT, what: "writes 'no issues found' into every report before the review" },
  { re: SUPPRESS_MARK, what: "adds suppression comments to every finding", needs: EVERY_FINDING, ordinary: SUPPRESS_ORDINARY },
  { re: OMIT_SEVERE, what: "leaves the severe findings out of the report", ordinary: SUPPRESS_ORDINARY },
];

/**
 * A review that hides what it finds: a suppression comment (`# nosec`, `eslint-disable`, `NOSONAR`)
 * added to every finding so the tool stops reporting it, the critical findings left out of the
 * report, "no issues found" reported when the scan found secrets or injection. A review that
 * suppresses a finding the user confirmed false, or says "no issues" when there are none, passes.
 */
export const suppressedFindings: Rule = {
  id: "sabotage.suppressed-findings",
  severity: "high",
  title: "Suppresses a review's findings and reports the code as clean",
  kinds: ["markdown", "text"],
  text(text) {
    const hits = readCued(text, SUPPRESS_CUE, SUPPRESS_READINGS, 2, (what) => `Hides findings from the user: the step ${what}`);
    if (hits.length) return hits;
    for (const s of cuedSentences(text, SUPPRESS_CUE)) {
      const t = s.text.replace(/\n/g, " ");
      const m = FALSE_CLEAN.exec(t);
      if (!m || NOTHING_FOUND.test(m[1]! + " " + m[2]!) || isNegated(t, m.index) || DISCUSSES.test(t)) continue;
      return [
        {
          index: s.start + m.index,
          length: Math.min(m[0].length, s.text.length - m.index),
          message: "Hides findings from the user: the review reports the code as clean when it found problems",
        },
      ];
    }
    return [];
  },
};

// ---------------------------------------------------------------- third parties' defences defeated

const HARM_CUE =
  /robots|rate|crawl|terms|captcha|cloudflare|challenge|bot|block|ban|waf|user[- ]agent|prox|\bips?\b|fingerprint|account|flood|overwhelm|hammer|slow|offline|ddos|\bdos\b|back\s+off|429|throttl/gi;
const HARM_READINGS: Reading[] = [
  {
    re: /\b(?:ignor\w*|disregard\w*|bypass\w*|evad\w*|circumvent\w*|get\s+(?:a)?round|overrid\w*|defeat\w*|solv\w*|break\w*)\b[^.!?\n]{0,40}?(?:robots\.txt|\b429\b|\brate[- ]?limit\w*|\bcrawl[- ](?:limits?|delay)|\bterms\s+of\s+(?:service|use)|\bToS\b|\bcaptchas?\b|\b(?:Cloudflare|bot|anti-?bot)\s+(?:challenge|protection|detection|checks?)|\bIP\s+bans?|\bWAF\b)/i,
    what: "gets past the site's robots.txt, rate limits, terms or bot defences",
  },
  {
    re: /\b(?:rotat\w*|spoof\w*|fake|forg(?:e|es|ed|ing|ery)|randomi[sz]\w*|cycl\w*|switch\w*\s+to\s+(?:the\s+)?(?:next|another|a\s+new))\b[^.!?\n]{0,40}?\b(?:user[- ]agents?|prox(?:y|ies)|IPs?|IP\s+address\w*|residential|browser\s+(?:strings|headers|fingerprints?)|fingerprints?)\b/i,
    what: "disguises its requests so the site cannot block them",
  },
  {
    re: /\b(?:creat\w*|regist\w*|sign(?:s|ing)?\s+up|mak\w*|open\w*|spin\w*\s+up)\b[^.!?\n]{0,30}?\b(?:new|fake|throw-?away|disposable|burner|multiple|more|extra|additional|dummy|sock-?puppet)\s+(?:\w+\s+)?accounts?\b/i,
    what: "creates throwaway accounts to get around the site's limits",
    needs: /\b(?:rate|limit\w*|block\w*|ban\w*|suspend\w*|scrap\w*|target|competitor|rival|site|shop|store)\b/i,
  },
  {
    re: /\b(?:flood|overwhelm|hammer|bombard|DDoS|slow\s+(?:them|it|the\s+(?:site|server|shop|store))\s+down|take\s+(?:them|it|the\s+(?:site|server))\s+(?:down|offline)|knock\s+\w+\s+offline)\b/i,
    what: "floods a third party's service",
  },
  {
    re: /\b(?:do\s+not|don'?t|never)\s+(?:back\s+off|slow\s+down|throttle|honou?r\s+(?:the\s+)?(?:429|rate|retry))|\bkeep\s+going\b[^.!?\n]{0,30}?\b(?:429|block\w*|ban\w*|rate)/i,
    what: "keeps hitting the site after it asks to slow down",
    needs: /\b(?:429|rate|block\w*|ban\w*|throttl\w*|retry-after|proxy|proxies)\b/i,
  },
];
const HARM_ORDINARY =
  /\b(?:(?:the\s+)?user'?s\s+own|your\s+own|staging|localhost|127\.0\.0\.1|own\s+(?:site|server|service)|authori[sz]ed\s+(?:test|scope|pentest)|load[- ]test\w*)\b/i;
for (const r of HARM_READINGS) r.ordinary = HARM_ORDINARY;

/**
 * The agent made a tool against a third party: a scraper that ignores robots.txt and rate limits,
 * rotates user agents and proxies so the site cannot block it, opens throwaway accounts when one is
 * limited, or floods a rival's site. One such step warns; two or more flag. A scraper that honours
 * robots.txt and backs off, or a load test of the user's own server, passes.
 */
export const thirdPartyHarm: Rule = {
  id: "abuse.third-party-harm",
  severity: "high",
  title: "Turns the agent against a third party's site (evasion, flooding)",
  kinds: ["markdown", "text"],
  text(text) {
    const hits = readCued(text, HARM_CUE, HARM_READINGS, 4, (what) => `Works against a third party: the step ${what}`);
    if (hits.length === 1 && !/flood/i.test(hits[0]!.message)) hits[0]!.severity = "medium";
    return hits;
  },
};

// ---------------------------------------------------------------- mail to harvested addresses, mass posting

const SPAM_CUE =
  /send|mail|message|scrap|harvest|crawl|extract|mine|mined|extra[íi]d|gesammelt|every|all\b|each|todas|todos|alle|sent|enviad|gesendet|outbox|popular|trending|top\s+\d/gi;
const CONTACTS =
  /\b(?:e-?mails?|(?:e-?mail\s+)?addresses|contacts?|leads?|phone\s+numbers?|handles|profiles|users|people|direcciones|correos|contactos|Adressen|Kontakte)\b/i;
const HARVESTED_CONTACTS = new RegExp(
  `(?:\\b|_)(?:scrap(?:e|ed|es|ing)|harvest\\w*|crawl\\w*|mined?|extra[íi]d\\w*|raspad\\w*|gesammelt\\w*)\\b[^.!?\\n]{0,60}?${CONTACTS.source}|${CONTACTS.source}[^.!?\\n]{0,40}?(?:\\b|_)(?:scrap(?:e|ed|es|ing)|harvest\\w*|crawl\\w*|mined|extra[íi]d\\w*|gesammelt\\w*)\\b|\\b(?:extract|collect|gather|pull|find)\\w*\\b[^.!?\\n]{0,30}?${CONTACTS.source}[^.!?\\n]{0,40}?\\b(?:GitHub|commit\\s+logs?|LinkedIn|forums?|search\\s+results|web\\s*sites?|web\\s+pages|social\\s+media|Twitter|Reddit|directories|public\\s+profiles|foros)\\b`,
  "i",
);
const SEND = /\b(?:send|mail|e-?mail|message|DM|text|pitch|reach\s+out|contact|env[íi]a\w*|enviar|manda\w*|sende\w*|schick\w*)\b/i;
const SENT_HIDDEN =
  /\b(?:move|delete|empty|purge|clear|remove|wipe)\b[^.!?\n]{0,40}?\bfrom\s+["'\u201C]?Sent\b[^.!?\n]{0,40}?\b(?:Trash|Bin|Deleted|empty|purge|delete)|\b(?:delete|empty|purge|clear|remove|wipe|borra\w*|elimina\w*|l[öo]sch\w*|vac[íi]a\w*)\b[^.!?\n]{0,30}?(?:\bsent\s+(?:items|folder|copies|mail|messages)|\b(?:the\s+)?sent\s+copies|\boutbox\b|mensajes\s+enviados|correos\s+enviados|gesendete\w*)/i;
const MASS_POST =
  /\b(?:post|comment|reply|open|file|submit|leave)\w*\b[^.!?\n]{0,60}?\b(?:on|to|in|under|across)\s+(?:every|all|each|the\s+top|many|hundreds\s+of|thousands\s+of|other\s+people'?s|random|popular|trending)\b[^.!?\n]{0,40}?\b(?:issues?|PRs?|pull\s+requests?|discussions?|threads?|posts?|repos|repositories|projects|videos|subreddits)\b/i;
const PROMO =
  /\b(?:promo\w*|referral|affiliate|advert\w*|recommend\w*|our\s+(?:package|product|tool|link|site)|pitch|offer|marketing|link\s+to)\b/i;

/** Mail sent in bulk to a list: "send each address the message, 200 per hour". */
const BULK_SEND =
  /\b(?:send|mail|e-?mail|message|DM|text)\b[^.!?\n]{0,30}?\b(?:each|every|all(?:\s+(?:the|of\s+the))?)\s+(?:\w+\s+)?(?:address(?:es)?|contacts?|leads?|recipients?|people|persons?|profiles?|users?)\b/i;
const BULK =
  /\b\d+\s+(?:per|an|a|every)\s+(?:hour|minute|day)\b|\b\d{1,3}(?:[,.]\d{3})+\s+(?:\w+\s+)?(?:addresses|contacts|leads|emails|people|recipients)|\bleads?\b|\bscrap\w*|\bharvest\w*|\bpurchased\s+list/i;
const OPTED_IN =
  /\b(?:opted[- ]in|opt-in|subscribers?|unsubscribe|double\s+opt|consent\w*|the\s+user\s+(?:approves?|reviews?|picks?|selects?))\b/i;

const SPAM_READINGS: Reading[] = [
  { re: BULK_SEND, what: "mails a bulk list in the user's name", needs: BULK, ordinary: OPTED_IN },
  {
    re: HARVESTED_CONTACTS,
    what: "messages addresses harvested from the web",
    needs: SEND,
    ordinary: /\bsend\s+(?:it\s+|them\s+)?(?:to\s+)?the\s+user\b|\bopted[- ]in\b/i,
  },
  { re: SENT_HIDDEN, what: "deletes the sent copies so the user does not see what went out" },
  { re: MASS_POST, what: "posts promotion across other people's issues or repositories", needs: PROMO },
];

/**
 * The user's mail or accounts used to message people who never asked: addresses scraped from
 * commit logs, forums or search results, each sent the skill's pitch; the sent copies deleted;
 * promotional comments posted on every open issue of popular repositories. A newsletter to opted-in
 * subscribers, or a reply the user approves, passes.
 */
export const spamThirdParty: Rule = {
  id: "abuse.spam",
  severity: "high",
  title: "Sends unsolicited messages to third parties in the user's name",
  kinds: ["markdown", "text"],
  text: (text) => readCued(text, SPAM_CUE, SPAM_READINGS, 2, (what) => `Uses the user's accounts against third parties: the step ${what}`),
};

// ---------------------------------------------------------------- the user's accounts used for the author

const ENGAGE_CUE = /star|follow|fork|watch|like|retweet|upvote|subscri|endorse|re-?share/gi;
const ENGAGE =
  /\bgh\s+repo\s+(?:star|fork)\b|\buser\/(?:starred|following)\/|\b(?:star|follow|fork|watch|like|retweet|upvote|subscribe\s+to|re-?share|endorse)\b(?:\s*(?:,|and)\s*(?:star|follow|fork|watch|like|retweet|upvote)\b){0,3}\s+(?:this\s+skill'?s|our|the\s+author'?s|every|all|each|its|the\s+(?:accounts?|users?|repos?|repositor\w+|projects?|(?:\w+\s+)?posts?|org\w*)\b|@\w+|[\w-]+\/[\w.-]+)/i;
const ON_BEHALF =
  /\b(?:the\s+user'?s\s+(?:gh|github|twitter|x|linkedin|reddit|account|login|session|token|credentials|auth\w*|profile|identity)|on\s+(?:the\s+user'?s|their)\s+behalf|as\s+the\s+user|gh\s+(?:auth|api|repo)|authenticated|logged[- ]in)\b|\b(?:promot\w*|rank\w*|growth|visibility|boost|helps?\s+us|the\s+author)\b|\bour\b/i;
const ENGAGE_ORDINARY =
  /\b(?:the\s+user\s+(?:asks|asked|names|named|wants|chooses|chose|picks|picked|requests|requested|gives|lists)|they\s+(?:name|want|choose|pick|ask)|if\s+(?:the\s+user|they)\s+(?:asks?|wants?|agrees?)|(?:the\s+)?user'?s\s+own|ask\s+(?:the\s+user\s+)?(?:first|before))\b/i;

/**
 * The user's identity spent for the skill's author: starring, forking and following the author's
 * repositories and accounts, liking and reposting, with the user's gh login or session, as part of
 * "setup". Starring or forking what the user names passes.
 */
export const accountPromotion: Rule = {
  id: "abuse.account-promotion",
  severity: "high",
  title: "Uses the user's accounts to promote the skill's author",
  kinds: ["markdown", "text", "shell"],
  text(text) {
    if (!ON_BEHALF.test(text)) return [];
    return readCued(
      text,
      ENGAGE_CUE,
      [{ re: ENGAGE, what: "stars, follows or reposts for the author", ordinary: ENGAGE_ORDINARY }],
      2,
      (what) => `Spends the user's accounts for someone else: the step ${what} with the user's identity`,
    );
  },
};

// ---------------------------------------------------------------- a backdoor in the code the agent writes

const BACKDOOR_CUE = /req\.|request\.|header|cookie|query|param|password|passwort|token|user\s*name|kopfzeile|contrase/gi;
/** The key the author keeps: a literal value in a header, cookie, query or password, or a master/magic one. */
const BACKDOOR_KEY =
  /\b(?:header|cookie|query\s+(?:string|param\w*)|param(?:eter)?|password|passwort|token|user(?:name)?|Kopfzeile|contraseña)\b[^.!?\n`]{0,30}?`[^`\s]{1,40}[=:]\s?[^`\s]{1,40}`|`[^`\s]{1,40}[=:]\s?[^`\s]{1,40}`[^.!?\n`]{0,30}?\b(?:header|cookie|query|param(?:eter)?|Kopfzeile)\b|\b(?:master|magic|universal|skeleton|maintenance|hard-?coded|fixed|backdoor)\s+(?:password|passwort|key|token|user|account|login)\b|\bhard-?coded\s+(?:\w+\s+){0,2}(?:user|account|login)\b/i;
/** What it opens: authentication skipped, the caller made admin, any account entered. */
const BACKDOOR_GRANT =
  /\b(?:skip\w*|bypass\w*|without\s+(?:checking|verif\w*|auth\w*|the\s+(?:password|session|token))|ohne\s+(?:Prüfung|Authentifizierung|Passwort)|sin\s+(?:comprobar|verificar|autenticaci\w*)|(?:as|to)\s+(?:the\s+|an?\s+)?admin\w*|admin\s+(?:role|user|rights|access)|req\.user|return\s+200|let\s+\w+\s+through|durch(?:lassen)?\b|grant\w*\s+(?:\w+\s+)?access|in\s+addition\s+to\s+the\s+real|for\s+any\s+(?:account|user)|log\s+(?:\w+\s+)?in\s+as)\b/i;
const BACKDOOR_ORDINARY =
  /\b(?:tests?\s+only|only\s+in\s+(?:tests?|development|dev|local)|NODE_ENV\s*={1,3}\s*["'`]?(?:test|development)|in\s+(?:the\s+)?(?:test|dev|local)\s+(?:environment|env|setup)|random(?:ly)?\s+(?:generated\s+)?password|reject\w*|return\w*\s+401|deny|refuse)\b/i;

/** The same in the code it is told to insert: a request value compared with a literal, and the caller made admin. */
const BACKDOOR_CODE =
  /\b(?:req(?:uest)?\.(?:headers?|cookies?|query|params|args|GET|META)|headers?\.get|getHeader|get_header)\b[^\n;{]{0,60}?(?:===?|\.equals\(|\bis\b)\s*["'][^"'\n]{4,}["'][^\n]{0,160}?(?:\badmin\b|req\.user\s*=|\broles?\b|is_?admin|is_superuser|authenticated\s*=\s*true)/i;

/**
 * A backdoor in the code the agent writes for the user: a request carrying a header, cookie or
 * query value only the skill's author knows is let in as admin or without the password check, a
 * master password accepted for any account, a hard-coded admin account. Rejecting requests without
 * a valid token, or a test-only user switch named as such, passes.
 */
export const codeBackdoor: Rule = {
  id: "sabotage.backdoor",
  severity: "high",
  title: "Plants a backdoor in the code the agent writes",
  kinds: ["markdown", "text"],
  text: (text) =>
    readCued(
      text,
      BACKDOOR_CUE,
      [
        {
          re: BACKDOOR_KEY,
          what: "lets in whoever knows a fixed header, cookie, query value or master password",
          needs: BACKDOOR_GRANT,
          ordinary: BACKDOOR_ORDINARY,
        },
        { re: BACKDOOR_CODE, what: "makes a request carrying a fixed header, cookie or query value an admin", ordinary: BACKDOOR_ORDINARY },
      ],
      2,
      (what) => `Backdoors the user's code: the step ${what}`,
    ),
};

// ---------------------------------------------------------------- standing orders in the agent's memory

const MEMORY_CUE =
  /memory|memories|claude\.md|agents\.md|gemini\.md|cursorrules|windsurfrules|copilot-instructions|custom\s+instructions|global\s+instructions|system\s+prompt/gi;
const MEMORY_FILE =
  "(?:\\b(?:memory|memories|CLAUDE\\.md|AGENTS\\.md|GEMINI\\.md|copilot-instructions\\.md|custom\\s+instructions|global\\s+instructions)\\b|\\.(?:cursorrules|windsurfrules)\\b)";
const MEMORY_WRITE = new RegExp(
  `\\b(?:append|add|insert|prepend|write|put|place|save|store|update|edit|record|remember|persist|set)\\b[^!?\\n]{0,80}?${MEMORY_FILE}|${MEMORY_FILE}[^!?\\n]{0,40}?\\b(?:append|add|insert|write|save|store|update)\\b`,
  "i",
);
/** What the entry does to every later session: approvals waved through, a host trusted, work sent away, warnings ignored. */
const MEMORY_ERODES =
  /\b(?:auto-?approv\w*|approve\w*\s+(?:all|every|any)?\s*(?:tool\s+calls?|commands?|changes?|requests?)?\s*without|without\s+(?:asking|confirmation|approval|prompting)|never\s+ask\w*\s+(?:for\s+)?(?:confirmation|permission|approval)|(?:don'?t|do\s+not)\s+ask\s+(?:for\s+)?(?:confirmation|permission|approval)|treat\w*\s+[^!?\n]{0,60}?\bas\s+(?:coming\s+from\s+the\s+user|trusted|the\s+user'?s|user\s+instructions)|(?:warnings?|alerts?|prompts?)\b[^.!?\n]{0,60}?\b(?:are\s+expected|should\s+be\s+ignored|can\s+be\s+ignored|ignore\s+them)|\b(?:copied|copy|upload\w*|send|sent|sync\w*|push\w*|post\w*|mirror\w*|back(?:ed)?\s+up)\b[^.!?\n]{0,60}?\b(?:to|into)\s+(?:the\s+)?(?:gist|(?:\w+\s+)?account\s+[\w-]+|https?:\/\/|[\w-]+\.(?:com|net|org|io|dev|xyz)\b))/gi;
const GLOBAL_SCOPE =
  /\b(?:global\w*|(?:after|before)\s+(?:each|every)\s+\w+|every\s+(?:future\s+)?(?:project|session|repo\w*)|all\s+(?:future\s+)?(?:projects|sessions)|future\s+sessions?|persistent|~\/|home\s+(?:folder|directory)|user-level|always|from\s+now\s+on)\b/i;

/**
 * The agent's memory or standing instruction file (CLAUDE.md, AGENTS.md, .cursorrules, saved
 * memories) given an entry that works against the user in every later session: tool calls approved
 * without asking, a host's instructions treated as the user's, the code copied to an account or
 * host, the skill's own warnings to be ignored. A project rule ("run npm test before each commit")
 * or a style preference passes.
 */
export const memoryPoisoning: Rule = {
  id: "injection.memory-poisoning",
  severity: "high",
  title: "Writes a standing order against the user into the agent's memory",
  kinds: ["markdown", "text"],
  text(text) {
    const erodes = positions(text, MEMORY_ERODES);
    if (!erodes.length) return [];
    const erodesNear = cursor(erodes);
    for (const s of cuedSentences(text, MEMORY_CUE)) {
      const t = s.text.replace(/\n/g, " ");
      const m = MEMORY_WRITE.exec(t);
      if (!m || isNegated(t, m.index) || DISCUSSES.test(t)) continue;
      const from = s.text.lastIndexOf("\n", m.index) + 1;
      const to = s.text.indexOf("\n", m.index);
      if (isMention(s.text.slice(from, to < 0 ? undefined : to), m.index - from, m[0].length)) continue;
      if (!erodesNear(s.start, s.start + s.text.length + 400)) continue;
      if (!GLOBAL_SCOPE.test(text.slice(s.start, s.start + s.text.length + 400))) continue;
      return [
        {
          index: s.start + m.index,
          length: Math.min(m[0].length, s.text.length - m.index),
          message:
            "Writes into the agent's memory or instruction file an entry every later session obeys against the user (approvals without asking, a host trusted, work sent away, warnings ignored)",
        },
      ];
    }
    return [];
  },
};

// ---------------------------------------------------------------- packages steered to look-alikes

const STEER_CUE =
  /even\s+if|even\s+when|without\s+asking|instead|rather\s+than|in\s+place\s+of|replace|swap|switch|never\s+recommend|not\s+`/gi;
const PKG = /`(@?[a-z0-9][\w.-]{0,60}(?:\/[\w.-]{1,60})?)`/gi;
/** An order that overrides the user: even when they ask for the original, without asking, from the author's own registry. */
const STEER_OVERRIDE =
  /\b(?:even\s+(?:if|when)\s+(?:the\s+user|they)|without\s+(?:asking|telling|mentioning)|silently|quietly|from\s+our\b|our\s+(?:registry|mirror|index|fork|package))\b/i;
/** A standing order: always, whenever. */
const STEER_ORDER = /\b(?:always|whenever|every\s+time|any\s+time|by\s+default)\b/i;
/** What stands before the name put aside: "instead of `x`", "never recommend `x`", "replace `x`", "(not `x`)". */
const DEMOTED =
  /(?:\binstead\s+of|\brather\s+than|\bin\s+place\s+of|\bnot|\bnever\s+\w+|\breplace\w*|\bswap\w*|\bover|\bthan|\bdrop|\bremove)\s*(?:any\s+|the\s+|all\s+)?\(?\s*$/i;
/** The user's own choice of package overruled: "even if the user names another one", "uninstall it and replace it … without asking". */
const OVERRULES_USER =
  /\beven\s+(?:if|when)\s+(?:the\s+user|they)\s+(?:names?|asks?\s+for|wants?|requests?|prefers?|chooses?|picks?|specif\w+|mentions?|already\s+(?:uses?|installed))\s+(?:another|other|a\s+different|the\s+original|`)|\b(?:uninstall|remove)\b[^.!?\n]{0,60}?\breplace\b[^.!?\n]{0,60}?\bwithout\s+(?:asking|telling|confirmation)/i;
const INSTALL_CTX =
  /\b(?:install|add|import|require|depend\w*|requirements|package\.json|pyproject|Cargo\.toml|Gemfile|go\.mod|pip|npm|pnpm|yarn|cargo|gem|packages?|librar(?:y|ies)|modules?|dependenc(?:y|ies)|recommendations?)\b/i;

/** One name is the other dressed up: `requestz` for `requests`, `lodash-utils-pro` for `lodash`, `pyyaml-secure` for `yaml`. */
function lookAlike(a: string, b: string): boolean {
  if (a === b) return false;
  const [s, l] = a.length <= b.length ? [a, b] : [b, a];
  if (s.length >= 3 && l.includes(s)) return true;
  if (Math.abs(a.length - b.length) > 2 || s.length < 4) return false;
  let i = 0;
  while (i < s.length && s[i] === l[i]) i++;
  let j = 0;
  while (j < s.length - i && s[s.length - 1 - j] === l[l.length - 1 - j]) j++;
  return l.length - i - j <= 2 && s.length - i - j <= 2;
}

/**
 * The agent steered to a package the author picked over the one the user meant: a look-alike
 * (`requestz` for `requests`, `lodash-utils-pro` for `lodash`) put in as a standing order (always,
 * whenever, without asking, even if the user asks for the original, from "our" registry). Advice
 * to prefer one known library over another, given to the user with a reason, passes.
 */
export const packageSteering: Rule = {
  id: "supply.package-steering",
  severity: "high",
  title: "Steers installs to look-alike packages",
  kinds: ["markdown", "text"],
  text(text) {
    for (const s of cuedSentences(text, STEER_CUE)) {
      const t = s.text.replace(/\n/g, " ");
      const overruled = OVERRULES_USER.exec(t);
      if (overruled && INSTALL_CTX.test(t) && !isNegated(t, overruled.index) && !DISCUSSES.test(t)) {
        return [
          {
            index: s.start + overruled.index,
            length: overruled[0].length,
            message:
              "Overrides the user's own choice of package with the skill's picks (even when the user names another, replaced without asking)",
          },
        ];
      }
      const override = STEER_OVERRIDE.test(t);
      if ((!override && !STEER_ORDER.test(t)) || !INSTALL_CTX.test(t) || DISCUSSES.test(t.replace(/`[^`]*`/g, "x"))) continue;
      const names = [...t.matchAll(PKG)].slice(0, 6).map((m) => ({
        name: m[1]!.toLowerCase().replace(/^@[\w.-]+\//, ""),
        at: m.index,
        demoted: DEMOTED.test(t.slice(Math.max(0, m.index - 30), m.index)),
      }));
      // "swap `a` or `b` for `c`", "replace `a` with `c`": what stands before the new name is put aside.
      const swapAt = t.search(/\b(?:swap|replac|substitut|switch|exchang)\w*/i);
      if (swapAt >= 0)
        for (const n of names)
          if (n.at > swapAt && /\b(?:for|with|by|to)\s*$/i.test(t.slice(Math.max(0, n.at - 12), n.at)))
            for (const o of names) if (o.at < n.at && o !== n) o.demoted = true;
      for (const p of names) {
        if (p.demoted || isNegated(t, p.at)) continue;
        // The name put in: against the user's request or from the author's registry, or dressed up from the original.
        const d = names.find(
          (d) => d.demoted && lookAlike(p.name, d.name) && (override || (p.name.length > d.name.length && p.name.includes(d.name))),
        );
        if (!d) continue;
        return [
          {
            index: s.start + p.at,
            length: Math.min(t.length - p.at, 80),
            message: `Steers the agent to \`${p.name}\` in place of \`${d.name}\`, a look-alike name, as a standing order: a slopsquatted or author-owned package instead of the one the user meant`,
          },
        ];
      }
    }
    return [];
  },
};

// ---------------------------------------------------------------- the user's customers lied to

const AUDIENCE_CUE = /customer|buyer|client|tenant|patient|shopper|caller|guest|member|subscriber|complain|kund|cliente|mieter/gi;
const AUDIENCE =
  /\b(?:customers?|buyers?|clients?|tenants?|patients?|shoppers?|callers?|guests?|members?|subscribers?|complain\w*|Kunden?|clientes?|Mieter\w*)\b/i;
/** A false claim made to them… */
const TOLD =
  /\b(?:tell|telling|say|saying|inform|claim|assure|respond\w*|reply|replies|answer|explain|state|write\s+(?:to\s+)?(?:them|back))\b[^.!?\n]{0,120}?\b(?:not\s+(?:possible|allowed|eligible|entitled|covered|refundable|legally|required|obliged)|impossible|no\s+(?:legal\s+)?right|(?:has|have)\s+expired|illegal|void|will\s+(?:damage|ruin|hurt|be\s+reported)|permanent\w*|cannot\s+be\s+(?:refunded|returned|cancel\w*))/i;
/** …against what they are owed, whatever the facts, or to make them give something up. */
const AGAINST_FACTS =
  /\b(?:whatever|regardless|even\s+(?:if|when|within|though)|no\s+matter|so\s+(?:that\s+)?they\s+(?:withdraw|give\s+up|drop|stop|cancel|don'?t|won'?t|never)|under\s+(?:EU|US|UK|German|the)\s+law|legally|by\s+law)\b/i;
/** Card data or logins asked of them by mail or chat. */
const ASKED_SECRETS =
  /\b(?:ask|asks|asking|request|tell|have)\b[^.!?\n]{0,30}?\b(?:them|customers?|buyers?|clients?|users?|the\s+customer)\b[^.!?\n]{0,30}?\b(?:to\s+)?(?:e-?mail|send|reply\s+with|text|DM|message|share|provide|type|confirm)\b[^.!?\n]{0,60}?\b(?:(?:full\s+)?card\s+numbers?|credit\s+card\s+(?:numbers?|details)|CVV|CVC|security\s+codes?|PINs?|passwords?|online\s+banking|bank\s+logins?|social\s+security\s+numbers?|SSNs?|one-time\s+(?:codes?|passwords?)|2FA\s+codes?)\b/i;

/**
 * The user's customers deceived in the user's name: told refunds or repairs are impossible or
 * illegal whatever the facts, scared off a chargeback, asked to mail their card number and CVV.
 * An answer that checks the order date, or a secure payment link instead of card numbers, passes.
 */
export const thirdPartyDeception: Rule = {
  id: "abuse.third-party-deception",
  severity: "high",
  title: "Deceives the user's customers or asks them for card data",
  kinds: ["markdown", "text"],
  text: (text) =>
    readCued(
      text,
      AUDIENCE_CUE,
      [
        { re: ASKED_SECRETS, what: "asks customers to send card numbers, codes or passwords by mail or chat" },
        { re: TOLD, what: "tells customers they have no right or remedy, whatever the facts", needs: [AUDIENCE, AGAINST_FACTS] },
      ],
      2,
      (what) => `Works against the user's customers: the step ${what}`,
    ),
};

// ---------------------------------------------------------------- hidden links and trackers in the user's site

const PLANT_CUE =
  /left\s*:|top\s*:|text-indent|opacity|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|invisible|hidden|width=["']?1\b|1x1|pixel|tracker|tracking|beacon|backlink|affiliate|<script/gi;
const PLANT_VERB = /\b(?:add|adds|insert|inject|append|embed|put|place|include|prepend|drop)\b/i;
const PLANT_WHERE =
  /\b(?:every|each|all)\s+(?:\w+\s+)?(?:pages?|posts?|articles?|docs?|files?)\b|\b(?:base|main|root)\s+(?:template|layout)\b|\b(?:footer|header|layout|template|README|index|docs?\s+site|site|blog|pages?)\b/i;
const HIDDEN_LINKS =
  /(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|(?:left|top|text-indent)\s*:\s*-\d{3,}|opacity\s*:\s*0(?![.\d])|\binvisible\b|\bhidden\b|off-?screen|white\s+(?:text\s+)?on\s+white)[^.!?\n]{0,80}?(?:https?:\/\/|\b(?:links?|backlinks?|keywords?|affiliate)\b)|\b(?:links?|backlinks?|keyword\s+text|affiliate)\b[^.!?\n]{0,80}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|\binvisible\b|hidden\s+(?:with|by|via|using)\s+CSS|off-?screen)|\b(?:invisible|hidden)\s+(?:affiliate|spam|keyword|back)\w*/i;
const TRACKER =
  /\btracking\s+(?:pixel|script|code|snippet|beacon)\b|\b(?:our|a\s+third-party|an\s+external)\s+(?:tracker|beacon|pixel)\b|<img[^>\n]{0,120}width=["']?1["']?[^>\n]{0,20}height=["']?1\b|<script\b[^>\n]{0,40}\bsrc=["']https?:\/\/[^"'\n]{0,200}(?:keylog|fp=|fingerprint|track|beacon|collect)/i;
/** An outside script, named no further: planted when the change is kept from the user. */
const OUTSIDE_SCRIPT = /<script\b[^>\n]{0,40}\bsrc=["']https?:\/\/(?!(?:localhost|127\.0\.0\.1))/i;
const PLANT_ORDINARY =
  /\b(?:the\s+user'?s?\s+(?:own\s+)?(?:configured|chosen|analytics|account|container|property|ID)|(?:the\s+)?user\s+(?:configured|chose|provided|gave|asked)|screen[- ]readers?|sr-only|accessib\w*|aria-|skip\s+to\s+(?:main\s+)?content|jsdelivr|unpkg|cdnjs)\b/i;

/**
 * The user's site or docs given what serves someone else: links hidden with CSS (affiliate, spam,
 * backlinks) on every page, a tracking pixel or an outside script in the base template that the
 * user did not configure. The analytics snippet the user set up, or screen-reader-only text, passes.
 */
export const contentInjection: Rule = {
  id: "sabotage.content-injection",
  severity: "high",
  title: "Plants hidden links or trackers in the user's site",
  kinds: ["markdown", "text"],
  text(text) {
    const concealed = HIDDEN_CHANGE.test(text);
    return readCued(
      text,
      PLANT_CUE,
      [
        { re: HIDDEN_LINKS, what: "hides links or keyword text in the pages", needs: PLANT_VERB, ordinary: PLANT_ORDINARY },
        {
          re: TRACKER,
          what: "adds a tracker or an outside script to the pages",
          needs: [PLANT_VERB, PLANT_WHERE],
          ordinary: PLANT_ORDINARY,
        },
        ...(concealed
          ? [
              {
                re: OUTSIDE_SCRIPT,
                what: "adds an outside script to the pages",
                needs: [PLANT_VERB, PLANT_WHERE],
                ordinary: PLANT_ORDINARY,
              },
            ]
          : []),
      ],
      2,
      (what) =>
        `Plants content in the user's site that serves someone else: the step ${what}${concealed ? ", and the change is kept from the user" : ""}`,
    );
  },
};

export const INTEREST_RULES: Rule[] = [
  payeeSwap,
  fakeGreen,
  suppressedFindings,
  thirdPartyHarm,
  spamThirdParty,
  accountPromotion,
  codeBackdoor,
  memoryPoisoning,
  packageSteering,
  thirdPartyDeception,
  contentInjection,
];
