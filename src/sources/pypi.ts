/**
 * PyPI: the JSON API (`/pypi/<name>/json`: releases with their files' upload times and yank
 * flags) and the Simple API (PEP 691 JSON, which carries PEP 792's `project-status`: `quarantined`
 * means reported malicious and nothing installable; `archived` and `deprecated` are warnings).
 * A release's date is the earliest upload time of its files; a release is yanked when all of its
 * files are. Names are looked up PEP 503-normalised.
 */
import { pep503 } from "../ecosystems/topics";
import { readJson, sourceFetch, unexpectedStatus, type Lookup, type PackageFacts, type SourceCtx } from "./http";

const SOURCE = "pypi";
export const PYPI = "https://pypi.org";

interface PypiFile {
  upload_time_iso_8601?: string;
  yanked?: boolean;
  yanked_reason?: string | null;
}
export interface PypiProject {
  info?: { name?: string; version?: string; yanked?: boolean; yanked_reason?: string | null; project_urls?: Record<string, string> | null };
  releases?: Record<string, PypiFile[]>;
}
interface SimpleProject {
  name?: string;
  versions?: string[];
  "project-status"?: { status?: string; reason?: string };
}

export async function pypiProject(name: string, ctx: SourceCtx): Promise<{ doc: PypiProject; url: string } | null> {
  const url = `${PYPI}/pypi/${encodeURIComponent(pep503(name))}/json`;
  const res = await sourceFetch(SOURCE, url, ctx, { headers: { accept: "application/json" } });
  if (res.status === 404 || res.status === 410) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  return { doc: await readJson<PypiProject>(SOURCE, res), url };
}

/** PEP 792 project status from the Simple API ('active' when absent), or null when the project is unknown there. */
export async function pypiStatus(name: string, ctx: SourceCtx): Promise<{ status: string; reason: string | null } | null> {
  const url = `${PYPI}/simple/${encodeURIComponent(pep503(name))}/`;
  const res = await sourceFetch(SOURCE, url, ctx, { headers: { accept: "application/vnd.pypi.simple.v1+json" } });
  if (res.status === 404 || res.status === 410) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  const doc = await readJson<SimpleProject>(SOURCE, res);
  return { status: doc["project-status"]?.status ?? "active", reason: doc["project-status"]?.reason ?? null };
}

/** Earliest upload time per release (null for releases without files). */
export function pypiReleaseDates(doc: PypiProject): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [v, files] of Object.entries(doc.releases ?? {})) {
    const times = (files ?? [])
      .map((f) => f.upload_time_iso_8601)
      .filter((t): t is string => typeof t === "string")
      .sort();
    out[v] = times[0] ?? null;
  }
  return out;
}

export async function pypiLookup(name: string, ctx: SourceCtx): Promise<Lookup> {
  const [project, status] = await Promise.all([pypiProject(name, ctx), pypiStatus(name, ctx)]);
  const url = `${PYPI}/project/${pep503(name)}/`;
  if (status?.status === "quarantined") {
    return {
      status: "found",
      facts: {
        name: pep503(name),
        latestVersion: null,
        versions: [],
        firstPublished: null,
        datesTrusted: true,
        deprecated: {},
        packageDeprecated: null,
        yanked: {},
        installScripts: [],
        securityHolder: false,
        quarantined: true,
        source: url,
      },
    };
  }
  if (!project) return { status: "missing", source: url, detail: "PyPI answered 404: no such project" };
  const doc = project.doc;
  const dates = pypiReleaseDates(doc);
  const yanked: Record<string, string> = {};
  for (const [v, files] of Object.entries(doc.releases ?? {})) {
    if (files?.length && files.every((f) => f.yanked)) yanked[v] = files.find((f) => f.yanked_reason)?.yanked_reason ?? "";
  }
  const first =
    Object.values(dates)
      .filter((d): d is string => !!d)
      .sort()[0] ?? null;
  const facts: PackageFacts = {
    name: doc.info?.name ?? pep503(name),
    latestVersion: doc.info?.version ?? null,
    versions: Object.keys(doc.releases ?? {}),
    firstPublished: first ? new Date(first).toISOString() : null,
    datesTrusted: true,
    deprecated: {},
    packageDeprecated:
      status && (status.status === "archived" || status.status === "deprecated")
        ? `project status: ${status.status}${status.reason ? ` (${status.reason})` : ""}`
        : null,
    yanked,
    installScripts: [],
    securityHolder: false,
    quarantined: false,
    source: url,
  };
  return { status: "found", facts };
}
