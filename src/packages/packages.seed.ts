/**
 * Loads the package-check data shipped in data/packages/ (see its README.md for provenance):
 * the OpenSSF malicious-packages snapshot, the popular-name lists with their typo-neighbour keys,
 * and the hallucinated-name map. Every load is an idempotent upsert (a rerun changes nothing).
 */
import type { Env } from "../env";
import { bulkStatements, dataLines, jsonCols } from "../core/bulk";
import { now } from "../core/clock";
import { packageKey, registryKey } from "../ecosystems/topics";
import { parseEcosystem, type Ecosystem } from "../ecosystems/versions";
import { keyHash, neighbourKeys } from "./typo";
import { insertColumns } from "../core/columns";
import { maliciousPackages, popularKeys, popularNames, hallucinatedNames } from "../db/freshness";

const SNAPSHOT_ECOSYSTEMS: Record<string, Ecosystem> = { npm: "npm", pypi: "pypi", go: "go", cargo: "cargo" };

/** The row identity within a name: its MAL- id, or (no id in the source) its origin and versions. */
export const maliciousRecordKey = (id: string, origin: string, versions: string) => id || `${origin}:${versions}`;

/**
 * One chunk of malicious.tsv (`ecosystem name versions id modified summary_kind origin`), in any
 * order of chunks; the header and `#` lines are skipped wherever they fall.
 */
export async function loadMalicious(env: Env, text: string): Promise<{ rows: number }> {
  const t = now();
  const rows: unknown[][] = [];
  for (const line of dataLines(text)) {
    const f = line.split("\t");
    if (f[0] === "ecosystem") continue;
    const eco = SNAPSHOT_ECOSYSTEMS[f[0] ?? ""];
    const name = f[1]?.trim();
    if (!eco || !name || f.length < 7) continue;
    const [versions = "?", id = "", modified = "", kind = "", origin = ""] = f.slice(2).map((x) => x.trim());
    rows.push([
      eco,
      packageKey(eco, name),
      maliciousRecordKey(id, origin, versions),
      name,
      versions,
      id || null,
      modified || null,
      kind || null,
      origin,
    ]);
  }
  const sql = `INSERT INTO ${insertColumns(maliciousPackages, ["ecosystem", "nameKey", "record", "name", "versions", "malId", "modified", "summaryKind", "origin", "ingestedAt"])}
    SELECT ${jsonCols(9)}, ?2 FROM json_each(?1) WHERE true
    ON CONFLICT (ecosystem, name_key, record) DO UPDATE SET
      name = excluded.name, versions = excluded.versions, mal_id = excluded.mal_id, modified = excluded.modified,
      summary_kind = excluded.summary_kind, origin = excluded.origin, ingested_at = excluded.ingested_at
    WHERE malicious_packages.versions IS NOT excluded.versions OR malicious_packages.modified IS NOT excluded.modified
       OR malicious_packages.summary_kind IS NOT excluded.summary_kind OR malicious_packages.name IS NOT excluded.name`;
  const stmts = bulkStatements(env.DB, sql, rows, [t]);
  if (stmts.length) await env.DB.batch(stmts);
  return { rows: rows.length };
}

interface PackageChecksFile {
  as_of: string;
  packages: {
    ecosystem: string;
    name: string;
    expected: {
      malicious?: boolean;
      malicious_history?: boolean;
      advisory_ids?: string[];
      affected_versions?: string[];
      typosquat_of?: string;
    };
  }[];
}

/**
 * The malicious packages named in data/freshness/package-checks.json (Lore's curated, sourced
 * package facts; `0requests`, MAL-2026-15859, is not in the partial OpenSSF snapshot), loaded into
 * the same table the check reads. A row the snapshot or the OSV ingest already holds (same MAL- id)
 * is left as they wrote it, so loading both in either order, and again, changes nothing.
 */
export async function loadCuratedMalicious(env: Env, text: string): Promise<{ rows: number }> {
  const file = JSON.parse(text) as PackageChecksFile;
  const origin = `package-checks@${file.as_of}`;
  const rows = file.packages.flatMap((p) => {
    const eco = parseEcosystem(p.ecosystem);
    if (!eco || !(p.expected.malicious || p.expected.malicious_history)) return [];
    const id = p.expected.advisory_ids?.find((a) => a.startsWith("MAL-")) ?? "";
    const versions = p.expected.affected_versions?.length ? p.expected.affected_versions.join(",") : "*";
    const kind = p.expected.typosquat_of ? `typosquat:${p.expected.typosquat_of}` : null;
    return [[eco, packageKey(eco, p.name), maliciousRecordKey(id, origin, versions), p.name, versions, id || null, null, kind, origin]];
  });
  const sql = `INSERT INTO ${insertColumns(maliciousPackages, ["ecosystem", "nameKey", "record", "name", "versions", "malId", "modified", "summaryKind", "origin", "ingestedAt"])}
    SELECT ${jsonCols(9)}, ?2 FROM json_each(?1) WHERE true ON CONFLICT (ecosystem, name_key, record) DO NOTHING`;
  const stmts = bulkStatements(env.DB, sql, rows, [now()]);
  if (stmts.length) await env.DB.batch(stmts);
  return { rows: rows.length };
}

/**
 * A whole popular-name list, most popular first (rank = line order). The list and its keys are
 * replaced in one atomic batch, so a rerun leaves exactly the same rows.
 */
export function popularLoader(eco: Ecosystem) {
  return async (env: Env, text: string): Promise<{ rows: number }> => {
    const names = dataLines(text).map((l) => l.trim());
    const named: unknown[][] = [];
    const keyed: unknown[][] = [];
    const seen = new Set<string>();
    names.forEach((name, i) => {
      const key = packageKey(eco, name);
      // One row per name as the registry tells names apart: `JSONStream` and `jsonstream` would be two.
      if (seen.has(registryKey(eco, name))) return;
      seen.add(registryKey(eco, name));
      const rank = i + 1;
      named.push([rank, name, key]);
      for (const h of new Set(neighbourKeys(eco, key).map(keyHash))) keyed.push([h, rank]);
    });
    await env.DB.batch([
      env.DB.prepare("DELETE FROM popular_names WHERE ecosystem = ?").bind(eco),
      env.DB.prepare("DELETE FROM popular_keys WHERE ecosystem = ?").bind(eco),
      ...bulkStatements(
        env.DB,
        `INSERT INTO ${insertColumns(popularNames, ["ecosystem", "rank", "name", "nameKey"])} SELECT ?2, ${jsonCols(3)} FROM json_each(?1)`,
        named,
        [eco],
      ),
      ...bulkStatements(
        env.DB,
        `INSERT OR IGNORE INTO ${insertColumns(popularKeys, ["ecosystem", "keyHash", "rank"])} SELECT ?2, ${jsonCols(2)} FROM json_each(?1)`,
        keyed,
        [eco],
        800_000,
      ),
    ]);
    return { rows: named.length };
  };
}

interface HallucinatedFile {
  names: { ecosystem: string; name: string; suggestion: string; note: string; source: string }[];
}

export async function loadHallucinated(env: Env, text: string): Promise<{ rows: number }> {
  const file = JSON.parse(text) as HallucinatedFile;
  const rows = file.names.flatMap((n) => {
    const eco = SNAPSHOT_ECOSYSTEMS[n.ecosystem];
    return eco ? [[eco, packageKey(eco, n.name), n.name, n.suggestion, n.note, n.source]] : [];
  });
  await env.DB.batch([
    env.DB.prepare("DELETE FROM hallucinated_names"),
    ...bulkStatements(
      env.DB,
      `INSERT INTO ${insertColumns(hallucinatedNames, ["ecosystem", "nameKey", "name", "suggestion", "note", "source"])} SELECT ${jsonCols(6)} FROM json_each(?1)`,
      rows,
    ),
  ]);
  return { rows: rows.length };
}
