/**
 * The discovery indexes, as the `skills` CLI (npm `skills` 1.7) reads them (DESIGN §6):
 *   /.well-known/agent-skills/index.json  v0.2.0: {$schema, skills: [{name, type, description, url, digest}]}
 *   /.well-known/skills/index.json        v0.1.0: {skills: [{name, description, files: [...], digest}]}
 * Only scan-passed skills, latest version (Lore's own `lore` among them, published like any other).
 * One D1 query builds an index; the serialised index is kept per isolate for a few seconds (and
 * dropped at once when this isolate publishes or rescans), because these are public, hot URLs.
 */
import { sha256Hex } from "../core/crypto";
import { LruCache } from "../core/cache";
import type { SqlRow } from "../core/columns";
import type { skills, skillVersions } from "../db/skills";

export const DISCOVERY_SCHEMA_V2 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/** How long an isolate reuses a built index. A newly flagged skill leaves every index within this. */
export const INDEX_TTL_MS = 5_000;

let epoch = 0;
/** Called after every write that changes what is listed (publish, rescan, seed). */
export function bumpCatalog(): void {
  epoch++;
  indexCache.clear();
}

/** A listed skill's catalog and latest-version columns (`s.` and `v.` below). */
type ListedRow = SqlRow<typeof skills, "slug" | "description"> &
  SqlRow<typeof skillVersions, "artifactType" | "scanHash" | "artifactKey" | "files">;

export interface Listed {
  name: string;
  description: string;
  type: "skill-md" | "archive";
  /** `sha256:<hex>` of the artifact. */
  digest: string;
  /** SHA-256 hex of the artifact (its R2 key is `sha256/<hex>`). */
  artifactHex: string;
  files: { path: string; size: number; digest: string; text?: boolean }[];
}

async function listedSkills(db: D1Database): Promise<Listed[]> {
  const rows = await db
    .prepare(
      `SELECT s.slug, s.description, v.artifact_type, v.scan_hash, v.artifact_key, v.files
         FROM skills s JOIN skill_versions v ON v.id = s.latest_version_id
        WHERE s.security_status = 'passed' AND v.status = 'passed'
        ORDER BY s.slug`,
    )
    .all<ListedRow>();
  return rows.results.map((r) => ({
    name: r.slug,
    description: r.description,
    type: r.artifact_type as Listed["type"],
    digest: r.scan_hash,
    artifactHex: r.scan_hash.slice("sha256:".length),
    files: JSON.parse(r.files) as Listed["files"],
  }));
}

export interface BuiltIndex {
  /** The index as UTF-8, encoded once per build: each answer copies these bytes, never encodes the text again. */
  body: Uint8Array;
  etag: string;
}

const encoder = new TextEncoder();

const indexCache = new LruCache<string, { epoch: number; v2: BuiltIndex; v1: BuiltIndex; listed: Map<string, Listed> }>({
  maxEntries: 16,
  ttlMs: INDEX_TTL_MS,
});

async function build(db: D1Database, origin: string) {
  const cached = indexCache.get(origin);
  if (cached && cached.epoch === epoch) return cached;
  const listed = await listedSkills(db);
  const base = `${origin}/.well-known/agent-skills`;
  const v2 = JSON.stringify({
    $schema: DISCOVERY_SCHEMA_V2,
    skills: listed.map((s) => ({
      name: s.name,
      type: s.type,
      description: s.description,
      url: s.type === "archive" ? `${base}/${s.name}.tar.gz` : `${base}/${s.name}/SKILL.md`,
      digest: s.digest,
    })),
  });
  // v0.1.0 lists paths as strings; SKILL.md first, as the RFC recommends. `digest` is an allowed extra.
  const v1 = JSON.stringify({
    skills: listed.map((s) => ({
      name: s.name,
      description: s.description,
      files: ["SKILL.md", ...s.files.map((f) => f.path).filter((p) => p !== "SKILL.md")],
      digest: s.digest,
    })),
  });
  const entry = {
    epoch,
    v2: { body: encoder.encode(v2), etag: `"sha256:${await sha256Hex(v2)}"` },
    v1: { body: encoder.encode(v1), etag: `"sha256:${await sha256Hex(v1)}"` },
    listed: new Map(listed.map((s) => [s.name, s])),
  };
  return indexCache.set(origin, entry);
}

export async function discoveryIndex(db: D1Database, origin: string, version: "0.2.0" | "0.1.0"): Promise<BuiltIndex> {
  const b = await build(db, origin);
  return version === "0.2.0" ? b.v2 : b.v1;
}

/** A listed skill by name (from the same cached build), or undefined when it is not listed. */
export async function listedSkill(db: D1Database, origin: string, name: string): Promise<Listed | undefined> {
  return (await build(db, origin)).listed.get(name);
}
