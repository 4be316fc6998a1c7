/**
 * What of a package's run instructions Lore passes on. A registry record is third-party data: its
 * `runtimeHint` could name any program (`bash`) and its `runtimeArguments` could turn the runner
 * into something else (`npx -c '<shell>'`, `npx --package other`, `docker run --privileged -v /:/host`).
 * So the runner is always the one Lore knows for the registry type (an unknown hint is ignored),
 * and a runtime argument is kept only when it is on the runner's short list of arguments that
 * neither change what runs nor widen what it can reach. Everything dropped becomes a finding on the
 * server (`review.runtime-*`): high when it is known to run other code or escape isolation, medium
 * when it is merely unknown. Environment variables that load other code into the runner
 * (`NODE_OPTIONS`, `LD_PRELOAD`, an index URL) are dropped the same way.
 */
import type { McpFinding } from "./scanner/types";
import type { ArgumentRecord, KeyValueInput, PackageRecord } from "./records";

export type Runner = "npx" | "bunx" | "uvx" | "pipx" | "docker" | "dnx";

interface RunnerRules {
  /** Flags kept; `true` when the flag takes a value. */
  allowed: Record<string, boolean>;
  /** Flags that change what runs or escape isolation. */
  dangerous: RegExp;
  /** Single letters that are dangerous inside a combined short flag (`-iv`). */
  dangerousShort: string;
}

const SHELL_FLAGS =
  /^(?:-c|-e|--eval|-p|--print|--call|--shell|--script-shell|--node-options|--require|-r|--import|--loader|--experimental-loader)$/;

const RULES: Record<Runner, RunnerRules> = {
  npx: {
    allowed: {
      "-y": false,
      "--yes": false,
      "-q": false,
      "--quiet": false,
      "--silent": false,
      "--no-update-notifier": false,
      "--prefer-offline": false,
      "--prefer-online": false,
    },
    dangerous:
      /^(?:--package|--registry|--userconfig|--globalconfig|--prefix|--workspace|-w|--ignore-scripts|--foreground-scripts|--node-arg|-n)$/,
    dangerousShort: "cpwen",
  },
  bunx: {
    allowed: { "--bun": false, "--silent": false, "--no-install": false },
    dangerous: /^(?:--package|--registry|--preload|--config|--cwd)$/,
    dangerousShort: "cpr",
  },
  uvx: {
    allowed: {
      "-q": false,
      "--quiet": false,
      "--offline": false,
      "--refresh": false,
      "--no-cache": false,
      "--python": true,
      "-p": true,
      "--isolated": false,
      "--native-tls": false,
      "--no-progress": false,
    },
    dangerous:
      /^(?:--from|--with|-w|--with-requirements|--with-editable|--index|--index-url|-i|--extra-index-url|--default-index|--find-links|-f|--config-file|--directory|--project|--exclude-newer)$/,
    dangerousShort: "wifc",
  },
  pipx: {
    allowed: { "--python": true, "--no-cache": false, "--quiet": false, "-q": false },
    dangerous: /^(?:--spec|--pip-args|--index-url|-i|--editable|-e|--path|--system-site-packages)$/,
    dangerousShort: "ie",
  },
  docker: {
    allowed: {
      "-i": false,
      "--interactive": false,
      "-t": false,
      "--tty": false,
      "-it": false,
      "-ti": false,
      "--rm": false,
      "--init": false,
      "-e": true,
      "--env": true,
      "--pull": true,
      "--platform": true,
      "--name": true,
      "--read-only": false,
      "-q": false,
      "--quiet": false,
      "--memory": true,
      "-m": true,
      "--cpus": true,
      "--stop-timeout": true,
      "-l": true,
      "--label": true,
      "-w": true,
      "--workdir": true,
      "--cap-drop": true,
    },
    dangerous:
      /^(?:--privileged|-v|--volume|--volumes-from|--mount|--network|--net|--network-alias|--entrypoint|--cap-add|--pid|--ipc|--uts|--userns|--cgroupns|--cgroup-parent|--device|--device-cgroup-rule|--gpus|--security-opt|--sysctl|--runtime|--group-add|-p|--publish|-P|--publish-all|--add-host|--dns|--dns-search|--dns-option|--env-file|--link|--tmpfs|--isolation|-H|--host|--context|--config|--tlsverify|--tlscacert|--tlscert|--tlskey)$/,
    dangerousShort: "vpPH",
  },
  dnx: {
    allowed: { "--yes": false, "-y": false, "--prerelease": false, "--interactive": false },
    dangerous: /^(?:--source|--add-source|-s|--configfile|--allow-roll-forward|--ignore-failed-sources)$/,
    dangerousShort: "s",
  },
};

/** The runner for each registry type, and the hints that mean the same runner (rendered as the default). */
const RUNTIMES: Record<string, { default: Runner; supported: Partial<Record<string, Runner>>; equivalent: string[] }> = {
  npm: {
    default: "npx",
    supported: { npx: "npx", bunx: "bunx" },
    equivalent: ["pnpm", "pnpm dlx", "pnpx", "yarn", "yarn dlx", "npm", "npm exec", "node"],
  },
  pypi: {
    default: "uvx",
    supported: { uvx: "uvx", pipx: "pipx" },
    equivalent: ["uv", "uv tool run", "pipx run", "python", "python3", "pip"],
  },
  oci: { default: "docker", supported: { docker: "docker" }, equivalent: ["podman"] },
  nuget: { default: "dnx", supported: { dnx: "dnx" }, equivalent: ["dotnet", "dotnet dnx"] },
};

/** Hints that are a shell or a downloader: a record naming one as the runtime wants arbitrary code run. */
const HOSTILE_HINT =
  /^(?:ba|z|da|k|c|tc|fi)?sh$|^(?:cmd|cmd\.exe|powershell|pwsh|sudo|doas|env|eval|exec|curl|wget|nc|ncat|socat|perl|ruby|php|osascript|xargs|busybox)$/i;

/** Variables that make the runner load code other than the package, or fetch it from elsewhere. */
const HOSTILE_ENV =
  /^(?:NODE_OPTIONS|NODE_PATH|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_[A-Z_]+|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|BASH_ENV|ENV|PATH|PERL5OPT|RUBYOPT|JAVA_TOOL_OPTIONS|DOTNET_STARTUP_HOOKS|DOCKER_HOST|DOCKER_CONTEXT|DOCKER_CONFIG|NPM_CONFIG_[A-Z_]+|UV_[A-Z_]*INDEX[A-Z_]*|UV_FIND_LINKS|UV_PYTHON|PIP_[A-Z_]+|NUGET_[A-Z_]+|BUN_CONFIG_[A-Z_]+)$/i;

export interface CheckedPackage {
  runner: Runner;
  runtimeArguments: ArgumentRecord[];
  environmentVariables: KeyValueInput[];
  findings: McpFinding[];
}

const finding = (index: number, field: string, severity: "high" | "medium", excerpt: string, message: string): McpFinding => ({
  ruleId:
    field === "runtimeHint"
      ? "review.runtime-hint"
      : field.startsWith("environmentVariables")
        ? "review.runtime-environment"
        : "review.runtime-argument",
  severity,
  tool: null,
  field: `packages.${index}.${field}`,
  excerpt: excerpt.slice(0, 200),
  message,
});

const shown = (a: ArgumentRecord) => [a.name, a.value ?? a.default ?? a.valueHint].filter(Boolean).join(" ");

/** How dangerous a runtime argument is for this runner: null when it may be kept. */
function judge(runner: Runner, a: ArgumentRecord): "high" | "medium" | null {
  const rules = RULES[runner];
  // A positional argument in front of the package names another package, image or command.
  if (a.type === "positional") return "high";
  const raw = a.name ?? "";
  if (!/^-{1,2}[A-Za-z0-9][A-Za-z0-9-]*(?:=\S*)?$/.test(raw)) return "high";
  const flag = raw.split("=")[0]!;
  if (!(flag in rules.allowed)) {
    if (rules.dangerous.test(flag) || (runner !== "docker" && SHELL_FLAGS.test(flag))) return "high";
    if (/^-[A-Za-z]{2,}$/.test(flag) && [...flag.slice(1)].some((c) => rules.dangerousShort.includes(c))) return "high";
    return "medium";
  }
  // A flag with `=value` in its name, or a value given to a flag that takes none, smuggles an argument.
  const takesValue = rules.allowed[flag]!;
  if (raw.includes("=") && !takesValue) return "medium";
  if (!takesValue && (a.value ?? a.default) !== undefined) return "medium";
  if (
    (flag === "--python" || (runner === "uvx" && flag === "-p")) &&
    !/^(?:\d+(?:\.\d+){0,2}|(?:cpython|pypy)[-@]?\d+(?:\.\d+){0,2})$/i.test(a.value ?? a.default ?? raw.split("=")[1] ?? "")
  )
    return "high";
  return null;
}

/** The runner, runtime arguments and variables Lore passes on for a package, with what it dropped. */
export function checkPackage(p: PackageRecord, index = 0): CheckedPackage | null {
  const rt = RUNTIMES[p.registryType];
  if (!rt) return null;
  const findings: McpFinding[] = [];
  const hint = p.runtimeHint?.trim();
  let runner = rt.default;
  if (hint) {
    const supported = rt.supported[hint.toLowerCase()];
    if (supported) runner = supported;
    else if (!rt.equivalent.includes(hint.toLowerCase())) {
      const hostile = HOSTILE_HINT.test(hint) || /[\s/\\;|&$`<>]/.test(hint);
      findings.push(
        finding(
          index,
          "runtimeHint",
          hostile ? "high" : "medium",
          hint,
          `The record asks for ${p.registryType} package ${p.identifier} to be run with \`${hint}\`, which is not a runner for ${p.registryType} packages; the configuration uses ${rt.default} instead`,
        ),
      );
    }
  }
  const kept: ArgumentRecord[] = [];
  (p.runtimeArguments ?? []).forEach((a, i) => {
    const verdict = judge(runner, a);
    if (verdict === null) kept.push(a);
    else {
      findings.push(
        finding(
          index,
          `runtimeArguments.${i}`,
          verdict,
          shown(a),
          verdict === "high"
            ? `Dropped the runtime argument \`${shown(a)}\` from the configuration: for ${runner} it runs other code or widens what the server can reach`
            : `Dropped the runtime argument \`${shown(a)}\` from the configuration: it is not one Lore knows to be safe for ${runner}`,
        ),
      );
    }
  });
  const env: KeyValueInput[] = [];
  (p.environmentVariables ?? []).forEach((e, i) => {
    if (!HOSTILE_ENV.test(e.name)) env.push(e);
    else
      findings.push(
        finding(
          index,
          `environmentVariables.${i}`,
          "high",
          e.name,
          `Dropped the environment variable ${e.name} from the configuration: it makes ${runner} load code other than the package, or fetch it from elsewhere`,
        ),
      );
  });
  return { runner, runtimeArguments: kept, environmentVariables: env, findings };
}

/** The findings on every package of a record (the directory stores them with the scan's). */
export function runtimeFindings(packages: readonly PackageRecord[]): McpFinding[] {
  return packages.flatMap((p, i) => checkPackage(p, i)?.findings ?? []);
}
