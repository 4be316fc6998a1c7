/**
 * What to configure for a server: its remote (Streamable HTTP preferred over SSE) or, without one,
 * a local package run the way its registry type says (npx, uvx, docker, dnx), pinned to the
 * version in the registry record, with only the runner and runtime arguments runtime.ts allows.
 * The result feeds the per-harness renderer (src/harnesses/mcp-config.ts).
 * Secrets stay environment variables; optional credentials are left out (most such servers offer
 * OAuth) and named in the notes instead; `{variables}` in a URL are left for the user to fill in.
 */
import { configKey, type McpConfigInput, type McpEnvInput, type McpHeaderInput } from "../harnesses/mcp-config";
import type { ArgumentRecord, KeyValueInput, PackageRecord, RemoteRecord, ServerRecord } from "./records";
import { checkPackage, type Runner } from "./runtime";

export interface InstallTarget {
  kind: "remote" | "package" | "none";
  transport: "streamable-http" | "sse" | "stdio" | null;
  url: string | null;
  registryType: string | null;
  identifier: string | null;
  version: string | null;
}

const NOISE = /^(?:mcp|server|mcp-server|server-mcp)$/;

/** The key a server gets in a harness's config: the meaningful part of its name (`github`, `context7`, `filesystem`). */
export function serverKey(name: string): string {
  const [ns = "", server = ""] = name.split("/");
  const cleaned = server
    .toLowerCase()
    .replace(/(?:^|[-_.])mcp(?:[-_.]server)?(?=$|[-_.])/g, "")
    .replace(/(?:^|[-_.])server(?=$|[-_.])/g, "")
    .replace(/^[-_.]+|[-_.]+$/g, "");
  if (cleaned && !NOISE.test(cleaned)) return configKey(cleaned);
  // `com.cloudflare.mcp/mcp` → cloudflare: the namespace's most specific label that is not "mcp".
  const labels = ns
    .toLowerCase()
    .split(".")
    .filter((l) => l && l !== "mcp" && l !== "io" && l !== "github" && l !== "com" && l !== "dev" && l !== "ai");
  return configKey(labels.at(-1) ?? server);
}

const envName = (key: string, suffix: string) =>
  `${key}_${suffix}`
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");

function headerInput(h: KeyValueInput, key: string): McpHeaderInput | null {
  if (h.isSecret) {
    const env = envName(key, h.name.toLowerCase() === "authorization" ? "token" : h.name);
    const template = h.value ?? h.default;
    const prefix = template?.includes("{")
      ? template.slice(0, template.indexOf("{"))
      : h.name.toLowerCase() === "authorization"
        ? "Bearer "
        : "";
    return { name: h.name, env, prefix };
  }
  const value = h.value ?? h.default;
  return value ? { name: h.name, value } : null;
}

const required = (h: KeyValueInput) => h.isRequired === true || (h.isRequired === undefined && h.isSecret === true);

function remoteInput(r: RemoteRecord, key: string, notes: string[]): McpConfigInput["target"] {
  const headers: McpHeaderInput[] = [];
  for (const h of r.headers ?? []) {
    const input = required(h) ? headerInput(h, key) : null;
    if (input) headers.push(input);
    else
      notes.push(
        `Optional header ${h.name}${h.description ? `: ${h.description}` : ""}${h.isSecret ? " (a secret: keep it in an environment variable)" : ""}.`,
      );
  }
  for (const [v, spec] of Object.entries(r.variables ?? {})) {
    if (r.url.includes(`{${v}}`))
      notes.push(
        `Replace {${v}} in the URL${spec?.description ? `: ${spec.description}` : ""}${spec?.default ? ` (default ${spec.default})` : ""}.`,
      );
  }
  return { kind: "remote", transport: r.type, url: r.url, headers };
}

function argValues(list: ArgumentRecord[] | undefined): string[] {
  const out: string[] = [];
  for (const a of list ?? []) {
    const value = a.value ?? a.default ?? (a.valueHint ? `<${a.valueHint}>` : undefined);
    if (a.type === "named") {
      if (value === undefined && a.isRequired !== true && a.value === undefined) {
        if (a.name) out.push(a.name);
        continue;
      }
      out.push(a.name!);
      if (value !== undefined) out.push(value);
    } else if (value !== undefined && (a.isRequired !== false || a.value !== undefined)) {
      out.push(value);
    }
  }
  return out;
}

const pinned = (p: PackageRecord, sep: string) => `${p.identifier}${p.version ? `${sep}${p.version}` : ""}`;

/** How each runner starts a package: what comes before the runtime arguments, and the package itself. */
const START: Record<Runner, (p: PackageRecord) => { command: string; head: string[]; target: string[] }> = {
  npx: (p) => ({ command: "npx", head: ["-y"], target: [pinned(p, "@")] }),
  bunx: (p) => ({ command: "bunx", head: [], target: [pinned(p, "@")] }),
  uvx: (p) => ({ command: "uvx", head: [], target: [pinned(p, "==")] }),
  pipx: (p) => ({ command: "pipx", head: ["run"], target: [pinned(p, "==")] }),
  // The image comes last among docker's own arguments; the container's arguments follow it.
  docker: (p) => ({ command: "docker", head: ["run", "-i", "--rm"], target: [p.identifier] }),
  dnx: (p) => ({ command: "dnx", head: [], target: [pinned(p, "@"), "--yes"] }),
};

function packageInput(p: PackageRecord, notes: string[]): McpConfigInput["target"] | null {
  // Only the runner Lore knows for the registry type, and only runtime arguments and variables that
  // neither change what runs nor widen its reach (runtime.ts); what was dropped is a finding on the server.
  const checked = checkPackage(p);
  if (!checked) return null;
  const start = START[checked.runner](p);
  const env: McpEnvInput[] = [];
  for (const e of checked.environmentVariables) {
    if (e.isSecret || (e.isRequired && !(e.value ?? e.default))) env.push({ name: e.name, secret: true });
    else if (e.isRequired) env.push({ name: e.name, value: e.value ?? e.default });
    else notes.push(`Optional variable ${e.name}${e.description ? `: ${e.description}` : ""}.`);
  }
  // docker passes a variable into the container only when told to (`-e NAME` reads it from the environment).
  const envFlags = checked.runner === "docker" ? env.flatMap((e) => ["-e", e.name]) : [];
  const args = [...start.head, ...argValues(checked.runtimeArguments), ...envFlags, ...start.target, ...argValues(p.packageArguments)];
  if (checked.findings.length)
    notes.push(
      `Left out what the record asks for that could run other code or widen the server's reach: ${checked.findings.map((f) => f.excerpt).join("; ")} (see the findings).`,
    );
  notes.push(
    `Runs ${p.registryType} package ${p.identifier}${p.version ? ` pinned to ${p.version}, the version of the registry record` : ""} with ${checked.runner}. Lore's review covers the server's tool descriptions, not the package's code.`,
  );
  return { kind: "stdio", command: start.command, args, env };
}

/** The renderer input for a server, and what it points at; null target when nothing can be configured. */
export function installInput(r: Pick<ServerRecord, "name" | "remotes" | "packages">): {
  input: McpConfigInput | null;
  target: InstallTarget;
  notes: string[];
} {
  const key = serverKey(r.name);
  const notes: string[] = [];
  const remote = r.remotes.find((x) => x.type === "streamable-http") ?? r.remotes.find((x) => x.type === "sse");
  if (remote) {
    if (r.remotes.length > 1)
      notes.push(`This record lists ${r.remotes.length} remote endpoints; the configuration uses the first, ${remote.url}.`);
    const target = remoteInput(remote, key, notes);
    return {
      input: { key, target },
      target: { kind: "remote", transport: remote.type, url: remote.url, registryType: null, identifier: null, version: null },
      notes,
    };
  }
  for (const p of r.packages.filter((x) => x.transport.type === "stdio")) {
    const target = packageInput(p, notes);
    if (target) {
      return {
        input: { key, target },
        target: {
          kind: "package",
          transport: "stdio",
          url: null,
          registryType: p.registryType,
          identifier: p.identifier,
          version: p.version ?? null,
        },
        notes,
      };
    }
  }
  const mcpb = r.packages.find((p) => p.registryType === "mcpb");
  notes.push(
    mcpb
      ? "The only package is an MCP bundle (mcpb): install it with a client that installs bundles, after checking its fileSha256."
      : "The record names no remote endpoint and no package Lore can configure.",
  );
  return {
    input: null,
    target: {
      kind: "none",
      transport: null,
      url: null,
      registryType: mcpb?.registryType ?? null,
      identifier: mcpb?.identifier ?? null,
      version: mcpb?.version ?? null,
    },
    notes,
  };
}
