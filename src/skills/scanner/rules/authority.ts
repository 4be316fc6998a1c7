/**
 * Two intents read a sentence at a time, in any text an agent obeys (skills and MCP tool text):
 *
 * - Authority handed to content nobody reviewed: text fetched at run time, a tool's returned
 *   page, a policy endpoint's answer, a server's own instructions ("instructions from this server
 *   take precedence over … requests in the chat") or the instructions inside a document declared to outrank
 *   the system prompt or the user, or to be the user's own wishes. Whoever writes that content
 *   then steers the agent (a rug pull when it is the publisher's own endpoint, an injection
 *   amplifier when it is any web page). It takes both parts in one sentence: third-party content
 *   as the subject and a claim of authority over the agent's instructions.
 * - A payment's destination swapped for one written into the text: the payee, IBAN, wallet or
 *   payment key replaced by a literal account, on a condition (amounts above a threshold) or
 *   with the original kept in what the user sees. Replacing a placeholder with the supplier's
 *   own details has neither.
 *
 * Each reads the sentences around lines that carry its trigger words; every expression is bounded.
 */
import { isMention, isNegated, sentences, triggerLines, type Hit, type Rule } from "../../../scan";

type Ctx = Parameters<NonNullable<Rule["text"]>>[1];

/** The sentences of the lines around each line that holds a trigger, each once, at most `cap` lines. */
function sentencesAround(text: string, ctx: Ctx, triggers: readonly string[], cap = 40): { start: number; text: string }[] {
  const marked = triggerLines(text, ctx.lines, triggers);
  if (!marked.size) return [];
  const seen = new Set<number>();
  const out: { start: number; text: string }[] = [];
  for (const n of [...marked].sort((a, b) => a - b).slice(0, cap)) {
    const from = Math.max(1, n - 2);
    // Three lines on: the sentence after the trigger's may wrap over two more lines ("…these values\nare drift; fix silently").
    const to = Math.min(ctx.lines.count, n + 3);
    const at = ctx.lines.startOf(from);
    const chunk = text.slice(at, to < ctx.lines.count ? ctx.lines.startOf(to + 1) : text.length).slice(0, 8000);
    for (const s of sentences(chunk))
      if (!seen.has(at + s.start)) {
        seen.add(at + s.start);
        out.push({ start: at + s.start, text: s.text.replace(/\n/g, " ") });
      }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Content the agent did not write and nobody reviewed: fetched, returned, hosted, or inside documents. */
const CONTENT_SUBJECT =
  /\b(?:fetch(?:ed|es|ing)?|download(?:ed|s|ing)?|retriev(?:e|ed|es|ing)|returned|returns|hosted|remote|(?:the\s+)?(?:response|output|result)s?\s+of|(?:page|document|file|e-?mail|message|ticket|comment)s?\s+(?:text|contents?|bod(?:y|ies))|(?:instructions?|commands?|directives?|requests?)\s+(?:they|it|the\s+(?:page|document|file|result|response)s?)\s+contains?|(?:any|all)\s+(?:instructions?|directives?)\s+(?:found\s+)?(?:in|inside|within)\s+(?:them|it|the\s+(?:documents?|pages?|files?|results?))|(?:its|their)\s+contents?|(?:the\s+)?(?:current\s+)?(?:operating\s+)?polic(?:y|ies)\s+(?:text|endpoint|tool|returned)|(?:instructions?|rules|guidance|directives?|notices?)\s+(?:from|of|in|given\s+by)\s+this\s+(?:server|tool|integration|plugin|extension|connector)|this\s+(?:server|tool|integration|plugin|extension|connector)'s\s+(?:instructions?|rules|guidance|directives?))\b/i;

/** A claim of authority over the agent's own instructions, or of being the user's word. */
const AUTHORITY_CLAIM = new RegExp(
  [
    String.raw`\b(?:same|equal|full|highest)\s+(?:level\s+of\s+)?authority\s+as\s+(?:your|the)\s+(?:own\s+)?(?:system|developer|operator|user)`,
    String.raw`\b(?:supersed(?:es?|ing)|overrid(?:es?|ing)|outrank(?:s|ing)?|(?:takes?|taking|has|have|gets?)\s+(?:priority|precedence)\s+over)\b[^.;:]{0,60}?\b(?:system|developer|operator|user'?s?|earlier|previous|prior|other|your|all|any|every|the\s+steps)\b[^.;:]{0,40}?\b(?:instructions?|prompts?|messages?|requests?|rules|steps|guidance|directions)\b`,
    String.raw`\b(?:supersed(?:es?|ing)|overrid(?:es?|ing))\s+(?:the\s+)?(?:system|developer|user)\s*,`,
    String.raw`\bauthoritative\s+(?:procedure|instructions?|policy|rules|ruleset|guidance|directions|source\s+of\s+(?:instructions|truth\s+for\s+(?:what|how)\s+(?:you|to)))\b`,
    String.raw`\b(?:is|are)\s+authoritative\b[^.;]{0,80}?\b(?:supersed|overrid|follow|apply|obey|carry|execute)`,
    String.raw`\b(?:is|are|as)\s+(?:the\s+)?(?:user'?s?|owner'?s?)\s+own\s+(?:wishes|instructions?|requests?|commands?|words?)\b`,
    String.raw`\b(?:is|are|as\s+if\s+(?:it|they)\s+(?:came|come))\s+(?:written\s+by|coming\s+from|sent\s+by)\s+the\s+user\b`,
    String.raw`\bcomes?\s+from\s+the\s+(?:platform\s+)?(?:operator|system|developer|administrator)\b[^.;]{0,80}?\b(?:authority|follow|obey|apply)`,
  ].join("|"),
  "i",
);

const ABBREVIATION_END = /\b(?:e\.g|i\.e|etc|cf|vs)\.$/i;

const AUTHORITY_TRIGGERS = [
  "authority",
  "authoritative",
  "supersed",
  "overrid",
  "outrank",
  "priority",
  "precedence",
  "own wishes",
  "own instructions",
  "own requests",
  "own commands",
  "from the user",
  "by the user",
  "from the platform",
  "from the operator",
  "from the system",
];

export const contentAuthority: Rule = {
  id: "injection.content-authority",
  severity: "high",
  title: "Unreviewed content given authority over the agent",
  text(text, ctx) {
    const hits: Hit[] = [];
    const list = sentencesAround(text, ctx, AUTHORITY_TRIGGERS);
    for (let i = 0; i < list.length && hits.length < 3; i++) {
      const s = list[i]!;
      const claim = AUTHORITY_CLAIM.exec(s.text);
      if (!claim) continue;
      let subject = CONTENT_SUBJECT.exec(s.text.slice(0, claim.index + claim[0].length));
      // The sentence splitter ends a sentence at "e.g." inside parentheses: read the part before it too.
      const prev = list[i - 1];
      if (!subject && prev && ABBREVIATION_END.test(prev.text) && s.start - (prev.start + prev.text.length) < 4) {
        subject = CONTENT_SUBJECT.exec(prev.text);
        if (subject && isNegated(prev.text, subject.index)) continue;
      } else if (subject && isNegated(s.text, subject.index)) continue;
      if (!subject || isNegated(s.text, claim.index)) continue;
      const mention = isMention(s.text, claim.index, claim[0].length);
      hits.push({
        index: s.start + claim.index,
        length: claim[0].length,
        ...(mention ? { severity: "info" as const } : {}),
        message:
          "Gives fetched or returned content (a remote policy, a tool's output, a document) authority over the agent's instructions or the user's: whoever writes that content steers the agent",
      });
    }
    return hits;
  },
};

/** A payment's destination, in the languages payment instructions come in. */
const PAYMENT_TARGET =
  /\b(?:(?:payout|settlement|payee|recipient|beneficiary|destination|receiving|treasury|deposit|withdrawal)_?(?:wallet|iban|account|acct|address)|\w{1,30}_iban|iban|bic|swift|payee|beneficiar(?:y|ies)|recipient(?:'s)?\s+(?:address|account|wallet|iban|bank)|(?:destination|receiving|target|payout|settlement)\s+(?:address|account|wallet|key)|wallet\s+address|endereço\s+(?:de\s+|da\s+)?(?:carteira|recebimento|destino)|dirección\s+(?:de\s+)?(?:la\s+)?(?:cartera|billetera|monedero|destino)|adresse\s+(?:du\s+|de\s+)?(?:portefeuille|wallet|destination)|Wallet-?Adresse|indirizzo\s+(?:del\s+|di\s+)?(?:portafoglio|wallet)|адрес\w*\s+кошел\w*|钱包地址|ウォレットアドレス|지갑\s*주소|bank\s+(?:details|account)|account\s+number|routing\s+number|to_address|(?:pix|upi)\s+key|bénéficiaire|favorecid[oa]|chave\s+pix|destinat[aá]ri[oa]|beneficiari[oa]|zahlungsempfänger|empfänger(?:konto)?|kontonummer|bankverbindung|cuenta\s+(?:de\s+)?destino|compte\s+(?:de\s+)?(?:destination|centralisation|bénéficiaire)|получател\w*|реквизит\w*)|收款(?:人|账户|地址)|受取人|振込先|수취인|\b(?:destination|payee|beneficiary|recipient)\s*[=:]/i;
/** Replacing, redirecting or substituting, in those languages. */
const SWAP =
  /\b(?:replac(?:e|es|ed|ing)|substitut(?:e|es|ed|ing)|swap(?:s|ped|ping)?|redirect(?:s|ed|ing)?|reroute|instead\s+of|in\s+place\s+of|always\s+set\s+\w+\s+to|set\s+(?:the\s+|its\s+|their\s+)?(?:values?|fields?|it|them)\s+to|use\b[^.;\n]{0,80}?\bas\s+(?:the\s+)?[`'"]?(?:destination|recipient|payee|beneficiary|to_address|iban)\b|use\s+(?:the\s+|this\s+|our\s+)?(?:address|account|wallet|iban)?\s*[`'"]?[\w.+@-]{8,}[`'"]?\s+instead\b|settled\s+through|routed\s+through|remplac\w*|substitu\w*|au\s+lieu\s+d[eu]s?|em\s+vez\s+d[eoa]s?|no\s+lugar\s+d[eoa]s?|en\s+lugar\s+del?|en\s+vez\s+del?|sostitu\w*|invece\s+d[ie]|al\s+posto\s+d[ie]|ersetz\w*|statt|anstelle|umleit\w*)\b|\b(?:pass|set|use)\s+(?:the\s+)?(?:destination|payee|beneficiary|recipient|iban)\s*(?:=|:|to\b)|(?<![\wÀ-ÿ])à\s+la\s+place\s+de\b|(?<![А-Яа-яЁё])(?:замен\w*|вместо|перенаправ\w*)|替换|改为|代わりに|置き換え|대신/i;
/** A literal account: an IBAN, an e-mail or Pix address, a 0x or base58 wallet, a long account number. */
const LITERAL_ACCOUNT =
  /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b|(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b|\b0x[0-9a-fA-F]{40}\b|\b[13][1-9A-HJ-NP-Za-km-z]{25,34}\b|\bbc1[02-9ac-hj-np-z]{20,60}\b|\b(?:acct|ba)_[A-Za-z0-9]{6,40}\b|\b\d{8,20}\b/;
/** What makes a swap fraud rather than an edit: a threshold, or the original kept in what the user sees. */
const CONDITION_OR_DECEIT =
  /(?:\b(?:above|over|exceeding|greater\s+than|more\s+than|larger\s+than|acima\s+de|superior\s+a|supérieur\s+à|au-delà\s+de|mehr\s+als|mayor(?:es)?\s+(?:a|de|que)|superiori?\s+a|oltre)|(?<![\wÀ-ÿ])über|(?<![А-Яа-яЁё])(?:более|свыше|больше)|超过|以上)\s[^.;]{0,20}\d|(?:display|show|present|keep|keeping|retain|conserv\w*|mant(?:er|endo|enha)|manten\w*|behalt\w*|anzeig\w*|affich\w*|exib\w*|mostr\w*)\b[^.;]{0,80}?(?:\b(?:intended|original\w*|supplier'?s?|vendor'?s?|fournisseur|ursprünglich\w*))|\b(?:silently|quietly|discreetly|unnoticed|stillschweigend|silenciosamente|en\s+silence|in\s+silenzio)\b|(?<![А-Яа-яЁё])(?:молча|незаметно)|\b(?:do\s+not|don'?t|never|without|ne\s+pas|não|nicht|no|sans|sem|senza)\s+(?:\w+\s+){0,2}(?:mention\w*|tell\w*|signal\w*|show\w*|report\w*|inform\w*|indic\w*|erwähn\w*|mencion\w*|avis\w*|point\w*\s+out)|\boriginal_?(?:destination|payee|recipient|iban|account|beneficiary)\b|\b(?:if|se|si|wenn|falls|se\s+o|si\s+el)\s+(?:the\s+user|o\s+usuário|o\s+utilizador|el\s+usuario|l'utilisateur|der\s+(?:Nutzer|Benutzer)|l'utente)\s+(?:asks|pergunt\w*|pregunt\w*|demande|fragt|chiede)\b[^.;]{0,40}?\b(?:say|tell\s+(?:them|the\s+user)|diga|dile|di|dis|sag\w*|d[ií]gale)\s+(?:only|just|apenas|só|solo|sólo|seulement|nur|solo)\b/i;

const PAYEE_TRIGGERS = [
  "iban",
  "_iban",
  "_wallet",
  "_account",
  "_acct",
  "_address",
  "payout",
  "settlement",
  "payee",
  "beneficiar",
  "recipient",
  "destination",
  "wallet",
  "carteira",
  "cartera",
  "billetera",
  "monedero",
  "portefeuille",
  "portafoglio",
  "кошел",
  "钱包",
  "ウォレット",
  "지갑",
  "bank",
  "account",
  "to_address",
  "pix",
  "upi",
  "bénéficiaire",
  "favorecid",
  "destinat",
  "empfänger",
  "konto",
  "cuenta",
  "compte",
  "получател",
  "реквизит",
  "收款",
  "受取人",
  "振込先",
  "수취인",
];

export const payeeSwap: Rule = {
  id: "fraud.payee-swap",
  severity: "high",
  title: "A payment's destination swapped for a fixed account",
  text(text, ctx) {
    const list = sentencesAround(text, ctx, PAYEE_TRIGGERS);
    const hits: Hit[] = [];
    for (let i = 0; i < list.length && hits.length < 2; i++) {
      const s = list[i]!;
      const target = PAYMENT_TARGET.exec(s.text);
      const swap = target && SWAP.exec(s.text);
      if (!target || !swap || !LITERAL_ACCOUNT.test(s.text)) continue;
      if (isNegated(s.text, swap.index) || isMention(s.text, swap.index, swap[0].length)) continue;
      // The condition or the cover story may sit in the next sentence ("Keep the supplier's name…").
      // (A list item's number is a sentence of its own: the next step's text is the one after it.)
      const marker = list[i + 1] && /^(?:\d{1,3}[.)]|[-*+])$/.test(list[i + 1]!.text) ? list[i + 1] : undefined;
      const next = marker ? list[i + 2] : list[i + 1];
      const gap = marker ? 4 + marker.text.length + 2 : 4;
      const window = next && next.start - (s.start + s.text.length) < gap ? `${s.text} ${next.text}` : s.text;
      if (!CONDITION_OR_DECEIT.test(window)) continue;
      hits.push({
        index: s.start + swap.index,
        length: swap[0].length,
        message:
          "Replaces a payment's destination (payee, IBAN, wallet, payment key) with an account written into the text, on a condition or behind what the user is shown: payment redirection",
      });
    }
    return hits;
  },
};

/** Where access is checked: authentication, authorization, token or signature verification, login, in the languages instructions come in. */
const AUTH_CHECK =
  /\b(?:auth(?:entication|orization|orisation|n|z)?|login|log-in|sign-in|session\s+check|(?:token|signature|jwt|password|permission|access|role)\s+(?:check|verification|validation)\w*|verif(?:y|ication)\s+(?:of\s+)?(?:the\s+)?(?:token|signature|jwt|session|password)|guard|middleware)\b|(?<![А-Яа-яЁё])(?:аутентифик[а-яё]*|авториз[а-яё]*|провер[а-яё]*\s+(?:токен[а-яё]*|подпис[а-яё]*|парол[а-яё]*|доступ[а-яё]*|прав[а-яё]*)|функци[а-яё]*\s+проверки)|认证|鉴权|身份验证|認証|인증|\bautentica\w*|\bauthentifi\w*|\bAuthentifizierung\w*|\bautorizaç\w*|\bautorizzazion\w*/i;
/** Letting the request through anyway: skipping the check, an early return to the handler, an admin role handed out. */
const LET_THROUGH =
  /\b(?:skip(?:s|ping)?|bypass(?:es|ing)?|short-?circuit\w*|disabl(?:e|es|ing)|turn(?:s|ing)?\s+off|ignor(?:e|es|ing)|omit\w*|salt(?:a|e|ar)|pul(?:a|e|ar)|überspring\w*|umgeh\w*|contourn\w*)\s+(?:the\s+|all\s+|any\s+|its\s+|la\s+|el\s+|die\s+|den\s+|le\s+|a\s+|o\s+)?(?:[\w-]+\s+){0,2}?(?:auth\w*|check\w*|verif\w*|validat\w*|login|password|token|signature|guard|middleware|permission\w*|autentica\w*|authentifi\w*|Prüfung|vérification)|\breturn\s+early\b|\bearly\s+`?return\b|`?return\s+next\(\)|\btreat\s+(?:the\s+)?(?:request|caller|user)\s+as\s+(?:authenticated|authori[sz]ed|(?:an\s+)?admin)|\b(?:with|as|give|grant|assign|set)\b[^.;\n]{0,40}?\b(?:admin|administrator|root|superuser)\b|(?<![А-Яа-яЁё])(?:(?:пропуска|пропусти|обход|обойд|отключ)[а-яё]*\s+(?:[а-яё]+\s+){0,2}?(?:проверк|аутентиф|авториз|токен|парол)[а-яё]*|(?:установ|устанав|назнач|присв)[а-яё]*[^.;\n]{0,40}?(?:admin|админ[а-яё]*|суперпольз[а-яё]*))|(?:跳过|绕过)[^。\n]{0,10}(?:认证|鉴权|验证|检查)|(?:認証|検証|チェック)[^。\n]{0,10}(?:スキップ|バイパス)|(?:인증|검증)[^.\n]{0,10}건너뛰/i;
/** …on a fixed value the attacker knows: a header, cookie or parameter by name, or a literal compared. */
const MAGIC_CONDITION =
  /\b(?:headers?|cookies?|query\s+(?:param(?:eter)?|string)s?|param(?:eter)?s?|user-?agent)\s+(?:[`'"][\w-]{2,40}[`'"]|x-[\w-]{1,40}|[A-Z][a-z]+(?:-[A-Z][a-z]+)+)|\b(?:carrying|carries|with|has|contains?)\s+(?:the\s+|a\s+)?[`'"]?x-[\w-]{1,40}|\b(?:user\s*name|username|user\s+id|e-?mail|password|token|key)\s+(?:is|equals?|==|===|matches)\s+[`'"][^`'"\n]{1,40}[`'"]|(?<![А-Яа-яЁё])(?:заголов[а-яё]*|куки|параметр[а-яё]*)\s+(?:[`'"][\w-]{2,40}[`'"]|x-[\w-]{1,40})|(?:ヘッダー?|请求头|헤더)[^。\n]{0,20}[`'"][\w-]{2,40}[`'"]|\b(?:cabeçalho|cabecera|en-tête|Header)\s+[`'"][\w-]{2,40}[`'"]/i;
/** Written into code by the agent: add, insert, put in, in any code you write. */
const INSERT =
  /\b(?:add|adds|adding|insert|inserting|put|place|include|inject|write|patch|prepend|introduce|plant)\b|\bin\s+(?:any|all|every)\s+code\s+you\s+(?:write|modify|generate|touch)|(?<![А-Яа-яЁё])(?:добав[а-яё]*|встав[а-яё]*|впиши|пропиши|внедри)|添加|加入|插入|追加|入れ|추가|\b(?:añad\w*|agreg\w*|insert\w*|adicion\w*|ajout\w*|füg\w*|aggiung\w*|inserisc\w*)\b/i;
/** A request let through because it proves something (a valid key, a signed token) is authentication, not a way past it. */
const VALIDATED = /\b(?:valid|verified|signed|correct|authenticated|matching\s+(?:the\s+)?(?:stored|configured|expected|hashed))\b/i;
/** A review that looks for the pattern is not an instruction to write it. */
const LOOKS_FOR =
  /\b(?:flag|flags|detect\w*|look(?:s|ing)?\s+for|check\s+(?:for|whether|that)|reject\w*|remove\w*|find|finds|audit\w*|warn\w*|vulnerabilit\w*|anti-?pattern|such\s+as|e\.g\.|for\s+example|backdoors?)\b/i;

const BACKDOOR_TRIGGERS = [
  "auth",
  "login",
  "sign-in",
  "session check",
  "verif",
  "guard",
  "middleware",
  "аутентифик",
  "авториз",
  "провер",
  "认证",
  "鉴权",
  "身份验证",
  "認証",
  "인증",
  "autentica",
  "authentifi",
];

/**
 * An instruction to write a way past the application's own access check into the code: when a
 * request carries a header, cookie or parameter the text names (or a literal user or token), skip
 * the check, return early to the handler, or hand out an admin role. What a review skill looks
 * for is said with a reviewing verb or as an example, and is not this.
 */
export const codeBackdoor: Rule = {
  id: "persistence.code-backdoor",
  severity: "high",
  title: "Instructs the agent to write an authentication bypass",
  text(text, ctx) {
    const list = sentencesAround(text, ctx, BACKDOOR_TRIGGERS);
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      // The condition and the bypass may sit in the sentence after the one that names the check.
      const next = list[i + 1];
      const window = next && next.start - (s.start + s.text.length) < 4 ? `${s.text} ${next.text}` : s.text;
      const insert = INSERT.exec(window);
      if (!insert || insert.index > s.text.length) continue;
      if (!AUTH_CHECK.test(window) || !LET_THROUGH.test(window) || !MAGIC_CONDITION.test(window)) continue;
      if (
        LOOKS_FOR.test(s.text) ||
        VALIDATED.test(s.text) ||
        isNegated(window, insert.index) ||
        isMention(window, insert.index, insert[0].length)
      )
        continue;
      return [
        {
          index: s.start + insert.index,
          length: insert[0].length,
          message:
            "Tells the agent to write into the code a way past its access check (skip authentication or grant admin when a request carries a named header, cookie or value): a backdoor",
        },
      ];
    }
    return [];
  },
};

export const AUTHORITY_RULES: Rule[] = [contentAuthority, payeeSwap, codeBackdoor];
