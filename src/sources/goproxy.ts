/**
 * The Go module proxy protocol (proxy.golang.org): `@v/list`, `@v/<v>.info`, `@v/<v>.mod`,
 * `@latest`. Module paths and versions are case-encoded (`Azure` → `!azure`). 404 and 410 both
 * mean "not available". Deprecation is a `// Deprecated:` comment on the latest go.mod's module
 * directive; retractions are its `retract` directives. The proxy caches modules forever, so
 * "exists on the proxy" does not prove the source repository still exists.
 */
import { cleanVersion, compareVersions } from "../ecosystems/versions";
import { readJson, SourceError, sourceFetch, unexpectedStatus, type Lookup, type SourceCtx } from "./http";

const SOURCE = "goproxy";
export const GO_PROXY = "https://proxy.golang.org";

/** `github.com/Azure/go` → `github.com/!azure/go` (the proxy protocol's case encoding). */
export const goEscape = (s: string) => s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

const base = (module: string) => `${GO_PROXY}/${goEscape(module)}`;

async function get(url: string, ctx: SourceCtx): Promise<Response | null> {
  const res = await sourceFetch(SOURCE, url, ctx);
  if (res.status === 404 || res.status === 410) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  return res;
}

export async function goList(module: string, ctx: SourceCtx): Promise<string[] | null> {
  const res = await get(`${base(module)}/@v/list`, ctx);
  if (!res) return null;
  return (await res.text())
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

export async function goInfo(module: string, version: string, ctx: SourceCtx): Promise<{ Version: string; Time?: string } | null> {
  const res = await get(`${base(module)}/@v/${goEscape(version)}.info`, ctx);
  if (!res) return null;
  const info = await readJson<{ Version?: unknown; Time?: unknown }>(SOURCE, res);
  if (typeof info.Version !== "string") throw new SourceError(SOURCE, "malformed", ".info has no Version");
  return { Version: info.Version, Time: typeof info.Time === "string" ? info.Time : undefined };
}

export async function goLatest(module: string, ctx: SourceCtx) {
  const res = await get(`${base(module)}/@latest`, ctx);
  if (!res) return null;
  const info = await readJson<{ Version?: unknown; Time?: unknown }>(SOURCE, res);
  if (typeof info.Version !== "string") throw new SourceError(SOURCE, "malformed", "@latest has no Version");
  return { Version: info.Version, Time: typeof info.Time === "string" ? info.Time : undefined };
}

export async function goMod(module: string, version: string, ctx: SourceCtx): Promise<string | null> {
  const res = await get(`${base(module)}/@v/${goEscape(version)}.mod`, ctx);
  return res ? res.text() : null;
}

/** `// Deprecated: msg` before (or on) the module directive, and the retracted versions and ranges. */
export function parseGoMod(text: string): { deprecated: string | null; retracted: string[] } {
  const lines = text.split(/\r?\n/);
  let deprecated: string | null = null;
  const idx = lines.findIndex((l) => /^\s*module\s/.test(l));
  if (idx >= 0) {
    const same = /\/\/\s*Deprecated:\s*(.+)$/.exec(lines[idx]!);
    if (same) deprecated = same[1]!.trim();
    for (let i = idx - 1; i >= 0 && !deprecated && /^\s*\/\//.test(lines[i]!); i--) {
      const m = /^\s*\/\/\s*Deprecated:\s*(.+)$/.exec(lines[i]!);
      if (m) deprecated = m[1]!.trim();
    }
  }
  const retracted: string[] = [];
  let inBlock = false;
  for (const raw of lines) {
    const l = raw.replace(/\/\/.*$/, "").trim();
    if (/^retract\s*\($/.test(l)) {
      inBlock = true;
      continue;
    }
    if (inBlock && l === ")") {
      inBlock = false;
      continue;
    }
    const body = inBlock ? l : /^retract\s+(.+)$/.exec(l)?.[1];
    if (body) retracted.push(body.trim());
  }
  return { deprecated, retracted };
}

export async function goLookup(module: string, ctx: SourceCtx): Promise<Lookup> {
  const url = `https://pkg.go.dev/${module}`;
  const list = await goList(module, ctx);
  if (list === null) return { status: "missing", source: url, detail: "the Go module proxy has no such module (404/410)" };
  const latest = await goLatest(module, ctx);
  if (!latest && list.length === 0) return { status: "missing", source: url, detail: "the Go module proxy lists no version" };
  const latestVersion = latest?.Version ?? list.at(-1)!;
  const versions = list.length ? list : [latestVersion];
  const sorted = versions.filter((v) => cleanVersion("go", v)).sort((a, b) => compareVersions("go", a, b));
  if (!sorted.length) sorted.push(latestVersion);
  const [mod, first] = await Promise.all([goMod(module, latestVersion, ctx), goInfo(module, sorted[0]!, ctx).catch(() => null)]);
  const parsed = mod ? parseGoMod(mod) : { deprecated: null, retracted: [] };
  const yanked: Record<string, string> = {};
  for (const r of parsed.retracted) yanked[r] = "retracted in go.mod";
  return {
    status: "found",
    facts: {
      name: module,
      latestVersion,
      versions,
      firstPublished: first?.Time ? new Date(first.Time).toISOString() : null,
      datesTrusted: !!first?.Time,
      deprecated: {},
      packageDeprecated: parsed.deprecated,
      yanked,
      installScripts: [],
      securityHolder: false,
      quarantined: false,
      source: url,
    },
  };
}

/** Whether a version falls under a `retract` entry (`v1.2.0` or `[v1.0.0, v1.9.9]`). */
export function isRetracted(version: string, entry: string): boolean {
  const range = /^\[\s*(\S+)\s*,\s*(\S+)\s*\]$/.exec(entry);
  if (!range) return entry === version;
  if (!cleanVersion("go", version) || !cleanVersion("go", range[1]!) || !cleanVersion("go", range[2]!)) return false;
  return compareVersions("go", version, range[1]!) >= 0 && compareVersions("go", version, range[2]!) <= 0;
}
