/**
 * The configuration that adds an MCP server to each harness, in that harness's own file and
 * format (JSON, JSON5, TOML, YAML), from one description of the server: a remote URL with its
 * transport and headers, or a local (stdio) command with its arguments and environment. The
 * facts per harness (file, keys down to the server map, the entry's shape, how a value is read
 * from the environment) live in data/harnesses.json under `mcpConfig`; this file only renders
 * them. Secrets never appear in a snippet: a header or variable that holds one is written as the
 * harness's reference to an environment variable (`${NAME}`, `${env:NAME}`, `{env:NAME}`; Codex
 * names the variable), or, where a harness has no such reference, as a placeholder to replace.
 *
 * Used by the MCP servers directory (each server's detail) and available to advise:
 *   renderMcpConfigs(input)          → one HarnessMcpConfig per harness (all 13)
 *   renderMcpConfig(harnessId, input) → one, or null for an unknown harness
 */
import { stringify as toToml } from "smol-toml";
import { HARNESSES, type HarnessSetup } from "./setup.data";
import { toYaml } from "./yaml";

export type McpTransport = "streamable-http" | "sse";
export type McpConfigFormat = "json" | "json5" | "toml" | "yaml";

/** A header. Literal (`value`), or a secret read from the environment variable `env` (with an optional `prefix`, e.g. "Bearer "). */
export interface McpHeaderInput {
  name: string;
  value?: string;
  env?: string;
  prefix?: string;
  /** What to write where a harness cannot read the environment (default `<your-name-of-the-variable>`). */
  placeholder?: string;
}

/** An environment variable for a local server: a literal `value`, or (secret or no value) passed through from the user's environment. */
export interface McpEnvInput {
  name: string;
  value?: string;
  secret?: boolean;
  placeholder?: string;
}

export type McpTargetInput =
  | { kind: "remote"; transport: McpTransport; url: string; headers?: McpHeaderInput[] }
  | { kind: "stdio"; command: string; args?: string[]; env?: McpEnvInput[] };

export interface McpConfigInput {
  /** The key of the server in the harness's configuration (`github`); letters, digits, `_` and `-`. */
  key: string;
  target: McpTargetInput;
  /** Notes that hold for every harness (URL variables to fill in, which package version is pinned). */
  notes?: string[];
}

export interface HarnessMcpConfig {
  harness: string;
  name: string;
  /** False when the harness has no MCP client (aider) or cannot speak this server's transport; `notes` say why. */
  supported: boolean;
  /** The file to edit (project scope where the harness has one), and the user-level file. */
  file: string | null;
  userFile: string | null;
  format: McpConfigFormat | null;
  /** The configuration to merge into `file`, in its own format. */
  snippet: string | null;
  /** A command that adds the server, where the harness has one that writes no secret to disk. */
  cli: string | null;
  notes: string[];
}

type EntrySpec = [key: string, value: unknown, condition?: "ifHeaders"];

/** The `mcpConfig` facts of a harness in data/harnesses.json. */
export interface McpConfigFacts {
  supported: boolean;
  reason?: string;
  format?: McpConfigFormat;
  file?: string;
  userFile?: string | null;
  root?: Record<string, unknown>;
  path?: string[];
  envRef?: string | null;
  stdioEnvRef?: string | null;
  remote?: { transports: Partial<Record<McpTransport, string | null>>; entry: EntrySpec[] };
  stdio?: { entry: EntrySpec[] };
  cli?: "claude" | "openclaude" | "codex" | "gemini" | null;
  transportNotes?: Partial<Record<McpTransport, string>>;
}

const factsOf = (h: HarnessSetup) =>
  (h as HarnessSetup & { mcpConfig?: McpConfigFacts }).mcpConfig ?? {
    supported: false,
    reason: "No MCP configuration facts for this harness.",
  };

const kebab = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
const placeholderFor = (env: string, given?: string) => given ?? `<your-${kebab(env)}>`;
const envRefOf = (template: string, name: string) => template.replace("NAME", name);

/** A server key safe as a JSON, TOML or YAML key without quoting surprises. */
export const configKey = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64) || "server";

function headerValue(h: McpHeaderInput, envRef: string | null | undefined): string {
  if (!h.env) return h.value ?? "";
  const ref = envRef ? envRefOf(envRef, h.env) : placeholderFor(h.env, h.placeholder);
  return `${h.prefix ?? ""}${ref}`;
}

function envValue(e: McpEnvInput, envRef: string | null | undefined): string {
  if (e.value !== undefined && !e.secret) return e.value;
  return envRef ? envRefOf(envRef, e.name) : placeholderFor(e.name, e.placeholder);
}

/** Codex has no templating inside strings: a bearer token names its variable, other secret headers map to variables holding the whole value. */
function codexHeaders(headers: McpHeaderInput[], notes: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const literal: Record<string, string> = {};
  const fromEnv: Record<string, string> = {};
  for (const h of headers) {
    if (!h.env) {
      literal[h.name] = h.value ?? "";
    } else if (h.name.toLowerCase() === "authorization" && /^bearer\s*$/i.test(h.prefix ?? "")) {
      out.bearer_token_env_var = h.env;
    } else {
      fromEnv[h.name] = h.env;
      if (h.prefix) notes.push(`Codex reads the whole ${h.name} header from ${h.env}: set it to "${h.prefix}<value>", not only the value.`);
    }
  }
  if (Object.keys(literal).length) out.http_headers = literal;
  if (Object.keys(fromEnv).length) out.env_http_headers = fromEnv;
  return out;
}

/** Codex stdio: literal values in `env`, secrets forwarded by name from the environment Codex starts in (`env_vars`). */
function codexEnv(env: McpEnvInput[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const literal = Object.fromEntries(env.filter((e) => e.value !== undefined && !e.secret).map((e) => [e.name, e.value!]));
  const forwarded = env.filter((e) => e.value === undefined || e.secret).map((e) => e.name);
  if (Object.keys(literal).length) out.env = literal;
  if (forwarded.length) out.env_vars = forwarded;
  return out;
}

function buildEntry(spec: EntrySpec[], values: Record<string, unknown>, hasHeaders: boolean): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  for (const [key, value, condition] of spec) {
    if (condition === "ifHeaders" && !hasHeaders) continue;
    if (typeof value === "string" && value.startsWith("$")) {
      const v = values[value];
      if (key === "...") {
        Object.assign(entry, v as Record<string, unknown>);
        continue;
      }
      if (v === undefined || v === null) continue;
      if (typeof v === "object" && !Array.isArray(v) && Object.keys(v as object).length === 0) continue;
      if (Array.isArray(v) && v.length === 0 && value !== "$commandLine") continue;
      entry[key] = v;
    } else {
      entry[key] = value;
    }
  }
  return entry;
}

// ---- serialisers -----------------------------------------------------------------------------

const JSON5_IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** JSON5 as OpenClaw's own docs write it: bare keys where possible, double quotes, trailing commas. */
export function toJson5(value: unknown, indent = ""): string {
  const next = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => `${next}${toJson5(v, next)},`).join("\n")}\n${indent}]`;
  }
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([k, v]) => `${next}${JSON5_IDENT.test(k) ? k : JSON.stringify(k)}: ${toJson5(v, next)},`).join("\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}

function serialise(doc: Record<string, unknown>, format: McpConfigFormat): string {
  switch (format) {
    case "json":
      return JSON.stringify(doc, null, 2);
    case "json5":
      return toJson5(doc);
    case "toml":
      return toToml(doc);
    case "yaml":
      // Values double-quoted (a URL or a `${VAR}` reference is never read as another type); keys plain
      // unless YAML 1.1 would read them as something else (`n`, `on`).
      return toYaml(doc);
  }
}

// ---- CLI commands ----------------------------------------------------------------------------

/** Quotes an argument for a POSIX shell: single quotes keep `${VAR}` for the harness to expand, not the shell. */
export const shellQuote = (s: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function cliFor(kind: McpConfigFacts["cli"], key: string, t: McpTargetInput, envRef: string | null | undefined): string | null {
  if (!kind) return null;
  const q = shellQuote;
  if (kind === "claude" || kind === "openclaude") {
    if (t.kind === "remote") {
      const headers = (t.headers ?? []).map((h) => ` --header ${q(`${h.name}: ${headerValue(h, envRef)}`)}`).join("");
      return `${kind} mcp add --transport ${t.transport === "sse" ? "sse" : "http"} --scope user ${q(key)} ${q(t.url)}${headers}`;
    }
    const env = (t.env ?? []).map((e) => ` --env ${q(`${e.name}=${envValue(e, envRef)}`)}`).join("");
    return `${kind} mcp add --transport stdio --scope user${env} ${q(key)} -- ${[t.command, ...(t.args ?? [])].map(q).join(" ")}`;
  }
  if (kind === "codex") {
    if (t.kind === "remote") {
      if (t.transport !== "streamable-http") return null;
      const headers = t.headers ?? [];
      const bearer = headers.find((h) => h.env && h.name.toLowerCase() === "authorization" && /^bearer\s*$/i.test(h.prefix ?? ""));
      // Only a bearer token has a flag; other headers need the file.
      if (headers.some((h) => h !== bearer)) return null;
      return `codex mcp add ${q(key)} --url ${q(t.url)}${bearer ? ` --bearer-token-env-var ${q(bearer.env!)}` : ""}`;
    }
    // `--env` stores a literal value: only offered when no secret would be written to the file.
    if ((t.env ?? []).some((e) => e.value === undefined || e.secret)) return null;
    const env = (t.env ?? []).map((e) => ` --env ${q(`${e.name}=${e.value}`)}`).join("");
    return `codex mcp add ${q(key)}${env} -- ${[t.command, ...(t.args ?? [])].map(q).join(" ")}`;
  }
  if (kind === "gemini") {
    if (t.kind !== "remote") return null;
    const headers = (t.headers ?? []).map((h) => ` -H ${q(`${h.name}: ${headerValue(h, envRef)}`)}`).join("");
    return `gemini mcp add --transport ${t.transport === "sse" ? "sse" : "http"} --scope user ${q(key)} ${q(t.url)}${headers}`;
  }
  return null;
}

// ---- rendering ------------------------------------------------------------------------------

export function renderFor(h: HarnessSetup, input: McpConfigInput): HarnessMcpConfig {
  const f = factsOf(h);
  const key = configKey(input.key);
  const base = { harness: h.id, name: h.name, file: f.file ?? null, userFile: f.userFile ?? null, format: f.format ?? null };
  const unsupported = (why: string): HarnessMcpConfig => ({
    ...base,
    supported: false,
    snippet: null,
    cli: null,
    notes: [why, ...(input.notes ?? [])],
  });
  if (!f.supported || !f.format || !f.path)
    return {
      ...base,
      supported: false,
      file: null,
      userFile: null,
      format: null,
      snippet: null,
      cli: null,
      notes: [f.reason ?? "This harness has no MCP client."],
    };
  const t = input.target;
  const notes: string[] = [];
  let entry: Record<string, unknown>;
  if (t.kind === "remote") {
    const transports = f.remote?.transports ?? {};
    if (!(t.transport in transports))
      return unsupported(f.transportNotes?.[t.transport] ?? `${h.name} does not connect to ${t.transport} servers.`);
    if (f.transportNotes?.[t.transport]) notes.push(f.transportNotes[t.transport]!);
    const headers = t.headers ?? [];
    const values: Record<string, unknown> = {
      $type: transports[t.transport] ?? null,
      $url: t.url,
      $headers: Object.fromEntries(headers.map((hd) => [hd.name, headerValue(hd, f.envRef)])),
      $codexHeaders: f.remote!.entry.some(([, v]) => v === "$codexHeaders") ? codexHeaders(headers, notes) : {},
    };
    entry = buildEntry(f.remote!.entry, values, headers.length > 0);
    const secrets = headers.filter((hd) => hd.env);
    if (secrets.length && f.envRef)
      notes.push(
        `Set ${secrets.map((s) => s.env).join(", ")} in the environment ${h.name} starts with; the file holds only the reference.`,
      );
    if (secrets.length && !f.envRef && f.format !== "toml") {
      notes.push(
        `${h.name} does not expand environment variables in MCP headers: replace ${secrets.map((s) => placeholderFor(s.env!, s.placeholder)).join(", ")} with the value, in the user-level file only (never a file you commit).`,
      );
    }
    if (secrets.length && f.format === "toml")
      notes.push(`Codex reads ${secrets.map((s) => s.env).join(", ")} from the environment it starts in.`);
  } else {
    if (!f.stdio) return unsupported(`${h.name} does not run local (stdio) servers.`);
    const env = t.env ?? [];
    const ref = f.stdioEnvRef !== undefined ? f.stdioEnvRef : f.envRef;
    const values: Record<string, unknown> = {
      $command: t.command,
      $args: t.args ?? [],
      $commandLine: [t.command, ...(t.args ?? [])],
      $env: Object.fromEntries(env.map((e) => [e.name, envValue(e, ref)])),
      $codexEnv: codexEnv(env),
    };
    entry = buildEntry(f.stdio.entry, values, false);
    const passed = env.filter((e) => e.value === undefined || e.secret);
    if (passed.length && (ref || f.format === "toml"))
      notes.push(
        `Set ${passed.map((e) => e.name).join(", ")} in the environment ${h.name} starts with; the file holds only the reference.`,
      );
    if (passed.length && !ref && f.format !== "toml") {
      notes.push(
        `${h.name} does not expand environment variables in this file: replace ${passed.map((e) => placeholderFor(e.name, e.placeholder)).join(", ")} with the value, in the user-level file only.`,
      );
    }
  }
  let doc: Record<string, unknown> = { [key]: entry };
  for (const k of [...f.path].reverse()) doc = { [k]: doc };
  doc = { ...(f.root ?? {}), ...doc };
  return {
    ...base,
    supported: true,
    snippet: serialise(doc, f.format),
    cli: cliFor(f.cli ?? null, key, t, t.kind === "remote" ? f.envRef : (f.stdioEnvRef ?? f.envRef)),
    notes: [...notes, ...(input.notes ?? [])],
  };
}

export function renderMcpConfig(harness: string, input: McpConfigInput): HarnessMcpConfig | null {
  const h = HARNESSES.find((x) => x.id === harness);
  return h ? renderFor(h, input) : null;
}

/** The configuration for every harness in the setup data, in its order. */
export function renderMcpConfigs(input: McpConfigInput): HarnessMcpConfig[] {
  return HARNESSES.map((h) => renderFor(h, input));
}
