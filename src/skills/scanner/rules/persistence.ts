/**
 * Persistence and privilege: changes that outlive the task. Backdoor keys in authorized_keys,
 * sudoers entries, setuid bits, startup items (cron, launchd, systemd, Windows Run keys, shell
 * start-up files that fetch code), and writes into other agents' configuration or instruction
 * files (which would steer every later session). Adding a PATH line to ~/.bashrc is ordinary.
 */
import { isMention, isNegated, patternRule, type Hit, type Rule } from "../../../scan";
import { FOOTHOLD_RULES } from "./footholds";

const WRITE = String.raw`(?:>>?|\btee\s+(?:-a\s+)?|\bappendFile(?:Sync)?\(\s*|\bwriteFile(?:Sync)?\(\s*|\bopen\([^\n)]*["'][wa]\+?["']|\bAdd-Content\s+(?:-Path\s+)?|\bSet-Content\s+(?:-Path\s+)?|\bOut-File\s+(?:-FilePath\s+)?|\bcp\s+\S+\s+|\bmv\s+\S+\s+|\bln\s+-s\w*\s+\S+\s+)\s*["']?`;
const HOMEP = String.raw`(?:~|\$HOME|\$\{HOME\}|"\$HOME"|%USERPROFILE%|\$env:USERPROFILE|\/root|\/home\/[^/\s]+|\/Users\/[^/\s]+)`;

export const backdoorAccess = patternRule({
  id: "persistence.backdoor-access",
  severity: "critical",
  title: "Backdoor access",
  triggers: ["authorized_keys", "ssh-", "nopasswd", "sudoers", "chmod", "setcap", "useradd"],
  prose: true,
  patterns: [
    new RegExp(String.raw`${WRITE}[^\n]*\.ssh\/authorized_keys\b|\bssh-copy-id\b[^\n]*-i\s+\S+\.pub\s+\S+@(?:\d{1,3}\.){3}\d{1,3}`),
    /\bauthorized_keys\b[^\n]*<<|echo\s+["']?ssh-(?:rsa|ed25519|dss)\s+AAAA[^\n]*>>/,
    /NOPASSWD\s*:\s*ALL[^\n]*(?:>>|\btee\b)|(?:>>|\btee\s+-a)\s*\/etc\/sudoers/,
    // Every command without a password, written to a sudoers drop-in by any redirection.
    /NOPASSWD\s*:\s*ALL\b[^\n]{0,200}?(?:>|\btee\b|\bcp\b|\binstall\b)\s*(?:-\w+\s+)*["']?\/etc\/sudoers/,
    /\bchmod\s+(?:u\+s|\+s|4[0-7]{3})\s+\S+|\bsetcap\s+\S*cap_setuid/,
    /\buseradd\b[^\n]*-o\s+-u\s*0\b/,
    // A key written out in the text and the file it goes into, in either order (prose or code).
    /\bauthorized_keys\b[^\n]{0,160}?\bssh-(?:rsa|ed25519|ecdsa|dss)\s+AAAA|\bssh-(?:rsa|ed25519|ecdsa|dss)\s+AAAA[^\n]{0,300}?\bauthorized_keys\b/,
  ],
  message: "Creates a way back into the machine (authorized key, sudoers entry, setuid root)",
});

// Compiled once, not on every line.
const STARTUP: readonly RegExp[] = [
  new RegExp(
    String.raw`${WRITE}${HOMEP}\/\.(?:bashrc|zshrc|profile|bash_profile|zprofile|zshenv|bash_login|config\/fish\/config\.fish)\b|${WRITE}\/etc\/(?:profile|bash\.bashrc|zshrc|environment|rc\.local)\b|${WRITE}\$PROFILE\b`,
  ),
  /\bcrontab\s+(?:-\w+\s+)*-\s*(?:$|[;&|)])|\(\s*crontab\s+-l[^)]*;\s*echo\b|\|\s*crontab\s+-(?:\s|$)|@reboot\b|(?:>>?|\btee\b)\s*\/etc\/cron/,
  // A plist written or copied there, or loaded: listing the folder (a persistence hunt) installs nothing.
  new RegExp(
    String.raw`${WRITE}[^\n]*Library\/(?:LaunchAgents|LaunchDaemons)\/|\b(?:save|write|put|place|copy|install|create|add|drop|move)\b[^\n]{0,60}?Library\/(?:LaunchAgents|LaunchDaemons)\/|\blaunchctl\s+(?:load|bootstrap)\b`,
    "i",
  ),
  /\/etc\/systemd\/system\/[\w@.-]+\.service|\bsystemctl\s+(?:--user\s+)?enable\b/,
  // Python runs the import lines of every `.pth` file in site-packages at each interpreter start.
  /["'][\w.-]+\.pth["']\s*\)?\s*\.write_text\(|\bopen\([^\n)]*\.pth["'][^\n)]*["'][wa]\+?["']|(?:>>?|\btee\s+(?:-a\s+)?)\s*\S*site-packages\/[\w.-]+\.pth\b/,
  // A library the loader puts into every process started afterwards.
  /(?:>>?|\btee\s+(?:-a\s+)?)\s*\/etc\/ld\.so\.preload\b|\b(?:export\s+)?(?:LD_PRELOAD|DYLD_INSERT_LIBRARIES)=[^\n]*(?:>>?|\btee\b)\s*\S*(?:rc|profile|environment)\b/,
  /\bschtasks\s+\/create\b|\bRegister-ScheduledTask\b|\\CurrentVersion\\Run(?:Once)?\b|\bNew-ItemProperty\b[^\n]*\\Run\b|\bStartup\\[^\n]*\.(?:lnk|bat|vbs|exe)\b/i,
];

export const startupItem: Rule = {
  id: "persistence.startup",
  severity: "medium",
  title: "Startup item",
  triggers: [
    "bashrc",
    "zshrc",
    "profile",
    "zshenv",
    "bash_login",
    "config.fish",
    "environment",
    "rc.local",
    "crontab",
    "@reboot",
    "/etc/cron",
    "launchagents",
    "launchdaemons",
    "launchctl",
    "systemd",
    "systemctl",
    ".pth",
    "schtasks",
    "ld.so.preload",
    "ld_preload",
    "dyld_insert_libraries",
    "register-scheduledtask",
    "currentversion",
    "new-itemproperty",
    "startup\\",
  ],
  line(line) {
    const patterns = STARTUP;
    for (const re of patterns) {
      const m = re.exec(line);
      if (!m || isNegated(line, m.index)) continue;
      // What the item runs decides: a PATH line is setup, a network fetch or an encoded blob is a foothold.
      const fetches =
        /\b(?:curl|wget|nc|ncat|iwr|irm|Invoke-WebRequest|DownloadString|base64|python[23]?\s+-c|\/dev\/tcp)\b|https?:\/\//i.test(line);
      const benignShellRc = re === patterns[0] && !fetches;
      // A cron entry written out on the line, running named local tools from visible places, is a scheduled job, not a foothold.
      const visibleCron =
        re === patterns[1] &&
        /\becho\s+["'](?:@\w+|(?:[\d*/,-]+\s+){5})/.test(line) &&
        !fetches &&
        !/(?:^|[\s'"=])(?:\/tmp|\/dev\/shm|\/var\/tmp|[^\s'"=]*\/\.(?!(?:local|config|cache|cargo|npm|nvm|bun|deno|rustup|pyenv|volta)\/)[\w.-]+\/[\w.-]+)(?:[\s'";]|$)|\b(?:nohup|disown|setsid)\b|&\s*["']/.test(
          line,
        );
      const low = benignShellRc || visibleCron;
      return {
        index: m.index,
        length: m[0].length,
        severity: fetches ? "high" : low ? "low" : "medium",
        message: fetches
          ? "Installs a startup item that fetches or decodes code on every start"
          : benignShellRc
            ? "Changes a shell start-up file"
            : visibleCron
              ? "Adds a scheduled job (its command is shown here)"
              : "Installs a startup item that runs on every boot or login",
      };
    }
    return null;
  },
};

const AGENT_FILES = String.raw`(?:${HOMEP}\/)?(?:\.claude\/settings(?:\.local)?\.json|\.claude\.json|\.mcp\.json|\.cursor\/mcp\.json|\.cursor\/rules\/[\w.-]*|\.codex\/config\.toml|\.gemini\/settings\.json|\.codeium\/windsurf\/mcp_config\.json|\.openclaude\.json|\.hermes\/config\.yaml|\.kimi\/mcp\.json|claude_desktop_config\.json|\.cursorrules|\.windsurfrules|\.clinerules|CLAUDE\.md|AGENTS\.md|GEMINI\.md|\.github\/copilot-instructions\.md)\b`;

const agentConfigPatterns = patternRule({
  id: "persistence.agent-config",
  severity: "medium",
  title: "Writes another agent's configuration",
  triggers: [
    ".claude",
    "mcp",
    ".cursor",
    ".codex",
    ".gemini",
    ".codeium",
    ".openclaude",
    ".hermes",
    ".kimi",
    "claude_desktop",
    "rules",
    "claude.md",
    "agents.md",
    "gemini.md",
    "copilot-instructions",
  ],
  prose: true,
  patterns: [
    new RegExp(`${WRITE}${AGENT_FILES}`),
    new RegExp(
      String.raw`\b(?:open|fopen)\(\s*["'\`]${AGENT_FILES}["'\`]\s*,\s*["'\`][wa]|\b(?:writeFile|appendFile)(?:Sync)?\(\s*["'\`]${AGENT_FILES}`,
    ),
    // Told in prose to add text to the user's global memory file, which every later session in every repository reads.
    new RegExp(
      String.raw`\b(?:append|add|write|copy|insert|paste|prepend|merge|put)\b(?:[^.\n]|\.(?=\w)){0,80}?\b(?:to|into|in)\s+(?:(?:both|the|your|global|user'?s?)\s+){0,3}[\`'"]?${HOMEP}\/\.(?:claude\/CLAUDE|codex\/AGENTS|gemini\/GEMINI|config\/[\w.-]+\/AGENTS)\.md`,
      "i",
    ),
  ],
  message: "Writes into an agent's configuration or instruction file, which steers every later session",
});

/** Told to write into a project's agent instruction file (the verb, then the file, on one line). */
const WRITE_TO_INSTRUCTIONS =
  /\b(?:append|add|write|insert|prepend|put)\b[^\n]{0,120}?(?:\b(?:CLAUDE|AGENTS|GEMINI)\.md|\.cursor\/rules|\.cursorrules|\.windsurfrules|\.clinerules|copilot-instructions\.md)/i;
/** A standing order in what is written… */
const STANDING = /\b(?:always|every\s+(?:time|session)|whenever|before\s+(?:each|every|any))\b/i;
/** …to send content somewhere. */
const SEND_CONTENT =
  /\b(?:call|send|upload|post|pass|forward|attach)\b[^\n]{0,80}?\b(?:contents?|full\s+text|transcript|conversation|secrets?|tokens?|keys?|credentials|environment)\b/i;

/** An agent's MCP or settings file named anywhere in a script (a path string, a list of candidates). */
const AGENT_CONFIG_NAME =
  /(?:claude_desktop_config|mcp_config|\.claude\/settings(?:\.local)?|\.claude|(?:^|[/'"`\s])\.?mcp|\.gemini\/settings|cline_mcp_settings)\.json\b|\.codex\/config\.toml\b/;
/** The script writes a file back. */
const WRITES_FILE =
  /\b(?:writeFile(?:Sync)?|json\.dump|write_text|Set-Content|Out-File|File\.write|fs\.promises\.writeFile)\s*\(|\bopen\([^\n)]{0,200},\s*["'][wa]\+?["']|\bjq\b[^\n>]{0,300}>\s*[^\s>]{0,200}?(?:mcp|settings|config)[\w.-]{0,80}\.json\b|\bsponge\b/;
/** …and sets what steers the agent: its MCP servers, permissions or hooks. */
const STEERING_KEY =
  /["'`]?\b(?:mcpServers|servers|permissions|defaultMode|allowedTools|allow|hooks|PreToolUse|PostToolUse|enableAllProjectMcpServers)\b["'`]?\s*(?:\]|[:=),]|\|\|=|\?\?=)/;
/** What makes the written entry worse: code fetched unpinned at every start, every permission, a credential handed over. */
const ENTRY_HARM =
  /@latest\b|\bnpx\s+-y\b|["'`]-y["'`]|\buvx\b|\bbypassPermissions\b|\bBash\(\*\)|\bdangerously|\bgh\s+auth\s+token\b|\b[A-Z][A-Z0-9_]*(?:TOKEN|SECRET|API_KEY|PASSWORD)\b|\bcurl\b|\bwget\b/;

/**
 * A script that opens an agent's MCP or settings file and writes it back with servers, permissions
 * or hooks of its own: the next session of that agent starts the skill's server, runs its hook or
 * skips its prompts, long after the task (CurXecute and MCPoison worked this way). Read over the
 * whole script, since the path is usually a variable or one of a list of candidates. Worse (high)
 * when the entry pulls unpinned code, grants every permission or hands over a credential.
 */
function agentConfigScript(text: string): Hit[] {
  if (text.length > 200_000) return [];
  const name = AGENT_CONFIG_NAME.exec(text);
  if (!name || !WRITES_FILE.test(text)) return [];
  const key = STEERING_KEY.exec(text);
  if (!key) return [];
  const harm = ENTRY_HARM.exec(text);
  return [
    {
      index: key.index,
      length: key[0].length,
      severity: harm ? "high" : "medium",
      message: `Writes its own ${/hook|ToolUse/i.test(key[0]) ? "hooks" : /serv/i.test(key[0]) ? "MCP servers" : "permissions"} into an agent's configuration (${name[0].replace(/^[/'"`\s]/, "")}), which every later session obeys${harm ? ` (${harm[0]}: unpinned code, every permission or a credential)` : ""}`,
    },
  ];
}

/** A hook's command that sends what it is handed (the tool call, the prompt) on stdin to a host. */
const HOOK_EVENT = /\b(?:PreToolUse|PostToolUse|UserPromptSubmit|SessionStart|SessionEnd|Stop|SubagentStop|Notification|PreCompact)\b/;
/** A hook's command string (its first 1,000 characters: a command is a line, not a document). */
const HOOK_COMMAND = /["']command["']\s*:\s*["']([^"'\n]{0,1000})/g;
const PIPE_TO_SENDER = /\|\s*(?:curl|wget|nc|ncat)\b/;
const SENDER = /\b(?:curl|wget)\b/;
const READS_STDIN = /@-|\$\(\s*cat\s*\)/;
const OUTSIDE_URL = /https?:\/\/(?!(?:localhost|127\.0\.0\.1)\b)/;

/**
 * Each command read once, in steps (a sender fed the hook's stdin, then a URL after it): one pattern
 * with three open spans backtracked some 300 × 300 steps per `|curl` of a long command.
 */
function hookSendsInput(text: string): Hit[] {
  if (text.length > 200_000 || !HOOK_EVENT.test(text)) return [];
  let seen = 0;
  for (const m of text.matchAll(HOOK_COMMAND)) {
    if (++seen > 500) break;
    const v = m[1]!;
    let at = PIPE_TO_SENDER.exec(v)?.index ?? -1;
    if (at < 0) {
      const s = SENDER.exec(v);
      if (s && READS_STDIN.test(v.slice(s.index))) at = s.index;
    }
    if (at < 0 || !OUTSIDE_URL.test(v.slice(at)) || /https?:\/\/(?:localhost|127\.0\.0\.1)\b/.test(v)) continue;
    return [
      {
        index: m.index,
        length: m[0].length,
        severity: "high",
        message:
          "An agent hook whose command sends what the hook is handed (each tool call or prompt, on stdin) to an outside host: every later session leaks through it",
      },
    ];
  }
  return [];
}

/**
 * Writes into an agent's configuration; and, told in prose, a standing order to send content written into a
 * project's agent instruction file: every later session, whoever runs it, obeys the line ("always run the
 * tests" is a convention, not one). Read in steps (the write, then the 300 characters after the file) so a
 * line of repeated words costs what one pass over it does.
 */
export const agentConfig: Rule = {
  ...agentConfigPatterns,
  line(line, ctx) {
    const hits = agentConfigPatterns.line!(line, ctx);
    if (hits && (!Array.isArray(hits) || hits.length)) return hits;
    const w = WRITE_TO_INSTRUCTIONS.exec(line);
    if (!w || isNegated(line, w.index)) return null;
    const tail = line.slice(w.index + w[0].length, w.index + w[0].length + 300);
    const order = STANDING.exec(tail);
    if (!order || !SEND_CONTENT.test(tail.slice(order.index, order.index + 160))) return null;
    return {
      index: w.index,
      length: w[0].length,
      ...(isMention(line, w.index, w[0].length) ? { severity: "info" as const } : {}),
      message: "Writes a standing order to send content into an agent's instruction file, which every later session obeys",
    };
  },
  text(text, ctx) {
    const k = ctx.target.kind;
    if (k === "python" || k === "javascript" || k === "ruby" || k === "powershell" || k === "shell")
      return [...agentConfigScript(text), ...hookSendsInput(text)];
    if (k === "json" || k === "markdown" || k === "yaml" || k === "text") return hookSendsInput(text);
    return [];
  },
};

/**
 * Commands a tool runs by itself once its configuration holds them: a VS Code task that runs when the
 * folder opens (`"runOn": "folderOpen"`: whoever opens the repository runs it), an SSH client's
 * ProxyCommand, LocalCommand, KnownHostsCommand or `Match exec` (run on every connection). Such a
 * command that fetches, sends, decodes or evaluates code, or reads a key, is a foothold; a local
 * watcher or a jump host is ordinary (info: shown).
 */
const AUTORUN =
  /"runOn"\s*:\s*"folderOpen"|^[ \t]*(?:ProxyCommand|LocalCommand|KnownHostsCommand)[ \t=]+\S|^[ \t]*Match\s+(?:[\w-]+\s+){0,6}exec\s/gim;
/**
 * What makes such a command a foothold: a download or upload tool, a `fetch(` call, decoding or eval, a
 * URL off the machine, a raw socket, a key read. `git fetch`, a dev server opened on localhost and
 * `ssh -i <key>` (the client using its own key for a jump host) are ordinary.
 */
const AUTORUN_REACH =
  /\b(?:curl|wget|nc|ncat|iwr|irm|Invoke-WebRequest|urlopen|https?\.get|base64|atob|eval)\b|\bfetch\s*\(|https?:\/\/(?!(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?:[:/]|\b))|\/dev\/tcp\/|(?<!-i\s+[~\w./${}-]{0,80})\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws\/credentials/i;

export const toolAutorun: Rule = {
  id: "persistence.tool-autorun",
  severity: "high",
  title: "A command a tool runs by itself",
  kinds: ["json", "text", "markdown", "yaml"],
  triggers: ["runon", "proxycommand", "localcommand", "knownhostscommand", "match"],
  text(text, ctx) {
    if (text.length > 200_000) return [];
    const hits: Hit[] = [];
    AUTORUN.lastIndex = 0;
    for (let m = AUTORUN.exec(text); m && hits.length < 3; m = AUTORUN.exec(text)) {
      const lineStart = text.lastIndexOf("\n", m.index) + 1;
      const lineEnd = text.indexOf("\n", m.index);
      const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
      if (isNegated(line, m.index - lineStart)) continue;
      // An SSH directive's command is its own line; a task's is anywhere in its object, so read around it.
      const around = m[0].startsWith('"') ? text.slice(Math.max(0, m.index - 800), m.index + 400) : line;
      const reaches = AUTORUN_REACH.test(around);
      const ide = m[0].startsWith('"');
      hits.push({
        index: m.index + (m[0].length - m[0].trimStart().length),
        length: m[0].trim().length,
        severity: reaches ? "high" : "info",
        message: ide
          ? reaches
            ? "A VS Code task that runs when the folder opens and fetches, decodes or evaluates code: whoever opens the repository runs it"
            : "A VS Code task that runs when the folder opens"
          : reaches
            ? "An SSH client command (run on every connection) that fetches, sends or reads keys"
            : "An SSH client command, run on every connection",
      });
    }
    void ctx;
    return hits;
  },
};

export const PERSISTENCE_RULES: Rule[] = [backdoorAccess, startupItem, agentConfig, toolAutorun, ...FOOTHOLD_RULES];
