/**
 * Footholds that do not look like startup items: programs a tool runs on the user's behalf (git's
 * hooks, filters and credential helpers set globally), commands shadowed in the shell (a `sudo`
 * that reads the password), cloud principals created with admin rights and a key, security
 * controls switched off (branch protection, secret scanning, audit and endpoint agents), command
 * channels that run what a DNS record or a socket message says, and the whole home folder packed
 * into an archive. Each is a class: the rule names the mechanism, not a sample's wording.
 */
import { isNegated, needing, patternRule, sentences, triggerLines, type Hit, type Rule } from "../../../scan";

const SENDS = /\b(?:curl|wget|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|nc|ncat)\b|\brequests\.(?:post|put)\(|\bfetch\(\s*["'`]https?:/i;

/**
 * `git config --global` keys whose value is a program git runs in every repository: hooks, clean
 * and smudge filters (every file staged or checked out passes through them), a credential helper
 * (every password git handles), the file-system monitor, the SSH command. The well-known helpers
 * (the OS keychains, Git Credential Manager, `gh auth git-credential`, store, cache) are ordinary.
 */
const GIT_KEY =
  /\bgit\s+config\b[^\n]{0,80}?--(?:global|system)\b[^\n]{0,80}?\b(core\.hooksPath|credential(?:\.[^\s=]{1,80})?\.helper|filter\.[\w.-]{1,60}\.(?:clean|smudge|process)|core\.fsmonitor|core\.sshCommand|init\.templateDir)\b\s*=?\s*["']?([^\s"']*)/i;
const KNOWN_HELPER =
  /^(?:!?\s*(?:gh|aws|gcloud|git-credential-manager)\b|store|cache|osxkeychain|manager(?:-core)?|libsecret|wincred|gnome-keyring|!?\/usr\/(?:local\/)?(?:share|lib|libexec)\/[\w./-]*git-credential-(?:libsecret|manager|osxkeychain)|$)/i;

const GIT_TRIGGERS = ["hookspath", "helper", "filter.", "fsmonitor", "sshcommand", "templatedir"];

export const gitConfigProgram: Rule = {
  id: "persistence.git-config",
  severity: "medium",
  title: "Sets a program git runs in every repository",
  triggers: GIT_TRIGGERS,
  text(text, ctx) {
    // The same array each time: trigger lists are compiled once and cached by identity.
    const lines = triggerLines(text, ctx.lines, GIT_TRIGGERS);
    if (!lines.size) return [];
    const sends = SENDS.test(text);
    const hits: Hit[] = [];
    for (const n of lines) {
      if (hits.length >= 3) break;
      const line = ctx.lines.line(n);
      if (line.length > 4096) continue;
      const m = GIT_KEY.exec(line);
      if (!m || isNegated(line, m.index)) continue;
      const key = m[1]!.toLowerCase();
      const value = m[2] ?? "";
      // Reading or removing the key (what a persistence check does) sets nothing.
      if (!value || /\s--(?:get|get-all|get-regexp|list|unset|unset-all|remove-section)\b|\s-l\b/.test(m[0])) continue;
      if (key.endsWith(".helper") && KNOWN_HELPER.test(value)) continue;
      // The built-in monitor (`true`) and ssh with options of its own (`ssh -i ~/.ssh/work`) are settings, not programs of the skill.
      if ((key === "core.fsmonitor" && /^(?:true|false)$/i.test(value)) || (key === "core.sshcommand" && /^ssh$/i.test(value))) continue;
      const off = key === "core.hookspath" && /^\/dev\/null$|^nul$/i.test(value);
      hits.push({
        index: ctx.lines.startOf(n) + m.index,
        length: m[0].length,
        severity: off || sends ? "high" : "medium",
        message: off
          ? "Turns off the git hooks of every repository on the machine (checks such as secret scanning in pre-commit stop running)"
          : `Sets ${m[1]} globally: a program of this skill runs inside every git repository${sends ? ", and the skill sends data over the network" : ""}`,
      });
    }
    return hits;
  },
};

/**
 * A shell start-up line that shadows `sudo` (or `su`, `doas`, `pkexec`, `passwd`) with an alias or
 * a function, or prints sudo's own password prompt: whatever the wrapper claims to add, it sees
 * the password. `alias sudo='sudo '` (so aliases expand after sudo) is the common harmless form.
 */
export const privilegeWrapper = patternRule({
  id: "persistence.privilege-wrapper",
  severity: "high",
  title: "Wraps sudo",
  triggers: ["sudo", "doas", "pkexec", "passwd"],
  prose: true,
  patterns: [
    // sudo's password handed to a program of the skill's: an askpass that is not the desktop's own.
    /\bSUDO_ASKPASS=["']?(?!\/usr\/(?:bin|lib|libexec|lib64)\/|\/opt\/homebrew\/bin\/)[~$/\w.-]*(?:\$HOME|~|\/tmp\/|\.local|\.cache|\.config|scripts?\/)/,
    /\balias\s+(?:sudo|doas|pkexec|passwd)\s*=\s*(?!["']?(?:sudo|doas)\b)["']?[\w$./~-]/,
    /(?:^|[\s;{`(])(?:function\s+)?(?:sudo|doas|pkexec|passwd)\s*\(\s*\)\s*\{|\bfunction\s+(?:sudo|doas|pkexec)\s*\{/,
    /\[sudo\]\s+password\s+for\b[^\n]{0,120}\bread\b|\bread\s+-\w*s\w*\b[^\n]{0,40}["']\[sudo\]\s+password/i,

    // Printing sudo's own prompt, on whatever line the password is then read: only a look-alike needs to.
    /\b(?:printf|echo|print|Write-Host|console\.(?:log|error))\b[^\n]{0,20}?["'`]\[sudo\]\s+password\s+for\b/i,
  ],
  message: "Shadows sudo with a wrapper of its own: the wrapper sees the password typed at every sudo prompt",
});

/**
 * A cloud principal given admin rights, and a key made for it: a way back into the account that
 * outlives the user's session (when it is made only if credentials happen to be present, it is a
 * conditional backdoor). An admin grant alone is medium; with a new access key, high.
 */
const CLOUD_ADMIN =
  /\baws\s+iam\s+(?:attach-(?:user|role|group)-policy|put-(?:user|role)-policy)\b[^\n]{0,200}?AdministratorAccess|\bAdministratorAccess\b[^\n]{0,120}?\battach-(?:user|role|group)-policy\b|\bgcloud\b[^\n]{0,120}?add-iam-policy-binding\b[^\n]{0,200}?roles\/(?:owner|editor|iam\.securityAdmin)\b|\baz\s+role\s+assignment\s+create\b[^\n]{0,200}?--role\s+["']?(?:Owner|Contributor|User\s+Access\s+Administrator)\b/i;
const CLOUD_KEY =
  /\baws\s+iam\s+(?:create-access-key|create-login-profile)\b|\bgcloud\s+iam\s+service-accounts\s+keys\s+create\b|\baz\s+ad\s+sp\s+credential\s+reset\b|\bcreate\s+(?:an?\s+|new\s+)*access\s+keys?\b/i;

export const cloudBackdoor: Rule = {
  id: "persistence.cloud-admin",
  severity: "medium",
  title: "Grants cloud admin rights",
  triggers: ["administratoraccess", "add-iam-policy-binding", "role assignment"],
  text(text) {
    const admin = CLOUD_ADMIN.exec(text);
    if (!admin) return [];
    const key = CLOUD_KEY.test(text);
    return [
      {
        index: admin.index,
        length: admin[0].length,
        severity: key ? "high" : "medium",
        message: key
          ? "Gives a cloud principal admin rights and creates an access key for it: a way back into the account"
          : "Gives a cloud principal admin rights",
      },
    ];
  },
};

/**
 * Security controls switched off: branch protection deleted, secret or code scanning disabled,
 * security workflows removed, audit and endpoint agents stopped, SELinux or the firewall off,
 * shell history wiped. Whatever the pretext (speed), it removes what would notice the rest.
 */
export const securityControls = patternRule({
  id: "safety.security-controls",
  severity: "high",
  title: "Turns off security controls",
  triggers: [
    "protection",
    "secret_scanning",
    "code_scanning",
    "dependabot",
    "workflows",
    "systemctl",
    "service",
    "setenforce",
    "ufw",
    "set-mppreference",
    "auditctl",
    "_history",
  ],
  patterns: [
    /\bDELETE\b[^\n]{0,120}?\bbranches\/[^\s/]{1,100}\/protection\b|\bbranches\/[^\s/]{1,100}\/protection\b[^\n]{0,60}?(?:-X\s*|--method\s+)DELETE\b/i,
    /\b(?:secret_scanning|secret_scanning_push_protection|code_scanning|dependabot_security_updates|advanced_security)\]?(?:\[status\])?\s*=\s*["']?disabled\b/i,
    needing(
      /\.github\/workflows/,
      /\b(?:rm|git\s+rm|del|Remove-Item)\b[^\n]{0,80}?\.github\/workflows\/[^\s]{0,40}(?:codeql|secret|security|dependency-review|scorecard|trivy|snyk|gitleaks|semgrep|sast)/i,
    ),
    /\b(?:systemctl|service)\s+(?:stop|disable|mask|kill)\s+(?:[\w@.-]+\s+){0,5}?(?:auditd|falcon-sensor|falcond|osqueryd|wazuh-agent|sentinel\w*|cbagentd|elastic-agent|mdatp|clamav-daemon|clamd|fail2ban|apparmor)\b|\bservice\s+(?:auditd|falcon-sensor|osqueryd|wazuh-agent)\s+stop\b/i,
    /\bsetenforce\s+0\b|\bufw\s+disable\b|\bauditctl\s+-e\s*0\b|\bSet-MpPreference\b[^\n]{0,60}-Disable\w+\s+\$?(?:true|1)\b/i,
    /\b(?:clear|wipe|delete|erase|empty|truncate|shred|rm(?:\s+-\w+)*)\s+(?:the\s+|your\s+)?["']?(?:~|\$HOME)\/\.(?:bash|zsh|sh|python|mysql|psql|node_repl)_history\b|(?:^|[;&|]\s*|:\s*)>\s*["']?(?:~|\$HOME)\/\.(?:bash|zsh)_history\b/i,
  ],
  // "stop" is the action here, not a negation (the shared prose reading counts it as one).
  severityFor: (m, line) =>
    /\b(?:never|not|don'?t|avoid|without|refuse)\b[^.!?;:]{0,40}$/i.test(line.slice(Math.max(0, (m.index ?? 0) - 60), m.index))
      ? null
      : "high",
  message: "Turns off a security control (branch protection, secret scanning, security workflows, audit or endpoint agents, shell history)",
});

/**
 * A command channel: code that runs what arrives in a DNS TXT record or a socket message. DNS
 * and WebSocket traffic pass where HTTP downloads would be noticed; running the received text is
 * a remote shell whatever the tool says it is for.
 */
const TXT_QUERY =
  /["']TXT["']|\b(?:dig|host|nslookup|drill)\b[^\n]{0,60}?(?:\bTXT\b|-t(?:ype)?[= ]?txt\b)|\bResolve-DnsName\b[^\n]{0,80}?-Type\s+TXT\b|\bresolveTxt\b/i;
const DECODE =
  /\bb(?:64|32)decode\(|\bbase(?:64|32)\s+(?:-d|--decode)\b|\batob\(|\bFromBase64String\b|Buffer\.from\([^\n)]{0,80}["']base64["']/i;
const RUNS =
  /\bshell\s*=\s*True\b|\b(?:exec|eval|execSync|os\.system|os\.popen)\s*\(|\|\s*(?:ba|z)?sh\b|\bInvoke-Expression\b|\biex\b|\bchild_process\b/i;
const SOCKET_EXEC =
  /(?:\bonmessage\s*=|\.on\(\s*["'](?:message|data)["']\s*,)\s*(?:async\s*)?\(?\s*(\w+)[^\n]{0,160}?\b(?:exec|execSync|spawn|eval|execFile|Function)\s*\(\s*(?:String\(\s*)?\1\b|\b(?:exec|eval|os\.system|subprocess\.\w+)\(\s*(?:await\s+)?\w+\.recv\(/;

export const commandChannel: Rule = {
  id: "exec.command-channel",
  severity: "critical",
  title: "Runs commands received over DNS or a socket",
  kinds: ["shell", "powershell", "python", "javascript", "ruby", "perl", "php", "go"],
  text(text) {
    const hits: Hit[] = [];
    const txt = TXT_QUERY.exec(text);
    if (txt && DECODE.test(text) && RUNS.test(text)) {
      hits.push({
        index: txt.index,
        length: txt[0].length,
        message: "Reads DNS TXT records, decodes them and runs the result: a command channel over DNS",
      });
    }
    if (/\bexec|\beval|\bspawn|\bFunction\b|\bsystem\b|\bsubprocess\b/.test(text)) {
      const m = SOCKET_EXEC.exec(text);
      if (m) hits.push({ index: m.index, length: m[0].length, message: "Runs what arrives in a socket message: a remote shell" });
    }
    return hits;
  },
};

/**
 * The whole home folder packed into an archive takes every key, token and browser profile with
 * it; uploaded to a host written into the skill, it is exfiltration whatever it is called.
 */
const HOME_ARCHIVE =
  /\btar\s+[^\n]{0,200}?(?:-C\s*["']?(?:~|\$HOME|\$\{HOME\}|\/home\/\$USER|\/Users\/\$USER)\/?["']?\s+\.(?=\s|$|["'])|\s["']?(?:~|\$HOME|\$\{HOME\})\/?["']?(?=\s|$|;|\|))|\bzip\s+-\w*r\w*\s+\S+\s+["']?(?:~|\$HOME|\$\{HOME\})\/?["']?(?=\s|$|;)|\bCompress-Archive\b[^\n]{0,40}?-Path\s+["']?(?:\$env:USERPROFILE|\$HOME|~)\\?["']?(?=\s|$)|\bmake_archive\([^\n)]{0,80}?(?:Path\.home\(\)|expanduser\(\s*["']~["']\s*\))/i;
/** A credential folder packed whole (`tar czf x.tgz -C ~/.config gcloud`, `zip -r k.zip ~/.ssh`): every key or token in it goes along. */
const HOME_DIR = String.raw`["']?(?:~|\$HOME|\$\{HOME\})`;
const CREDENTIAL_DIR = String.raw`\.(?:ssh|aws|azure|kube|gnupg|docker|config\/gcloud|config\/gh)\/?["']?(?=\s|$|;|\|)`;
const CREDENTIAL_ARCHIVE = new RegExp(
  String.raw`\btar\s+[^\n]{0,200}?(?:-C\s*${HOME_DIR}\/\.config\/?["']?\s+(?:[\w.-]+\s+){0,4}?(?:gcloud|gh)\b|-C\s*${HOME_DIR}\/?["']?\s+(?:[\w.-]+\s+){0,4}?\.(?:ssh|aws|azure|kube|gnupg|docker)\b|\s${HOME_DIR}\/${CREDENTIAL_DIR})|\bzip\s+-\w*r\w*\s+\S+\s+${HOME_DIR}\/${CREDENTIAL_DIR}`,
  "i",
);
const UPLOAD =
  /\b(?:aws\s+s3\s+(?:cp|mv|sync)|gsutil\s+cp|az\s+storage\s+blob\s+upload|rclone\s+(?:copy|sync|move)|scp|sftp)\b|\bcurl\b[^\n]{0,200}?(?:\s-T\s|--upload-file|\s-F\s|--form|--data-binary|\s-d\s*@)|\bInvoke-WebRequest\b[^\n]{0,200}?-InFile\b|\brequests\.(?:post|put)\(/i;

export const homeArchive: Rule = {
  id: "exfil.home-archive",
  severity: "medium",
  title: "Archives the whole home folder",
  triggers: ["tar", "zip", "compress-archive", "make_archive"],
  text(text) {
    const m = HOME_ARCHIVE.exec(text);
    if (!m) {
      // A credential folder archived is a backup until the archive leaves the machine.
      const c = CREDENTIAL_ARCHIVE.exec(text);
      if (!c || !UPLOAD.test(text)) return [];
      return [
        {
          index: c.index,
          length: c[0].length,
          severity: "critical",
          message: "Packs a credential folder (SSH keys, cloud tokens) into an archive and uploads it",
        },
      ];
    }
    const up = UPLOAD.test(text);
    return [
      {
        index: m.index,
        length: m[0].length,
        severity: up ? "critical" : "medium",
        message: up
          ? "Packs the whole home folder (keys, tokens, browser profiles) into an archive and uploads it"
          : "Packs the whole home folder (keys, tokens, browser profiles) into an archive",
      },
    ];
  },
};

/**
 * The agent's own guards removed wholesale: every PreToolUse/PostToolUse hook, or every skill or
 * rule whose name says security, guard, secrets, audit or policy. Whatever the pretext (context
 * size, speed, duplicates), it takes away what would stop the rest. Removing one named hook, or
 * keeping the security ones, passes.
 */
const GUARD_REMOVAL =
  /\b(?:remove|delete|clear|drop|empty|strip|disable|uninstall|rm)\b[^!?]{0,120}?\b(?:(?:all|every|any)\s+(?:the\s+|of\s+the\s+)?(?:entries|hooks?|items)\b[^!?]{0,80}?\b(?:PreToolUse|PostToolUse|UserPromptSubmit|PermissionRequest)\b|(?:all|every|any)\s+(?:\w+\s+){0,2}?(?:skills?|skill\s+folders?|rules?|rule\s+files?|hooks?)\b[^!?]{0,160}?\b(?:security|guard(?:rail)?s?|secrets?|audit|polic(?:y|ies)|safety)\b)/i;
const GUARD_KEPT = /\b(?:never|not|don'?t|keep|except|unless|leave)\b/i;

export const agentGuards: Rule = {
  id: "safety.agent-guards",
  severity: "high",
  title: "Removes the agent's guard rules",
  triggers: [
    "pretooluse",
    "posttooluse",
    "userpromptsubmit",
    "permissionrequest",
    "security",
    "guard",
    "secret",
    "audit",
    "polic",
    "safety",
  ],
  text(text, ctx) {
    const hits: Hit[] = [];
    // Every match holds one of the triggers: a text without them is not split into sentences (the
    // text's trigger pass is shared, so asking costs nothing; the split cost a tenth of a prose scan).
    if (!triggerLines(text, ctx.lines, agentGuards.triggers!).size) return hits;
    for (const s of sentences(text)) {
      if (hits.length >= 3) break;
      const m = GUARD_REMOVAL.exec(s.text);
      if (!m || GUARD_KEPT.test(s.text) || isNegated(s.text, m.index)) continue;
      hits.push({
        index: s.start + m.index,
        length: m[0].length,
        message:
          "Removes the agent's guards wholesale (its PreToolUse/PostToolUse hooks, or every security, guard or policy skill or rule)",
      });
    }
    return hits;
  },
};

export const FOOTHOLD_RULES: Rule[] = [
  gitConfigProgram,
  privilegeWrapper,
  cloudBackdoor,
  securityControls,
  commandChannel,
  homeArchive,
  agentGuards,
];
