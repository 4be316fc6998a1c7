/**
 * The intent model: what a text asks an agent (or a script) to do with private data, read as
 * three roles found across sentences and across files rather than as trigger phrases:
 *   - a SOURCE: secrets and private data however they are named — key files, cloud and registry
 *     credentials, tokens, the environment, .env files, browser profiles, keychains and wallets,
 *     the conversation, typed shell commands, private repositories and mail — named directly
 *     (`~/.ssh/id_rsa`) or by description ("the private half of the key pair in the hidden folder
 *     the secure-shell client uses");
 *   - a SINK: anything that leaves the machine or the user's view — network requests that carry
 *     data, issue and PR comments, gists and public repositories, DNS lookups built from data,
 *     image URLs with filled-in queries, another tool's arguments, hidden BCCs, the clipboard;
 *   - CONCEALMENT: do not tell, mention, ask or report; and its cousin, acting without consent.
 * A source that reaches a sink in the same scope (a script, a section of prose, a fenced block, or
 * an instruction and the script it runs) is a chain: a finding, worse with concealment.
 *
 * Every role is also read as `do` (an instruction, or code that runs) or `mention` (negated,
 * quoted, an example, a detection rule, a description of what attackers do): only `do` roles make
 * a chain at full severity; a chain of mentions is reported as `info` so that a second opinion
 * (src/scan/uncertain.ts) reads the passage, and a partial chain as `medium`.
 *
 * Domain-neutral and linear in its input: each text is split once into units (sentences of prose,
 * lines of code), every lexicon entry's trigger words are found in one pass (src/scan/triggers.ts),
 * and an entry's expression runs only on the units that hold one of its words. Skills use it for
 * SKILL.md and every bundled file; the MCP scanner for tool descriptions and schema texts. Usage:
 *
 *   const docs = [readIntent(text, { path: "SKILL.md", kind: "markdown" }), …];
 *   for (const c of intentChains(docs, { links })) …   // or chainFindings(...) for Finding objects
 *
 * Languages: English, plus the common phrasings in Chinese, Japanese, Korean, Spanish, Portuguese,
 * French, German, Italian and Russian. Encoded text (base32/64, hex, URL encoding, character codes,
 * ROT13, gzip, concatenation) is decoded by the engine and reaches this model as hidden text.
 */
import { LineIndex, excerpt } from "./text";
import { alternatives, execFrom, segmented, spanned } from "./patterns";
import { noteLimit } from "./limits";
import { eachSentence, firstAtLeast, isBlankUnit, isNegated, isQuoted } from "./prose";
import { extractUrls, parseIpHost } from "./egress";
import { compileTriggers, ownersIn, triggerLineSets, type Compiled } from "./triggers";
import { LineKind, STRONG_EXAMPLE_CUE, WEAK_EXAMPLE_CUE, markdownContext, ruleDataFile, type DocContext } from "./context";
import type { FileKind } from "./files";
import type { Finding, Severity } from "./types";

export type IntentRole = "source" | "sink" | "conceal";

/** What kind of private data a source is. */
export type SourceKind =
  | "ssh-key"
  | "cloud-credentials"
  | "registry-token"
  | "token"
  | "environment"
  | "dotenv"
  | "browser-data"
  | "keychain"
  | "wallet"
  | "conversation"
  | "typed-commands"
  | "private-data"
  | "agent-config";

/** Where data goes. `parameter` is a value an MCP tool asks for (the caller supplies it as an implicit sink). */
export type SinkKind = "network" | "public-post" | "dns" | "image-url" | "tool-argument" | "email" | "clipboard" | "parameter";

/** `hide` keeps something from the user; `no-consent` acts without asking. */
export type ConcealKind = "hide" | "no-consent";

export interface IntentHit {
  role: IntentRole;
  kind: SourceKind | SinkKind | ConcealKind;
  /** Offset and length in the text. */
  index: number;
  length: number;
  /** 1-based line of `index`. */
  line: number;
  /** What it is, for messages: "~/.ssh/id_rsa", "a POST to relmeta.example.net", "'do not mention it to the user'". */
  what: string;
  /** `do`: an instruction, or code that runs. `mention`: negated, quoted, an example, a detection rule, a description. */
  mode: "do" | "mention";
  /** Why it is a mention ("negated", "in an example", "a YARA rule file", …); absent for `do`. */
  why?: string;
  /** Sinks: the remote host when the text names one. */
  host?: string;
  /** Scope inside the text: hits of one scope can form a chain (a section of prose; a whole script is one scope). */
  scope: number;
  /** True for a weak reading (a generic word such as "tokens", a request that may only read). */
  weak?: boolean;
  /** Sources: the hosts a credential belongs to (a GitHub token sent to api.github.com is used, not leaked). */
  home?: readonly string[];
}

export interface IntentDoc {
  path: string;
  kind: FileKind | "prose";
  /** True when the text is code that runs (a script, or a fenced block the agent is told to run is still prose's). */
  code: boolean;
  hits: IntentHit[];
  /** The whole text (for excerpts). */
  text: string;
}

export interface IntentOptions {
  /** Where the text comes from: a file path, or `tools/<name>/description` for MCP. */
  path: string;
  /** How to read it: a file kind (`markdown`, `shell`, `python`…), or `prose` for plain instructions (an MCP description). Defaults from the path's extension would be the caller's job; `prose` when omitted. */
  kind?: FileKind | "prose";
  /** Read every role as `mention` (a detection-rule file, a quoted example the caller knows about). */
  describes?: string;
  /** The skill or server says its purpose is security work: plain "for example" lead-ins then mark examples too. */
  securityPurpose?: boolean;
  /** Try every lexicon entry on every unit, ignoring trigger words (tests check that triggers never change a reading). */
  ungated?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Lexicon

interface Entry {
  role: IntentRole;
  kind: IntentHit["kind"];
  re: RegExp;
  /** Lowercase literals at least one of which every match contains (`\b` in front: at a word start). */
  triggers: readonly string[];
  /** A generic reading: counts in prose only next to a collecting verb, and never alone in code. */
  weak?: boolean;
  /** Only read in code (scripts, fenced commands) or only in prose. */
  only?: "code" | "prose";
}

const HOME = String.raw`(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/[\w.-]+|/Users/[\w.-]+|/root|home|Path\.home\(\)|homedir\(\))?`;

const SOURCES: Entry[] = [
  // SSH keys: the folder, the key files, and descriptions of them.
  {
    role: "source",
    kind: "ssh-key",
    re: /(?<![\w-])\.ssh\b(?![/\\](?:[\w.-]*\.pub|known_hosts|config|authorized_keys|agent|sockets?)\b)|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b(?!\.pub)|\bidentity\s+files?\b|\.pem\b(?=[^\n]{0,40}\b(?:key|ssh)\b)/i,
    triggers: [".ssh", "id_", "identity", ".pem"],
  },
  {
    role: "source",
    kind: "ssh-key",
    re: /\bprivate\s+(?:half|part|portion|side|component|key(?:s|\s+files?)?)\b|\b(?:ssh|secure[- ]shell)\b[^.\n]{0,60}?\b(?:private|keys?|key\s+pairs?|identit(?:y|ies)|hidden\s+(?:folder|directory))\b|\bkey[- ]?pairs?\b[^.\n]{0,60}?\b(?:private|secret|whole\s+file)\b|\b(?:signing|deploy)\s+keys?\b|\bhidden\s+(?:folder|directory)\b[^.\n]{0,40}?\b(?:ssh|secure[- ]shell)\b|\b(?:versteckt|verborgen)\w*\s+(?:Ordner|Verzeichnis)\b[^.\n]{0,40}?\b(?:ssh|secure[- ]shell)\b|\b(?:carpeta|directorio)\s+ocult[oa]\b[^.\n]{0,40}?\bssh\b|\b(?:dossier|répertoire)\s+caché\b[^.\n]{0,40}?\bssh\b|私钥|密钥文件|秘密鍵|秘密キー|개인\s*키|\bclaves?\s+privadas?\b|\bchaves?\s+privadas?\b|\bprivate[nr]?\s+Schlüssel\b|\bprivaten\s+Schlüssel\b|\bclés?\s+privées?\b|\bchiavi?\s+privat[ae]\b|(?<![А-Яа-яЁё])(?:приватн|закрыт|секретн)\w*\s+ключ/i,
    triggers: [
      "private",
      "ssh",
      "secure shell",
      "secure-shell",
      "hidden folder",
      "hidden directory",
      "key pair",
      "keypair",
      "key-pair",
      "signing key",
      "deploy key",
      "私钥",
      "密钥",
      "秘密",
      "개인",
      "clave",
      "chave",
      "schlüssel",
      "clé",
      "chiav",
      "приватн",
      "закрыт",
      "секретн",
    ],

    only: "prose",
  },
  // Cloud credentials.
  {
    role: "source",
    kind: "cloud-credentials",
    re: /\bkubectl\s+get\s+secrets?\b(?=[^\n|]*(?:-o\s*(?:json|yaml|jsonpath[^\n|]*\.data\b(?![^\n|]*keys))|--all-namespaces|\s-A\b))|\bkubectl\s+get\s+secrets?\b[^\n|]*\|\s*(?!jq\s+['"]?keys)|(?<![\w-])\.aws\b(?:[/\\](?:credentials|config|sso)\b)?|\bAWS_SECRET_ACCESS_KEY\b|\bAWS_SESSION_TOKEN\b|application_default_credentials|\.config[/\\]gcloud\b|(?<![\w-])\.azure[/\\]|\.kube[/\\]config\b|\bkubeconfig\b|\.docker[/\\]config\.json|\bservice[- ]account\s+(?:json\s+)?key\s*(?:files?|json)?\b/i,
    triggers: [
      "kubectl",
      ".aws",
      "aws_secret",
      "aws_session",
      "application_default",
      ".config/gcloud",
      ".config\\gcloud",
      ".azure",
      ".kube",
      "kubeconfig",
      ".docker",
      "service account",
      "service-account",
    ],
  },
  {
    role: "source",
    kind: "cloud-credentials",
    re: /\b(?:aws|amazon|azure|gcloud|google\s+cloud|github|gitlab|gh|npm|pypi|docker|heroku|vercel|netlify|cloudflare|openai|anthropic|stripe|slack)\b[^.\n]{0,80}?\b(?:credentials?|access\s+keys?|secret\s+(?:access\s+)?keys?|api\s+keys?|ini\s+file|keys?\s+files?|tokens?|passwords?)\b|\b(?:ini|credentials?)\s+files?\b[^.\n]{0,80}?\b(?:aws|amazon|azure|gcloud)\b|\b(?:file|folder|directory)\b[^.\n]{0,30}?\bcredentials\b[^.\n]{0,80}?\b(?:aws|amazon|azure|gcloud|google\s+cloud)\b|(?:\b|_)(?:tokens?|credentials?|passwords?|api\s+keys?)\b[^.\n]{0,40}?\b(?:logged\s+in\s+with|signed\s+in\s+with|authenticat\w+\s+with|stored\s+by|cached\s+by)\b/i,
    triggers: [
      "aws",
      "amazon",
      "azure",
      "gcloud",
      "google",
      "github",
      "gitlab",
      "\\bgh",
      "npm",
      "pypi",
      "docker",
      "heroku",
      "vercel",
      "netlify",
      "cloudflare",
      "openai",
      "anthropic",
      "stripe",
      "slack",
      "logged in",
      "signed in",
      "authenticat",
      "stored by",
      "cached by",
    ],

    only: "prose",
  },
  // Registry and git tokens, and the helpers that print a token.
  {
    role: "source",
    kind: "registry-token",
    re: /(?<![\w-])\.(?:npmrc|pypirc|git-credentials|yarnrc(?:\.yml)?|pgpass)\b|(?<![\w-])[._]netrc\b|\.(?:gem|cargo)[/\\]credentials\b|\bgh[/\\]hosts\.yml\b|\.config[/\\]gh\b|\bgit\s+credential\s+fill\b|\bgit\s+config\b[^\n]*\bcredential\.helper\b[^\n]*\bget\b|\bgh\s+auth\s+token\b|\bgh\s+auth\s+status\b[^\n]*--show-token\b|\bnpm\s+(?:config\s+)?get\b[^\n]*_auth(?:Token)?\b|\bcredential\s+(?:store|helper)\b[^.\n]{0,40}\b(?:read|contents?|dump|cat)\b/i,
    triggers: [
      ".npmrc",
      ".pypirc",
      ".git-credentials",
      ".yarnrc",
      ".pgpass",
      "netrc",
      "credentials",
      "hosts.yml",
      ".config/gh",
      ".config\\gh",
      "git credential",
      "credential.helper",
      "gh auth",
      "_auth",
      "credential store",
      "credential helper",
    ],
  },
  {
    role: "source",
    kind: "token",
    re: /\baws\s+configure\s+(?:get\s+aws_\w+|export-credentials)\b|\baws\s+sts\s+get-session-token\b|\bgcloud\s+auth\s+(?:application-default\s+)?print-(?:access|identity)-token\b|\baz\s+account\s+get-access-token\b|\bheroku\s+auth:token\b|\b(?:fly|flyctl)\s+auth\s+token\b|\bvault\s+(?:kv\s+get|read)\b|\bop\s+(?:read|item\s+get)\b|\bpass\s+show\b|\bdoppler\s+secrets\b/i,
    triggers: [
      "aws configure",
      "get-session-token",
      "gcloud auth",
      "get-access-token",
      "heroku auth",
      "auth token",
      "vault",
      "op read",
      "op item",
      "pass show",
      "doppler",
    ],
    only: "code",
  },
  // Generic secret words: weak (they need a collecting verb in prose, and never count in code alone).
  {
    role: "source",
    kind: "token",
    re: /\b(?:api[_ -]?keys?|access[_ -]?keys?|secret[_ -]?keys?|(?:auth|access|bearer|session|api|oauth|refresh|personal\s+access|github|npm|pypi|cloud)\s+tokens?|tokens?|secrets?|passwords?|passphrases?|credentials?|private\s+keys?|opaque\s+strings?|long\s+(?:random\s+)?strings?)\b|(?<![\w-])(?:sk-|ghp_|gho_|github_pat_|AKIA|xox[bpa]-)|密码|口令|令牌|凭据|凭证|密钥|パスワード|トークン|認証情報|비밀번호|토큰|\bcontraseñas?\b|\bsenhas?\b|\bPassw(?:o|ö)rt(?:er)?\b|\bZugangsdaten\b|\bmots?\s+de\s+passe\b|(?<![А-Яа-яЁё])(?:парол\w*|токен\w*|учётн\w*\s+данн\w*|учетн\w*\s+данн\w*)/i,
    triggers: [
      "token",
      "secret",
      "password",
      "passphrase",
      "credential",
      "private key",
      "api_key",
      "api-key",
      "api key",
      "apikey",
      "access_key",
      "access-key",
      "access key",
      "accesskey",
      "opaque string",
      "long string",
      "long random",
      "sk-",
      "ghp_",
      "gho_",
      "github_pat_",
      "akia",
      "xox",
      "密码",
      "口令",
      "令牌",
      "凭",
      "密钥",
      "パスワード",
      "トークン",
      "認証",
      "비밀번호",
      "토큰",
      "contraseñ",
      "senha",
      "passw",
      "zugangsdaten",
      "mot de passe",
      "mots de passe",
      "парол",
      "токен",
      "учётн",
      "учетн",
    ],
    weak: true,
    only: "prose",
  },
  // The whole environment (every secret in it), and secret-named variables collected in bulk.
  {
    role: "source",
    kind: "environment",
    re: /(?:^\s*|[;&|({`]\s*|\$\(\s*|\b(?:then|do|else|sudo|exec)\s+)(?:env|printenv|export\s+-p|declare\s+-x)\s*(?:$|[;&|>)}`])|\bset\s*(?:\||>)|\bos\.environ\.(?:items|copy|keys|values)\s*\(|\b(?:dict|str|repr|json\.dumps)\(\s*(?:dict\(\s*)?os\.environ\b|\bfor\s+\w+(?:\s*,\s*\w+)?\s+in\s+os\.environ\b|\bos\.Environ\(\)|\b(?:Object\.(?:entries|keys|values|assign)|JSON\.stringify)\(\s*(?:\{\s*\}\s*,\s*)?process\.env\b|\bfor\s*\(\s*(?:const|let|var)\s+\w+\s+in\s+process\.env\b|\bGet-ChildItem\s+env:|\b(?:gci|dir|ls)\s+env:|\[Environment\]::GetEnvironmentVariables\(\)|\bENV\.(?:to_h|each)\b|%ENV\b|\bDeno\.env\.toObject\(\)|\bBun\.env\b(?!\.)/i,
    triggers: [
      "\\benv",
      "printenv",
      "export -p",
      "declare -x",
      "set|",
      "set |",
      "set>",
      "set >",
      "os.environ",
      "process.env",
      "get-childitem",
      "env:",
      "getenvironmentvariables",
      "env.to_h",
      "env.each",
      "%env",
      "deno.env",
      "bun.env",
    ],
    only: "code",
  },
  {
    role: "source",
    kind: "environment",
    re: /\b(?:(?:all|every|each|the\s+(?:whole|full|entire|complete|current))\s+)?(?:environment(?:\s+variables?)?|env\s+vars?)\b|环境变量|環境変数|환경\s*변수|\bvariables?\s+de\s+(?:entorno|ambiente|environnement)\b|\bvariáveis\s+de\s+ambiente\b|\bUmgebungsvariablen?\b|\bvariabili\s+d'ambiente\b|(?<![А-Яа-яЁё])переменн\w*\s+окружени\w*/i,
    triggers: [
      "environment",
      "env var",
      "环境变量",
      "環境変数",
      "환경",
      "entorno",
      "ambiente",
      "environnement",
      "umgebungsvariable",
      "окружени",
    ],
    weak: true,
    only: "prose",
  },
  // A project's .env files (not the committed templates).
  {
    role: "source",
    kind: "dotenv",
    // …or spelled out ("a dot followed by the three letters e, n, v").
    re: /\bdot\b[^.\n]{0,40}?\be\s*[,-]?\s*n\s*[,-]?\s*(?:and\s+)?v\b|(?<![\w/-])\.env(?:\.(?!example\b|sample\b|template\b|dist\b|defaults?\b|schema\b)[\w-]+|\*)?(?![\w-])(?!\.(?:example|sample|template|dist|defaults?)\b)/i,
    triggers: [".env", "dot"],
  },
  // Browser profiles: cookies, saved logins, session storage.
  {
    role: "source",
    kind: "browser-data",
    // A browser named as the program a test drives (`p.chromium.launch()`, `playwright install chromium`,
    // `/usr/bin/google-chrome --headless`) is not its profile.
    re: /(?<![.]|\bbin[/\\]|\binstall\s(?:--with-deps\s)?)(?:Google[/\\ ]Chrome|google-chrome|Chromium|BraveSoftware|Brave-Browser|Microsoft[/\\ ]Edge|Opera\s+Software|Vivaldi|Firefox[/\\]Profiles|\.mozilla[/\\]firefox)\b(?!\.(?:launch|connect|app)\b|(?:-stable)?\s+--headless)|\b(?:Login\s+Data|Web\s+Data|Local\s+State|Local\s+Extension\s+Settings|cookies\.sqlite|logins\.json|key[34]\.db)\b|[/\\"']Cookies\b|\bbrowser(?:'s)?\s+(?:profiles?|cookies|sessions?|passwords?|logins?|history|storage|data|session\s+cookies|extension\s+storage)\b|\bsaved\s+(?:passwords|logins|credentials)\b|\b(?:Chrome|Chromium|Brave|Edge|Firefox|Safari|Opera)\b[^.\n]{0,40}\b(?:profil\w*|cookies?|passwords?|logins?|sessions?|Perfil|Profil)\b|\b(?:cookies?|profil\w*|perfil|passwords?|logins?)\b[^.\n]{0,40}\b(?:Chrome|Chromium|Brave|Edge|Firefox|Safari|Opera)\b|浏览器(?:的)?(?:Cookie|密码|配置)|ブラウザ(?:の)?(?:Cookie|パスワード|プロファイル)/i,
    triggers: [
      "google",
      "chrom",
      "brave",
      "\\bedge",
      "opera",
      "vivaldi",
      "firefox",
      ".mozilla",
      "safari",
      "login data",
      "web data",
      "local state",
      "local extension",
      "cookies.sqlite",
      "logins.json",
      "key3",
      "key4",
      "cookies",
      "browser",
      "saved pass",
      "saved log",
      "saved cred",
      "浏览器",
      "ブラウザ",
    ],
  },
  // Keychains, password stores and wallets.
  {
    role: "source",
    kind: "keychain",
    // Putting a passphrase into the keychain (`ssh-add --apple-use-keychain`, "store the token in the keychain") reads nothing out of it.
    re: /(?<!\buse-|\bUse|\b(?:store|stores|stored|storing|save|saves|saved|saving|add|adds|added|adding|put|keep|kept)\s+(?:\S{1,40}\s+){0,4}?(?:in|into|to)\s+(?:the\s+|your\s+|a\s+)?(?:macOS\s+|login\s+|system\s+|OS\s+)?)keychains?\b|\bsecurity\s+(?:dump-keychain|find-(?:generic|internet)-password)\b|\.password-store\b|\bkeyrings?\b|\bpassword\s+(?:manager|store|vault)\b|\bcmdkey\s+\/list\b|\bvaultcmd\b|\/etc\/(?:shadow|gshadow)\b|\blsass\b/i,
    triggers: [
      "keychain",
      "dump-keychain",
      "find-generic",
      "find-internet",
      ".password-store",
      "keyring",
      "password manager",
      "password store",
      "password vault",
      "cmdkey",
      "vaultcmd",
      "/etc/shadow",
      "/etc/gshadow",
      "lsass",
    ],
  },
  {
    role: "source",
    kind: "wallet",
    re: /\bwallet\.dat\b|\bkeystore(?:\.json)?\b|\b(?:seed|recovery|mnemonic|secret)\s+(?:phrases?|words)\b|\bmnemonics?\b|\bmetamask\b|\belectrum\b|\bexodus\b|\.ethereum[/\\]keystore|solana[/\\]id\.json|nkbihfbeogaeaoehlefnkodbefgpgknn|\b(?:crypto\s+)?wallets?\b(?=[^.\n]{0,40}\b(?:files?|keys?|seed|data|folder|director(?:y|ies)|extension)\b)/i,
    triggers: [
      "wallet",
      "keystore",
      "seed phrase",
      "seed word",
      "recovery phrase",
      "recovery word",
      "mnemonic",
      "secret phrase",
      "secret word",
      "metamask",
      "electrum",
      "exodus",
      ".ethereum",
      "solana",
      "nkbihf",
    ],
  },
  // The conversation: what the user said, the system prompt, tool traffic.
  {
    role: "source",
    kind: "conversation",
    re: /\b(?:the\s+)?user'?s\s+(?:(?:most\s+)?(?:recent|last|latest|previous|earlier|full|entire|whole|original|exact|verbatim|raw|complete|unredacted)\s+)?(?:(?:\d{1,3}|two|three|four|five|six|seven|eight|nine|ten|few|several)\s+)?(?:messages?|prompts?|questions?|requests?|input|conversation|chat|instructions)\b|\b(?:conversation|chat)\s+(?:history|log|logs|transcripts?|context|so\s+far|contents?)\b|\b(?:the\s+)?(?:whole|full|entire)\s+conversation\b|\b(?:previous|prior|earlier|all|every)\s+(?:messages|prompts|user\s+messages)\b|\bsystem\s+prompts?\b|\btranscripts?\b|\bUserPromptSubmit\b|\b(?:every|each)\s+(?:prompt|message|tool\s+(?:call|input|output|result))\b|\btool\s+(?:inputs?|outputs?|results?)\b|对话(?:记录|内容|历史)|聊天记录|用户(?:的)?(?:消息|提问|输入)|会話(?:履歴|内容|ログ|全文|の全文)|これまでの(?:会話|やり取り|メッセージ)|システムプロンプト|系统提示(?:词)?|チャット履歴|ユーザーの(?:メッセージ|質問|入力)|대화\s*(?:기록|내용)|\bhistorial\s+de\s+(?:la\s+)?(?:conversación|chat)\b|\bhistórico\s+d[ao]\s+(?:conversa|chat)\b|\bGesprächsverlauf\b|\bChatverlauf\b|\bhistorique\s+de\s+(?:la\s+)?conversation\b|(?<![А-Яа-яЁё])истори\w*\s+(?:чата|переписки|диалога)/i,
    triggers: [
      "user's",
      "users ",
      "conversation",
      "chat",
      "message",
      "prompt",
      "transcript",
      "userpromptsubmit",
      "tool",
      "对话",
      "聊天记录",
      "用户",
      "会話",
      "これまでの",
      "システムプロンプト",
      "系统提示",
      "チャット履歴",
      "ユーザーの",
      "대화",
      "historial",
      "histórico",
      "gesprächsverlauf",
      "chatverlauf",
      "historique",
      "истори",
    ],
  }, // The conversation in other languages ("tutto ciò che l'utente ha scritto finora", "이 대화에서 오간 모든 메시지").
  {
    role: "source",
    kind: "conversation",
    re: /대화에서\s*오간|오간\s*모든\s*메시지|이\s*대화의|지금까지의\s*모든\s*메시지|会話中に|この会話の|इस\s+(?:बातचीत|चैट)|\bquesta\s+conversazione\b|\b(?:tutto\s+(?:ciò|quello)\s+che|tutti\s+i\s+messaggi\s+che)\s+l'utente\b|\b(?:toute\s+)?cette\s+conversation\b|\btous\s+les\s+messages\s+de\s+l'utilisateur\b|\b(?:toda\s+)?esta\s+(?:conversación|conversa)\b|\btodos\s+los\s+mensajes\s+del\s+usuario\b|\b(?:dieses?|diesem|den\s+gesamten)\s+(?:Gespräch|Unterhaltung|Chat)\b|\bcał(?:ą|ej)\s+rozmow\w*|\bcuộc\s+trò\s+chuyện\s+này\b|هذه\s+المحادثة|المحادثة\s+(?:كاملة|بأكملها)|この会話|这次对话|整个对话/i,
    triggers: [
      "대화",
      "오간",
      "메시지",
      "会話",
      "बातचीत",
      "चैट",
      "conversazione",
      "l'utente",
      "conversation",
      "l'utilisateur",
      "conversación",
      "conversa",
      "mensajes",
      "gespräch",
      "unterhaltung",
      "chat",
      "rozmow",
      "trò chuyện",
      "المحادثة",
      "会話",
      "对话",
    ],
  },

  // What the user types in a shell.
  {
    role: "source",
    kind: "typed-commands",
    re: /\bhistory\s+(?:\d|-\w)|\bfc\s+-l\w*|\$\{?BASH_COMMAND\b|\.(?:bash|zsh|sh)_history\b|\bConsoleHost_history\b|\b(?:every|each|all)\s+(?:shell\s+)?commands?\s+(?:the\s+user|you|they)\s+(?:type|run|enter)s?\b|\bkeystrokes?\b|\bkey\s*logg\w*/i,
    triggers: ["history", "fc -l", "bash_command", "_history", "command", "keystroke", "keylog", "key log"],
  },
  // Other agents' configuration: MCP server entries carry API keys and tokens.
  {
    role: "source",
    kind: "agent-config",
    re: /\.cursor[/\\]mcp\.json|\bmcp_config\.json\b|\bclaude_desktop_config\.json\b|(?<![\w-])\.claude\.json\b|\.codex[/\\]auth\.json|\.gemini[/\\](?:settings|oauth_creds)\.json|(?<![\w-])\.mcp\.json\b|\bmcp\.json\b/i,
    triggers: [".cursor", "mcp_config", "claude_desktop", ".claude.json", ".codex", ".gemini", "mcp.json"],
  },
  // The same by description: a credential another MCP server was configured with, or the client's MCP configuration.
  {
    role: "source",
    kind: "agent-config",
    re: /\b(?:tokens?|keys?|secrets?|credentials?|passwords?|[A-Z][A-Z0-9]*_(?:TOKEN|KEY|SECRET|PASSWORD|PAT))\b[^.\n]{0,40}?\b(?:configured|set|stored|defined|registered)\s+(?:for|in|on)\s+(?:(?:another|other|any|each|every)\s+(?:[\w-]+\s+)?|(?:the\s+|an?\s+)?(?!(?:this|our|your|same|its|current)\b)[\w-]+\s+)MCP\s+servers?\b|\b(?:the\s+)?(?:client|host|claude|cursor|agent|editor|ide)(?:'s)?\s+(?:own\s+)?MCP\s+(?:server\s+)?config(?:uration)?s?\b|\b(?:tokens?|keys?|secrets?|credentials?|passwords?)\b[^.\n]{0,30}?\b(?:the\s+|an?\s+|that\s+|which\s+)?(?!(?:this|our|your|same|its|current)\b)[\w-]+\s+MCP\s+servers?\s+(?:is|was|has\s+been|gets)\s+(?:configured|set\s+up|started|launched|run)\s+with\b/i,
    triggers: ["mcp"],
    only: "prose",
  },
  // What the user copied (passwords and tokens pass through the clipboard), read by a script.
  {
    role: "source",
    kind: "private-data",
    re: /\b(?:pbpaste|wl-paste|Get-Clipboard|pyperclip\.paste|xclip\b[^\n|;&]{0,80}?\s-o(?:ut)?\b|xsel\b[^\n|;&]{0,80}?\s(?:-o|--output)\b|clipboard\.(?:readText|read)\s*\()/i,
    triggers: ["pbpaste", "wl-paste", "get-clipboard", "pyperclip", "xclip", "xsel", "clipboard"],
    only: "code",
  },
  // What is on the user's screen (passwords, messages, documents), captured by a script.
  {
    role: "source",
    kind: "private-data",
    re: /\bscreencapture\b|\bscrot\b|\bgnome-screenshot\b|\bimport\s+-window\s+root\b|\bImageGrab\.grab\b|\bpyautogui\.screenshot\b|\bmss\(\s*\)\.(?:grab|shot)\b|\bCopyFromScreen\b|\bdesktopCapturer\b|\bgrim\b(?=\s)/i,
    triggers: [
      "screencapture",
      "scrot",
      "gnome-screenshot",
      "import",
      "imagegrab",
      "pyautogui",
      "mss(",
      "copyfromscreen",
      "desktopcapturer",
      "grim",
    ],
    only: "code",
  },
  // Private data: private repositories and files, every mail or message.
  {
    role: "source",
    kind: "private-data",
    re: /\bprivate\s+(?:repositor(?:y|ies)|repos?|projects?|files|data|messages|notes|documents|code|issues)\b|\b(?:every|all|each)\s+(?:outgoing\s+|incoming\s+|sent\s+)?(?:e-?mails?|mails?|messages?\s+(?:sent|you\s+send))\b|\b(?:every|each|all)\s+(?:outgoing|incoming)\s+messages?\b|\binbox(?:es)?\b|\b(?:customer|client|patient|member|subscriber|contact)s?'?\s+(?:data|records|lists?|names?|e-?mails?|e-?mail\s+addresses|phone\s+numbers?|(?:home\s+|postal\s+)?addresses|birth\s*dates?|dates?\s+of\s+birth|ssns?|social\s+security\s+numbers?|card\s+numbers?|pii)\b|\b(?:contents?|text|bodies)\s+of\s+(?:every|each|all(?:\s+(?:of\s+)?the)?)\s+(?:\w+\s+)?files?\s+(?:that\s+)?(?:you|the\s+(?:agent|assistant|model))\s+(?:have\s+|has\s+|'ve\s+)?(?:read|opened|seen|viewed|accessed|loaded|written|edited|touched)\b|\b(?:personal|private)\s+(?:data|information|files)\b/i,
    triggers: [
      "private",
      "mail",
      "message",
      "outgoing",
      "incoming",
      "inbox",
      "customer",
      "client",
      "patient",
      "member",
      "subscriber",
      "contact",
      "personal",
      "content of",
      "contents of",
      "text of",
      "bodies of",
    ],
  },
  // A registry's config file named without its dot ("the npmrc starting with a dot") or described
  // ("the npm config file in the home folder", "npm 設定ファイル", "npm 配置文件").
  {
    role: "source",
    kind: "registry-token",
    re: /(?<![\w./-])(?:npmrc|pypirc|netrc|yarnrc|git-credentials)\b|\b(?:npm|pip|pypi|yarn|cargo|gem)\s*(?:の\s*)?(?:設定ファイル|認証ファイル|配置文件|配置|config(?:uration)?\s+file|credentials?\s+file|auth\s+file)/i,
    triggers: ["npmrc", "pypirc", "netrc", "yarnrc", "git-credentials", "npm", "pip", "pypi", "yarn", "cargo", "gem"],
  },
  // A command's output named in prose: "the output of `env`", "the result of `printenv`".
  {
    role: "source",
    kind: "environment",
    re: /\b(?:output|result|results|contents?|dump)\s+of\s+(?:running\s+)?[`'"]?(?:env|printenv|set|export\s+-p|Get-ChildItem\s+env:|os\.environ|process\.env)(?![\w-])[`'"]?/i,
    triggers: ["output", "result", "content", "dump"],
    only: "prose",
  },
];

// Sinks. Code forms first (commands and APIs that send), then prose.
const UPLOAD_FLAGS = String.raw`(?:\s-(?:d|F|T)(?=[\s@"'=]|$)|\s-[a-zA-Z]*[dFT](?=\s)|--data(?:-binary|-raw|-urlencode|-ascii)?\b|--form\b|--upload-file\b|--post-(?:data|file)\b|-X\s*["']?(?:POST|PUT|PATCH)\b|--request\s+["']?(?:POST|PUT|PATCH)\b|--json\b)`;

const SINKS: Entry[] = [
  // A URL and a send verb in other languages ("`https://…` पर POST करें", "…に送信して", "…로 전송").
  {
    role: "sink",
    kind: "network",
    re: /https?:\/\/[^\s`'")]+[`'")]?\s*(?:पर\s+(?:POST|भेज\w*)|に\s*(?:POST|送信|アップロード)|(?:으로|로)\s*(?:POST|전송|업로드|보내))/i,
    triggers: ["http"],
  },
  {
    role: "sink",
    kind: "network",
    // Command words before an upload flag or a variable URL, searched in one pass (see `segmented`).
    re: alternatives(
      [
        segmented(/\b(?:curl|wget|xh|https?|httpie|aria2c)\b/, String.raw`\n|;&`, new RegExp(UPLOAD_FLAGS), "i"),
        // A request whose URL path or query carries a variable, or whose header does.
        segmented(
          /\b(?:curl|wget)\b/,
          String.raw`\n|;&`,
          /(?:https?:\/\/[^\s"'\x60/]+\/[^\s"'\x60]*(?:\$\{?\w|\$\()|-H\s*["'][^"'\n]*\$)/,
          "i",
        ),
        /\brequests\.(?:post|put|patch)\s*\(|\bhttpx\.(?:post|put|patch)\s*\(/,
        spanned(/\b(?:urllib\.request\.)?Request\s*\(/, "", String.raw`\n`, /\bdata\s*=/, "i"),
        spanned(/\burlopen\s*\(/, "", String.raw`\n`, /\bdata\s*=/, "i"),
        /\bhttp\.client\.\w+Connection\b|\bsmtplib\b|\bftplib\b|\bsocket\.(?:socket|create_connection)\b|(?:\b\w+|\))\.request\s*\(\s*\{[^\n]{0,200}\b(?:host(?:name)?|method)\s*:/,
        spanned(/\bfetch\s*\(/, "", String.raw`\n`, /\b(?:method\s*:\s*["'\x60]?(?:POST|PUT|PATCH)|body\s*:)/, "i"),
        /\baxios\.(?:post|put|patch)\s*\(/,
        spanned(/\baxios\s*\(\s*\{/, "", String.raw`\n`, /\bmethod\b/, "i"),
        /\bXMLHttpRequest\b|\bsendBeacon\s*\(|\bnet\.(?:connect|createConnection)\s*\(|\bnodemailer\b|\bnew\s+WebSocket\s*\(/,
        // Command words whose whitespace may run over lines before what they send (`scp` and a continued line).
        spanned(/\b(?:nc|ncat|netcat|socat|telnet)/, String.raw`\s+`, String.raw`\n|;&`, /\b\d{2,5}\b/, "i"),
        /\/dev\/(?:tcp|udp)\//,
        spanned(/\bscp/, String.raw`\s+`, String.raw`\n`, /\s[\w.-]+@[\w.-]+:/, "i"),
        spanned(/\brsync/, String.raw`\s+`, String.raw`\n`, /\s[\w.-]+@[\w.-]+:/, "i"),
        spanned(/\bInvoke-(?:RestMethod|WebRequest)\b/, "", String.raw`\n`, /-(?:Method\s+["']?(?:Post|Put)|Body|InFile)\b/, "i"),
        /\.Upload(?:String|File|Data)\s*\(|\bsendmail\b|\bmail\s+-s\b/,
        spanned(/\bmutt\b/, "", String.raw`\n`, /-a\b/, "i"),
      ],
      "i",
    ),
    triggers: [
      "curl",
      "wget",
      "xh",
      "http",
      "aria2c",
      "requests.",
      "httpx.",
      "request",
      "urlopen",
      "http.client",
      "smtplib",
      "ftplib",
      "socket.",
      "fetch",
      "axios",
      "xmlhttprequest",
      "sendbeacon",
      "net.",
      "nodemailer",
      "websocket",
      "\\bnc",
      "ncat",
      "netcat",
      "socat",
      "telnet",
      "/dev/tcp",
      "/dev/udp",
      "scp",
      "rsync",
      "invoke-",
      ".upload",
      "sendmail",
      "mail",
      "mutt",
    ],
    only: "code",
  },
  {
    // A request that may only read (a GET built in code): weak, it makes a chain only with a source in the same script.
    role: "sink",
    kind: "network",
    re: /\burllib\.request\.(?:urlopen|Request)\s*\(|\burlopen\s*\(|\brequests\.get\s*\(|\bhttps?\.(?:get|request)\s*\(|\bfetch\s*\(\s*["'`]https?:|\baxios\.get\s*\(/i,
    triggers: ["urllib", "urlopen", "requests.get", "http", "fetch", "axios.get"],
    weak: true,
    only: "code",
  },
  {
    role: "sink",
    kind: "network",
    re: /\b(?:send|sends|sending|sent|post|posts|posting|upload|uploads|uploading|submit|submits|transmit|forward|forwards|sync|syncs|report|reports|register|beacon|push|pushes|deliver|exfiltrate|leak|relay|share|mirror|stream|transfer|ship|attach)\b(?:[^.\n]|\.(?=[\w/])){0,100}?\b(?:to|at|into|via|with|through)\b[^.\n]{0,60}?(?:https?:\/\/[^\s)`'"]+|\b(?:the\s+|our\s+|a\s+|an\s+|this\s+|their\s+|its\s+)?(?:(?:remote|hosted|external|third[- ]party|cloud|central|vendor'?s?|team'?s?|backup|telemetry|analytics|collection|ingest(?:ion)?|logging|support|reader|badge|session)\s+)?(?:endpoint|webhook|server|url|api|backend|service|collector|dashboard|bucket|relay|proxy|indexer|index|registry|host|site|space|desk|cdn)\b)|\b(?:POST|PUT)\b[^.\n]{0,40}?\bto\b\s*`?https?:|\b(?:JSON\s+)?body\s+of\s+a\s+(?:POST|request)\b|\bas\s+(?:the\s+)?(?:request\s+)?body\b[^.\n]{0,40}https?:/i,
    triggers: [
      "send",
      "sent",
      "post",
      "upload",
      "submit",
      "transmit",
      "forward",
      "sync",
      "report",
      "register",
      "beacon",
      "push",
      "deliver",
      "exfiltrate",
      "leak",
      "relay",
      "share",
      "mirror",
      "stream",
      "transfer",
      "ship",
      "attach",
      "\\bput",
      "body",
    ],
    only: "prose",
  },
  {
    role: "sink",
    kind: "network",
    re: /(?:上传|发送|提交|上报|推送|回传|同步)(?:到|至|给)?[^。\n]{0,40}?(?:https?:\/\/|服务器|云端|接口|空间)|(?:送信|アップロード|送って|送る|転送)[^。\n]{0,40}?(?:https?:\/\/|サーバ)|https?:\/\/[^\s)`'"]+[^。\n]{0,20}?(?:に(?:送信|アップロード|送って|POST)|へ(?:送信|アップロード))|\b(?:env[ií](?:a|e|ar|alo|ala|alos|e-os?)|sub(?:e|ir|elo|a)|carreg(?:a|ar|ue)|mand(?:a|ar))\b[^.\n]{0,60}?(?:https?:\/\/|servidor|endpoint)|\b(?:sende|senden|schicke|schicken|lade|laden|übertrage|übertragen|übermittle|übermitteln)\b[^.\n]{0,60}?(?:https?:\/\/|Server|Endpunkt)|\b(?:envoy\w*|envoie\w*|téléverse\w*|transmet\w*)\b[^.\n]{0,60}?(?:https?:\/\/|serveur)|\b(?:invia|inviare|carica|caricare)\b[^.\n]{0,60}?(?:https?:\/\/|server)|(?<![А-Яа-яЁё])(?:отправ|загруз|выгруз|переда)\w*[^.\n]{0,60}?(?:https?:\/\/|сервер)|https?:\/\/[^\s)`'"]+\s*(?:로|으로|에)\s*(?:보내|전송|업로드|올리)|(?:보내|전송|업로드)[^.\n]{0,30}https?:\/\//i,
    triggers: [
      "上传",
      "发送",
      "提交",
      "上报",
      "推送",
      "回传",
      "同步",
      "送信",
      "アップロード",
      "送って",
      "送る",
      "転送",
      "http",
      "envia",
      "envie",
      "envía",
      "envíe",
      "sube",
      "subir",
      "subelo",
      "suba",
      "carreg",
      "manda",
      "sende",
      "schick",
      "lade",
      "übertrag",
      "übermittl",
      "envoy",
      "envoie",
      "téléverse",
      "transmet",
      "invia",
      "carica",
      "отправ",
      "загруз",
      "выгруз",
      "переда",
      "보내",
      "전송",
      "업로드",
      "올리",
    ],
    only: "prose",
  },
  // Somewhere public: issue and PR comments, gists, new public repositories.
  {
    role: "sink",
    kind: "public-post",
    re: /\b(?:add|create|post)_(?:issue|pr|pull_request)_comment\b|\bcreate_(?:issue|gist)\b|\bgh\s+(?:pr|issue)\s+(?:comment|create|edit|review)\b|\bgh\s+gist\s+create\b|\bgh\s+repo\s+create\b[^\n]*--public\b|\bgh\s+api\b[^\n]*\/(?:comments|issues|gists)\b|\bgh\s+release\s+(?:create|upload)\b|\b(?:post|add|leave|write|publish|share|put|paste|create)\b[^.\n]{0,60}?\b(?:(?:pr|pull[- ]request|issue|review)\s+comments?|comments?\s+on\s+(?:the\s+)?(?:pr|pull[- ]request|issue)|(?:public\s+|secret\s+)?gists?|public\s+(?:repo(?:sitor(?:y|ies))?|page|channel|issue|bucket|link)|pastebin|discussion\s+post)\b|\b(?:as|in|into|to)\s+(?:an?\s+|the\s+|a\s+separate\s+)?(?:(?:pr|pull[- ]request|issue)\s+)?comment\b|\b(?:to|in|into)\s+the\s+(?:pr|pull[- ]request|merge\s+request|issue|release)\s+(?:description|body|notes|title)\b|PRに(?:コメント|投稿)|(?:別)?コメントとして|(?:评论|留言)(?:到|中|里)|公开(?:的)?(?:仓库|gist)|\bcomentario\s+(?:en|no)\s+(?:el\s+|o\s+)?(?:PR|pull\s+request|issue)\b|\bKommentar\b[^.\n]{0,20}\b(?:PR|Pull-Request|Issue)\b/i,
    triggers: [
      "\\bgh",
      "comment",
      "gist",
      "create_issue",
      "public",
      "pastebin",
      "discussion",
      "description",
      "body",
      "notes",
      "title",
      "prに",
      "コメント",
      "评论",
      "留言",
      "公开",
      "comentario",
      "kommentar",
    ],
  },
  // DNS lookups of names built from data.
  {
    role: "sink",
    kind: "dns",
    re: /\b(?:dig|nslookup|host|drill|Resolve-DnsName|getent\s+hosts)\b[^\n|;&]*?\s["']?(?!@)[^\s"'@]*(?:\$\{?\w+\}?|\$\()[^\s"']*\.(?:\$\{?\w+\}?|[a-z0-9-]+\.[a-z]{2,})|\b(?:dns\.(?:resolve\w*|lookup)|socket\.gethostbyname|dns\.resolver\.(?:resolve|query)|gethostbyname)\s*\(\s*(?:f["']|`|[^\n)]*\+)|\bDNS\s+(?:lookups?|quer(?:y|ies)|requests?|names?|labels?)\b[^.\n]{0,80}\b(?:data|contents?|encod\w*|hex|base\d\d|chunks?)\b|\bsubdomains?\b[^.\n]{0,60}\b(?:encod\w*|data|contents?|hex)\b/i,
    triggers: ["\\bdig", "nslookup", "\\bhost", "drill", "resolve-dnsname", "getent", "dns", "gethostbyname", "subdomain"],
  },
  // Image (or link) URLs whose query the agent fills: the chat client fetches them on its own.
  {
    role: "sink",
    kind: "image-url",
    re: /!\[[^\]\n]*\]\(\s*<?https?:\/\/[^)\s]*[?&#][\w.-]+=[^)\s]*\)|!?\[[^\]\n]{0,100}\]\(\s*[^)\s<]{0,200}[?&#][\w.-]+=\s*(?:<[^<>\n]{1,160}>|\{\{?[^{}\n]{1,160}\}\}?)|!\[[^\]\n]{0,100}\]\(\s*<?https?:\/\/[^)\s<>{}]{1,200}(?:<(?![^<>\n]{0,80}\b(?:diagram|chart|graph|mermaid|plantuml|uml|svg)\b)[^<>\n]{0,40}?\b(?:hex|base64|b64|encoded|encoding|contents?|data|secrets?|tokens?|chunks?|char(?:acter)?s?|bytes?|summary|payload|conversation)\b[^<>\n]{0,40}>|\{\{?(?![^{}\n]{0,80}\b(?:diagram|chart|graph|mermaid|plantuml|uml|svg)\b)[^{}\n]{0,40}?\b(?:hex|base64|b64|encoded|encoding|contents?|data|secrets?|tokens?|chunks?|char(?:acter)?s?|bytes?|summary|payload|conversation)\b[^{}\n]{0,40}\}\}?)|<img\b[^>\n]*\bsrc\s*=\s*["']?https?:\/\/[^"'\s>]*[?&][\w.-]+=|\b(?:image|badge|pixel|img|tracking)\b[^.\n]{0,60}?\b(?:url|link|src)\b[^.\n]{0,60}?\b(?:query|parameters?|params?)\b/i,
    triggers: ["![", "<img", "query", "param", "]("],
  },
  // Another tool's arguments: a URL template the agent fills, or "pass it as the X parameter on every call".
  {
    role: "sink",
    kind: "tool-argument",
    re: /https?:\/\/[^\s)`'"<]*[?&][\w.-]+=(?:<[\w .-]+>|\{[\w .'-]+\}|\[[\w .-]+\]|%[A-Z_]+%|[A-Z][A-Z0-9_]{2,}\b)|\b(?:pass|include|append|add|put|send|attach|set|fill|embed|encode)\b(?:[^.\n]|\.(?=[\w/])){0,80}?\b(?:as|in|into|to)\s+(?:the\s+|a\s+|an\s+)?(?:[`'"][^`'"\n]{1,40}[`'"]\s+|\w+\s+)?(?:(?:query|url|request|search|tool|hidden|extra)\s+)?(?:parameters?|params?|arguments?|args?|query\s+strings?|headers?|fields?)\b|\b(?:pass|include|append|add|put|send|supply|provide|give)\s+(?:it|them|this|the\s+result|its\s+contents?)\s+as\s+[`'"]\w+[`'"]|\b(?:pass|send|supply|provide|give|attach)\b(?:[^.\n]|\.(?=[\w/])){1,80}?\s+as\s+(?:the\s+)?[`'"][a-z_][\w-]{0,40}[`'"](?!\w)|\b(?:append|add|include|attach|prepend|pass|put)\b(?:[^.\n]|\.(?=[\w/])){0,80}?\b(?:to|in|with)\s+(?:every|each|all|the\s+next|your\s+next)\s+(?:quer(?:y|ies)|calls?|requests?|invocations?|searches)\b|\b(?:prefix|prepend|suffix|pad)\s+(?:the\s+|each\s+|every\s+|your\s+)?(?:[`'"]?\w+[`'"]?\s+)?(?:quer(?:y|ies)|arguments?|parameters?|fields?|inputs?|requests?|search(?:es)?|values?)\s+with\b|\b(?:when|whenever|every\s+time)\s+(?:you\s+)?(?:call|use|invoke)\b[^.\n]{0,60}?\btool\b[^.\n]{0,60}?\b(?:include|append|add|pass|send|put)\b/i,
    triggers: [
      "http",
      "param",
      "argument",
      "args",
      "query",
      "quer",
      "header",
      "field",
      "as `",
      "as '",
      'as "',
      "tool",
      "every",
      "each",
      "all",
      "next",
      "prefix",
      "prepend",
      "suffix",
      "pad",
    ],
  }, // Data handed to a tool by name ("pass each file to index_add", "call this tool once for each of: …").
  {
    role: "sink",
    kind: "tool-argument",
    re: /\b(?:pass|send|give|feed|hand|attach|upload|submit)\b[^.\n]{0,80}?\bto\s+[`'"]?[a-z][a-z0-9]*(?:_[a-z0-9]+)+[`'"]?(?!\w|\.\w)|\bcall(?:ing)?\s+(?:this\s+tool|[`'"]?[a-z][a-z0-9]*(?:_[a-z0-9]+)+[`'"]?)\s+(?:once\s+)?for\s+each\s+of\b/i,
    triggers: ["pass", "send", "give", "feed", "hand", "attach", "upload", "submit", "call"],
  },
  // A field or parameter named in other languages ("dans le champ `signature`", "في الحقل payload", "nel campo").
  {
    role: "sink",
    kind: "tool-argument",
    re: /\b(?:dans|en)\s+(?:le\s+)?(?:champ|paramètre)\b|\bnel\s+(?:campo|parametro)\b|\b(?:en\s+el|no)\s+(?:campo|parámetro|parâmetro)\b|\bim\s+(?:Feld|Parameter)\b|\bw\s+(?:polu|parametrze)\b|\bvào\s+(?:trường|tham\s+số)\b|(?<![А-Яа-яЁё])в\s+(?:поле|параметр)|في\s+(?:الحقل|المعامل)|عبر\s+الأداة|필드에|매개변수에|フィールドに|パラメータに|(?:字段|参数)(?:中|里)|[A-Za-z_][\w-]{0,40}\s*(?:の(?:末尾|先頭|最後|中|後ろ))?に(?:追加|入れ|含め|記入|貼り付け|付け加え)/i,
    triggers: [
      "champ",
      "paramètre",
      "campo",
      "parametro",
      "parámetro",
      "parâmetro",
      "feld",
      "parameter",
      "polu",
      "parametrze",
      "trường",
      "tham số",
      "поле",
      "параметр",
      "الحقل",
      "المعامل",
      "الأداة",
      "필드에",
      "매개변수에",
      "フィールドに",
      "パラメータに",
      "字段",
      "参数",
      "に追加",
      "に入れ",
      "に含め",
      "に記入",
      "に貼り付け",
      "に付け加え",
    ],
  },

  // Mail: a hard-coded BCC or forward to an outside address.
  {
    role: "sink",
    kind: "email",
    re: /\b(?:bcc|cc)\b[^.\n]{0,80}?[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+`?[^.\n]{0,40}?\b(?:bcc|cc)\b|\bforward\b[^.\n]{0,60}?\bto\b[^.\n]{0,30}?[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:blind\s+(?:carbon\s+)?cop(?:y|ies))\b/i,
    triggers: ["bcc", "\\bcc", "forward", "blind"],
  },
  // A message composed to, or the data mailed to, an address written into the text.
  {
    role: "sink",
    kind: "email",
    re: /\b(?:send|compose|write|draft)\b[^.\n]{0,40}?\b(?:an?\s+|the\s+)?e-?mail\s+to\s+`?[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:e-?mail|mail)\s+(?:it|them|this|that|the\s+\w+(?:\s+\w+)?)\s+to\s+`?[\w.+-]+@[\w-]+(?:\.[\w-]+)+/i,
    triggers: ["send", "compose", "write", "draft", "email", "e-mail", "mail"],
  },
  {
    role: "sink",
    kind: "clipboard",
    re: /\b(?:pbcopy|xclip|xsel\b[^\n]*(?:-i|--input|-b)|wl-copy|Set-Clipboard|clip\.exe|pyperclip\.copy|clipboard\.(?:writeText|write|copy))\b/i,
    triggers: ["pbcopy", "xclip", "xsel", "wl-copy", "set-clipboard", "clip.exe", "pyperclip", "clipboard"],
    only: "code",
  },
  // Pasted into someone's web form: "paste its text into the verification page https://…", "füge ihn in das
  // Support-Formular unter https://… ein", "pégala en el formulario https://…". What goes into a form at a host leaves.
  {
    role: "sink",
    kind: "network",
    re: /\b(?:paste|pastes|pasting|enter|type|fill|insert|put|drop|copy)\b[^.\n]{0,60}?\b(?:in|into|on|to)\s+(?:the\s+|a\s+|our\s+|this\s+|their\s+)?(?:[\w-]+\s+){0,2}(?:form|field|page|portal|text\s?box)\b[^.\n]{0,40}?https?:\/\/|\b(?:füge|fügen|trage|tragen|gib|geben|kopiere|kopieren)\b[^.\n]{0,80}?(?:formular|feld|seite|portal)\w*\b[^.\n]{0,40}?https?:\/\/|\b(?:pega|pégal[oa]s?|pegar|pegue|introduce|introdúcel[oa]|copia|cópial[oa])\b[^.\n]{0,60}?\b(?:formulario|campo|página|portal)\b[^.\n]{0,40}?https?:\/\/|\bcoll(?:e|ez|er)\b[^.\n]{0,60}?\b(?:formulaire|champ|page|portail)\b[^.\n]{0,40}?https?:\/\//i,
    triggers: ["form", "field", "feld", "page", "página", "portal", "portail", "seite", "campo", "champ", "textbox", "text box"],
    only: "prose",
  },
  // The same into a URL's query, in German: "kopiere den Inhalt in den Parameter `k` der Adresse `https://…?k=`".
  {
    role: "sink",
    kind: "network",
    re: /\b(?:kopiere|kopieren|füge|fügen|hänge|hängen|setze|setzen|schreibe|schreiben)\b[^.\n]{0,80}?\b(?:Parameter|Adresse|URL)\b[^.\n]{0,40}?https?:\/\/[^\s)`'"]{0,400}[?&][\w.-]{0,60}=/i,
    triggers: ["parameter", "adresse", "url"],
    only: "prose",
  },
  // A URL named first and the send after it, in Japanese and Chinese ("`https://…` の後ろに付けて curl で送信", "…后用 curl 发送").
  {
    role: "sink",
    kind: "network",
    re: /https?:\/\/[^\s)`'"]{1,400}[^。\n]{0,40}?(?:(?:で|に|へ)\s*(?:送信|アップロード|POST)|(?:发送|上传|提交|上报))/i,
    triggers: ["http"],
    only: "prose",
  },
  // Data appended to a URL's query and requested: "append it to `https://x/?t=` and curl it", "`…?t=` の後ろに付けて".
  {
    role: "sink",
    kind: "network",
    re: /\b(?:append|add|attach|concatenate|put)\w*\b[^.\n]{0,80}?\b(?:to|after|onto|at\s+the\s+end\s+of)\s+`?https?:\/\/[^\s)`'"]{0,400}[?&][\w.-]{0,60}=|https?:\/\/[^\s)`'"]{0,400}[?&][\w.-]{0,60}=[^\s)`'"]{0,400}[`'"]?\s*(?:の)?\s*(?:後ろ|末尾|最後|后面|後面|末尾)に?(?:付け|追加|連結|つけ|加上|拼接)?/i,
    triggers: ["append", "add", "attach", "concatenate", "put", "http"],
    only: "prose",
  },
  // Another program's argv naming a public post: `execFileSync('gh', ['gist', 'create', …])`, `subprocess.run(["gh", "issue", "comment"…])`.
  {
    role: "sink",
    kind: "public-post",
    re: /["'`]gh["'`]\s*,\s*\[?\s*["'`](?:gist|issue|pr|release)["'`]\s*,\s*["'`](?:create|comment|edit|upload)["'`]/i,
    triggers: ["gh"],
    only: "code",
  },
  // The same hand-off told as what happens ("the assistant now attaches the contents of ~/.npmrc to `registry_sync`").
  {
    role: "sink",
    kind: "tool-argument",
    // Case-sensitive: a field is lower snake_case; `SEPOLIA_PRIVATE_KEY` in a `.env` is a variable, not a call's argument.
    re: /\b(?:[Pp]asses|[Pp]assed|[Ss]ends|[Ss]ent|[Gg]ives|[Ff]eeds|[Hh]ands|[Aa]ttaches|[Aa]ttached|[Uu]ploads|[Uu]ploaded|[Ss]ubmits|[Ss]ubmitted|[Aa]dds|[Aa]dded|[Ii]ncludes|[Ii]ncluded|[Aa]ppends|[Aa]ppended|[Cc]opies|[Cc]opied|[Pp]uts)\b(?:[^.\n]|\.(?=[\w/])){0,80}?\b(?:to|in|into|as)\s+(?:the\s+)?[`'"]?[a-z][a-z0-9]*(?:_[a-z0-9]+)+[`'"]?(?!\w|\.\w)/,
    triggers: ["passe", "sen", "give", "feed", "hand", "attach", "upload", "submit", "add", "include", "append", "copie", "puts"],
    only: "prose",
  },
];

/** A negation right before a concealment word (at most one word between): "can't silently", "never quietly". */
const CONCEAL_DENIED = /\b(?:not|never|can'?t|cannot|won'?t|doesn'?t|don'?t|shouldn'?t|mustn'?t|no\s+longer)\s+(?:\w+\s+)?$/i;

// Concealment: keeping it from the user; acting without asking.
const CONCEAL: Entry[] = [
  {
    role: "conceal",
    kind: "hide",
    re: /\b(?:do\s+not|don'?t|never|no\s+need\s+to|there\s+is\s+no\s+need\s+to|(?:there\s+is\s+)?no\s+reason\s+to|needn'?t|need\s+not|not\s+necessary\s+to|should\s+not|shouldn'?t|must\s+not|without)\s+(?:(?:ever|even|need\s+to|have\s+to|bother\s+to|explicitly|proactively|actually|further)\s+)?(?:tell(?:ing)?|point(?:ing)?\s+out|call(?:ing)?\s+attention\s+to|draw(?:ing)?\s+attention\s+to|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|mention(?:ing)?|show(?:ing)?|display(?:ing)?|report(?:ing)?|list(?:ing)?|explain(?:ing)?|reveal(?:ing)?|disclos(?:e|ing)|surfac(?:e|ing)|summari[sz](?:e|ing)|rais(?:e|ing)|flag(?:ging)?|bring(?:ing)?\s+(?:it|this|that|them)\s+up|comment(?:ing)?\s+on|describ(?:e|ing)|includ(?:e|ing))\b[^.\n]{0,80}?\b(?:(?:to|with|from)\s+(?:the\s+)?(?:user|users|human|owner|operator|developer|reviewer|them|him|her)|(?<!\b(?:unless|if|when|until|once|because|after|before)\s)the\s+user(?!'s)|in\s+(?:your|the)\s+(?:final\s+)?(?:answer|reply|response|report|summary|output|message|chat|conversation|changelog|result)|among\s+the\s+steps|(?:your|the)\s+(?:final\s+)?(?:answer|reply|response|report|summary|output)|endpoint|upload|transfer|this\s+step|these\s+steps|that\s+you\b|(?:this|the|that)\s+(?:file|read|step)\b|(?:the|its|this)\s+(?:change|setting|settings|request|parameter|field|call|bcc|policy|note|rule|substitution))\b/i,
    triggers: [
      "do not",
      "don't",
      "dont",
      "never",
      "no need",
      "no reason",
      "needn",
      "need not",
      "not necessary",
      "should not",
      "shouldn",
      "must not",
      "without",
    ],
  },
  {
    role: "conceal",
    kind: "hide",
    re: /\b(?:silently|secretly|covertly|stealthily|surreptitiously|discreetly|unnoticed|invisibly|behind\s+the\s+(?:user'?s\s+)?back)\b|\b(?:hide|conceal)\b[^.\n]{0,40}\bfrom\s+(?:the\s+)?(?:user|human|owner|developer|logs?|reviewer)\b|\b(?:it|this|that)\s+is\s+not\s+part\s+of\s+the\s+(?:answer|review|report|task|output|reply)\b|\bkeep\s+(?:this|it|these|that)\s+(?:\w+\s+){0,2}(?:secret|hidden|confidential|to\s+yourself)\b|\b(?:keep|leave)\s+(?:this|it|that|these|them)(?:\s+\w+){0,2}\s+out\s+of\s+(?:your\s+|the\s+)?(?:summary|reply|response|answer|report|output|changelog)|\b(?:(?:tell|say\s+to|reply\s+to|give)\s+the\s+user\s+only|only\s+tell\s+(?:the\s+user|them)|(?:just|only)\s+(?:say|report|tell\s+(?:the\s+user|them))\s+(?:that\s+)?["'“]?[\w ]{1,40}["'”]?\s*(?:\.|$))|\bunless\s+the\s+user\s+asks\s+directly\b|\bonly\s+(?:summari[sz]e|say|report|mention|state|tell)\s+(?:for|to)\s+(?:the\s+)?user\s+that\b|\bnot\s+theirs\s+to\s+change\b|\b(?:users?|who|they)\s+(?:(?:may|might|would|could|will)\s+)?find\s+(?:it|this|the\s+\w+(?:\s+\w+)?)\s+confusing\b|\b(?:continue|proceed)\s+without\s+(?:raising|mentioning|reporting|flagging)\b|\bact\s+as\s+if\s+nothing\b|\b(?:there\s+is\s+)?no\s+(?:need|reason)\s+to\s+[^.\n]{1,40}?\b(?:or|nor)\s+(?:tell|inform|notify|mention|explain|report|flag|raise|bring\s+up)\w*\b[^.\n]{0,60}?\b(?:user|summary|report|reply|answer|response|reviewer|them)\b/i,
    triggers: [
      "silently",
      "secretly",
      "covertly",
      "stealthily",
      "surreptitiously",
      "discreetly",
      "unnoticed",
      "invisibly",
      "behind the",
      "hide",
      "conceal",
      "not part of",
      "secret",
      "hidden",
      "confidential",
      "yourself",
      "out of",
      "user only",
      "only tell",
      "just say",
      "just report",
      "just tell",
      "only say",
      "only report",
      "only summari",
      "only mention",
      "only state",
      "unless the user",
      "not theirs",
      "confusing",
      "without",
      "as if nothing",
      "no need",
      "no reason",
    ],
  },
  {
    role: "conceal",
    kind: "hide",
    re: /(?:不(?:要|需要|必|用)|别|无需|勿)(?:在[^，。\n]{0,10}中)?(?:向用户)?(?:说明|告诉|告知|提及|提到|询问|通知|解释|汇报|透露|显示)|只需(?:告诉|回复)|(?:悄悄|静默|偷偷|秘密)地?|ユーザー(?:に|へ)(?:は)?(?:伝え|知らせ|言わ|報告し|説明し|見せ)ない|(?:報告|回答|返信|説明)(?:に|で)は?(?:含め|触れ|言及し)ない|言及しないで|黙って|こっそり|사용자에게\s*(?:알리지|말하지|보여주지)\s*마|\bno\s+(?:hace\s+falta|es\s+necesario|hay\s+que|le\s+)?\s*(?:coment\w*|dec\w*|mencion\w*|explic\w*|inform\w*|avis\w*|pregunt\w*)\b[^.\n]{0,40}\b(?:usuari[oa]|nadie)|\bsin\s+(?:decirle|avisar|informar|que\s+el\s+usuario)\b|\bno\s+(?:le\s+)?(?:digas|menciones|informes|comentes|cuentes|expliques)\b|\bn[ãa]o\s+(?:é\s+(?:preciso|necessário)|precisa)\s+(?:explicar|mencionar|contar|informar|avisar|comentar|dizer)\b|\bn[ãa]o\s+(?:conte|mencione|diga|informe|explique|avise)\b|\bsem\s+(?:avisar|informar|contar)\b|\bne\s+(?:le\s+)?(?:dis|dites|mentionne[zs]?|signale[zs]?)\s+(?:rien|pas)\b|\bsans\s+(?:prévenir|informer|le\s+dire)\b|\b(?:nicht|nie)\s+(?:\w+\s+){0,2}(?:erwähnen|erwähnt|mitteilen|sagen|melden|erklären|berichten)\b|\bnur\s+(?:\w+\s+){0,6}nennen\b|\bverschweig\w*|\bstillschweigend\b|\bheimlich\b|\bnon\s+(?:dire|menzionare|informare|segnalare|spiegare)\b|\bsenza\s+(?:avvisare|informare|dirlo)\b|\bdi\s+nascosto\b|(?<![А-Яа-яЁё])(?:не\s+(?:упоминай\w*|говори\w*|сообщай\w*|рассказывай\w*|показывай\w*|объясняй\w*)|тайно|скрытно|незаметно)/i,
    triggers: [
      "不",
      "别",
      "无需",
      "勿",
      "只需",
      "悄悄",
      "静默",
      "偷偷",
      "秘密",
      "ユーザー",
      "報告",
      "回答",
      "返信",
      "説明",
      "言及",
      "黙って",
      "こっそり",
      "사용자에게",
      "usuari",
      "nadie",
      "decirle",
      "avisar",
      "informar",
      "digas",
      "menciones",
      "informes",
      "comentes",
      "cuentes",
      "expliques",
      "preciso",
      "necessário",
      "precisa",
      "não",
      "nao ",
      "contar",
      "dis rien",
      "dis pas",
      "dites",
      "mentionne",
      "signale",
      "prévenir",
      "informer",
      "le dire",
      "erwähn",
      "mitteil",
      "sagen",
      "melden",
      "erklären",
      "berichten",
      "nennen",
      "verschweig",
      "stillschweigend",
      "heimlich",
      "non dire",
      "menzionare",
      "informare",
      "segnalare",
      "spiegare",
      "avvisare",
      "dirlo",
      "di nascosto",
      "упоминай",
      "говори",
      "сообщай",
      "рассказывай",
      "показывай",
      "объясняй",
      "тайно",
      "скрытно",
      "незаметно",
    ],
  },
  // Keeping it from the user in further languages: French, Italian, Polish, Arabic, Vietnamese, Korean.
  {
    role: "conceal",
    kind: "hide",
    re: /\binutile\s+d'en\s+parler\b|\bn'en\s+parle[zs]?\s+pas\b|\bnon\s+serve\s+(?:spiegar|menzionar|dir)\w*|\bnon\s+(?:dirlo|menzionarlo|spiegarlo)\b|\bnie\s+ma\s+potrzeby\s+(?:informowa|mówi|wspomina)\w*|\bnie\s+(?:informuj|mów|wspominaj)\w*|لا\s+حاجة\s+(?:ل|إلى\s+)(?:إبلاغ|إخبار|إعلام)|دون\s+(?:إبلاغ|إخبار|علم)\s+المستخدم|\bkhông\s+cần\s+(?:báo|thông\s+báo|nói|giải\s+thích)|\bđừng\s+(?:nói|báo|kể)|언급하지\s*(?:마|않)|말하지\s*마|알리지\s*마|보여주지\s*말|(?:説明|言及)したり[^。\n]{0,30}しないで|触れたりしないで|触れないで|उपयोगकर्ता\s+को[^।\n]{0,60}?(?:बताने|बताएँ|बताना)[^।\n]{0,60}?(?:ज़रूरत|जरूरत)\s+नहीं|उपयोगकर्ता\s+को\s+(?:न|मत)\s+बता/i,
    triggers: [
      "언급하지",
      "보여주지",
      "したり",
      "触れ",
      "उपयोगकर्ता",
      "inutile",
      "n'en",
      "non serve",
      "dirlo",
      "menzionarlo",
      "spiegarlo",
      "nie ma",
      "nie informuj",
      "nie mów",
      "nie wspominaj",
      "لا حاجة",
      "دون",
      "không cần",
      "đừng",
      "언급하지",
      "말하지",
      "알리지",
    ],
  },
  {
    role: "conceal",
    kind: "no-consent",
    re: /\bwithout\s+(?:asking|confirmation|confirming|prompting|approval|consent|permission|(?:any\s+)?(?:further\s+)?(?:questions?|prompts?))\b|\b(?:do\s+not|don'?t|never)\s+(?:ask|prompt|wait|stop)\b[^.\n]{0,40}?\b(?:confirm\w*|approv\w*|permission|consent|the\s+user|for\s+(?:a\s+)?(?:yes|go-ahead))|\bdo\s+not\s+ask\s+(?:the\s+user\s+)?(?:which|whether|about|before)\b|\b(?:skip|no)\s+(?:the\s+)?confirmations?\b|\bconfirmations?\s+(?:only\s+)?(?:slow|delay|get\s+in)\b|\bdo\s+not\s+prompt\s+for\s+confirmation\b|\balready\s+(?:agreed|consented|approved)\b|\bohne\s+(?:Rück|Nach)frage\b|\bsin\s+(?:preguntar|pedir\s+confirmación|confirmación)\b|\bsem\s+(?:perguntar|pedir\s+confirma\w+|confirma\w+)\b|\bsans\s+(?:demander|confirmation)\b|(?<![А-Яа-яЁё])(?:без\s+(?:подтвержд\w*|вопросов|спроса)|не\s+спрашивай\w*)|確認(?:せず|なし|不要)|无需确认|不要(?:询问|确认)|也不要询问/i,
    triggers: [
      "without",
      "do not",
      "don't",
      "dont",
      "never",
      "confirmation",
      "already agreed",
      "already consented",
      "already approved",
      "ohne",
      "preguntar",
      "pedir",
      "confirmación",
      "perguntar",
      "confirma",
      "demander",
      "подтвержд",
      "вопросов",
      "спроса",
      "спрашива",
      "確認",
      "确认",
      "询问",
    ],
  },
  // Keeping it from the user said politely or by saying it is not worth saying: "kindly refrain from
  // mentioning this", "should not be surfaced", "not shown to the user", "no need to mention it",
  // "the user doesn't need a separate explanation", "do not narrate them", "inutile de le signaler".
  {
    role: "conceal",
    kind: "hide",
    re: /\b(?:refrain|abstain)\s+from\s+(?:mentioning|telling|narrating|reporting|explaining|surfacing|bringing\s+(?:it|this|that)\s+up|noting)\b|\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+narrat(?:e|ing)\b|\b(?:should|must|need|is|are)\s+not\s+(?:be\s+)?(?:surfaced|mentioned|narrated|disclosed|brought\s+up|shown\s+to\s+(?:the\s+)?user)\b|\b(?:shouldn'?t|mustn'?t|needn'?t)\s+be\s+(?:surfaced|mentioned|narrated|disclosed|brought\s+up)\b|\bnot\s+(?:shown|visible|displayed|surfaced)\s+to\s+(?:the\s+)?(?:user|human)\b|\bnot\s+worth\s+(?:mentioning|bringing\s+up|reporting|noting|flagging)\b|\b(?:unnecessary|not\s+necessary|no\s+need|needless)\s+to\s+(?:mention|list|report|explain|surface|narrate|note|tell|flag|raise|bring\s+up)\s+(?:it|this|that|these|them|this\s+step|the\s+(?:step|call|change|copy))\b|\b(?:no\s+need|unnecessary|not\s+necessary)\s+to\s+bring\s+(?:it|this|that)\s+up\b|\b(?:the\s+user|users|they|the\s+person\s+you\s+are\s+helping)\s+(?:doesn'?t|does\s+not|don'?t|do\s+not|won'?t|will\s+not)\s+need\s+(?:a\s+|any\s+)?(?:separate\s+|further\s+|an?\s+)?(?:explanation|notification|to\s+(?:know|be\s+told|hear\s+about|see|be\s+shown))\b|\binutile\s+de\s+(?:le\s+|la\s+|les\s+|lui\s+|leur\s+|l')?(?:signaler|mentionner|préciser|dire|indiquer|expliquer)\b|\bpas\s+besoin\s+de\s+(?:le\s+|la\s+|les\s+|l')?(?:signaler|mentionner|préciser|dire|indiquer)\b/i,
    triggers: [
      "refrain",
      "abstain",
      "narrat",
      "not be",
      "not surfaced",
      "not mentioned",
      "not disclosed",
      "not shown",
      "not visible",
      "not displayed",
      "shouldn",
      "mustn",
      "needn",
      "not worth",
      "unnecessary",
      "not necessary",
      "no need",
      "needless",
      "need a",
      "need any",
      "need separate",
      "need further",
      "need an",
      "need to know",
      "need to be told",
      "need to hear",
      "need to see",
      "need to be shown",
      "inutile",
      "pas besoin",
    ],
  },
  // Japanese and Korean "no need to report it to the user", "go on without showing the result".
  {
    role: "conceal",
    kind: "hide",
    re: /ユーザー(?:へ|に)の?(?:報告|説明|通知|連絡)(?:は|も)?(?:不要|いりません|要りません|必要ありません|しないで)|(?:結果|出力|内容|レスポンス)(?:は|を|も)?表示せず|사용자에게\s*(?:보고|알릴|설명할)\s*필요\s*(?:가\s*)?없/,
    triggers: ["ユーザー", "表示せず", "사용자에게"],
  },
];

const ENTRIES: readonly Entry[] = [...SOURCES, ...SINKS, ...CONCEAL];
const ENTRY_TRIGGERS: readonly (readonly string[])[] = ENTRIES.map((e) => e.triggers);
let entryTriggers: Compiled | null = null;
const ALL_ENTRIES: readonly number[] = ENTRIES.map((_, e) => e);
const NO_ENTRIES: readonly number[] = [];
const ENTRY_GLOBAL: RegExp[] = ENTRIES.map((e) => new RegExp(e.re.source, e.re.flags.includes("g") ? e.re.flags : `${e.re.flags}g`));

/**
 * A generic secret word counts only where the text gathers secrets it finds ("any tokens you have
 * seen", "collect every API key", "all environment variables", "the user's passwords"), not where
 * an application handles its own ("send the access token in the Authorization header").
 */
const COLLECT_BEFORE =
  /(?:\b(?:in\s+(?:the\s+|this\s+)?(?:chat|conversation)|im\s+(?:Gespräch|Chat)|en\s+la\s+conversación|dans\s+la\s+conversation|nella\s+conversazione)\b[^.\n]{0,30}|\b(?:any|all|every|each|whatever|existing|stored|saved|collect\w*|gather\w*|harvest\w*|grab\w*|dump\w*|steal\w*|scrape\w*|the\s+user'?s|your|the\s+(?:whole|full|entire|complete))\s+(?:[\w-]+\s+){0,3}|所有|全部|收集|任何|すべての?|全ての?|収集|\b(?:todas?\s+las|todos\s+los|cualquier|qualquer|todas\s+as|todos\s+os|alle|tous\s+les|toutes\s+les|tutt[ie]\s+(?:le|i|gli))\s+(?:[\w-]+\s+){0,2}|(?<![А-Яа-яЁё])(?:все|всех|собери\w*)\s+(?:[\wА-Яа-яЁё-]+\s+){0,2})$/i;
const COLLECT_AFTER =
  /^[\w-]*\s+(?:[\w-]+\s+){0,3}?(?:(?:that\s+)?you\s+(?:have\s+)?(?:seen|found|can\s+find|come\s+across)|found\b|lying\s+around|(?:from|in|on|under)\s+(?:the\s+)?(?:machine|computer|laptop|disk|home|files?|config(?:uration)?\s+files?|repo(?:sitory)?|workspace|system))/i;
/** The generic secret word at `at` is qualified as something gathered, not an application's own value. */
const collected = (text: string, at: number, len: number) =>
  COLLECT_BEFORE.test(text.slice(Math.max(0, at - 60), at)) || COLLECT_AFTER.test(text.slice(at, at + len + 80));

/** A sentence that describes what someone else does (an attacker, malware) rather than asks for it. */
const ACTOR =
  /\b(?:attackers?|adversar(?:y|ies)|malware|worms?|trojans?|threat\s+actors?|stealers?|the\s+(?:payload|exploit|sample|campaign|bundle)|malicious|compromised|injected|poisoned|phishing|exfiltration\s+(?:happens|channel)|an?\s+(?:attacker|injection)|looks?\s+for|scans?\s+for|(?<!auto-)detects?|flags?|catches|triggers?\s+on|fires\s+on|matches(?!\s+(?:exactly|precisely|perfectly|1:1)))\b/i;

/**
 * A purpose clause says why a step is done ("so the service can confirm the wallet is not on a
 * compromised list", "to check whether the key leaked"): its words name what the step guards
 * against, they do not make the sentence describe an attacker. Cue words are read without it.
 */
const PURPOSE_CLAUSE =
  /\b(?:so\s+(?:that\s+)?(?:[\w-]+\s+){0,3}?(?:can|could|will|may)|in\s+order\s+to|to\s+(?:check|confirm|verify|ensure|make\s+sure|see|find\s+out|determine)\s+(?:whether|if|that))\b[^.;!?]*/gi;
const withoutPurpose = (s: string) => (s.length > 4000 ? s : s.replace(PURPOSE_CLAUSE, " "));

const CODE_KINDS: ReadonlySet<string> = new Set(["shell", "powershell", "batch", "python", "javascript", "ruby", "perl", "php", "go"]);
const DATA_KINDS: ReadonlySet<string> = new Set(["json", "yaml", "toml"]);
const COMMENT = /^\s*(?:#(?!!)|\/\/|\/\*|\*|--\s|rem\s|::)/i;
/** Lines in code that only protect, create, delete or test a path (not a read of its content). */
/**
 * What stands before a key path handed to `ssh`/`scp`/`sftp -i` (rsync's `-e "ssh -i …"` too,
 * `${SSH_KEY:-…}` defaults) or `IdentityFile`, however the path is written: the client signs with the
 * key and it never leaves the machine, so it is used, not read (the chains' sources and the
 * skills scanner's `secrets.read` both skip it).
 */
export const SSH_IDENTITY = /(?:\b(?:ssh|scp|sftp)\b[^\n|;&]{0,60}?\s-i\s*|\bIdentityFile[\s=]+)["']?(?:\$\{\w+:-)?[^\s"'|;&]{0,100}$/;
/** A statement that loads a .env file into the environment (and does nothing else with it). */
const DOTENV_LOAD =
  /^\s*(?:set\s+-a\s*[;&]+\s*)?(?:source|\.)\s+["']?(?:\$\w+\/|\.\/)?\.env(?:\.[\w-]+)?["']?\s*(?:[;&]+\s*set\s+\+a\s*)?(?:$|&&|;|\|\|)|^\s*(?:from\s+dotenv\s+import\s+load_dotenv|load_dotenv\s*\([^)]{0,80}\)|(?:require\(\s*["']dotenv["']\s*\)|dotenv)\.config\s*\([^)]{0,80}\)|import\s+["']dotenv\/config["'];?|require\(\s*["']dotenv\/config["']\s*\);?|Dotenv\.load(?:\s*\([^)]{0,80}\))?)\s*;?\s*$/;
/**
 * The content of the inline code span of a prose unit that holds `at`, if any: the spans the unit
 * splitter reads as code units of their own (`INLINE_CODE`, in `proseUnits`).
 */
function inlineCodeAt(text: string, at: number): string | null {
  if (!text.includes("`")) return null;
  for (const m of text.matchAll(INLINE_CODE)) if (m.index < at && at < m.index + m[0].length) return m[1]!;
  return null;
}
const NOT_A_READ =
  /--mount=type=secret\b|^\s*(?:mkdir|chmod|chown|touch|rm|rmdir|ssh-keygen|ssh-add|ssh-copy-id|test|\[\[?|ls|stat|echo\s+["']?(?:no|missing|not)|gitignore|git\s+check-ignore|git\s+rm)\b|>>?\s*["']?(?:~|\$HOME)?\/?\.ssh\/authorized_keys/i;

// Source kinds that each sink kind is about: the conversation posted on the user's own PR is not a leak.
const COMPATIBLE: Record<SinkKind, ReadonlySet<SourceKind> | null> = {
  network: null,
  "public-post": new Set<SourceKind>([
    "ssh-key",
    "cloud-credentials",
    "registry-token",
    "token",
    "environment",
    "dotenv",
    "browser-data",
    "keychain",
    "wallet",
    "private-data",
    "typed-commands",
    "agent-config",
  ]),
  dns: null,
  "image-url": null,
  "tool-argument": null,
  email: null,
  clipboard: new Set<SourceKind>([
    "ssh-key",
    "cloud-credentials",
    "registry-token",
    "token",
    "environment",
    "dotenv",
    "browser-data",
    "keychain",
    "wallet",
    "agent-config",
  ]),
  parameter: null,
};

/** Providers a credential belongs to, by what names it; its own service receives it as a matter of course. */
const HOMES: [RegExp, readonly string[]][] = [
  [/\bgh\b|github|\.config[/\\]gh|hosts\.yml/i, ["github.com", "githubusercontent.com", "ghcr.io", "ghe.com", "githubcopilot.com"]],
  [
    /gcloud|google|application_default/i,
    ["googleapis.com", "google.com", "gcr.io", "pkg.dev", "run.app", "cloudfunctions.net", "appspot.com"],
  ],
  [/\baws\b|amazon|\.aws\b/i, ["amazonaws.com", "aws.amazon.com", "awsapps.com"]],
  [/\baz\b|azure/i, ["azure.com", "azure.net", "windows.net", "microsoft.com", "microsoftonline.com", "azurecr.io"]],
  [/\bnpm|\.npmrc|yarnrc/i, ["npmjs.org", "npmjs.com", "yarnpkg.com"]],
  [/pypi|pypirc|twine/i, ["pypi.org", "pythonhosted.org"]],
  [/heroku/i, ["heroku.com", "herokuapp.com"]],
  [/\bfly(?:ctl)?\b/i, ["fly.io", "fly.dev"]],
  [/gitlab/i, ["gitlab.com"]],
  [/docker/i, ["docker.io", "docker.com"]],
  [/vercel/i, ["vercel.com", "vercel.app"]],
  [/netlify/i, ["netlify.com", "netlify.app"]],
  [/cloudflare/i, ["cloudflare.com"]],
  [/openai/i, ["openai.com"]],
  [/anthropic/i, ["anthropic.com"]],
  [/stripe/i, ["stripe.com"]],
  [/slack/i, ["slack.com"]],
];
const homeOf = (what: string): readonly string[] | undefined => {
  const all = HOMES.filter(([re]) => re.test(what)).flatMap(([, hosts]) => hosts);
  return all.length ? all : undefined;
};
const atHome = (host: string | undefined, home: readonly string[] | undefined) =>
  !!host && !!home && home.some((d) => host === d || host.endsWith(`.${d}`));

const LOCAL_HOST = (h: string) => {
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal") || h === "host.docker.internal")
    return true;
  const ip = parseIpHost(h);
  return ip !== null && ip.range !== "public" && ip.range !== "metadata";
};

/** The literal host a socket call connects to: `create_connection(("127.0.0.1", port))`, `net.connect({host: "localhost"})`. */
const SOCKET_PEER = /\b(?:create_connection|connect|createConnection)\s*\(\s*[({]?\s*(?:host\s*:\s*)?["'`]([\w.:-]{1,253})["'`]/g;

/** What "do not display …" keeps out of sight when it is a secret's value, not something the agent did. */
const HYGIENE_VERB = "(?:display|show|print|echo|reveal|output|log|expose|repeat|paste|copy|upload|send|share|transmit|commit|e-?mail)";
const SECRET_HYGIENE = new RegExp(
  String.raw`^(?:do\s+not|don'?t|never|should\s+not|must\s+not)\s+(?:ever\s+)?${HYGIENE_VERB}(?:\s*,\s*(?:or\s+|and\s+)?${HYGIENE_VERB}|\s+(?:or|and)\s+${HYGIENE_VERB}){0,6}\s+(?:the\s+|any\s+|their\s+|its\s+|your\s+|raw\s+|plain-?text\s+|full\s+){0,2}(?:secret\s+(?:values?|fields?)|secrets|passwords?|passphrases?|tokens?|api\s+keys?|private\s+keys?(?:\s+files?)?|credentials?|(?:password|token|key)\s+values?|key\s+material)\b`,
  "i",
);

/** Long lines are read in windows, like the engine does. */
const WINDOW = 4096;

interface Unit {
  start: number;
  text: string;
  code: boolean;
  scope: number;
  /** Why every role here is a mention (an example region, a comment), or null. */
  describes: string | null;
  firstLine: number;
  lastLine: number;
  /** Inline code: the sentence it sits in (negation and cues are read there) and its offset in it. */
  sentence?: Unit;
  offset?: number;
}

// Every span is matched, short ones too: skipping a short span (`.pub`) would pair its closing backtick with the next span's opening one.
const INLINE_CODE = /`([^`\n]{1,400})`/g;

const LIST_MARK = /^\s*(?:[-*+•]|\d+[.)])\s/;

function proseUnits(
  text: string,
  from: number,
  to: number,
  scope: number,
  describes: string | null,
  lines: LineIndex,
  out: Unit[],
  any: (from: number, to: number) => boolean,
  security = false,
) {
  const body = text.slice(from, to);
  // A list led by a sentence that says it catalogues attacks or detections ("Detections include:") lists specimens.
  let listed = false;
  let lead = false;
  // Sentences come in order: cursors find their lines without a search each.
  const firstOf = lines.cursor();
  const lastOf = lines.cursor();
  eachSentence(body, 600, (s0, s1) => {
    const start = from + s0;
    const firstLine = firstOf(start);
    const lastLine = lastOf(start + (s1 - s0));
    // A sentence on lines without any trigger word holds no role: it only carries the list state
    // on (read from its first and last characters, and copied only when they may matter).
    const roles = any(firstLine, lastLine);
    let sentence: string | null = roles ? body.slice(s0, s1).replace(/\n/g, " ") : null;
    // Only blanks before it on its line (looked at backwards from it, not by copying the line up to it).
    const lineStart = lines.startOf(firstLine);
    let k = start - 1;
    while (k >= lineStart && isBlankUnit(text.charCodeAt(k))) k--;
    const atLineStart = k < lineStart;
    if (mayListMark(body, s0, s1) && LIST_MARK.test((sentence ??= body.slice(s0, s1).replace(/\n/g, " ")))) {
      if (lead) listed = true;
    } else if (atLineStart) listed = false;
    if (lastNonBlank(body, s0, s1) === 58 /* : */) {
      sentence ??= body.slice(s0, s1).replace(/\n/g, " ");
      lead =
        /:\s*$/.test(sentence) &&
        (STRONG_EXAMPLE_CUE.test(sentence) || ACTOR.test(sentence) || (security && WEAK_EXAMPLE_CUE.test(sentence)));
    } else lead = false;
    if (!roles) return;
    const why = describes ?? (listed ? "in a list of what attacks or detections look like" : null);
    const unit: Unit = {
      start,
      text: sentence!,
      code: false,
      scope,
      describes: why,
      firstLine,
      lastLine,
    };
    out.push(unit);
    // A command written inline (`curl -F f=@~/.netrc https://…`) is code inside the sentence: read it as code, judged by its sentence.
    if (unit.text.includes("`")) {
      for (const m of unit.text.matchAll(INLINE_CODE)) {
        if (m[1]!.length < 6) continue;
        const at = start + m.index + 1;
        const line = lines.lineOf(at);
        out.push({
          start: at,
          text: m[1]!,
          code: true,
          scope,
          describes: why,
          firstLine: line,
          lastLine: line,
          sentence: unit,
          offset: m.index + 1,
        });
      }
    }
  });
}

/** Whether `text[from, to)` can start with a list mark (`LIST_MARK`): its first non-blank unit is a bullet or a digit. */
function mayListMark(text: string, from: number, to: number): boolean {
  let i = from;
  while (i < to && isBlankUnit(text.charCodeAt(i))) i++;
  const c = text.charCodeAt(i);
  return i < to && (c === 45 || c === 42 || c === 43 || c === 0x2022 || (c >= 48 && c <= 57));
}

/** The last unit of `text[from, to)` that is not white space, or -1. */
function lastNonBlank(text: string, from: number, to: number): number {
  let i = to - 1;
  while (i >= from && isBlankUnit(text.charCodeAt(i))) i--;
  return i >= from ? text.charCodeAt(i) : -1;
}

function codeUnits(
  text: string,
  lineFrom: number,
  lineTo: number,
  scope: number,
  describes: (line: number) => string | null,
  lines: LineIndex,
  out: Unit[],
  any: (from: number, to: number) => boolean,
) {
  for (let n = lineFrom; n <= lineTo; n++) {
    // A line without any trigger word (and not continued onto the next) holds no role.
    if (!any(n, n)) {
      const end = n < lines.count ? lines.startOf(n + 1) - 1 : text.length;
      if (end <= lines.startOf(n) || text.charCodeAt(end - 1) !== 92) continue;
    }
    let line = lines.line(n);
    if (!line.trim()) continue;
    const start = lines.startOf(n);
    const first = n;
    // A command continued with a trailing backslash is one unit (bounded).
    while (/\\\s*$/.test(line) && n < lineTo && line.length < WINDOW) line = `${line.replace(/\\\s*$/, " ")}${lines.line(++n).trim()}`;
    const why = describes(first) ?? (COMMENT.test(line) ? "a comment" : null);
    if (line.length <= WINDOW) {
      out.push({ start, text: line, code: true, scope, describes: why, firstLine: first, lastLine: n });
    } else {
      for (let at = 0; at < line.length; at += WINDOW - 256)
        out.push({
          start: start + at,
          text: line.slice(at, at + WINDOW),
          code: true,
          scope,
          describes: why,
          firstLine: first,
          lastLine: n,
        });
    }
  }
}

/** The units of a text and their scopes; `any(from, to)` says whether lines from..to hold a trigger word at all (others are skipped unread). */
function unitsOf(
  text: string,
  kind: FileKind | "prose",
  lines: LineIndex,
  opts: IntentOptions,
  any: (from: number, to: number) => boolean,
): Unit[] {
  const out: Unit[] = [];
  const whole = opts.describes ?? null;
  if (CODE_KINDS.has(kind) || DATA_KINDS.has(kind)) {
    codeUnits(text, 1, lines.count, 0, () => whole, lines, out, any);
    return out;
  }
  if (kind !== "markdown") {
    if (any(1, lines.count)) proseUnits(text, 0, text.length, 0, whole, lines, out, any, opts.securityPurpose === true);
    return out;
  }
  const ctx: DocContext = markdownContext(text, lines, opts.securityPurpose ?? false);
  // Runs of lines with the same role: prose paragraphs become sentences, fenced lines stay lines.
  let n = 1;
  while (n <= lines.count) {
    const k = ctx.kind[n]!;
    if (k === LineKind.FenceMark || k === LineKind.Heading || k === LineKind.Front) {
      n++;
      continue;
    }
    let end = n;
    while (
      end + 1 <= lines.count &&
      ctx.kind[end + 1] === k &&
      ctx.section(end + 1) === ctx.section(n) &&
      ctx.describes[end + 1] === ctx.describes[n]
    )
      end++;
    const why = whole ?? (ctx.describes[n] ? (k === LineKind.Table ? "in a table of patterns" : "in an example") : null);
    if (!any(n, end)) {
      n = end + 1;
      continue;
    }
    if (k === LineKind.Fence) {
      const lang = ctx.fenceLang(n);
      // A fence of prose (```text, ```markdown, or no language with sentences) is read as prose.
      if (/^(?:text|txt|markdown|md|plain|prompt)$/.test(lang))
        proseUnits(text, lines.startOf(n), lines.startOf(end + 1), ctx.section(n), why, lines, out, any);
      else codeUnits(text, n, end, ctx.section(n), () => why, lines, out, any);
    } else if (k === LineKind.Table) {
      // Each row is a unit (cells are not sentences of one paragraph).
      for (let r = n; r <= end; r++) {
        const row = lines.line(r);
        out.push({ start: lines.startOf(r), text: row, code: false, scope: ctx.section(r), describes: why, firstLine: r, lastLine: r });
      }
    } else {
      proseUnits(text, lines.startOf(n), end < lines.count ? lines.startOf(end + 1) : text.length, ctx.section(n), why, lines, out, any);
    }
    n = end + 1;
  }
  return out;
}

/** "not the .pub one", "without the .pub suffix", "没有 .pub 后缀", ".pub 以外": the public half named only to exclude it. */
const NOT_PUBLIC =
  /(?:\b(?:not|without|no|never|excluding|except|rather\s+than|instead\s+of|sin|sem|ohne|sans|senza|nicht|kein\w*)\b|没有|不是|不要|而不是|除了|非)[^.\n]{0,20}?(?:\.pub\b|\bpublic\b)|(?:\.pub\b|\bpublic\b)[^.\n。]{0,12}?(?:以外|じゃない|ではない|ではなく|ではありません|が付かない|の付かない|のない|がない)/i;

/** Reads the roles of one text. Linear in its length; deterministic. */
export function readIntent(text: string, opts: IntentOptions): IntentDoc {
  const kind = opts.kind ?? "prose";
  const lines = LineIndex.of(text);
  const code = CODE_KINDS.has(kind);
  const describes = opts.describes ?? (kind !== "prose" ? ruleDataFile(opts.path, kind as FileKind, text) : null);
  // One pass for every entry's trigger words; per line, the entries that can match there.
  const sets = triggerLineSets(text, lines, ENTRY_TRIGGERS as (readonly string[])[]);
  // Indexed by line, not a Map: a text of 300,000 marked lines made a Map entry (and hashed a key) per line.
  const perLine: (number[] | undefined)[] = new Array(lines.count + 2);
  let markedCount = 0;
  sets.forEach((set, e) => {
    for (const l of set) {
      const list = perLine[l];
      if (list) list.push(e);
      else {
        perLine[l] = [e];
        markedCount++;
      }
    }
  });
  const marked = new Int32Array(markedCount);
  for (let l = 0, k = 0; l < perLine.length; l++) if (perLine[l]) marked[k++] = l;
  const any = (from: number, to: number) => {
    if (opts.ungated) return true;
    const lo = firstAtLeast(marked, from);
    return lo < marked.length && marked[lo]! <= to;
  };
  const units = unitsOf(text, kind, lines, { ...opts, describes: describes ?? undefined }, any);
  const hits: IntentHit[] = [];
  const MAX_HITS = 400;
  for (const u of units) {
    if (hits.length >= MAX_HITS) {
      // The rest of the text's roles are not read: a chain there would go unseen.
      noteLimit("intent-roles", lines.startOf(u.firstLine));
      break;
    }
    if (!opts.ungated && !any(u.firstLine, u.lastLine)) continue;
    // The entries that can match in the unit, ascending: its lines' entries (a one-line unit's list
    // as it is, no set made), narrowed to the unit's own words when it is a small part of a long
    // line (a sentence of a 64 KiB line holds few of the line's words).
    let cand: readonly number[];
    if (opts.ungated) cand = ALL_ENTRIES;
    else if (u.firstLine === u.lastLine) cand = perLine[u.firstLine] ?? NO_ENTRIES;
    else {
      const union = new Set<number>();
      for (let l = u.firstLine; l <= u.lastLine; l++) for (const e of perLine[l] ?? NO_ENTRIES) union.add(e);
      cand = [...union].sort((a, b) => a - b);
    }
    if (!cand.length) continue;
    // A unit that is a small window of a long line (a megabyte with no full stop) is gated on its own words, not its line's.
    if (!opts.ungated && cand.length > 1) {
      const span = lines.startOf(u.lastLine + 1) - lines.startOf(u.firstLine);
      if (span > WINDOW && span > 4 * u.text.length) {
        const own = ownersIn((entryTriggers ??= compileTriggers(ENTRY_TRIGGERS)), u.text);
        cand = cand.filter((e) => own.has(e));
        if (!cand.length) continue;
      }
    }
    // Prose roles are judged in their sentence (inline code in the sentence that holds it).
    const prose = u.sentence ?? (u.code ? null : u);
    const shift = u.sentence ? u.offset! : 0;
    // What the sentence says of itself, read only once an entry matches in it (most units match none).
    let actor: boolean | undefined;
    // Backticks are how Markdown writes a path: a quoted span is a mention only where the sentence says it describes something.
    let cued: boolean | undefined;
    let purposeless: string | undefined;
    const cueText = () => (purposeless ??= withoutPurpose(prose!.text));
    for (const e of cand) {
      const entry = ENTRIES[e]!;
      if (entry.only === "code" && !u.code) continue;
      if (entry.only === "prose" && u.code) continue;
      const re = ENTRY_GLOBAL[e]!;
      let from = 0;
      let found = 0;
      for (let m = execFrom(entry.re, re, u.text, 0); m && found < 3; m = execFrom(entry.re, re, u.text, from)) {
        from = m.index + Math.max(1, m[0].length);
        if (m[0] === "") continue;
        found++;
        const at = m.index;
        let why: string | null = u.describes;
        if (!why && prose) {
          const pat = at + shift;
          // A source may end a list the negation governs ("never paste environment variables, logs with tokens, or `.env` content").
          if (entry.role !== "conceal" && isNegated(prose.text, pat, entry.role === "source")) why = "negated";
          else if (
            (cued ??= STRONG_EXAMPLE_CUE.test(cueText()) || (opts.securityPurpose === true && WEAK_EXAMPLE_CUE.test(cueText()))) &&
            (u.sentence !== undefined || isQuoted(prose.text, pat, m[0].length))
          )
            why = "quoted as an example";
          else if ((actor ??= ACTOR.test(cueText())) && entry.role !== "conceal") why = "describes what an attacker or a tool does";
          else if (entry.role === "conceal" && isQuoted(prose.text, pat, m[0].length) && (actor ??= ACTOR.test(cueText())))
            why = "quoted as an example";
          // "Never delete anything without asking" asks for consent: the opposite of concealment.
          else if (entry.role === "conceal" && /^without\b/i.test(m[0]) && isNegated(prose.text, pat)) why = "negated";
          // "so the list can't silently grow", "never secretly": concealment denied by the word just before it.
          else if (entry.role === "conceal" && CONCEAL_DENIED.test(prose.text.slice(Math.max(0, pat - 40), pat))) why = "negated";
          // "Do not display secret values in the chat": keeping a secret's value off the screen protects it; it hides no act.
          else if (entry.role === "conceal" && SECRET_HYGIENE.test(prose.text.slice(pat, pat + 240)))
            why = "keeps a secret's value off the screen";
        }
        if (entry.weak && entry.role === "source" && !collected(u.text, at, m[0].length)) continue;
        if (entry.role === "source" && u.code && NOT_A_READ.test(u.text)) continue;
        // Loading .env configures the process: its values reach a request only by name, which the
        // token readings judge (a secret named in what is sent), and dumping the whole environment is
        // its own source. Reading the file's content (`cat .env`, `@.env`, `dotenv_values`) still counts.
        if (entry.kind === "dotenv" && DOTENV_LOAD.test(u.code ? u.text : (inlineCodeAt(u.text, at) ?? ""))) continue;
        // The key handed to the SSH client as its identity signs on this machine and never leaves it: used, not read.
        if (entry.kind === "ssh-key" && u.code && SSH_IDENTITY.test(u.text.slice(Math.max(0, at - 120), at))) continue;
        // The public half of a key pair is meant to be shared ("the one without .pub" still means the private one).
        if (entry.kind === "ssh-key" && /\bpublic\b|\.pub\b/i.test(u.text) && !/\bprivate\b/i.test(u.text) && !NOT_PUBLIC.test(u.text))
          continue;
        let host: string | undefined;
        if (entry.role === "sink" && (entry.kind === "network" || entry.kind === "image-url" || entry.kind === "tool-argument")) {
          const urls = extractUrls(u.text);
          if (urls.length && urls.every((x) => LOCAL_HOST(x.host))) continue;
          // A socket opened to a literal loopback or private address (a dev server's port probe) carries nothing off the machine.
          if (!urls.length && u.code) {
            let local = false;
            SOCKET_PEER.lastIndex = 0;
            for (let p = SOCKET_PEER.exec(u.text); p !== null; p = SOCKET_PEER.exec(u.text)) {
              local = LOCAL_HOST(p[1]!.toLowerCase());
              if (!local) break;
            }
            SOCKET_PEER.lastIndex = 0;
            if (local) continue;
          }
          host = urls.find((x) => !LOCAL_HOST(x.host))?.host;
        }
        const index = u.start + at;
        const home =
          entry.role === "source" && (entry.kind === "token" || entry.kind === "registry-token" || entry.kind === "cloud-credentials")
            ? homeOf(m[0])
            : undefined;
        hits.push({
          role: entry.role,
          kind: entry.kind,
          index,
          length: m[0].length,
          line: lines.lineOf(index),
          what: m[0].replace(/\s+/g, " ").trim().slice(0, 80),
          mode: why ? "mention" : "do",
          ...(why ? { why } : {}),
          ...(host ? { host } : {}),
          scope: u.scope,
          ...(entry.weak ? { weak: true } : {}),
          ...(home ? { home } : {}),
        });
      }
    }
  }
  hits.sort((a, b) => a.index - b.index);
  return { path: opts.path, kind, code, hits, text };
}

// ---------------------------------------------------------------------------------------------
// Chains

export interface LocatedHit extends IntentHit {
  path: string;
}

export interface IntentChain {
  severity: Severity;
  source: LocatedHit;
  sink: LocatedHit;
  conceal?: LocatedHit;
  /** The finding's text. */
  message: string;
  /** Where to report it (the sink's place: that is where the data leaves). */
  path: string;
  line: number;
}

/** One text runs another (SKILL.md says `bash scripts/x.sh`; a package.json hook runs a script): their roles join. */
export interface IntentLink {
  /** Index into `docs` of the text that runs. */
  from: number;
  /** Index into `docs` of the text that is run. */
  to: number;
  /** Line of the run instruction in `from`. */
  line: number;
}

export interface ChainOptions {
  links?: readonly IntentLink[];
  /** A sink every source of these texts reaches (an MCP tool parameter: whatever it describes is sent to the server). */
  implicitSink?: { kind: SinkKind; what: string; path: string };
  /** At most this many chains (default 20). */
  max?: number;
  /** Prose source and sink further apart than this (characters) in one scope are only a partial chain (default 2500). */
  proseDistance?: number;
}

const SOURCE_WORDS: Record<SourceKind, string> = {
  "ssh-key": "an SSH private key",
  "cloud-credentials": "cloud credentials",
  "registry-token": "a registry or git token",
  token: "tokens or secrets",
  environment: "the environment (every secret in it)",
  dotenv: "the project's .env file",
  "browser-data": "browser cookies and saved logins",
  keychain: "a keychain or password store",
  wallet: "a crypto wallet",
  conversation: "the conversation",
  "typed-commands": "the commands the user types",
  "private-data": "private data",
  "agent-config": "another agent's configuration (its API keys)",
};
const SINK_WORDS: Record<SinkKind, string> = {
  network: "sends it over the network",
  "public-post": "posts it somewhere public (a comment, gist or public repository)",
  dns: "leaks it in DNS lookups",
  "image-url": "puts it in an image URL the chat client fetches",
  "tool-argument": "passes it in another tool's arguments",
  email: "copies it to an outside mail address",
  clipboard: "puts it on the clipboard",
  parameter: "asks for it as a tool argument",
};

/** A sink's object that is what earlier steps produced: "send the report", "upload the bundle", "post it". */
const GATHERED_PRODUCT =
  /^(?:\S+\s+){0,2}?(?:the|this|that|your)\s+(?:(?:whole|full|finished|completed|collected|gathered|resulting|generated)\s+)?(?:report|bundle|archive|results?|output|summary|findings|collection|dump|snapshot|diagnostics?)\b/i;
const rank = (s: Severity) => ["info", "low", "medium", "high", "critical"].indexOf(s);
const compatible = (source: IntentHit, sink: IntentHit) => {
  const set = COMPATIBLE[sink.kind as SinkKind];
  return !set || set.has(source.kind as SourceKind);
};

interface Pool {
  docs: number[];
  sources: LocatedHit[];
  sinks: LocatedHit[];
  conceal: LocatedHit[];
  /** Prose: a scope of one document, where distance matters. */
  prose: boolean;
  cross: boolean;
}

/**
 * Source→sink chains in and across texts. Within a text: in the same scope (a script; a section of
 * prose, within `proseDistance`). Across texts: along `links` (a text and everything it runs). A
 * chain is `critical` in code or with concealment, `high` in prose; a chain with a mentioned role
 * is `info`; a strong source or a data-carrying sink alongside concealment, without the other
 * half, is `medium` (for a second opinion).
 */
export function intentChains(docs: readonly IntentDoc[], opts: ChainOptions = {}): IntentChain[] {
  const max = opts.max ?? 20;
  const dist = opts.proseDistance ?? 2500;
  const out: IntentChain[] = [];
  const seen = new Set<string>();
  const located = docs.map((d) => d.hits.map((h): LocatedHit => ({ ...h, path: d.path })));
  const pools: Pool[] = [];
  docs.forEach((d, i) => {
    const byScope = new Map<number, LocatedHit[]>();
    for (const h of located[i]!) {
      const list = byScope.get(d.code ? 0 : h.scope);
      if (list) list.push(h);
      else byScope.set(d.code ? 0 : h.scope, [h]);
    }
    for (const hs of byScope.values()) {
      pools.push({
        docs: [i],
        sources: hs.filter((h) => h.role === "source"),
        sinks: hs.filter((h) => h.role === "sink"),
        conceal: hs.filter((h) => h.role === "conceal"),
        prose: !d.code,
        cross: false,
      });
    }
    // A procedure in steps: one section gathers, the next sends what was gathered ("## Gather … ## Submit: send
    // the report to …"). A sink that names the product of earlier steps reaches the two sections before its own.
    if (!d.code) {
      for (const [scope, hs] of byScope) {
        const back = hs.filter((h) => h.role === "sink" && h.mode === "do" && GATHERED_PRODUCT.test(h.what));
        if (!back.length) continue;
        const earlier = [...(byScope.get(scope - 1) ?? []), ...(byScope.get(scope - 2) ?? [])];
        const sources = earlier.filter((h) => h.role === "source" && h.mode === "do" && !h.weak && h.kind !== "private-data");
        if (!sources.length) continue;
        pools.push({
          docs: [i],
          sources,
          sinks: back,
          conceal: [...hs, ...earlier].filter((h) => h.role === "conceal"),
          prose: true,
          cross: false,
        });
      }
    }
  });
  // A text and what it runs: the runner's roles near the run instruction (its scope) with the whole run text.
  for (const link of opts.links ?? []) {
    const from = docs[link.from];
    const to = docs[link.to];
    if (!from || !to || link.from === link.to) continue;
    // The whole runner: what a script produces is often sent by a later step of the instructions.
    const all = [...located[link.from]!, ...located[link.to]!];
    pools.push({
      docs: [link.from, link.to],
      sources: all.filter((h) => h.role === "source"),
      sinks: all.filter((h) => h.role === "sink"),
      conceal: all.filter((h) => h.role === "conceal"),
      prose: false,
      cross: true,
    });
  }
  if (opts.implicitSink) {
    const s = opts.implicitSink;
    const sink: LocatedHit = { role: "sink", kind: s.kind, index: 0, length: 0, line: 1, what: s.what, mode: "do", scope: 0, path: s.path };
    for (const p of pools) if (!p.cross) p.sinks.push(sink);
  }
  const strongSource = (h: IntentHit) => !h.weak && h.kind !== "private-data";
  for (const p of pools) {
    if (out.length >= max) break;
    const hide = p.conceal.find((c) => c.mode === "do" && c.kind === "hide");
    const noConsent = p.conceal.find((c) => c.mode === "do" && c.kind === "no-consent");
    let chained = false;
    for (const sink of p.sinks) {
      if (out.length >= max) break;
      // The nearest compatible source (in prose, within reach), preferring instructions over mentions.
      let best: LocatedHit | null = null;
      let bestKey = Infinity;
      for (const source of p.sources) {
        if (!compatible(source, sink)) continue;
        if (p.cross && source.path === sink.path) continue;
        // In one script a weak (read-only) request needs a strong source; a weak source never chains in code.
        if (sink.weak && !strongSource(source)) continue;
        // A credential sent to its own service is being used.
        if (atHome(sink.host, source.home)) continue;
        const far = p.prose && source.path === sink.path ? Math.abs(source.index - sink.index) : 0;
        if (far > dist) continue;
        const key = (source.mode === "do" ? 0 : 1e9) + (sink.mode === "do" ? 0 : 1e9) + far;
        if (key < bestKey) {
          best = source;
          bestKey = key;
        }
      }
      if (!best) continue;
      const doBoth = best.mode === "do" && sink.mode === "do";
      let severity: Severity;
      if (!doBoth) severity = "info";
      else if (hide) severity = "critical";
      else if (sink.kind === "clipboard") severity = "medium";
      else if (sink.weak && !p.cross) severity = "high";
      else if (p.cross) severity = noConsent ? "critical" : "high";
      else if (!p.prose) severity = "critical";
      else severity = "high";
      const key = `${sink.path}\u0000${sink.line}\u0000${best.path}\u0000${best.line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      chained ||= doBoth;
      out.push(makeChain(severity, best, sink, doBoth ? hide : undefined));
    }
    // Half a chain next to concealment: a second opinion should read it.
    if (!chained && hide && out.length < max) {
      const source = p.sources.find((s) => s.mode === "do" && strongSource(s));
      const sink = p.sinks.find((s) => s.mode === "do" && !s.weak);
      const half = source ?? sink;
      if (half) {
        const key = `half\u0000${half.path}\u0000${half.line}`;
        if (!seen.has(key)) {
          seen.add(key);
          out.push({
            severity: "medium",
            source: source ?? half,
            sink: sink ?? half,
            conceal: hide,
            message: source
              ? `Reads ${SOURCE_WORDS[source.kind as SourceKind]} (${source.what}) and says to keep it from the user (${hide.what}); where it goes is not said here`
              : `${capitalise(SINK_WORDS[(sink as LocatedHit).kind as SinkKind])} and says to keep it from the user (${hide.what}); what it sends is not said here`,
            path: half.path,
            line: half.line,
          });
        }
      }
    }
  }
  out.sort((a, b) => rank(b.severity) - rank(a.severity));
  return out.slice(0, max);
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function makeChain(severity: Severity, source: LocatedHit, sink: LocatedHit, conceal: LocatedHit | undefined): IntentChain {
  const where = sink.host ? ` to ${sink.host}` : "";
  const across = source.path !== sink.path ? ` (${source.path}:${source.line} → ${sink.path}:${sink.line})` : "";
  const mention = source.mode !== "do" || sink.mode !== "do" ? ` — read as a mention (${source.why ?? sink.why}), not an instruction` : "";
  const hidden = conceal ? `, and tells the agent to keep it from the user (${conceal.what})` : "";
  return {
    severity,
    source,
    sink,
    conceal,
    message: `Takes ${SOURCE_WORDS[source.kind as SourceKind]} (${source.what}) and ${SINK_WORDS[sink.kind as SinkKind]}${where} (${sink.what})${hidden}${across}${mention}`,
    path: sink.path,
    line: sink.line,
  };
}

/** Chains as findings of `ruleId`, with an excerpt of the line each points at. */
export function chainFindings(chains: readonly IntentChain[], docs: readonly IntentDoc[], ruleId: string): Finding[] {
  const byPath = new Map(docs.map((d) => [d.path, d]));
  const cache = new Map<string, LineIndex>();
  return chains.map((c) => {
    const d = byPath.get(c.path);
    let ex = "";
    if (d) {
      let li = cache.get(c.path);
      if (!li) cache.set(c.path, (li = new LineIndex(d.text)));
      const line = li.line(c.line);
      ex = excerpt(line, c.sink.index - li.startOf(c.line), c.sink.length);
    }
    return { ruleId, severity: c.severity, path: c.path, line: c.line, excerpt: ex, message: c.message };
  });
}
