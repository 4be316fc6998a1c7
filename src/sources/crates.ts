/**
 * crates.io web API (`/api/v1/crates/<name>`). A descriptive User-Agent is mandatory (requests
 * without one get 403). `-` and `_` and case are one name there; the API answers for either
 * spelling. 404: no such crate (including crates removed for malware).
 */
import { readJson, SourceError, sourceFetch, unexpectedStatus, type Lookup, type SourceCtx } from "./http";

const SOURCE = "crates.io";
export const CRATES = "https://crates.io";

export interface CrateDoc {
  crate?: {
    name?: string;
    created_at?: string;
    max_stable_version?: string | null;
    max_version?: string;
    newest_version?: string;
    repository?: string | null;
  };
  versions?: { num: string; created_at?: string; yanked?: boolean; yank_message?: string | null }[];
}

export async function crateDoc(name: string, ctx: SourceCtx): Promise<{ doc: CrateDoc; url: string } | null> {
  const url = `${CRATES}/api/v1/crates/${encodeURIComponent(name)}`;
  const res = await sourceFetch(SOURCE, url, ctx, { headers: { accept: "application/json" } });
  if (res.status === 404 || res.status === 410) {
    await res.body?.cancel();
    return null;
  }
  if (res.status === 403)
    throw new SourceError(SOURCE, "status", "403: crates.io refused the request (crawler policy: User-Agent and rate)", 403);
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  const doc = await readJson<CrateDoc>(SOURCE, res);
  if (!doc.crate || !Array.isArray(doc.versions)) throw new SourceError(SOURCE, "malformed", "no crate or versions in the answer");
  return { doc, url };
}

export async function cratesLookup(name: string, ctx: SourceCtx): Promise<Lookup> {
  const got = await crateDoc(name, ctx);
  const page = `${CRATES}/crates/${name}`;
  if (!got) return { status: "missing", source: page, detail: "crates.io answered 404: no such crate" };
  const { crate, versions = [] } = got.doc;
  const yanked: Record<string, string> = {};
  for (const v of versions) if (v.yanked) yanked[v.num] = v.yank_message ?? "";
  return {
    status: "found",
    facts: {
      name: crate!.name ?? name,
      latestVersion: crate!.max_stable_version ?? crate!.max_version ?? crate!.newest_version ?? null,
      versions: versions.map((v) => v.num),
      firstPublished: crate!.created_at ? new Date(crate!.created_at).toISOString() : null,
      datesTrusted: !!crate!.created_at,
      deprecated: {},
      packageDeprecated: null,
      yanked,
      installScripts: [],
      securityHolder: false,
      quarantined: false,
      source: page,
    },
  };
}
