/**
 * What a skill can do, read from its files: run shell commands, reach hosts on the network, write
 * files outside the project (absolute or home paths), read environment variables. Stored with each
 * version; when a new version gains one the previous version did not have, the scan says so, so
 * an update that quietly starts phoning home is visible in the version's findings and detail.
 */
import {
  NETWORK_SINK,
  NETWORK_SINK_TRIGGERS,
  budgetEnd,
  extractUrls,
  LineIndex,
  excerpt,
  triggerLineSets,
  type Finding,
  type ScanTarget,
} from "../../scan";

export interface Capabilities {
  /** Runs shell commands: bundled scripts, process-spawning APIs, or shell blocks in its Markdown. */
  shell: boolean;
  /** Hosts it contacts, sorted; `*` when it sends requests to a URL built at run time. */
  network: string[];
  /** Writes files at absolute or home-relative paths (outside the project). */
  writesOutside: boolean;
  /** Environment variables it reads, sorted. */
  envVars: string[];
}

export const NO_CAPABILITIES: Capabilities = { shell: false, network: [], writesOutside: false, envVars: [] };

interface Where {
  path: string;
  line: number;
  excerpt: string;
}

const SCRIPT_KINDS = new Set(["shell", "powershell", "batch", "python", "javascript", "ruby", "perl", "php", "go"]);
const SPAWN =
  /\b(?:subprocess\.\w+|os\.system|os\.popen|os\.exec\w*|pty\.spawn|child_process|execSync|spawnSync|execFile\w*|Bun\.spawn|Deno\.(?:run|Command)|Start-Process|Invoke-Expression|Runtime\.getRuntime\(\)\.exec|exec\.Command|system\s*\(|`[^`\n]*`\s*;)/;
const SHELL_FENCE = /^\s*(?:```|~~~)\s*(?:bash|sh|shell|zsh|console|terminal|powershell|pwsh|ps1|cmd|bat)\b/i;
const WRITE_TARGET =
  /(?:(?<![<>0-9&=-])>>?|\btee\s+(?:-a\s+)?|\b(?:writeFile|appendFile)(?:Sync)?\(\s*["'`]|\bopen\(\s*["'](?=[^"'\n]*["']\s*,\s*["'][wax])|\b(?:Set|Add)-Content\s+(?:-Path\s+)?|\bOut-File\s+(?:-FilePath\s+)?)\s*["']?((?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:\w+|\/)[^\s"'`;&|)]*)/g;
const ENV_READ =
  /\$\{([A-Z_][A-Z0-9_]{1,63})(?::?[-=?+][^}]*)?\}|\$([A-Z_][A-Z0-9_]{1,63})\b|\bos\.environ(?:\.get)?\s*[[(]\s*["']([A-Za-z_]\w*)["']|\bos\.getenv\(\s*["']([A-Za-z_]\w*)["']|\bprocess\.env(?:\.([A-Za-z_]\w*)|\[\s*["'`]([A-Za-z_]\w*)["'`]\s*\])|\$env:([A-Za-z_]\w*)|\bENV\[\s*["']([A-Za-z_]\w*)["']\s*\]|\bos\.Getenv\(\s*"([A-Za-z_]\w*)"|%([A-Z_][A-Z0-9_]{1,63})%/g;

/** Literals each pattern's matches contain, so the per-line loop skips lines none can match. */
const SPAWN_TRIGGERS = [
  "subprocess",
  "os.system",
  "os.popen",
  "os.exec",
  "pty.spawn",
  "child_process",
  "execsync",
  "spawnsync",
  "execfile",
  "bun.spawn",
  "deno.",
  "start-process",
  "invoke-expression",
  "runtime.getruntime",
  "exec.command",
  "system",
  "`",
];
const WRITE_TRIGGERS = [">", "tee", "writefile", "appendfile", "open(", "set-content", "add-content", "out-file"];
const ENV_TRIGGERS = ["$", "environ", "getenv", "process.env", "env[", "%"];
const CAPABILITY_TRIGGERS = [SPAWN_TRIGGERS, NETWORK_SINK_TRIGGERS, WRITE_TRIGGERS, ENV_TRIGGERS];

/** Variables every shell has; reading them says nothing about the skill. */
const AMBIENT = new Set([
  "HOME",
  "PATH",
  "PWD",
  "OLDPWD",
  "USER",
  "USERNAME",
  "LOGNAME",
  "SHELL",
  "TMPDIR",
  "TMP",
  "TEMP",
  "LANG",
  "LC_ALL",
  "TERM",
  "HOSTNAME",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "CI",
  "RANDOM",
  "SECONDS",
  "LINENO",
  "BASH_SOURCE",
  "IFS",
  "PPID",
  "UID",
  "EUID",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "OSTYPE",
  "SHLVL",
  "COLUMNS",
  "LINES",
  "NODE_ENV",
  "DEBUG",
  "VERBOSE",
  "NO_COLOR",
  "FORCE_COLOR",
]);

/** A capability's first place, its excerpt made when read (an object literal with a getter was a slow object per host). */
class Place implements Where {
  private ex: string | undefined;
  constructor(
    readonly path: string,
    readonly line: number,
    private readonly text: string,
    private readonly index: number,
    private readonly length: number,
  ) {}
  get excerpt(): string {
    return (this.ex ??= excerpt(this.text, this.index, this.length));
  }
}

const excluded = (target: string) => /^\/dev\/(?:null|stdout|stderr|fd\/\d)$/.test(target);

export function detectCapabilities(targets: readonly ScanTarget[]): { caps: Capabilities; where: Map<string, Where> } {
  const reader = capabilityReader();
  for (const t of targets) reader.add(t);
  return reader.result();
}

/**
 * `detectCapabilities` one target at a time, in the targets' order: a scan reads each text's
 * capabilities while the text's trigger pass is still kept (after the whole scan, a publish of a
 * hundred files had let the first files' passes go, and ran them again).
 */
export function capabilityReader(budget = Number.POSITIVE_INFINITY): {
  add(t: ScanTarget): void;
  result(): { caps: Capabilities; where: Map<string, Where> };
} {
  // Within the same budget, over the same texts in the same order, as the engine's line rules (which note the cut).
  let left = budget;
  const where = new Map<string, Where>();
  // The first place of each capability, its excerpt made only when read (a finding names one of
  // thousands of hosts); no closure per line (a fence of 100,000 commands noted on every line).
  const note = (key: string, path: string, n: number, line: string, index = 0, length = 0) => {
    if (!where.has(key)) where.set(key, new Place(path, n, line, index, length));
  };
  let shell = false;
  let writesOutside = false;
  const hosts = new Set<string>();
  const env = new Set<string>();
  const add = (target: ScanTarget) => {
    if (target.text === null) return;
    const end = budgetEnd(target.text, left);
    left -= end;
    const t = end < target.text.length ? { ...target, text: target.text.slice(0, end) } : target;
    const text = t.text as string;
    const lines = LineIndex.of(text);
    if (SCRIPT_KINDS.has(t.kind) && (t.kind === "shell" || t.kind === "powershell" || t.kind === "batch")) {
      shell = true;
      note("shell", t.path, 1, lines.line(1));
    }
    // Each pattern runs only on the lines that hold one of its words (src/scan/triggers.ts).
    const [spawnLines, sinkLines, writeAny, envLines] = triggerLineSets(text, lines, CAPABILITY_TRIGGERS) as [
      Set<number>,
      Set<number>,
      Set<number>,
      Set<number>,
    ];
    const writeLines = t.kind !== "markdown" || /```|~~~/.test(text) ? writeAny : new Set<number>();
    let inShellFence = false;
    for (let n = 1; n <= lines.count; n++) {
      const start = lines.startOf(n);
      const c = text.charCodeAt(start);
      // Cheap exits: a line none of the patterns can match, outside a shell fence, that opens no fence.
      if (
        !inShellFence &&
        !spawnLines.has(n) &&
        !sinkLines.has(n) &&
        !writeLines.has(n) &&
        !envLines.has(n) &&
        c !== 96 &&
        c !== 126 &&
        c !== 32 &&
        c !== 9
      )
        continue;
      const line = lines.line(n);
      if (/^\s*(?:```|~~~)/.test(line)) {
        if (inShellFence) inShellFence = false;
        else if (SHELL_FENCE.test(line)) inShellFence = true;
        continue;
      }
      // Shell and writes-outside are yes/no with their first place noted: once known, their patterns need not run again.
      const spawn = !shell && spawnLines.has(n) ? SPAWN.exec(line) : null;
      if ((inShellFence && line.trim()) || (SCRIPT_KINDS.has(t.kind) && spawn)) {
        shell = true;
        note("shell", t.path, n, line, spawn?.index ?? 0);
      }
      const sink = sinkLines.has(n) ? NETWORK_SINK.exec(line) : null;
      const commandLike = t.kind !== "markdown" || inShellFence || /`[^`]*$/.test(line.slice(0, sink?.index ?? 0));
      if (sink && commandLike) {
        const urls = extractUrls(line);
        if (urls.length === 0) {
          hosts.add("*");
          note("network:*", t.path, n, line, sink.index);
        }
        for (const u of urls) {
          hosts.add(u.host);
          note(`network:${u.host}`, t.path, n, line, u.offset, u.length);
        }
      }
      if (!writesOutside && (t.kind !== "markdown" || inShellFence) && writeLines.has(n)) {
        for (const m of line.matchAll(WRITE_TARGET)) {
          if (excluded(m[1]!)) continue;
          writesOutside = true;
          note("writesOutside", t.path, n, line, m.index, m[0].length);
        }
      }
      if ((t.kind !== "markdown" || inShellFence || /`/.test(line)) && envLines.has(n)) {
        for (const m of line.matchAll(ENV_READ)) {
          const name = m.slice(1).find(Boolean)!;
          if (AMBIENT.has(name.toUpperCase())) continue;
          env.add(name);
          note(`env:${name}`, t.path, n, line, m.index, m[0].length);
        }
      }
    }
  };
  return {
    add,
    result: () => ({
      caps: { shell, network: [...hosts].sort(), writesOutside, envVars: [...env].sort() },
      where,
    }),
  };
}

export interface CapabilityChange {
  capability: "shell" | "network" | "writesOutside" | "envVars";
  added: string[];
}

/** What `next` can do that `prev` could not. */
export function capabilityChanges(prev: Capabilities, next: Capabilities): CapabilityChange[] {
  const out: CapabilityChange[] = [];
  if (next.shell && !prev.shell) out.push({ capability: "shell", added: ["shell"] });
  const newHosts = next.network.filter((h) => !prev.network.includes(h));
  if (newHosts.length) out.push({ capability: "network", added: newHosts });
  if (next.writesOutside && !prev.writesOutside) out.push({ capability: "writesOutside", added: ["writesOutside"] });
  const newEnv = next.envVars.filter((v) => !prev.envVars.includes(v));
  if (newEnv.length) out.push({ capability: "envVars", added: newEnv });
  return out;
}

const DESCRIBE: Record<CapabilityChange["capability"], (added: string[]) => string> = {
  shell: () => "This version runs shell commands; the previous version did not",
  network: (a) =>
    `This version contacts ${a.map((h) => (h === "*" ? "URLs built at run time" : h)).join(", ")}, which the previous version did not`,
  writesOutside: () => "This version writes files outside the project (absolute or home paths); the previous version did not",
  envVars: (a) => `This version reads environment variable${a.length > 1 ? "s" : ""} ${a.join(", ")}, which the previous version did not`,
};

/** One low-severity finding per gained capability, pointing at where it first appears. */
export function capabilityFindings(changes: CapabilityChange[], where: Map<string, Where>): Finding[] {
  return changes.map((c) => {
    const key = c.capability === "network" ? `network:${c.added[0]}` : c.capability === "envVars" ? `env:${c.added[0]}` : c.capability;
    const w = where.get(key) ?? { path: "SKILL.md", line: 1, excerpt: "" };
    return {
      ruleId: `capability.added.${c.capability}`,
      severity: "low",
      path: w.path,
      line: w.line,
      excerpt: w.excerpt,
      message: DESCRIBE[c.capability](c.added),
    };
  });
}
