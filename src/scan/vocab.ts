/**
 * Shared vocabularies: where secrets live on a developer's machine, what sends data off it, and
 * what reads a file. Rules of any scanner combine them ("reads a secret", "reads a secret and
 * sends it"). Regular expressions without the global flag; callers add it.
 */

const HOME = String.raw`(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/[^/\s'"]+|/Users/[^/\s'"]+|/root|os\.homedir\(\)|homedir\(\)|expanduser\(\s*["']~)?`;

/** Files and stores that hold credentials, keys, sessions or wallets. */
export const SECRET_PATH = new RegExp(
  [
    String.raw`\.ssh[/\\](?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?![\w.-]*\.pub)\b|identity\b|[\w.-]*_key\b(?!\.pub))`,
    // Every key of the key folder by glob, wherever the folder's name came from: `"$d"/id_*`.
    String.raw`["'/\\]id_\*(?![\w.]*\.pub)`,
    String.raw`\.aws[/\\](?:credentials|config)\b`,
    String.raw`\.config[/\\]gcloud[/\\](?:credentials\.db|application_default_credentials\.json|access_tokens\.db|legacy_credentials)`,
    String.raw`\.azure[/\\](?:accessTokens\.json|msal_token_cache)`,
    String.raw`\.kube[/\\]config\b`,
    String.raw`\.docker[/\\]config\.json`,
    String.raw`(?<![\w-])[._]netrc\b`,
    String.raw`\.pgpass\b`,
    String.raw`\.git-credentials\b`,
    String.raw`\.config[/\\]gh[/\\]hosts\.yml`,
    String.raw`(?<![\w-])\.(?:npmrc|pypirc)\b`,
    String.raw`\.(?:gem|cargo)[/\\]credentials\b`,
    String.raw`\.gnupg\b`,
    String.raw`/etc/(?:shadow|gshadow|master\.passwd)\b`,
    String.raw`Library[/\\]Keychains|login\.keychain(?:-db)?\b`,
    String.raw`(?:Google[/\\]Chrome|Chromium|BraveSoftware|Microsoft[/\\]Edge|Opera Software|Vivaldi|Yandex)[^\n'"]{0,60}(?:Login Data|Cookies|Web Data|Local State|User Data)`,
    String.raw`\.mozilla[/\\]firefox|Firefox[/\\]Profiles|\blogins\.json\b|\bkey[34]\.db\b|\bcookies\.sqlite\b`,
    String.raw`\bwallet\.dat\b|\.electrum\b|exodus\.wallet|\.config[/\\]solana[/\\]id\.json|\.ethereum[/\\]keystore|nkbihfbeogaeaoehlefnkodbefgpgknn|\.bitcoin[/\\]`,
    String.raw`\.cursor[/\\]mcp\.json|\.codeium[/\\]windsurf[/\\]mcp_config\.json|claude_desktop_config\.json`,
  ]
    .map((p) => `${HOME}[/\\\\]?(?:${p})`)
    .join("|"),
  "i",
);

/**
 * Literals one of which every `SECRET_PATH` match contains (same flags). Every alternative of
 * `SECRET_PATH` begins with an optional home prefix, so the engine tries the whole alternation at
 * every position of a text; this test finds most texts hold none of them in one cheap pass.
 */
const SECRET_PATH_NEEDS =
  /\.ssh|id_\*|\.aws|\.config|\.azure|\.kube|\.docker|netrc|\.pgpass|credentials|\.npmrc|\.pypirc|\.gnupg|\/etc\/|keychain|chrom|bravesoftware|microsoft|opera software|vivaldi|yandex|\.mozilla|firefox|logins\.json|key[34]\.db|cookies\.sqlite|wallet\.dat|\.electrum|exodus\.wallet|\.ethereum|nkbihfbeogaeaoehlefnkodbefgpgknn|\.bitcoin|\.cursor|\.codeium|claude_desktop_config\.json/i;

/** Whether `SECRET_PATH` can match `s` at all (false means it cannot; true means try it). */
export const mayHoldSecretPath = (s: string): boolean => SECRET_PATH_NEEDS.test(s);

/** A project's `.env` file (secrets by convention), but not the committed templates. */
// Templates (.env.example, .env.local.sample …) hold no secrets: the lookahead reads the whole name, so ".env" of ".env.example" is not a match either.
export const DOTENV_PATH = /(?<![\w./-])\.env(?![\w.-]*\.(?:example|sample|template|dist|defaults?)\b)(?:\.[\w-]+)?(?![\w-])/i;

/** Commands and calls that read a file's content. */
export const READ_VERB =
  /\b(?:cat|less|more|head|tail|tac|nl|cp|mv|scp|rsync|base64|xxd|od|strings|tar|zip|7z|gpg|openssl|sed|awk|grep|type|Get-Content|gc|Copy-Item|Compress-Archive|ReadAllText|ReadAllBytes|open|readFile|readFileSync|createReadStream|read_text|read_bytes|load|loads|readlines|File\.read|IO\.read|fs\.read|slurp|source)\b|<\s*["']?[~$/]|@["']?[~$/]|\b(?:read|open|send|upload|include|attach|paste|copy|print|show|output|return|extract|collect|grab|exfiltrate|leak|dump|steal|harvest)\s+(?:the\s+)?(?:contents?\s+of\s+|file\s+at\s+|data\s+(?:in|from)\s+)?/i;

/** Commands and APIs that send data over the network. */
export const NETWORK_SINK =
  /\b(?:curl|wget|nc|ncat|netcat|socat|telnet|scp|rsync|sftp|ftp|httpie|http\s+(?:post|put)|requests\.(?:post|put|patch|get)|urllib\.request|urlopen|http\.client|httpx\.|aiohttp|axios|XMLHttpRequest|sendBeacon|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|Net\.WebClient|UploadString|UploadFile|UploadData|smtplib|sendmail|nslookup|dig|socket\.(?:socket|create_connection)|net\.(?:connect|createConnection)|https?\.request)\b|\bfetch\s*\(|\/dev\/(?:tcp|udp)\//i;

/** Data-sending options of curl/wget and friends (a request body or an upload). */
export const UPLOAD_FLAG =
  /(?:\s-d\b|\s-F\b|\s-T\b|--data(?:-binary|-raw|-urlencode)?\b|--form\b|--upload-file\b|--post-(?:data|file)\b|-X\s*(?:POST|PUT)\b|method\s*[:=]\s*["'](?:POST|PUT)|\.post\(|-Method\s+(?:Post|Put)|-Body\b|-InFile\b)/i;

/** Literals every `NETWORK_SINK` match contains (for `triggerLines`, src/scan/triggers.ts). */
export const NETWORK_SINK_TRIGGERS: readonly string[] = [
  "curl",
  "wget",
  "\\bnc",
  "netcat",
  "socat",
  "telnet",
  "scp",
  "rsync",
  "sftp",
  "ftp",
  "http",
  "requests.",
  "urllib",
  "urlopen",
  "aiohttp",
  "axios",
  "xmlhttprequest",
  "sendbeacon",
  "invoke-webrequest",
  "invoke-restmethod",
  "iwr",
  "irm",
  "net.webclient",
  "upload",
  "smtplib",
  "sendmail",
  "nslookup",
  "dig",
  "socket.",
  "net.",
  "fetch",
  "/dev/tcp",
  "/dev/udp",
];
