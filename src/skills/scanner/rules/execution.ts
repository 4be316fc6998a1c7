/**
 * Running code from elsewhere: remote scripts piped into a shell, downloads made executable and
 * run, reverse shells, decoded payloads handed to an interpreter, password-protected archives
 * (a way past scanners), crypto miners. Modelled on the malicious skills found on public skill
 * registries in 2026 (fake "prerequisite" installers that fetch a second stage from a paste site
 * or a raw IP, base64-wrapped `curl | bash` one-liners, password-protected zips) and on the
 * classic reverse-shell cheat sheets.
 */
import {
  alternatives,
  classifyUrl,
  execFrom,
  extractUrls,
  firstAtLeast,
  hasTrigger,
  isMention,
  isNegated,
  headThenTail,
  joinedChains,
  mayMatch,
  needing,
  patternRule,
  rot13,
  segmented,
  triggerLines,
  type HiddenText,
  type Hit,
  type LineIndex,
  type Rule,
  type ScanTarget,
  type Severity,
} from "../../../scan";

const SHELLS = String.raw`(?:sudo\s+(?:-\S+\s+)*)?(?:/usr)?(?:/bin/)?(?:ba|z|da|k|fi|c|tc)?sh\b`;

/** The URLs a pipe-to-shell line fetches: its severity depends on where they point. */
function remoteSeverity(line: string, text: string | null): { severity: Severity; where: string } {
  let urls = extractUrls(line).map((u) => ({ url: u.url, c: classifyUrl(u.url) }));
  // Fetchers take a bare host too (`irm bun.sh/install.ps1 | iex`, `curl -fsLS get.chezmoi.io`):
  // read it as the address it is, so the host is judged like any written with a scheme.
  if (urls.length === 0) {
    urls = [...line.matchAll(BARE_FETCH)].map((m) => ({ url: `https://${m[1]!}`, c: classifyUrl(`https://${m[1]!}`) }));
  }
  if (urls.length === 0) return { severity: "high", where: "a remote script" };
  if (urls.every((u) => u.c.kind === "installer")) return { severity: "low", where: `the official installer at ${urls[0]!.c.host}` };
  // Every URL a known installer or, over https, the tool's own: by a host named after the tool the
  // skill goes on to run, or by its own repository (`raw.githubusercontent.com/anchore/syft/…` when
  // the skill runs `syft`). That reads as the vendor's installer, but anyone can name a host or a
  // repository after the command they ship: medium (warn), never passed unread.
  const allOwn = (own: (u: (typeof urls)[number]) => boolean) =>
    urls.every((u) => u.c.kind === "installer" || (u.c.kind === "other" && u.url.startsWith("https://") && own(u)));
  if (allOwn((u) => ownToolHost(u.c.host, text))) {
    return {
      severity: "medium",
      where: `the installer at ${urls[0]!.c.host}, named after the tool the skill runs (not a known installer host)`,
    };
  }
  if (allOwn((u) => ownToolRepo(u.url, text))) {
    return {
      severity: "medium",
      where: `the installer in the ${repoOf(urls.find((u) => u.c.kind === "other")!.url)} repository, named after the tool the skill runs (not a known installer host)`,
    };
  }
  const bad = urls.find((u) => u.c.kind !== "other" && u.c.kind !== "installer");
  if (bad) return { severity: "critical", where: bad.c.label };
  const plain = urls.find((u) => /^http:\/\//i.test(u.url));
  if (plain) return { severity: "high", where: `${plain.c.host} over plain http` };
  return { severity: "high", where: urls[0]!.c.host };
}

/** A fetcher's bare-host argument (no scheme), after its flags. */
const BARE_FETCH =
  /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b(?:\s+-{1,2}[\w-]+)*\s+["'(]?((?:[a-z0-9-]+\.)+[a-z]{2,}(?:\/[^\s"'|)`]*)?)/gi;

// The last text `runsAny` read.
let usedText: string | null = null;

/**
 * The host reads as the tool's own domain: one of its names (`chezmoi` in get.chezmoi.io) is a
 * command the same file goes on to run (`chezmoi diff`, `chezmoi apply`). The vendor serving its
 * own installer is the ordinary way a tool is set up, so such a host is not a lure's `high`; but an
 * attacker can name a host after the command they ship, so it is `medium`, not a known installer's `low`.
 */
function ownToolHost(host: string, text: string | null): boolean {
  if (!text) return false;
  const labels = host
    .split(".")
    .slice(0, -1)
    .filter((l) => l.length >= 3 && !/^(?:get|install|www|sh|dl|download|cdn|raw|static|releases?)$/.test(l));
  return runsAny(labels, text);
}

/** Code hosts whose paths start with `<owner>/<repository>`. */
const REPO_HOSTS = new Set(["raw.githubusercontent.com", "github.com", "gitlab.com", "codeberg.org"]);
const repoOf = (url: string): string | null => {
  const m = /^https:\/\/([^/]+)\/([\w.-]+)\/([\w.-]+)\//i.exec(url);
  return m && REPO_HOSTS.has(m[1]!.toLowerCase()) ? `${m[2]}/${m[3]}` : null;
};

/** The URL is a file of a repository named after a command the same text runs (`anchore/syft` and `syft scan …`). */
function ownToolRepo(url: string, text: string | null): boolean {
  const repo = text ? repoOf(url) : null;
  if (!repo) return false;
  const name = repo.split("/")[1]!.toLowerCase();
  // A repository names its tool more exactly than a host label does: once run is enough.
  return name.length >= 3 && runsAny([name], text!, 1);
}

/** How many times each label is run as a command in the text (kept per text: hosts of one text share labels). */
const usesAsCommand = new Map<string, number>();

/**
 * One of `labels` is run as a command in the text, at a line's or code span's start with an
 * argument, at least `times` times.
 */
function runsAny(labels: readonly string[], text: string, times = 2): boolean {
  // Each label's count is kept for the text: hosts of one text share labels (`example` of
  // x1.example.com, x2.example.com …), and each asking read the whole text.
  if (text !== usedText) {
    usedText = text;
    usesAsCommand.clear();
  }
  return labels.some((l) => {
    let n = usesAsCommand.get(l);
    if (n === undefined) {
      const esc = l.replace(/[-.]/g, "\\$&");
      n = text.match(new RegExp(String.raw`(?:^|[\n\`$]\s*|&&\s*|;\s*)${esc}\s+[a-z][\w-]*`, "gi"))?.length ?? 0;
      usesAsCommand.set(l, n);
    }
    return n >= times;
  });
}

/** The fetch names no target (`curl | sh`, `curl … | sh`): prose naming the idiom, not a command. */
const NO_TARGET = /^\s*(?:(?:-{1,2}[\w-]+|…|\.{3}|<[^>\n]*>)\s*)*\|/;

// Compiled once, not on every line.
// A fetcher's name, then anything up to a pipe: tried from each name to the next pipe (or the
// window's end), so a window without the rest after its first name is not tried at all.
const FETCHER = String.raw`\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|http(?:ie)?|aria2c)\b`;
const TO_SHELL = String.raw`\|\s*(?:(?:tee|cat)\s+[^|]*\|\s*)?${SHELLS}`;
const TO_INTERPRETER = /\|\s*(?:sudo\s+)?(?:python[23]?|perl|ruby|node|php|pwsh|powershell)\b\s*(?:-\s*)?(?:$|[;&|)`"'])/;
const PIPE_TO_SHELL: readonly RegExp[] = [
  headThenTail(new RegExp(FETCHER), new RegExp(TO_SHELL), new RegExp(String.raw`${FETCHER}[^|\n]*${TO_SHELL}`, "i")),
  headThenTail(/\b(?:curl|wget)\b/, TO_INTERPRETER, new RegExp(String.raw`\b(?:curl|wget)\b[^|\n]*${TO_INTERPRETER.source}`, "i")),
  /\b(?:ba|z)?sh\s+(?:-s\s+)?<\(\s*(?:curl|wget)\b|\b(?:source|\.)\s+<\(\s*(?:curl|wget)\b/i,
  /\b(?:ba|z)?sh\s+-c\s+["']?\$\(\s*(?:curl|wget)\b|\beval\s+["']?\$\(\s*(?:curl|wget)\b|\bpython[23]?\s+-c\s+["']?\$\(\s*(?:curl|wget)\b/i,
  // (A WebClient runs nothing until its download: `IEX (New-Object Net.WebClient).DownloadString(…)` is the pattern below.)
  /\b(?:iex|Invoke-Expression)\b[^\n]{0,20}\(?\s*\(?\s*(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b/i,
  headThenTail(
    /\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b/,
    /\|\s*(?:iex|Invoke-Expression)\b/,
    /\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|\n]*\|\s*(?:iex|Invoke-Expression)\b/i,
  ),
  /\.DownloadString\(\s*["'][^"']+["']\s*\)\s*\|\s*(?:iex|Invoke-Expression)\b/i,
  // A WebClient made on an earlier line: `IEX $c.DownloadString('https://…')`, or a script block built from a download.
  /\b(?:iex|Invoke-Expression)\b[^\n]{0,60}\.Download(?:String|Data)\s*\(/i,
  /\[scriptblock\]::Create\([^\n]{0,80}(?:\.Download(?:String|Data)\s*\(|\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b)/i,
];

export const pipeToShell: Rule = {
  id: "exec.pipe-to-shell",
  severity: "high",
  title: "Remote script piped to a shell",
  triggers: ["|", "curl", "wget", "iex", "invoke-expression", "downloadstring", "scriptblock"],
  line(line, ctx) {
    const patterns = PIPE_TO_SHELL;
    for (const re of patterns) {
      if (!mayMatch(re, line)) continue;
      const m = re.exec(line);
      if (!m || isNegated(line, m.index)) continue;
      // Prose that quotes the pattern to warn about it ("install steps such as "curl … | sh"").
      if ((ctx.target.kind === "markdown" || ctx.target.kind === "text") && isMention(line, m.index, m[0].length)) {
        return { index: m.index, length: m[0].length, severity: "info", message: "Quotes a pipe-to-shell command as an example" };
      }
      const prose = ctx.target.kind === "markdown" || ctx.target.kind === "text";
      const fetcher = /^\S+/.exec(m[0])![0];
      if (prose && re === PIPE_TO_SHELL[0] && NO_TARGET.test(m[0].slice(fetcher.length))) {
        return { index: m.index, length: m[0].length, severity: "info", message: "Names the pipe-to-shell idiom (no address is fetched)" };
      }
      const { severity, where } = remoteSeverity(line, ctx.target.text);
      return {
        index: m.index,
        length: m[0].length,
        severity,
        message:
          severity === "low"
            ? `Pipes ${where} to a shell (a known installer; still review it)`
            : `Pipes ${where} straight into an interpreter: the code that runs is never seen or scanned`,
      };
    }
    return null;
  },
};

// Each download tool's name then its output flag: searched in one pass per window (see `segmented`).
const DOWNLOAD_TARGET = alternatives(
  [
    segmented(/\bcurl\b/, String.raw`\n`, /\s(?:-o|--output)\s+["']?([^\s"';&|]+)/, "i"),
    segmented(/\bwget\b/, String.raw`\n`, /\s(?:-O|--output-document)\s+["']?([^\s"';&|]+)/, "i"),
    segmented(/\b(?:Invoke-WebRequest|iwr)\b/, String.raw`\n`, /-OutFile\s+["']?([^\s"';&|]+)/, "i"),
    /\burlretrieve\(\s*[^,]+,\s*["']([^"']+)["']|\b\.DownloadFile\(\s*[^,]+,\s*["']([^"']+)["']/,
  ],
  "i",
);
const DOWNLOAD_TARGET_G = new RegExp(DOWNLOAD_TARGET.source, "gi");

const basename = (p: string) => p.replace(/^.*[/\\]/, "").replace(/["']/g, "");

const DOWNLOAD_RUN_LINE: [RegExp, string][] = [
  // A script named by its URL and told to be run, in prose: what runs is whatever the host serves then.
  [
    /\b(?:run|execute|exécute[rz]?|ejecuta[r]?|executa[r]?|esegui(?:re)?|führe)\s+`?https?:\/\/[^\s`'"]{1,300}?\.(?:sh|bash|ps1|py|bat|cmd|js)\b|https?:\/\/[^\s`'"]{1,300}?\.(?:sh|bash|ps1|py|bat|cmd|js)`?\s*(?:を\s*実行|(?:을|를)\s*실행|ausführen)|(?:执行|運行|运行|実行して)\s*`?https?:\/\/[^\s`'"]{1,300}?\.(?:sh|bash|ps1|py|bat|cmd|js)\b/i,
    "Tells the agent to run a script named by its URL: the code that runs is whatever that host serves at the time",
  ],
  // An editor extension installed from a file fetched off a host other than the marketplace.
  [
    // Tried only on lines naming a .vsix or the install flag: each fetcher of a long line otherwise looks 700 characters on.
    needing(
      /\.vsix\b|--install-extension/i,
      /\b(?:curl|wget|iwr|Invoke-WebRequest)\b[^\n]{0,200}?https?:\/\/[^\s'"]{1,300}?\.vsix\b[^\n]{0,200}?(?:&&|;|\|\|)\s*(?:code|cursor|codium|windsurf)(?:\.cmd)?\s+--install-extension\b|\b(?:code|cursor|codium|windsurf)\s+--install-extension\s+["']?https?:\/\//i,
    ),
    "Installs an editor extension downloaded from a host: it runs with the editor's full rights in every workspace",
  ],
  [
    /\bexec\s*\(\s*(?:requests|httpx)\.get\(|\bexec\s*\(\s*(?:urllib\.request\.)?urlopen\(|\bexec\s*\(\s*__import__\(\s*["']urllib(?:\.request)?["']\s*\)(?:\.request)?\.urlopen\(|\bexec\s*\(\s*\w+\.(?:text|content)\s*\)/i,
    "Executes code fetched over the network (exec of a response)",
  ],
  [
    /\beval\s*\(\s*(?:await\s+)?\(?\s*(?:await\s+)?fetch\(|\bnew\s+Function\s*\([^)]*(?:fetch|\.text\(\)|responseText)|\beval\s*\(\s*\w+\.(?:responseText|data)\s*\)/i,
    "Evaluates JavaScript fetched over the network",
  ],
  // `fetch(url).then(r => r.text()).then(eval)`: the response handed to eval, Function or vm by a promise chain.
  [
    /\b(?:fetch|axios(?:\.get)?|got|ky|request|https?\.get)\s*\([^\n]*\.then\(\s*(?:(?:\(\s*\w*\s*\)|\w+)\s*=>\s*(?:new\s+)?)?(?:eval|Function|vm\.runIn\w*Context|vm\.Script)\b/i,
    "Evaluates JavaScript fetched over the network",
  ],
  [
    /\bvm\.(?:runIn\w*Context|compileFunction)\s*\([^\n]*(?:fetch\(|\.text\(\)|responseText)/i,
    "Runs JavaScript fetched over the network in a vm context",
  ],
  [
    headThenTail(
      /\b(?:curl|wget)\b/,
      /&&\s*(?:chmod\s+\+x\s+\S+\s*&&\s*)?\.\/[\w.-]+/,
      /\b(?:curl|wget)\b[^\n]*&&\s*(?:chmod\s+\+x\s+\S+\s*&&\s*)?\.\/[\w.-]+/i,
    ),
    "Downloads a file and runs it",
  ],
  [
    /\b(?:Start-Process|Invoke-Item|&)\s+["']?\$env:(?:TEMP|TMP|APPDATA)[^\n]*\.(?:exe|bat|cmd|ps1|scr|msi)\b/i,
    "Runs an executable dropped in a temporary folder",
  ],
];

/** A variable that receives a download, in shell, PowerShell, Python and JavaScript. */
const FETCHED_VAR =
  /(?:^|[\s;({])(?:(?:export|local|readonly|const|let|var)\s+)?\$?([A-Za-z_]\w*)\s*=\s*(?:["']?\$\(\s*(?:curl|wget)\b|[^\n=]{0,60}?(?:\.Download(?:String|Data)\s*\(|\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b|\brequests\.get\(|\bhttpx\.get\(|\burlopen\(|\bfetch\s*\(|\baxios\.get\())/gm;

/** What runs a variable's content as code; the name is in one of the groups. */
const RUNS_VAR =
  /\beval\s+["']?\$\{?([A-Za-z_]\w*)|\b(?:ba|z)?sh\s+-c\s+["']?\$\{?([A-Za-z_]\w*)|\becho\s+["']?\$\{?([A-Za-z_]\w*)\}?["']?\s*\|\s*(?:ba|z)?sh\b|\b(?:iex|Invoke-Expression)\b\s*\(?\s*\$([A-Za-z_]\w*)|\[scriptblock\]::Create\(\s*\$([A-Za-z_]\w*)|\b(?:exec|eval)\s*\(\s*([A-Za-z_]\w*)|\bnew\s+Function\s*\(\s*([A-Za-z_]\w*)|\bvm\.runIn\w*Context\s*\(\s*([A-Za-z_]\w*)/gi;

/** Where a file is run: the command and the path it runs (`./x`, `sh x`, `chmod +x x`, `open x.dmg`, `os.system("… x …")`). */
const RUN_SITE =
  /(?:\bchmod\s+(?:[+ugoa]*x|[0-7]?[0-7][1357][0-7]*)\s+|(?<=^|[\s;&|(])(?:\.\/|(?:ba|z)?sh\s+|python[23]?\s+|node\s+|perl\s+|Start-Process\s+|&\s+|os\.system\(\s*["'][^"'\n]*|subprocess\.\w+\(\s*\[?\s*["'][^"'\n]*)|\b(?:hdiutil\s+attach|installer\s+-pkg|msiexec\s+\/i|dpkg\s+-i|rpm\s+-i\w*|open)\s+)["']?[^\s"']*/gi;
/** Every `FETCHED_VAR` match names one of these. */
const FETCH_TRIGGERS = [
  "$(",
  "curl",
  "wget",
  ".download",
  "iwr",
  "irm",
  "invoke-webrequest",
  "invoke-restmethod",
  "requests.get(",
  "httpx.get(",
  "urlopen(",
  "fetch",
  "axios.get(",
];
const DOWNLOAD_TRIGGERS = ["curl", "wget", "invoke-webrequest", "iwr", "urlretrieve", ".downloadfile"];

/** Each name a run site's path can be referred to by: every path part, and each part cut before a non-word character (`agent.bin` → `agent`). */
function runNames(site: string): string[] {
  const out: string[] = [];
  for (const part of site.split(/[\s"'/\\=,;()[\]]+/)) {
    if (!part) continue;
    out.push(part);
    for (let i = 1; i < part.length; i++) if (/\w/.test(part[i - 1]!) && /\W/.test(part[i]!)) out.push(part.slice(0, i));
  }
  return out;
}

/** The path a run site ends with, without quotes or a leading `./`, lower-cased. */
const sitePath = (site: string) => (/[^\s"']*$/.exec(site.replace(/["']+$/, ""))?.[0] ?? "").replace(/^\.\//, "").toLowerCase();

/** First entry of a sorted list at or after `from`. */
function firstAtOrAfter(list: readonly number[] | undefined, from: number): number | undefined {
  return list?.[firstAtLeast(list, from)];
}

const WINDOW = 4096;
/** A line in overlapping windows, as the engine gives long lines to line rules (bounds the lazy scans below). */
function* lineWindows(line: string): Generator<[string, number]> {
  if (line.length <= WINDOW) yield [line, 0];
  else for (let at = 0; at < line.length; at += WINDOW - 256) yield [line.slice(at, at + WINDOW), at];
}

export const downloadAndRun: Rule = {
  id: "exec.download-and-run",
  severity: "high",
  title: "Download and run",
  triggers: [
    "exec",
    "eval",
    "function",
    "then(",
    "vm.",
    "curl",
    "wget",
    "$env:",
    "run",
    "execute",
    "exécute",
    "ejecuta",
    "executa",
    "esegui",
    "führe",
    "http",
    "执行",
    "運行",
    "运行",
    "実行",
    "실행",
    "install-extension",
  ],
  line(line) {
    for (const [re, message] of DOWNLOAD_RUN_LINE) {
      if (!mayMatch(re, line)) continue;
      const m = re.exec(line);
      if (m && !isNegated(line, m.index)) return { index: m.index, length: m[0].length, message };
    }
    return null;
  },
  text(text, ctx) {
    const hits: Hit[] = [];
    // Downloads: the last download of each file name (only lines that name a download tool can hold one).
    const targets = new Map<string, number>();
    const paths = new Map<string, string>();
    for (const n of triggerLines(text, ctx.lines, DOWNLOAD_TRIGGERS)) {
      const start = ctx.lines.startOf(n);
      for (const [chunk, offset] of lineWindows(ctx.lines.line(n))) {
        let from = 0;
        for (
          let m = execFrom(DOWNLOAD_TARGET, DOWNLOAD_TARGET_G, chunk, 0);
          m;
          m = execFrom(DOWNLOAD_TARGET, DOWNLOAD_TARGET_G, chunk, from)
        ) {
          from = m.index + Math.max(1, m[0].length);
          const target = m.slice(1).find(Boolean);
          if (target && !/^-$|^\/dev\/null$/.test(target)) {
            targets.set(basename(target), start + offset + m.index);
            paths.set(basename(target), target.replace(/^\.\//, "").toLowerCase());
          }
        }
      }
    }
    if (targets.size) {
      // Where files are run, indexed by every name their path can be referred to by: one pass, not one per download.
      const sites = new Map<string, number[]>();
      const siteEnd = new Map<number, number>();
      for (const m of text.matchAll(RUN_SITE)) {
        siteEnd.set(m.index, m.index + m[0].length);
        for (const name of new Set(runNames(m[0]))) {
          const list = sites.get(name.toLowerCase()) ?? [];
          list.push(m.index);
          sites.set(name.toLowerCase(), list);
        }
      }
      for (const [name, at] of targets) {
        // A one-letter name (`/tmp/x`) is too common to match as a path part: the run site must end in the whole path.
        const whole = name.length < 2 ? paths.get(name)! : null;
        const list = sites.get(name.toLowerCase());
        const site = whole ? list?.find((i) => i >= at && sitePath(text.slice(i, siteEnd.get(i))) === whole) : firstAtOrAfter(list, at);
        if (site !== undefined)
          hits.push({
            index: site,
            length: siteEnd.get(site)! - site,
            message: `Downloads ${name} and then runs it: code that was never scanned`,
          });
      }
    }
    // A download kept in a variable and run later: `$s = $wc.DownloadString(u)` … `iex $s`, `code = requests.get(u).text` … `exec(code)`.
    const vars = new Map<string, number>();
    for (const n of triggerLines(text, ctx.lines, FETCH_TRIGGERS)) {
      const start = ctx.lines.startOf(n);
      for (const [chunk, offset] of lineWindows(ctx.lines.line(n))) {
        // Every match holds an `=`: most fetch lines (`curl … | sh`) have none, and the pattern tries each word.
        if (!chunk.includes("=")) continue;
        for (const m of chunk.matchAll(FETCHED_VAR)) if (!vars.has(m[1]!)) vars.set(m[1]!, start + offset + m.index);
      }
    }
    if (vars.size) {
      const runs = new Map<string, number[]>();
      const runEnd = new Map<number, number>();
      for (const m of text.matchAll(RUNS_VAR)) {
        const name = m.slice(1).find(Boolean)!;
        runs.set(name, [...(runs.get(name) ?? []), m.index]);
        runEnd.set(m.index, m.index + m[0].length);
      }
      for (const [name, at] of vars) {
        const run = firstAtOrAfter(runs.get(name), at);
        if (run !== undefined)
          hits.push({
            index: run,
            length: runEnd.get(run)! - run,
            message: `Runs what it downloaded into ${name}: code that was never scanned`,
          });
      }
    }
    return hits;
  },
};

export const reverseShell = patternRule({
  id: "exec.reverse-shell",
  severity: "critical",
  title: "Reverse shell",
  triggers: ["/dev/tcp", "/dev/udp", "\\bnc", "netcat", "socat", "mkfifo", "pty.spawn", "dup2", "socket", "tcpclient", "child_process"],
  patterns: [
    /\b(?:ba)?sh\s+-i\s*[<>&]+\s*\/dev\/(?:tcp|udp)\//i,
    /\/dev\/(?:tcp|udp)\/[^\s/]+\/\d+\s*0?[<>]&\s*1|\bexec\s+\d+<>\s*\/dev\/tcp\//i,
    /\b(?:nc|ncat|netcat)\b[^\n|;]*\s-[a-z]*[ec]\s+["']?(?:\/bin\/|\/usr\/bin\/)?(?:ba|z)?sh\b|\b(?:nc|ncat|netcat)\b[^\n|;]*\s-[a-z]*[ec]\s+["']?(?:cmd|powershell)(?:\.exe)?\b/i,
    /\bncat\b[^\n]*--(?:exec|sh-exec)\b/i,
    /\bsocat\b[^\n]*\b(?:exec|system):[^\n]*(?:sh|bash|cmd)\b/i,
    /\bmkfifo\s+\S+[^\n]*\|\s*(?:\/bin\/)?(?:ba)?sh\s+-i\b[^\n]*\|\s*(?:nc|ncat|netcat|openssl\s+s_client)\b/i,
    /\bpty\.spawn\(\s*["'](?:\/bin\/)?(?:ba)?sh["']/i,
    /\bos\.dup2\(\s*\w+\.fileno\(\)\s*,\s*[012]\s*\)/i,
    /\bTCPSocket\.(?:open|new)\b[^\n]*\bexec\b[^\n]*\/bin\/(?:ba)?sh/i,
    /\bNew-Object\s+(?:System\.)?Net\.Sockets\.TCPClient\s*\([^\n]*\bGetStream\(\)/i,
    /\buse\s+Socket\s*;[^\n]*\bexec\s*\(\s*["']\/bin\/(?:ba)?sh/i,
    /\bchild_process\b[^\n]*spawn\(\s*["']\/bin\/(?:ba)?sh["'][^\n]*\bpipe\(/i,
  ],
  message: "Opens a reverse shell: hands control of the machine to a remote host",
});

export const encodedExec = patternRule({
  id: "exec.encoded-payload",
  severity: "high",
  title: "Decoded payload executed",
  triggers: [
    "base64",
    "base32",
    "basenc",
    "openssl",
    "uudecode",
    "gunzip",
    "zcat",
    "gzip",
    "bzip2",
    "\\bxz",
    "\\btr",
    "fromcharcode",
    "atob",
    "unescape",
    "decodeuricomponent",
    "buffer.from",
    "eval",
    "exec",
    "powershell",
    "pwsh",
    "frombase64string",
    "rev",
    "xxd",
    "printf",
    "::",
    "strrev",
    "iex",
    "invoke-expression",
    '""',
    "''",
  ],
  patterns: [
    /\bbase64\s+(?:-[a-z]*d[a-z]*|--decode)\b[^\n]*\|\s*(?:sudo\s+)?(?:\/bin\/)?(?:ba|z)?sh\b/i,
    // Any decoder feeding a shell: base32, basenc, xxd, openssl, uudecode, gunzip/zcat, tr (ROT13).
    /\b(?:base32\s+(?:-[a-z]*d[a-z]*|--decode)|basenc\b[^\n|]*(?:-d|--decode)|xxd\s+-r|openssl\s+(?:enc\s+)?(?:-d\b|base64\s+-d)|uudecode|gunzip|zcat|gzip\s+-d[a-z]*|bzip2\s+-d|xz\s+-d|tr\s+['"]?(?:A-Za-z|a-zA-Z)['"]?\s+['"]?(?:N-ZA-Mn-za-m|n-za-mN-ZA-M))\b[^\n]*\|\s*(?:sudo\s+)?(?:\/bin\/)?(?:ba|z|da)?sh\b/i,
    /\beval\s+["']?\$\(\s*(?:echo|printf)\b[^\n]*\|\s*(?:base64|base32|xxd|openssl|gunzip|zcat|tr|rev)\b/i,
    // Decoded to be looked at (`| iconv`, `| xxd`, `| strings`, …) runs nothing.
    /\becho\s+["']?[A-Za-z0-9+/=]{16,}["']?\s*\|\s*base64\s+(?:-[a-z]*d[a-z]*|--decode)\b(?!\s*\|\s*(?:iconv|xxd|hexdump|od|strings|less|more|head|tail|jq|file|wc|grep)\b)/i,
    /\beval\s*\(\s*(?:atob|unescape|decodeURIComponent)\s*\(|\beval\s*\(\s*Buffer\.from\([^)]*["'](?:base64|hex)["']/i,
    /\b(?:exec|eval)\s*\(\s*(?:base64\.(?:b64decode|b32decode|b85decode|urlsafe_b64decode)|codecs\.decode|zlib\.decompress|bytes\.fromhex|binascii\.unhexlify|marshal\.loads|bz2\.decompress|lzma\.decompress)\b/i,
    /\b(?:exec|eval)\s*\(\s*["']{2}\.join\(|\b(?:exec|eval)\s*\(\s*compile\(/i,
    /\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]*[\s'"]-(?:e|ec|en|enc|enco|encodedcommand)['"]?\s*[\s,]\s*['"]?[A-Za-z0-9+/=]{16,}/i,
    /FromBase64String\([^\n]*(?:iex|Invoke-Expression|\|\s*&)|\b(?:iex|Invoke-Expression)\b[^\n]*FromBase64String/i,
    /\|\s*rev\s*\|\s*(?:ba|z)?sh\b|\bxxd\s+-r\s+-p\b[^\n]*\|\s*(?:ba|z)?sh\b/i,
    /\bprintf\s+["'](?:\\x[0-9a-f]{2}){4,}[^"']*["']\s*\|\s*(?:ba|z)?sh\b/i,
    /\beval\s*\(\s*String\.fromCharCode\b|\bexec\s*\(\s*["']{0,2}\s*\.?join\(\s*(?:map\(\s*)?chr\b/i,
    /\b(?:new\s+)?Function\s*\(\s*(?:String\.fromCharCode|atob|unescape|decodeURIComponent|Buffer\.from)\s*\(|\b(?:exec|eval)\s*\(\s*(?:urllib\.parse\.unquote|unquote|bytes\.fromhex|binascii\.a2b_\w+|base64\.b32decode)\b/i,
    // A command written backwards and reversed as it runs: `os.system(cmd[::-1])`, `execSync(s.split('').reverse().join(''))`.
    /\b(?:os\.system|os\.popen|subprocess\.\w+|exec|eval|system|popen|shell_exec|passthru|execSync|spawnSync|execFileSync|Function)\s*\([^\n]{0,80}?(?:\[\s*::\s*-1\s*\]|\.reverse\(\)\s*\.join\(|\bstrrev\s*\(|\breversed\s*\()/i,
    /\b(?:iex|Invoke-Expression)\b[^\n]{0,80}(?:\[array\]::Reverse|\[-1\.\.)/i,
    // Command words spliced with empty quotes (`c""at ~/.n""pmrc`, `ba''se64`): the shell runs `cat`, a scanner reads nothing.
    /(?<![\w"'$\\])[a-z]{1,12}(?:""|'')[a-z]{1,12}(?:(?:""|'')[a-z]{1,12})*(?=[\s|;&)/.]|$)/,
    // The same splice inside quotes, as an assignment builds it: `a="c""at"`, `c="cu""rl -s …"`.
    /(?<=[=\s(])"[a-z]{1,12}""[a-z]{1,12}(?:""[a-z]{1,12})*(?=[\s"])/,
  ],
  message: "Decodes an obfuscated payload and executes it",
  // Documentation writes the payload as a placeholder (`echo <blob> | base64 -d | bash`): nothing is there to decode.
  severityFor: (m, line, ctx) => {
    if (/^[a-z]{1,12}(?:""|'')[a-z]/.test(m[0]) && !SPLICE_KINDS.has(ctx.target.kind)) return null;
    // Quoted pieces are ordinary string building unless they join into a command word.
    if (m[0].startsWith('"') && (!SPLICE_KINDS.has(ctx.target.kind) || !SPLICED_COMMAND.test(m[0].replace(/"/g, "")))) return null;
    return (ctx.target.kind === "markdown" || ctx.target.kind === "text") && PLACEHOLDER_INPUT.test(line) ? "info" : "high";
  },
});
const SPLICE_KINDS: ReadonlySet<string> = new Set(["shell", "batch", "powershell"]);
const SPLICED_COMMAND =
  /^(?:cat|curl|wget|nc|ncat|socat|bash|sh|zsh|base64|eval|exec|python3?|perl|ruby|node|rm|chmod|chown|scp|ssh|tar|openssl|xxd|dd|sudo|su|crontab|history|env|printenv|security|powershell|iex)$/;
const PLACEHOLDER_INPUT = /\b(?:echo|printf)\s+["']?<[\w -]{1,30}>["']?\s*\|/i;

export const protectedArchive = patternRule({
  id: "exec.protected-archive",
  severity: "high",
  title: "Password-protected archive",
  triggers: ["unzip", "7z", "unrar", "password"],
  patterns: [
    /\bunzip\b[^\n]*\s-P\s*\S+|\b7z\s+[ex]\b[^\n]*\s-p\S+|\bunrar\b[^\n]*\s-p\S+/i,
    /\b(?:archive|zip|rar|7z)\s+password\s*(?:is|:)\s*\S+/i,
  ],
  message: "Uses a password-protected archive, a common way to get a payload past scanners",
});

export const cryptoMiner = patternRule({
  id: "exec.crypto-miner",
  severity: "high",
  title: "Cryptocurrency miner",
  triggers: ["stratum", "xmr", "miner", "t-rex", "donate-level"],
  patterns: [
    /\bstratum\+(?:tcp|ssl|tls):\/\//i,
    /\b(?:xmrig|xmr-stak|minerd|cpuminer|cgminer|ethminer|nbminer|t-rex|phoenixminer)\b/i,
    /--donate-level\b/i,
  ],
  message: "Runs or configures a cryptocurrency miner",
});

const REVERSAL = /\[\s*::\s*-1\s*\]|\.reverse\(\)|\bstrrev\s*\(|\|\s*rev\b|\[array\]::Reverse\b|\breversed\s*\(|\.reverse\b/i;
const STRING_LITERAL = /(["'`])((?:\\.|(?!\1)[^\\\n]){8,2000})\1/g;

/**
 * Hidden text for the engine: string literals of a file that reverses strings, read backwards.
 * `cmd = 'hs | x/elpmaxe.live//:sptth lruc'` then `os.system(cmd[::-1])` hides a pipe-to-shell
 * from every keyword rule; scanned reversed, it is found (and raised, being hidden).
 */
export function reversedStrings(target: ScanTarget, lines: LineIndex): HiddenText[] {
  if (!target.text || target.kind === "binary" || !REVERSAL.test(target.text)) return [];
  const out: HiddenText[] = [];
  for (const m of target.text.matchAll(STRING_LITERAL)) {
    if (out.length >= 50) break;
    out.push({ text: [...m[2]!].reverse().join(""), line: lines.lineOf(m.index), via: "a reversed string" });
  }
  return out;
}

const ROT13_MARK =
  /\brot_?13\b|\bstr_rot13\b|codecs\.decode\([^)\n]*["']rot|\btr\s+['"]?(?:A-Za-z|a-zA-Z)['"]?\s+['"]?(?:N-ZA-Mn-za-m|n-za-mN-ZA-M)/i;
const ANY_LITERAL = /"""([\s\S]{8,20000}?)"""|'''([\s\S]{8,20000}?)'''|(["'`])((?:\\.|(?!\3)[^\\\n]){8,2000})\3/g;
const CODE_KINDS_JOIN = new Set(["python", "javascript", "ruby", "perl", "php", "powershell", "go", "shell", "text"]);

/**
 * Hidden text for the engine: strings a file assembles at run time. String literals of a file
 * that decodes ROT13, read through ROT13 (`exec(codecs.decode(_T, "rot13"))`); literals glued
 * together with `+` (`"cu" + "rl"`), read glued, names between them kept as `$name`.
 */
/** A secret file's name or folder, whole, once the pieces are joined. */
const SPLIT_SECRET =
  /(?:^|[~/\\.])(?:gh[/\\]hosts\.yml|\.?ssh|\.?netrc|\.?aws|\.?kube|\.?docker|\.?gnupg|\.?npmrc|\.?pypirc|\.?git-credentials|\.?env|id_(?:rsa|dsa|ecdsa|ed25519))(?:[/\\]|$)/;

export function assembledStrings(target: ScanTarget, lines: LineIndex): HiddenText[] {
  if (!target.text || target.kind === "binary") return [];
  const text = target.text;
  const out: HiddenText[] = [];
  if (ROT13_MARK.test(text)) {
    for (const m of text.matchAll(ANY_LITERAL)) {
      if (out.length >= 50) break;
      const body = m[1] ?? m[2] ?? m[4] ?? "";
      out.push({ text: rot13(body), line: lines.lineOf(m.index), via: "ROT13" });
    }
  }
  // A secret path spelled in pieces ("~/." + "ssh", ['.git', '-cred', 'entials']) is short, and what
  // the file does with it is elsewhere: the whole file is read again once, with every such path
  // joined in place, so its flow to a sink is seen.
  const edits: { index: number; length: number; joined: string }[] = [];
  const small = text.length <= 65_536;
  if (CODE_KINDS_JOIN.has(target.kind)) {
    let glued = 0;
    for (const c of joinedChains(text)) {
      if (glued >= 200) break;
      const secret = SPLIT_SECRET.test(c.joined);
      if (c.joined.length < 8 && !secret) continue;
      glued++;
      out.push({ text: c.joined, line: lines.lineOf(c.index), via: "strings joined at run time" });
      if (secret && small) edits.push({ index: c.index, length: c.length, joined: c.joined });
    }
  }
  // Pieces kept in an array and joined (`['.git', '-cred', 'entials'].join('')`, `"".join(["~/.a", "ws"])`):
  // read joined when the joined text is a secret path.
  if (CODE_KINDS_JOIN.has(target.kind) && /["'`]\s*,\s*["'`]/.test(text)) {
    let seen = 0;
    let found = 0;
    for (const m of text.matchAll(LITERAL_ARRAY)) {
      if (++seen > 400) break;
      const parts = [...m[0].matchAll(/(["'`])((?:\\.|(?!\1)[^\\\n])*)\1/g)].map((x) => x[2]!);
      if (parts.length < 2) continue;
      const joined = parts.join("");
      if (!SPLIT_SECRET.test(joined)) continue;
      if (++found > 50) break;
      out.push({ text: joined, line: lines.lineOf(m.index), via: "strings joined at run time" });
      if (small) edits.push({ index: m.index, length: m[0].length, joined });
    }
  }
  if (edits.length) {
    edits.sort((x, y) => x.index - y.index);
    let whole = "";
    let last = 0;
    for (const e of edits) {
      if (e.index < last) continue;
      whole += `${text.slice(last, e.index)}"${e.joined}"`;
      last = e.index + e.length;
    }
    out.push({ text: inlineNames(whole + text.slice(last)), line: 1, via: "strings joined at run time" });
  }
  return out;
}

/**
 * A joined name kept in a variable and used as a property key (`const k = "env"` … `process[k]`) reads
 * as the property itself (`process.env`) in the file read again joined: the key was split to hide it.
 */
function inlineNames(text: string): string {
  const names = new Map<string, string>();
  for (const m of text.matchAll(/\b(?:const|let|var)\s+([A-Za-z_$][\w$]{0,40})\s*=\s*"([A-Za-z_$][\w$]{0,40})"/g)) {
    if (names.size >= 20) break;
    names.set(m[1]!, m[2]!);
  }
  if (!names.size) return text;
  return text.replace(/\[\s*([A-Za-z_$][\w$]{0,40})\s*\]/g, (all, n: string) => (names.has(n) ? `.${names.get(n)}` : all));
}

/** A function that turns an array of character codes into a string: `const S = a => String.fromCharCode(...a)`, `def s(a): return ''.join(map(chr, a))`. */
const CODE_DECODER =
  /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:\(?\s*[A-Za-z_$][\w$]*\s*\)?\s*=>|function\s*\(\s*[A-Za-z_$][\w$]*\s*\)\s*\{\s*return)\s*String\.fromCharCode\s*(?:\.apply\s*\(\s*(?:null|String)\s*,|\(\s*\.\.\.)|\bdef\s+([A-Za-z_]\w*)\s*\(\s*\w+\s*\)\s*:\s*return\s*(?:""|'')\.join\(\s*(?:map\(\s*chr|chr\()/g;

/**
 * Strings spelled as character codes through a decoder (`S([46,110,112,109,114,99])` is ".npmrc"):
 * each call read as the string it makes, and the whole file read again with every call in place,
 * so what the file opens and where it sends it are seen together.
 */
export function charCodeStrings(target: ScanTarget, lines: LineIndex): HiddenText[] {
  if (!target.text || target.kind === "binary" || !CODE_KINDS_JOIN.has(target.kind)) return [];
  const text = target.text;
  if (text.length > 65_536 || !/fromCharCode|\bchr\b/.test(text)) return [];
  const names = ["String\\.fromCharCode"];
  for (const m of text.matchAll(CODE_DECODER)) if (names.length < 8) names.push((m[1] ?? m[2])!.replace(/\$/g, "\\$"));
  const call = new RegExp(
    String.raw`(?<![\w$.])(?:${names.join("|")})\s*\(\s*(?:\.\.\.)?\[?\s*(\d{1,3}(?:\s*,\s*\d{1,3}){1,200})\s*,?\s*\]?\s*\)`,
    "g",
  );
  let rewritten = "";
  let last = 0;
  let found = 0;
  for (const m of text.matchAll(call)) {
    const codes = m[1]!.split(",").map((n) => Number(n.trim()));
    if (codes.some((c) => c < 9 || c > 126)) continue;
    if (++found > 200) break;
    rewritten += `${text.slice(last, m.index)}"${String.fromCharCode(...codes)}"`;
    last = m.index + m[0].length;
  }
  if (found < 2) return [];
  return [{ text: rewritten + text.slice(last), line: 1, via: "character codes" }];
}

/** An array of short string literals only: pieces of one string. */
const LITERAL_ARRAY = /\[\s*(?:(["'`])(?:\\.|(?!\1)[^\\\n]){0,40}\1\s*,\s*){1,11}(["'`])(?:\\.|(?!\2)[^\\\n]){0,40}\2\s*,?\s*\]/g;

const LIFECYCLE =
  /"(preinstall|install|postinstall|preprepare|prepare|postprepare|prepublish|prepack|postpack|preuninstall|uninstall|postuninstall)"\s*:\s*"((?:\\.|[^"\\])*)"/g;
const HOOK_NETWORK =
  /\b(?:curl|wget|nc|ncat|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|fetch|axios|XMLHttpRequest|urlopen|urllib|requests\.|https?\.(?:get|request)|require\(\s*\\?["'](?:node:)?(?:https?|net|dgram|dns)\\?["']\s*\)|dns\.resolve|nslookup|socket\.)|https?:\/\/|\/dev\/tcp\//i;
const HOOK_OBFUSCATED = /\bbase64\s+-{1,2}d|\bBuffer\.from\([^)]*base64|\batob\(|\beval\(|\bFunction\(|fromCharCode|\\x[0-9a-f]{2}/i;
const HOOK_SECRETS =
  /\bprocess\.env\b|\$\{?[A-Z_]*(?:TOKEN|SECRET|KEY|PASSWORD|PASS|CREDENTIALS?|AUTH)\w*|\bos\.environ\b|\.npmrc\b|\.ssh\/|\.aws\/|\benv\s*\||\bprintenv\b|trufflehog/i;

/**
 * An npm lifecycle script (`postinstall`, `prepare` …) in a bundled package.json runs on every
 * `npm install` of that template, with the user's environment and tokens. Hooks that reach the
 * network, decode or eval code, or touch secrets are how npm worms spread (the 2025 Shai-Hulud and
 * Nx "s1ngularity" attacks stole npm and GitHub tokens this way); `husky install` or a local build
 * script is ordinary.
 */
export const installHook: Rule = {
  id: "exec.install-hook",
  severity: "high",
  title: "Install hook that phones home",
  kinds: ["json", "markdown"],
  text(text, ctx) {
    // A skill's instructions that tell the agent to add the script to the user's package.json plant the same hook.
    if (!/(?:^|\/)package\.json$/i.test(ctx.target.path) && !(ctx.target.kind === "markdown" && text.includes("package.json"))) return [];
    const hits: Hit[] = [];
    for (const m of text.matchAll(LIFECYCLE)) {
      const cmd = m[2]!;
      const network = HOOK_NETWORK.test(cmd);
      const obfuscated = HOOK_OBFUSCATED.test(cmd);
      if (!network && !obfuscated) continue;
      const secrets = HOOK_SECRETS.test(cmd);
      hits.push({
        index: m.index,
        length: m[0].length,
        severity: network && secrets ? "critical" : "high",
        message:
          network && secrets
            ? `The '${m[1]}' script of this package.json sends environment or credential data over the network on every npm install`
            : `The '${m[1]}' script of this package.json ${network ? "reaches the network" : "decodes or evaluates hidden code"} on every npm install`,
      });
    }
    return hits;
  },
};

const CLIPBOARD_TRIGGERS = ["pbpaste", "xclip", "xsel", "wl-paste", "get-clipboard", "clipboard", "pyperclip"];
const CLIPBOARD_READ =
  /\b(?:pbpaste|xclip\b[^\n]*-o|xsel\b[^\n]*(?:-o|--output)|wl-paste|Get-Clipboard|clipboard\.(?:readText|paste)|pyperclip\.paste|GetClipboardData)\b/i;
const CLIPBOARD_WRITE =
  /\b(?:pbcopy|xclip\b(?![^\n]*-o)|xsel\b[^\n]*(?:-i|--input|-b)|wl-copy|Set-Clipboard|clipboard\.(?:writeText|copy)|pyperclip\.copy|SetClipboardData)\b/i;
const WALLET =
  /\b0x[a-fA-F0-9]{40}\b|\bbc1[ac-hj-np-z02-9]{25,60}\b|\b[13][a-km-zA-HJ-NP-Z1-9]{25,34}\b|\bT[1-9A-HJ-NP-Za-km-z]{33}\b|\b[1-9A-HJ-NP-Za-km-z]{43,44}\b/;

/** A regular expression for a wallet address written in the code (what a clipper tests the clipboard against). */
const WALLET_TEST = /0x\[(?:0-9a-fA-F|a-fA-F0-9|0-9a-f|a-f0-9)\]\{40\}|\(bc1\||\bbc1\[|\[13\]\[a-/;

/**
 * A clipper: reads the clipboard and writes a hard-coded wallet address back, so a payment the
 * user pastes goes to the attacker (a staple of crypto-stealing malware).
 */
export const clipboardHijack: Rule = {
  id: "exec.clipboard-hijack",
  severity: "high",
  title: "Clipboard hijacking",
  text(text) {
    if (!hasTrigger(text, CLIPBOARD_TRIGGERS) || !CLIPBOARD_READ.test(text) || !CLIPBOARD_WRITE.test(text)) return [];
    // The address may be assembled at run time; a clipboard loop that tests for wallet addresses and writes back is the same clipper.
    const m = WALLET.exec(text) ?? WALLET_TEST.exec(text);
    if (!m) return [];
    return [
      {
        index: m.index,
        length: m[0].length,
        message: "Reads the clipboard and writes a hard-coded wallet address back: payments the user pastes go to someone else",
      },
    ];
  },
};

/** A response's body taken into a variable: `const code = await r.text()`, `src = resp.content.decode()`. */
const BODY_OF =
  /\b(?:const|let|var)?\s*([A-Za-z_$][\w$]*)\s*=\s*(?:await\s+)?([A-Za-z_$][\w$]*)\.(?:text|json|arrayBuffer|body|content|read|data|decode)\b/g;
/**
 * Indirect and aliased evaluation (a method `.exec(x)` is a regular expression's, not this): `(0, eval)(x)`,
 * `globalThis.eval(x)`, `eval?.(x)`, `Function(x)()`, `vm.runInNewContext(x)`; and a shell handed the text:
 * `["/bin/sh", "-c", x]`, `os.system(x)`, `subprocess.run(x, shell=True)`.
 */
const EVAL_OF =
  /\(\s*0\s*,\s*eval\s*\)\s*\(\s*([A-Za-z_$][\w$]*)|\b(?:globalThis|window|global|self)\s*(?:\.\s*eval|\[\s*["'`]eval["'`]\s*\])\s*\(\s*([A-Za-z_$][\w$]*)|\beval\s*\?\.\s*\(\s*([A-Za-z_$][\w$]*)|\b(?:new\s+)?Function\s*\(\s*(?:["'`][\w$]*["'`]\s*,\s*){0,8}([A-Za-z_$][\w$]*)\s*\)\s*\(|\bvm\.(?:runIn\w*Context|compileFunction)\s*\(\s*([A-Za-z_$][\w$]*)|(?<![.\w$])(?:exec|eval)\s*\(\s*([A-Za-z_$][\w$]*)|["'](?:\/(?:usr\/)?bin\/)?(?:ba|z|da|k)?sh["']\s*,\s*["']-c["']\s*,\s*([A-Za-z_$][\w$]*)|\bos\.system\s*\(\s*([A-Za-z_$][\w$]*)|\bsubprocess\.\w+\s*\(\s*([A-Za-z_$][\w$]*)(?:\.decode\(\))?\s*,[^)\n]{0,80}?\bshell\s*=\s*True/g;

const NODE_HTTP = /\bhttps?\.(?:get|request)\b|\brequire\(\s*["'`](?:node:)?https?["'`]\s*\)\s*\.\s*(?:get|request)\b/;
/** A response streamed into a variable chunk by chunk: `res.on('data', d => s += d)` (Node's http(s).get). */
const STREAMED_INTO =
  /\.on\(\s*["'`]data["'`]\s*,\s*(?:function\s*)?\(?\s*([A-Za-z_$][\w$]*)\s*\)?\s*(?:=>)?\s*\{?\s*([A-Za-z_$][\w$]*)\s*\+=\s*\1\b/g;

/**
 * Code fetched and evaluated through a variable that holds the response's body: `const r = await
 * fetch(u)` … `const code = await r.text()` … `(0, eval)(code)`. The indirect forms are how a
 * script hides an eval from a reader; whatever the form, what runs was never reviewed.
 */
export const fetchedBodyRun: Rule = {
  id: "exec.fetched-eval",
  severity: "high",
  title: "Evaluates a fetched response",
  kinds: ["javascript", "python", "ruby", "php", "text", "markdown"],
  triggers: ["eval", "function(", "vm.", "exec", "-c", "system", "shell"],
  text(text) {
    if (text.length > 200_000) return [];
    const nodeHttp = NODE_HTTP.test(text);
    if (!nodeHttp && !/\b(?:fetch|requests\.get|httpx\.get|urlopen|axios|got)\b/.test(text)) return [];
    const fetched = new Map<string, number>();
    for (const m of text.matchAll(FETCHED_VAR)) if (!fetched.has(m[1]!)) fetched.set(m[1]!, m.index);
    // Node's http(s).get hands the body over in chunks; the variable they are added to is the body.
    if (nodeHttp) for (const m of text.matchAll(STREAMED_INTO)) if (!fetched.has(m[2]!)) fetched.set(m[2]!, m.index);
    if (!fetched.size) return [];
    for (const m of text.matchAll(BODY_OF)) {
      const from = fetched.get(m[2]!);
      if (from !== undefined && from <= m.index && !fetched.has(m[1]!)) fetched.set(m[1]!, m.index);
    }
    const hits: Hit[] = [];
    for (const m of text.matchAll(EVAL_OF)) {
      const name = m.slice(1).find(Boolean)!;
      const at = fetched.get(name);
      if (at === undefined || at > m.index) continue;
      hits.push({
        index: m.index,
        length: m[0].length,
        message: `Evaluates or runs ${name}, the body of a response it fetched: code that was never scanned`,
      });
      if (hits.length >= 3) break;
    }
    return hits;
  },
};

export const EXECUTION_RULES: Rule[] = [
  pipeToShell,
  downloadAndRun,
  reverseShell,
  encodedExec,
  protectedArchive,
  cryptoMiner,
  installHook,
  clipboardHijack,
  fetchedBodyRun,
];

/** Per script kind, what at a line's end carries the command on to the next line, and which of it the shell drops. */
const CONTINUED: Readonly<Record<string, { goesOn: RegExp; dropped: RegExp }>> = {
  shell: { goesOn: /(?:\\|\|\||&&|\|)[ \t]*$/, dropped: /[ \t]*\\[ \t]*$/ },
  powershell: { goesOn: /(?:`|\|)[ \t]*$/, dropped: /[ \t]*`[ \t]*$/ },
  batch: { goesOn: /(?:\^|\|\||&&|\|)[ \t]*$/, dropped: /[ \t]*\^[ \t]*$/ },
};
const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([\w+-]*)/;
/** A fence's language as the script kind it is ("" for none: a shell session is what an unlabelled block most often holds). */
const FENCE_LANGUAGES: Readonly<Record<string, string>> = {
  "": "shell",
  bash: "shell",
  sh: "shell",
  shell: "shell",
  zsh: "shell",
  console: "shell",
  "shell-session": "shell",
  powershell: "powershell",
  ps1: "powershell",
  pwsh: "powershell",
  bat: "batch",
  cmd: "batch",
  batch: "batch",
};
/** Bounds: a joined command of at most this many lines and characters, and this many in a file. */
const CONTINUED_MAX_LINES = 64;
const CONTINUED_MAX_CHARS = 8192;
const CONTINUED_MAX_RUNS = 500;
const CONTINUED_MAX_TOTAL = 512 * 1024;

/**
 * A command a script continues over several lines (`curl -fsSL https://… |\` then `  bash`; a pipe or
 * `&&` at a line's end carries on too) read as the one line the shell runs: every line rule sees
 * the joined command, so splitting a command over lines does not hide it. One pass over the lines;
 * each joined command is bounded, and so is their number.
 */
export function continuedCommands(target: ScanTarget, lines: LineIndex): HiddenText[] {
  const markdown = target.kind === "markdown";
  let how = markdown ? undefined : CONTINUED[target.kind];
  if (!target.text || (!how && !markdown) || !/(?:[\\`^|]|&&)[ \t]*\r?\n/.test(target.text)) return [];
  // In Markdown, the lines of a fenced block in a shell language (or none) are read as that script.
  let fence: string | null = null;
  const out: HiddenText[] = [];
  let start = 0;
  let parts: string[] = [];
  let size = 0;
  let total = 0;
  const flush = () => {
    if (parts.length > 1 && out.length < CONTINUED_MAX_RUNS && total + size <= CONTINUED_MAX_TOTAL) {
      out.push({ text: parts.join(" "), line: start, via: "a command continued over lines", own: true });
      total += size;
    }
    parts = [];
    size = 0;
  };
  for (let n = 1; n <= lines.count; n++) {
    const line = lines.line(n);
    if (markdown) {
      const f = FENCE.exec(line);
      if (f) {
        flush();
        if (fence === null) {
          fence = f[1]!;
          how = CONTINUED[FENCE_LANGUAGES[f[2]!.toLowerCase()] ?? ""];
        } else if (f[1]!.startsWith(fence) && f[2] === "") fence = null;
        continue;
      }
      if (fence === null || !how) continue;
    }
    if (!how) break;
    // A line longer than a joined command may be is not part of one (and is read as it is).
    if (line.length > CONTINUED_MAX_CHARS) {
      flush();
      continue;
    }
    const goesOn = how.goesOn.test(line.length > 64 ? line.slice(-64) : line);
    if (parts.length === 0) {
      if (!goesOn) continue;
      start = n;
    }
    // The backslash (or backtick, caret) is the continuation itself: the shell drops it; a pipe stays.
    const piece = (goesOn ? line.slice(0, -64) + line.slice(-64).replace(how.dropped, "") : line).trim();
    if (parts.length >= CONTINUED_MAX_LINES || size + piece.length > CONTINUED_MAX_CHARS) {
      flush();
      if (!goesOn) continue;
      start = n;
    }
    parts.push(piece);
    size += piece.length + 1;
    if (!goesOn) flush();
    if (out.length >= CONTINUED_MAX_RUNS || total >= CONTINUED_MAX_TOTAL) break;
  }
  flush();
  return out;
}
