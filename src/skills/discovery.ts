/**
 * The discovery indexes, as the `skills` CLI (npm `skills` 1.7) reads them (DESIGN §6):
 *   /.well-known/agent-skills/index.json  v0.2.0: {$schema, skills: [{name, type, description, url, digest}]}
 *   /.well-known/skills/index.json        v0.1.0: {skills: [{name, description, files: [...], digest}]}
 * Only scan-passed skills, latest version (Lore's own `lore` among them, published like any other).
 * One D1 query builds an index; the serialised index is kept per isolate for a few seconds (and
 * dropped at once when this isolate publishes or rescans), because these are public, hot URLs.
 * In its last second a request that reads it starts one rebuild in the background (refresh-ahead),
 * so under steady traffic no request waits for a rebuild, and the requests in flight when it would
 * expire do not each rebuild it at once.
 */
import { sha256Hex } from "../core/crypto";
import { LruCache } from "../core/cache";
import { now } from "../core/clock";
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

interface Built {
  epoch: number;
  /** core/clock time the build started (its D1 read): what its age is counted from. */
  at: number;
  v2: BuiltIndex;
  v1: BuiltIndex;
  listed: Map<string, Listed>;
}

const indexCache = new LruCache<string, Built>({ maxEntries: 16, ttlMs: INDEX_TTL_MS });

/** How long before a build expires a request that reads it starts the next one in the background. */
export const REFRESH_AHEAD_MS = 1_000;
/** Origins whose rebuild runs in the background, with when it started (a rebuild never settled is retried after a TTL). */
const refreshing = new Map<string, number>();

/** `waitUntil` keeps a background rebuild alive past the response of the request that started it. */
export type WaitUntil = (p: Promise<unknown>) => void;

async function build(db: D1Database, origin: string, waitUntil?: WaitUntil): Promise<Built> {
  const cached = indexCache.get(origin);
  if (cached && cached.epoch === epoch) {
    if (waitUntil && now() - cached.at >= INDEX_TTL_MS - REFRESH_AHEAD_MS) refreshAhead(db, origin, waitUntil);
    return cached;
  }
  return rebuild(db, origin);
}

/**
 * One background rebuild per origin at a time. No other request awaits it (workerd cancels a request
 * that waits on a promise another request settles: src/core/write-group.ts); they keep reading the
 * build they have until the new one is stored.
 */
function refreshAhead(db: D1Database, origin: string, waitUntil: WaitUntil): void {
  const started = refreshing.get(origin);
  if (started !== undefined && now() - started < INDEX_TTL_MS) return;
  refreshing.set(origin, now());
  waitUntil(
    rebuild(db, origin)
      .catch((e) => console.error(JSON.stringify({ level: "error", what: "discovery-refresh", error: String(e).slice(0, 300) })))
      .finally(() => refreshing.delete(origin)),
  );
}

async function rebuild(db: D1Database, origin: string): Promise<Built> {
  // The epoch and time before the read: a write during it leaves this build already outdated.
  const at = now();
  const builtFor = epoch;
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
  const entry: Built = {
    epoch: builtFor,
    at,
    v2: { body: encoder.encode(v2), etag: `"sha256:${await sha256Hex(v2)}"` },
    v1: { body: encoder.encode(v1), etag: `"sha256:${await sha256Hex(v1)}"` },
    listed: new Map(listed.map((s) => [s.name, s])),
  };
  // A slower build finishing after a newer one does not replace it.
  const current = indexCache.get(origin);
  if (current && current.epoch === epoch && current.at > at) return entry;
  return indexCache.set(origin, entry);
}

export async function discoveryIndex(
  db: D1Database,
  origin: string,
  version: "0.2.0" | "0.1.0",
  waitUntil?: WaitUntil,
): Promise<BuiltIndex> {
  const b = await build(db, origin, waitUntil);
  return version === "0.2.0" ? b.v2 : b.v1;
}

/** A listed skill by name (from the same cached build), or undefined when it is not listed. */
export async function listedSkill(db: D1Database, origin: string, name: string, waitUntil?: WaitUntil): Promise<Listed | undefined> {
  return (await build(db, origin, waitUntil)).listed.get(name);
}
