/**
 * npm registry (registry.npmjs.org). Scoped names are one path segment (`@scope%2fname`). A 404 or
 * 410 is "no such package"; a fully unpublished package (only `time.unpublished`) is too. npm's
 * security-holder stubs (`0.0.1-security`, "security holding package") mean the package was
 * removed for malware. A document without `time.created` came from a mirror that rewrites
 * metadata: its dates (and deprecation notices) are not trusted.
 */
import { readJson, SourceError, sourceFetch, unexpectedStatus, type Lookup, type PackageFacts, type SourceCtx } from "./http";

export const NPM_REGISTRY = "https://registry.npmjs.org";
const SOURCE = "npm";
const CORGI = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*";

export const npmPath = (name: string) => (name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name));

interface Manifest {
  version?: string;
  description?: string;
  repository?: string | { url?: string };
  deprecated?: string;
  hasInstallScript?: boolean;
  scripts?: Record<string, string>;
}
export interface Packument {
  name?: string;
  /** Top level of the abbreviated document only. */
  modified?: string;
  "dist-tags"?: Record<string, string>;
  versions?: Record<string, Manifest>;
  time?: Record<string, unknown> & { created?: string; modified?: string; unpublished?: unknown };
}

/** The packument (full with `time`, or the abbreviated install form), or null for a missing package. */
export async function npmPackument(
  name: string,
  ctx: SourceCtx,
  opts: { full: boolean } = { full: true },
): Promise<{ doc: Packument; url: string } | null> {
  const url = `${NPM_REGISTRY}/${npmPath(name)}`;
  const res = await sourceFetch(SOURCE, url, ctx, { headers: { accept: opts.full ? "application/json" : CORGI } });
  if (res.status === 404 || res.status === 410) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  const doc = await readJson<Packument>(SOURCE, res);
  if (doc.versions !== undefined && (typeof doc.versions !== "object" || Array.isArray(doc.versions)))
    throw new SourceError(SOURCE, "malformed", "versions is not an object");
  return { doc, url };
}

const isSecurityHolder = (latest: string | undefined, m: Manifest | undefined) => {
  const repo = typeof m?.repository === "string" ? m.repository : m?.repository?.url;
  return (
    (!!latest && /^0\.0\.\d+-security$/.test(latest)) ||
    m?.description === "security holding package" ||
    !!repo?.includes("npm/security-holder")
  );
};

export function npmFacts(doc: Packument, url: string): PackageFacts | null {
  const versions = Object.keys(doc.versions ?? {});
  if (!versions.length) return null;
  const latest = doc["dist-tags"]?.latest ?? versions.at(-1)!;
  const datesTrusted = typeof doc.time?.created === "string" && typeof doc.time?.modified === "string";
  const deprecated: Record<string, string> = {};
  const installScripts: string[] = [];
  for (const [v, m] of Object.entries(doc.versions ?? {})) {
    if (typeof m?.deprecated === "string" && m.deprecated.trim() !== "") deprecated[v] = m.deprecated;
    const s = m?.scripts ?? {};
    if (m?.hasInstallScript === true || s.preinstall || s.install || s.postinstall) installScripts.push(v);
  }
  return {
    name: doc.name ?? "",
    latestVersion: latest,
    versions,
    firstPublished: datesTrusted ? new Date(doc.time!.created!).toISOString() : null,
    datesTrusted,
    deprecated,
    packageDeprecated: versions.every((v) => deprecated[v]) ? (deprecated[latest] ?? null) : null,
    yanked: {},
    installScripts,
    securityHolder: isSecurityHolder(latest, doc.versions?.[latest]),
    quarantined: false,
    source: url,
    distTags: Object.fromEntries(Object.entries(doc["dist-tags"] ?? {}).filter((e): e is [string, string] => typeof e[1] === "string")),
    // The registry's full document has time.created, its abbreviated one a top-level `modified`;
    // a mirror that rewrites metadata has neither, and keeps only the `latest` tag.
    distTagsComplete: typeof doc.time?.created === "string" || typeof doc.modified === "string",
  };
}

export async function npmLookup(name: string, ctx: SourceCtx, opts: { full: boolean } = { full: true }): Promise<Lookup> {
  const got = await npmPackument(name, ctx, opts);
  const url = `${NPM_REGISTRY}/${npmPath(name)}`;
  if (!got) return { status: "missing", source: url, detail: "npm answered 404: no such package" };
  const facts = npmFacts(got.doc, url);
  if (!facts) return { status: "missing", source: url, detail: "every version was unpublished" };
  return { status: "found", facts };
}
