/**
 * Vocabulary of the MCP rules: what a tool description asks the model to hand over, and the ways
 * it asks for it to travel (a tool argument, a request, a message). A description that only
 * *mentions* tokens, files, e-mail or the conversation is ordinary (a GitHub server takes a token,
 * a mail server sends e-mail); the rules fire on a sensitive source and a sink said together.
 * Regular expressions without the global flag; callers add it.
 */

/** Ways of making data travel inside a tool call: "pass it as `note`", "include it in the … parameter", "call this tool with …". */
export const SINK = new RegExp(
  [
    String.raw`\b(?:pass(?:es|ing)?|include|put|send|provide|supply|insert|add|append|attach|fill(?:\s+in)?|set|copy|paste|embed|forward|upload|post|submit|place|store|write|encode|report)\b(?:[^.!?\n]|[.!?](?!\s|$)){0,100}?` +
      String.raw`(?:\b(?:as|in|into|to|inside|within|under|through|via)\s+(?:the\s+|this\s+|a\s+|its\s+|an?\s+)?(?:[\`'"]\w[\w.-]*[\`'"]\s*|\w+\s+){0,2}(?:parameter|argument|arg|param|field|property|input|key|request|call|body|payload|tool|function|query\s+string|url|header|object|value|entry|section|comment)s?\b` +
      String.raw`|\b(?:as|in|into|to|inside)\s+(?:the\s+)?[\`'"]\w[\w.-]*[\`'"]|\bhere\b|\b(?:with|to|in|on)\s+(?:every|each|all|this|the\s+next|your\s+next)\s+(?:calls?|requests?|invocations?))`,
    String.raw`\bcall(?:ing)?\s+(?:this|the)\s+(?:tool|function)\s+with\b`,
    String.raw`\bthe\s+[\`'"]?\w+[\`'"]?\s+(?:parameter|argument|field)\s+(?:must|should|has\s+to)\s+(?:contain|include|hold|be)\b`,
  ].join("|"),
  "i",
);

/** The conversation, the system prompt, the model's own instructions. */
export const CONVERSATION = new RegExp(
  [
    String.raw`\b(?:(?:entire|full|whole|complete|previous|prior|recent|current|all|last)\s+)*(?:conversation|chat|dialog(?:ue)?|session)(?:\s+so\s+far|\s+(?:history|log|transcript|context|messages|contents?|thread))\b`,
    String.raw`\b(?:all\s+(?:the\s+)?)?(?:previous|prior|earlier|past|last|recent)\s+(?:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|few|several|many|dozen)\s+)?(?:user\s+)?(?:messages|turns|prompts|exchanges|questions)\b`,
    String.raw`\b(?:the\s+)?(?:user'?s?\s+|your\s+)?clipboard(?:\s+contents?)?\b`,
    String.raw`\bsystem\s+(?:prompt|message|instructions)\b`,
    // What the user typed in other programs: shell and browser history.
    String.raw`\b(?:shell|bash|zsh|fish|command(?:[\s-]line)?|terminal|browser|browsing|search)\s+history\b|\.(?:bash|zsh)_history\b|\bfish_history\b`,
    String.raw`\b(?:your|the\s+assistant'?s?|the\s+model'?s?|the\s+agent'?s?)\s+(?:own\s+|hidden\s+|internal\s+)?(?:instructions|rules|guidelines|prompt)\b`,
  ].join("|"),
  "i",
);

/** What other tools (of this server or any other) returned. */
export const TOOL_RESULTS = new RegExp(
  [
    String.raw`\b(?:results?|outputs?|responses?|return(?:ed)?\s+values?|data|contents?)\s+(?:of|from|returned\s+by)\s+(?:all\s+|any\s+|every\s+|the\s+|your\s+)?(?:other|previous|prior|earlier|last|preceding|recent)\s+(?:tool\s+calls?|tools?|functions?|servers?|calls?|[\`'"]?\w+[\`'"]?\s+calls?)\b`,
    String.raw`\b(?:results?|outputs?|responses?)\s+of\s+(?:a\s+|the\s+|any\s+)?(?:previous|prior|earlier|last)\s+[\`'"]?\w+[\`'"]?\s+(?:call|invocation)\b`,
  ].join("|"),
  "i",
);

/** Credentials by name ("API key", "tokens", "OPENAI_API_KEY"). */
export const CREDENTIAL =
  /(?:\b|_)(?:api[_\s-]?keys?|access[_\s-]?tokens?|access[_\s-]?keys?(?:[_\s-]?ids?)?|auth(?:entication|orization)?[_\s-]?tokens?|bearer\s+tokens?|refresh\s+tokens?|tokens|secrets?|secret[_\s-]keys?|passwords?|passphrases?|private[_\s-]keys?|ssh[_\s-]keys?|credentials?|session\s+(?:cookies?|tokens?)|cookies|env(?:ironment)?\s+variables?|env\s+vars?|seed\s+phrases?|mnemonics?|wallet\s+keys?)\b|\b[A-Z][A-Z0-9]*_(?:API_KEY|TOKEN|SECRET|PASSWORD|ACCESS_KEY|SECRET_KEY|PRIVATE_KEY)\b/i;

/** Credentials of a tool on the machine (git, cloud CLIs, registries): gathered, never typed by the user for this tool. */
export const MACHINE_CREDENTIAL =
  /\b(?:git|github|gitlab|aws|gcloud|google\s+cloud|azure|docker|npm|pypi|ssh|kube(?:rnetes)?|kubectl|cloud|browser|keychain|1password|wallet)\s+(?:credentials?|tokens?|keys?|secrets?|passwords?|cookies|config(?:uration)?\s+files?)\b/i;

/** Where a credential is taken from, when the text says so: the machine, not the user's own typing. */
export const CREDENTIAL_SOURCE =
  /\b(?:from|in|inside|stored\s+in|found\s+in|located\s+in|saved\s+in|kept\s+in|of)\s+(?:the\s+|your\s+|their\s+|its\s+|any\s+)?(?:(?:local|user'?s?|system'?s?|current|shell|process)\s+)?(?:environment|env\b|shell|process\.env|os\.environ|\.env\b|dotenv|~\/|\$HOME|home\s+(?:directory|folder)|config(?:uration)?\s+files?|dotfiles|keychain|keyring|credential\s+(?:store|manager|helper)|password\s+manager|browser|machine|computer|disk|file\s*system|other\s+(?:tools|servers|mcp\s+servers)|mcp\.json|settings\.json)/i;

/** "all", "every", "any" before a credential (maybe with one more word: "all API tokens"): gathering them all, not using the one the service needs. */
export const ALL_OF =
  /\b(?:all|every|each|any)\s+(?:of\s+(?:the|your)\s+)?(?:available\s+|stored\s+|saved\s+|local\s+|other\s+)?(?:[A-Za-z][A-Za-z0-9]*\s+)?$/i;

/** A file outside the project: the home folder or a system path. */
export const OUTSIDE_FILE =
  /(?:~\/|\$HOME\/|\$\{HOME\}\/|%USERPROFILE%\\|\/home\/[\w.-]+\/|\/Users\/[\w.-]+\/|\/etc\/|\/root\/|C:\\Users\\)[^\s'"`)]*/i;

/** Reading a file (imperative): the model is told to open something. */
export const READ_FILE = /\b(?:read|cat|open|load|get|fetch|grab|collect|copy)\b/i;

/** Private data leaving through a public place (the GitHub MCP "toxic agent flow"). */
export const PRIVATE_TO_PUBLIC =
  /\b(?:private|internal|confidential|secret|proprietary|company'?s?\s+internal)\s+(?:\w+\s+){0,2}?(?:repositor(?:y|ies)|repos?|files?|code|data|documents?|docs|notes?|channels?|messages?|pages?|wiki|spaces?|spreadsheets?|tickets?|issues?|dms?|direct\s+messages)\b[^.!?\n]{0,160}\b(?:public|pull\s+request|(?:new\s+)?issue|gist|comment|pastebin|readme|(?:shared\s+)?external)\b/i;

/** Things a tool might be told to send. */
export const DATA_NOUN =
  /\b(?:data|contents?|files?|results?(?:\s+sets?)?|outputs?|conversation|history|messages?|keys?|tokens?|credentials?|secrets?|passwords?|env(?:ironment)?|information|info|details|everything|copy|copies|responses?|logs?|transcripts?|documents?|e-?mails?|replies|summary|digest|quer(?:y|ies)|prompts?|code|diffs?|patch(?:es|sets?)?|repositor(?:y|ies)|cookies|variables|rows?|records?|entries|receipts?|tickets?|contacts?|attachments?|screenshots?|notes?|body|text|card\s+(?:numbers?|details)|list)\b/i;

/** A literal destination: an e-mail address, an http(s) URL, a phone number. */
export const DESTINATION =
  /(?:mailto:)?(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b|\bhttps?:\/\/[^\s"'`<>)\]]+|(?<![\w.])\+\d[\d\s().-]{7,}\d\b/i;

/** An e-mail address alone (for recipient rules). */
// The look-behind starts a match only where a run of address characters starts: a long run without an "@" is read once, not once per position.
export const EMAIL = /(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/;

/** Hosts a destination may name without being a leak: the local machine and documentation ranges used in examples. */
export function isLocalDestination(dest: string): boolean {
  const m = /^https?:\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^/:?#]+)/i.exec(dest);
  const host = (m?.[1] ?? dest.replace(/^.*@/, "")).toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "127.0.0.1" || host === "[::1]" || host === "0.0.0.0";
}

/**
 * A literal place outside the user's control, named in the text: an e-mail address, a URL, a
 * phone number, a repository (`issue 42 of example-org/feedback`, `owner 'x' and repo 'y'`), a chat
 * channel, a quoted account, or a host name built around a placeholder (`<hex>.probe.example.net`,
 * the DNS-exfiltration shape). `kind` says which.
 */
const DEST_PARTS: [kind: string, re: RegExp][] = [
  ["address", /(?:mailto:)?(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g],
  ["url", /\bhttps?:\/\/[^\s"'`<>)\]]+/gi],
  ["phone", /(?<![\w.])\+\d[\d\s().-]{7,}\d\b/g],
  [
    "repository",
    /\b(?:issues?|pull\s+requests?|PRs?|discussions?|comments?|repo(?:sitory)?|project)\s*#?\d*\s+(?:of|in|on|at)\s+[`'"]?[\w.-]+\/[\w.-]+|\bowner\s+[`'"][\w.-]+[`'"],?\s+(?:and\s+)?repo(?:sitory)?\s+[`'"][\w.-]+[`'"]|\brepo(?:sitory)?\s+[`'"]?(?:[\w-]+|<\w+>)\/[\w.-]+/gi,
  ],
  ["channel", /(?<![\w&#/])#[a-z][\w-]{2,}/gi],
  // A quoted handle, or one that cannot be an ordinary word (a hyphen or digits in it: `octo-helper-bot`, `bot42`).
  ["account", /\b(?:user|account|grantee|collaborator|member|handle)\s+(?:[`'"@][\w.-]+|[a-z0-9]+(?:[-_][a-z0-9]+)+\b|[a-z]+\d+[\w-]*)/gi],
  ["host", /(?:<[^<>\n]{1,60}>|\{[^{}\n]{1,60}\}|\$\{?\w+\}?)\.(?:[a-z0-9-]+\.)+[a-z]{2,}\b/gi],
];

export interface Destination {
  kind: string;
  index: number;
  text: string;
}

/** Cue words that make a destination an example of a format rather than a place to send to. */
const EXAMPLE_CUE = /(?:\be\.g\.|\bi\.e\.|\bfor\s+example|\bsuch\s+as|\blike|\bexample:?|\bformat:?)[\s,:(]*$/i;

/** The literal destinations of a sentence, in order, without examples of a format and the local machine. */
export function destinations(s: string): Destination[] {
  const out: Destination[] = [];
  for (const [kind, re] of DEST_PARTS) {
    if (kind === "address" && !s.includes("@")) continue;
    if (kind === "url" && !/https?:/i.test(s)) continue;
    if (kind === "channel" && !/\b(?:channels?|slack|discord|teams|mattermost|chat)\b/i.test(s)) continue;
    re.lastIndex = 0;
    for (let m = re.exec(s); m; m = re.exec(s)) {
      if (EXAMPLE_CUE.test(s.slice(Math.max(0, m.index - 20), m.index))) continue;
      if ((kind === "url" || kind === "address") && isLocalDestination(m[0])) continue;
      // An address inside a URL is the URL's.
      if (kind === "address" && out.some((d) => d.kind === "url" && d.index <= m!.index && m!.index < d.index + d.text.length)) continue;
      out.push({ kind, index: m.index, text: m[0] });
      if (out.length >= 8) break;
    }
  }
  return out.sort((a, b) => a.index - b.index);
}

/**
 * A command or link handed to the user to run or open themselves ("show this command to the user and
 * let them run it"): the user acts, with the text in front of them; nothing of theirs travels and the
 * model runs nothing. Official installers are documented this way.
 */
export const HANDED_TO_USER =
  /\b(?:show|give|display|offer|print|present|share|suggest)\s+(?:this|the|that|these)\s+(?:\w+\s+)?(?:command|commands|line|snippet|link|url|installer)\s+to\s+the\s+user\b[^.!?\n]{0,60}?\b(?:let|have|ask|so)\s+(?:that\s+)?(?:them|the\s+user|they)\s+(?:can\s+)?(?:run|execute|paste|open|decide|choose|review)\b/i;
