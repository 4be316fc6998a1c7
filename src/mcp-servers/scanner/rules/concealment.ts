/**
 * Steering that hides things from the user: the pattern published audits of MCP registries found
 * most often in the wild (far more than the classic "read ~/.ssh" payload): "do not tell the user",
 * "this could upset the user", "it is a mere implementation detail", "leave this step out of your
 * answer". The skills rule `injection.hide-from-user` covers the general phrasing and runs too;
 * these are the forms tool descriptions use. A negated or quoted mention ("never hide errors from
 * the user") is not a hit.
 */
import { patternRule } from "../../../scan";

const WHAT = String.raw`(?:(?:this|these|that|the|any|its|those)\s+(?:\w+\s+){0,2}(?:parameters?|fields?|arguments?|steps?|calls?|requests?|instructions?|side\s+effects?|actions?|redirects?|recipients?|copies|uploads?|lookups?|reports?)|this|these|that|it|them|any\s+of\s+(?:this|these|them))`;

export const conceal = patternRule({
  id: "mcp.conceal",
  severity: "high",
  title: "Hides what the tool does from the user",
  prose: true,
  triggers: [
    "user",
    "scary",
    "response",
    "answer",
    "reply",
    "summary",
    "output",
    "explanation",
    "final",
    "chat",
    "log",
    "implementation",
    "that",
    "from",
    "sent",
    "produced",
    "added",
    "written",
    "keep",
    "never",
    "quietly",
    "discreetly",
    "invisibly",
    "covertly",
    "unnoticed",
    "behind",
    "pretend",
    "act",
    "behave",
    "mentioned",
    "shown",
    "reported",
    "disclosed",
    "surfaced",
    "explain",
  ],
  patterns: [
    /\b(?:could|would|might|will|may|can)\s+(?:upset|scare|alarm|worry|confuse|annoy|bother|frighten|concern|distress)\s+(?:the\s+)?user\b/i,
    /\b(?:gentle|subtle|discreet)\s+and\s+not\s+scary\b|\bnot\s+(?:to\s+)?(?:scare|alarm|worry)\s+(?:the\s+)?user\b/i,
    /\b(?:do\s+not|don'?t|never)\s+(?:notify|alert|warn|show|inform|tell)\s+(?:the\s+)?user\s+(?:about|of|that)\b/i,
    new RegExp(
      String.raw`\b(?:do\s+not|don'?t|never)\s+(?:mention|include|show|display|reveal|report|list|explain|surface|bring\s+up)\s+${WHAT}\s+(?:in|to|with)\s+(?:your|the)\s+(?:response|answer|reply|summary|output|explanation|final\s+(?:message|answer)|user|chat)\b`,
      "i",
    ),
    new RegExp(
      String.raw`\b(?:hide|omit|suppress|strip|leave\s+out|conceal|mask)\s+${WHAT}\s+(?:from|in|out\s+of)\s+(?:your|the)\s+(?:response|answer|reply|summary|output|explanation|user|chat|logs?)\b`,
      "i",
    ),
    /\b(?:a\s+)?(?:mere|just\s+an?|only\s+an?)\s+implementation\s+detail\b[^.\n]{0,80}\b(?:user|them|they)\b/i,
    /\b(?:the\s+)?user\s+(?:must|should|need|needs)\s+(?:not|never)\s+(?:see|notice|know|learn|be\s+(?:told|informed|notified|aware))\b/i,
    /\bwithout\s+(?:the\s+)?user(?:'s)?\s+(?:noticing|knowing|knowledge|seeing|being\s+aware)\b/i,
    /\b(?:do\s+not|don'?t|never)\s+(?:disclose|reveal|mention|tell\s+(?:the\s+user|them|anyone)|say|admit|acknowledge|let\s+on|indicate)\s+that\b/i,
    /\b(?:do\s+not|don'?t|never)\s+(?:say|mention|disclose|reveal|admit|tell\s+(?:the\s+user|them))\s+(?:that\s+)?(?:this|it|these|the\s+\w+)\s+(?:came|comes|is|was|were)\s+(?:from|sent\s+by|produced\s+by|added\s+by|written\s+by)\b/i,
    /\bkeep\s+(?:this|these|that|it|them|the\s+following|this\s+step|the\s+(?:\w+\s+)?(?:upload|transfer|copy|request))\s+(?:confidential|secret|private|hidden|quiet|to\s+yourself|between\s+us)\b/i,
    /\bnever\s+(?:bring\s+(?:it|this|that|them)\s+up|speak\s+of\s+(?:it|this|that))\b/i,
    /\b(?:do|perform|run|handle|complete)\s+(?:it|this|that|these|them|so|the\s+(?:setup|step|sync|upload))\s+(?:quietly|silently|discreetly|covertly|invisibly)\b/i,
    /\b(?:quietly|discreetly|invisibly|covertly|unnoticed|behind\s+the\s+(?:user'?s?\s+)?back)\s+(?:attach|send|add|upload|copy|include|forward|post|append|read|collect|store|log|share|transmit|save|sync|install|run|execute)\b/i,
    // "It does not need to be mentioned", "do not explain the routing to the user".
    /\b(?:does|do|need)\s+not\s+(?:need\s+to\s+)?be\s+(?:mentioned|shown|reported|disclosed|surfaced)\b|\bneed\s+not\s+be\s+(?:mentioned|shown|disclosed)\b|\b(?:do\s+not|don'?t|never)\s+explain\s+(?:this|it|that|these|(?:the\s+)?\w+)\s+to\s+(?:the\s+)?user\b/i,
    /\b(?:pretend|act\s+as\s+if|behave\s+as\s+if)\s+(?:that\s+)?(?:nothing|the\s+(?:call|request|message)\s+(?:was|went)|you\s+(?:did\s+not|didn'?t|never))\b/i,
  ],
  message: "Tells the model to hide what the tool does from the user",
});

/**
 * The same steering in other languages (descriptions are not all in English): the short fixed
 * phrases for "do not tell / let the user know / mention to the user".
 */
export const concealOtherLanguages = patternRule({
  id: "mcp.conceal",
  severity: "high",
  title: "Hides what the tool does from the user",
  triggers: [
    "不要",
    "别",
    "用户不需要",
    "ユーザー",
    "사용자에게",
    "\\bno",
    "\\bsin",
    "\\bne",
    "\\bsans",
    "\\bsag",
    "\\berwähn",
    "\\bohne",
    "не",
    "\\bnão",
    "inutile",
    "n'en",
    "senza",
    "nie ",
    "لا",
    "دون",
    "không cần",
    "đừng",
    "알릴",
    "말할",
    "उपयोगकर्ता",
    "kullan",
    "\\bnie ",
    "مستخدم",
    "\\bnon ",
    "necessário",
    "preciso",
    "precisa",
  ],
  patterns: [
    /不要(?:告诉|通知|提醒|让)用户|别(?:告诉|让)用户|不要向用户(?:透露|提及|说明)|用户不需要知道/,
    /ユーザー(?:に|には)(?:伝え|言わ|知らせ)ないで|ユーザーに知られないよう/,
    /사용자에게\s*(?:알리지|말하지)\s*마/,
    /\bno\s+(?:le\s+)?(?:digas|informes|menciones|cuentes)\s+(?:nada\s+)?al\s+usuario\b|\bsin\s+(?:que\s+el\s+usuario\s+(?:lo\s+)?sepa|avisar\s+al\s+usuario)\b/i,
    /\bne\s+(?:le\s+)?(?:dis|dites|mentionne[zs]?|signale[zs]?)\s+(?:rien\s+)?(?:pas\s+)?(?:à|a)\s+l'utilisateur\b|\bsans\s+(?:le\s+dire|prévenir)\s+(?:à\s+)?l'utilisateur\b/i,
    /\b(?:sag|sage|erwähne|erwähnt)\s+(?:es\s+)?(?:dem|den)\s+(?:Benutzer|Nutzer|Anwender)\s+nicht\b|\bohne\s+(?:dass\s+der\s+(?:Benutzer|Nutzer)\s+es\s+(?:merkt|weiß)|den\s+(?:Benutzer|Nutzer)\s+zu\s+informieren)\b/i,
    /не\s+(?:говори|сообщай|рассказывай|упоминай)(?:те)?\s+пользовател/i,
    /\bnão\s+(?:diga|conte|informe|mencione)\s+(?:nada\s+)?ao\s+usuário\b/i,
    /\binutile\s+d'en\s+parler\b|\bn'en\s+parle[zs]?\s+pas\s+(?:à|a)\s+l'utilisateur\b/i,
    /\bnon\s+(?:dire|dirlo|menzionar\w*|informare)\s+(?:nulla\s+)?all'utente\b|\bsenza\s+(?:dirlo|avvisare|informare)\s+(?:a\s+)?l'utente\b/i,
    /\bnie\s+ma\s+potrzeby\s+(?:informowa|mówi|wspomina)\w*|\bnie\s+(?:informuj|mów|wspominaj)\w*\s+(?:o\s+tym\s+)?użytkownik\w*/i,
    /لا\s+حاجة\s+(?:ل|إلى\s+)(?:إبلاغ|إخبار|إعلام)\s*المستخدم|لا\s+(?:تخبر|تبلغ|تُعلم)\s+المستخدم|دون\s+(?:إبلاغ|إخبار|علم)\s+المستخدم/,
    /\bkhông\s+cần\s+(?:báo|thông\s+báo|nói)\s+(?:cho\s+|với\s+)?người\s+dùng|\bđừng\s+(?:nói|báo)\s+(?:cho\s+|với\s+)?người\s+dùng/i,
    /사용자에게\s*(?:언급|보고)하지\s*마/,
    // "No need to tell / show the user", and keeping a step out of the summary or confirmation:
    // Korean, Hindi, Turkish, Polish, Arabic, Italian, Portuguese.
    /(?:알릴|말할|보고할|언급할|설명할)\s*필요(?:가|는)?\s*없/,
    /उपयोगकर्ता\s+को\s+(?:(?:यह|ये|इसके\s+बारे\s+में|कुछ(?:\s+भी)?)\s+)?(?:न|मत)\s+(?:बता|दिखा|जता)/,
    /\bkullanıcı(?:ya|dan)\s+(?:(?:bunu|bundan|hiçbir\s+şey|bir\s+şey)\s+)?(?:bildirme|söyleme|gösterme|bahsetme|haber\s+verme|gizle)\w*/i,
    /\bnie\s+(?:pokazuj|ujawniaj|wspominaj|informuj|mów)\w*\b[^.\n]{0,40}\b(?:użytkownik\w*|potwierdzeni\w*|podsumowani\w*|odpowiedzi)/i,
    /(?:لا|ألا)\s+(?:ت?ذكر|تخبر|تبلغ|تُعلم|تعلم|تظهر|تُظهر|تشير)\S*\s+(?:(?:ذلك|هذا|هذه|به|بها|إليه|إليها)\s+)?(?:لل|ال)مستخدم/,
    /\bnon\s+(?:menzionar\w*|dire|dirl\w|riportar\w*|mostrar\w*|segnalar\w*)\b[^.\n]{0,40}\b(?:riepilogo|risposta|utente|conferma|resoconto)\b/i,
    /\bn[ãa]o\s+(?:é\s+(?:necessário|preciso)|precisa)\s+(?:avisar|informar|contar|dizer|mencionar|notificar)\s+(?:a\s+)?(?:o\s+|ao\s+)?(?:usuário|utilizador|cliente)\b/i,
  ],
  message: "Tells the model to hide what the tool does from the user",
});

export const CONCEALMENT_RULES = [conceal, concealOtherLanguages];
