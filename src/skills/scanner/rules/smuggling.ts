/**
 * Data carried out by what the agent writes or sets up rather than by a request of its own: CI
 * workflows that hand the repository's secrets to code anyone can submit, the clipboard shipped to a
 * server, and secrets written into an artifact others read (a pull request body, a commit trailer,
 * an HTML comment that does not render). Each reads a bounded window: one line, or a few around it.
 */
import { NETWORK_SINK, isNegated, patternRule, triggerLines, type Hit, type Rule } from "../../../scan";

/**
 * The whole `secrets` context of a GitHub Actions job serialised or exposed at once (`toJSON(secrets)`,
 * `env: ${{ secrets }}`): no step needs every secret, and whatever runs next can print or post them.
 */
export const ciSecretsDump = patternRule({
  id: "ci.secrets-dump",
  severity: "high",
  title: "Every CI secret exposed to a step",
  triggers: ["secrets"],
  prose: true,
  patterns: [/\btoJSON\(\s*secrets\s*\)|\$\{\{\s*secrets\s*\}\}/i],
  message: "Exposes the whole secrets context of the workflow to a step: every repository secret, where one is ever needed",
});

const PR_TARGET = /\bpull_request_target\b/g;
const HEAD_CODE = /\bgithub\.event\.pull_request\.head\.(?:sha|ref)\b|\bgithub\.head_ref\b|\brefs\/pull\/[^\n/]{1,40}\/(?:head|merge)\b/i;
const WARNING = /\b(?:never|avoid|don'?t|do\s+not|dangerous|insecure|unsafe|vulnerab\w*|pwn\s+request|attack\w*|exploit\w*)\b/i;

/**
 * `pull_request_target` runs with the base repository's secrets and a write token; checking out the
 * pull request's head there runs a stranger's code with them (the "pwn request" of GitHub Security
 * Lab). Warnings about the pattern name it too, so a sentence that warns is not the instruction.
 */
export const ciPwnRequest: Rule = {
  id: "ci.pull-request-target",
  severity: "high",
  title: "Fork code run with the repository's secrets",
  unbudgeted: true,
  text(text, ctx) {
    if (!text.includes("pull_request_target")) return [];
    for (const m of text.matchAll(PR_TARGET)) {
      const n = ctx.lines.lineOf(m.index);
      const window = [n - 1, n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6]
        .filter((k) => k >= 1 && k <= ctx.lines.count)
        .map((k) => ctx.lines.line(k))
        .join("\n");
      if (!HEAD_CODE.test(window)) continue;
      const line = ctx.lines.line(n);
      if (WARNING.test(line) || isNegated(line, m.index - ctx.lines.startOf(n))) continue;
      return [
        {
          index: m.index,
          length: m[0].length,
          message: "Runs the pull request's own code under pull_request_target, where it gets the repository's secrets and a write token",
        },
      ];
    }
    return [];
  },
};

const CLIPBOARD_READ =
  /\b(?:pbpaste|xclip\b[^\n]{0,40}\s-o\b|xsel\b[^\n]{0,40}(?:\s-o\b|--output)|wl-paste|Get-Clipboard|clipboard\.(?:readText|paste)|pyperclip\.paste|GetClipboardData)\b|\[\s*["']pbpaste["']\s*\]/i;
const LITERAL_URL = /\bhttps?:\/\/(?!(?:localhost|127\.0\.0\.1|\[::1\])[:/])[^\s"'`)]+/i;

/**
 * A script that reads the clipboard and sends to a URL written into it: what users copy (passwords,
 * one-time codes, keys) leaves with it. A clipboard helper that stays on the machine is ordinary.
 */
export const clipboardSend: Rule = {
  id: "exfil.clipboard-send",
  severity: "high",
  title: "Clipboard sent over the network",
  kinds: ["shell", "python", "javascript", "powershell", "ruby", "perl", "php", "go"],
  text(text) {
    const read = CLIPBOARD_READ.exec(text);
    if (!read || !NETWORK_SINK.test(text) || !LITERAL_URL.test(text)) return [];
    return [
      {
        index: read.index,
        length: read[0].length,
        message: "Reads the clipboard and sends to a server written into the script: what the user copies (passwords, codes, keys) leaves",
      },
    ];
  },
};

const SECRET_VALUE =
  /\b(?:(?:values?|contents?|base64|hex|first\s+line|text|copy)\s+(?:of|from)|(?:copied|taken|read|pasted)\s+(?:verbatim\s+)?from)\s+(?:the\s+|any\s+|all\s+|every\s+|your\s+|its\s+|the\s+(?:repository|project|user)'s\s+)?`?(?:~\/)?(?:\.env\b|\.git-credentials\b|\.npmrc\b|\.pypirc\b|\.netrc\b|\.ssh\/\w+|id_rsa\b|\*?[A-Z0-9_]{0,40}(?:TOKEN|SECRET|API_KEY|PASSWORD|PRIVATE_KEY)\b|\*_KEY\b)/;
const ARTIFACT =
  /\b(?:PR|pull\s+request|merge\s+request)s?\b[^\n]{0,60}\b(?:body|bodies|description|template)\b|\bcommit\s+(?:messages?|trailers?|body)|\btrailers?\b|\bHTML\s+comments?\b|<!--|\bissue\s+(?:body|comments?)|\brelease\s+notes\b|\bpublic\s+(?:default\s+)?(?:repo(?:sitory)?|branch|page|site|wiki)\b|\bchangelog\b|\bREADME\b|\bgist\b|\bpublicly\b|\b(?:docs?|documentation)\s+(?:site|website|portal)\b|\bgh-pages\b|\b(?:so|for)\s+(?:that\s+)?(?:the\s+)?readers\b|\b(?:generated|published|public)\s+(?:docs|documentation|reference\s+pages?|examples)\b/i;
const VALUE_TRIGGERS = ["value", "content", "base64", "hex", "first line", "text of", "copy of", "copied", "taken", "read", "pasted"];

/**
 * A secret's value written into something others read: a pull request body, a commit message or
 * trailer, an HTML comment, an issue, the README (the output-format smuggling of agent exploits).
 * The artifact is named on the line or the two on either side (a "Trailers:" heading over its list).
 */
export const secretInArtifact: Rule = {
  id: "exfil.secret-in-artifact",
  severity: "high",
  title: "Secrets written into a shared artifact",
  kinds: ["markdown", "text"],
  text(text, ctx) {
    for (const n of triggerLines(text, ctx.lines, VALUE_TRIGGERS)) {
      // The phrase may wrap onto the next line ("the base64\nof the repository's .env").
      const line = n < ctx.lines.count ? `${ctx.lines.line(n)} ${ctx.lines.line(n + 1)}` : ctx.lines.line(n);
      const m = SECRET_VALUE.exec(line);
      if (!m || m.index > ctx.lines.line(n).length || isNegated(line, m.index)) continue;
      const near = [n - 2, n - 1, n, n + 1, n + 2]
        .filter((k) => k >= 1 && k <= ctx.lines.count)
        .map((k) => ctx.lines.line(k))
        .join("\n");
      if (!ARTIFACT.test(near)) continue;
      return [
        {
          index: ctx.lines.startOf(n) + m.index,
          length: m[0].length,
          message: "Writes a secret's value into a pull request, commit, comment or other artifact that others read",
        },
      ];
    }
    return [];
  },
};

// One array for every call: triggerLines caches its compiled form by identity.
const ASK_TRIGGERS = ["ask", "request", "prompt", "paste", "type", "send", "share", "enter"];
const ASK_SECRET =
  /\b(?:ask|request|prompt)\w*\s+(?:from\s+)?(?:the\s+|your\s+)?(?:user|them|him|her|owner|customer)\b[^.\n]{0,80}\b(?:authenticator|one-time\s+(?:code|password)|2FA|MFA|OTP|TOTP|verification\s+code|recovery\s+(?:codes?|phrase|words)|backup\s+codes?|seed\s+(?:phrase|words)|\d+[- ](?:or\s+\d+[- ])?word\s+(?:recovery\s+|seed\s+)?phrase|mnemonic|private\s+key)\b/i;
const PASTE_IN_CHAT =
  /\b(?:paste|type|send|share|enter)\s+(?:it|them|this|that|the\s+\w+|their\s+\w+|your\s+\w+)\s+(?:here\s+)?(?:in|into)\s+(?:the\s+|this\s+|our\s+)?(?:chat|conversation|reply)\b/i;
const SECRET_NOUN =
  /\b(?:access\s+token|PAT|tokens?|password|passphrase|secret\s+key|private\s+key|API\s+key|one-time|recovery\s+codes?|2FA|MFA)\b/i;

/**
 * The agent turned on the user: asked to collect the user's one-time codes, recovery codes or
 * seed phrase, or to have a token pasted into the chat (where the skill then takes it). A skill
 * never needs these from the user in conversation; a tool that needs a token reads it from the
 * environment the user set up.
 */
export const credentialRequest: Rule = {
  id: "social.credential-request",
  severity: "high",
  title: "Asks the user for credentials in the chat",
  kinds: ["markdown", "text"],
  text(text, ctx) {
    for (const n of triggerLines(text, ctx.lines, ASK_TRIGGERS)) {
      // The ask may wrap onto the next line ("ask\nthe user for the code from their authenticator").
      const own = ctx.lines.line(n);
      const line = n < ctx.lines.count ? `${own} ${ctx.lines.line(n + 1)}` : own;
      let m = ASK_SECRET.exec(line);
      if (m && m.index > own.length) m = null;
      if (!m) {
        const p = PASTE_IN_CHAT.exec(line);
        const near = [n - 1, n, n + 1]
          .filter((k) => k >= 1 && k <= ctx.lines.count)
          .map((k) => ctx.lines.line(k))
          .join("\n");
        if (p && SECRET_NOUN.test(near)) m = p;
      }
      // "Ask them for the region; do not ask for MFA codes": the secret is named only to be refused.
      if (!m || isNegated(line, m.index, true) || /\b(?:not|never|no|without)\b|n't\b/i.test(m[0])) continue;
      return [
        {
          index: ctx.lines.startOf(n) + m.index,
          length: m[0].length,
          message: "Has the agent ask the user for codes, keys or tokens in the chat: the skill collects what only the user should hold",
        },
      ];
    }
    return [];
  },
};

/**
 * A dependency whose name is told to stay misspelled ("do not correct the spelling"): the name is
 * one letter off a popular package on purpose (typosquatting), and the warning is the defence.
 */
export const keepMisspelled = patternRule({
  id: "supply.keep-misspelled",
  severity: "high",
  title: "Told to keep a misspelled package name",
  triggers: ["not", "don", "never", "typo"],
  patterns: [
    /\b(?:do\s+not|don'?t|never)\s+["“'`]?(?:correct|fix|change|autocorrect)["”'`]?\s+(?:the|its|their|this)\s+(?:spelling|package\s+name|typo)\b/i,
    /\b(?:looks?|seems?)\s+like\s+a\s+typo\b[^.\n]{0,60}\b(?:keep|leave|ignore)\b/i,
  ],
  message: "Tells the agent to keep a package name that looks like a typo: the misspelling is how a typosquatted package gets installed",
});

const GIT_HOSTS = /^(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)$/i;
const GIT_DEP = /"[@\w./-]{1,100}"\s*:\s*"git\+(?:https?|ssh):\/\/(?:[^@"/\s]{1,60}@)?([^/":\s]{1,100})/g;
/**
 * The same taken on the command line: a Homebrew tap given its own remote (`brew tap owner/tap
 * https://host/…`; a bare `brew tap owner/tap` is GitHub), and a package installed straight from a
 * git URL.
 */
const GIT_COMMAND =
  /\bbrew\s+tap\s+[\w.-]{1,60}\/[\w.-]{1,60}\s+(?:git\+)?(?:https?|ssh|git):\/\/(?:[^@\s/]{1,60}@)?([^/:\s"'`]{1,100})|\b(?:pip3?|uv\s+pip|pipx|npm|pnpm|yarn|bun|cargo)\s+(?:install|add|i)\b[^\n|;&]{0,120}?\bgit\+(?:https?|ssh|git):\/\/(?:[^@\s/]{1,60}@)?([^/:\s"'`]{1,100})/g;

/**
 * A dependency taken from a git server that is no known code host instead of the registry: whatever
 * that server hands out is installed (and its build scripts run), with no registry record behind it.
 */
export const untrustedGitDependency: Rule = {
  id: "supply.untrusted-git-dependency",
  severity: "medium",
  title: "Dependency from an unknown git server",
  kinds: ["markdown", "json", "text", "shell"],
  text(text) {
    const found = (m: RegExpExecArray, host: string): Hit => ({
      index: m.index,
      length: m[0].length,
      message: `Installs a dependency from ${host}, a git server outside the registry and the known code hosts`,
    });
    if (text.includes("git+")) for (const m of text.matchAll(GIT_DEP)) if (!GIT_HOSTS.test(m[1]!)) return [found(m, m[1]!)];
    if (text.includes("git+") || text.includes("brew"))
      for (const m of text.matchAll(GIT_COMMAND)) {
        const host = m[1] ?? m[2]!;
        if (!GIT_HOSTS.test(host)) return [found(m, host)];
      }
    return [];
  },
};

export const SMUGGLING_RULES: Rule[] = [
  ciSecretsDump,
  ciPwnRequest,
  clipboardSend,
  secretInArtifact,
  credentialRequest,
  keepMisspelled,
  untrustedGitDependency,
];
