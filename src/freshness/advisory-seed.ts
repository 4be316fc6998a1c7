/**
 * The offline advisory snapshots shipped in data/advisories/ (see its README.md): OSV-shaped
 * records from pypa/advisory-database, golang/vulndb, rustsec/advisory-db and the historical
 * nodejs/security-wg npm reports, stored in the tables the OSV ingest fills (advisories,
 * advisory_affected), each row attributed and dated by sources.json. Once every record of a
 * snapshot is stored, it is registered in advisory_sources, which is what lets an answer say which
 * source it consulted, as of when, and whether absence from it means anything.
 */
import { semver } from "../ecosystems/semver-lazy.cjs";
import type { Env } from "../env";
import { dataLines } from "../core/bulk";
import { now } from "../core/clock";
import sources from "../../data/advisories/sources.json";
import type { OsvRecord } from "../sources/osv";
import { osvStatements, SOURCE_RANK } from "./advisories";
import { MAX_AGE_MS } from "./staleness";
import { cargoRange, type Ecosystem } from "../ecosystems/versions";
import { insertColumns } from "../core/columns";
import { advisorySources } from "../db/freshness";

type SnapshotId = keyof typeof sources;

interface SnapshotMeta {
  ecosystem: Ecosystem;
  label: string;
  url: string;
  /** Absence from the snapshot means "no advisory known to it" (false: it only lists what it lists). */
  complete: boolean;
  note: string;
  /** The page a reader follows for one record. */
  recordUrl: (id: string) => string;
}

const day = (iso: string) => new Date(iso).toISOString().slice(0, 10);

export const SNAPSHOTS: Record<SnapshotId, SnapshotMeta> = {
  pypi: {
    ecosystem: "pypi",
    label: `pypa/advisory-database (OSV), snapshot of ${day(sources.pypi.snapshot)}`,
    url: "https://github.com/pypa/advisory-database",
    complete: true,
    note: `advisories published after ${day(sources.pypi.snapshot)} are not in it`,
    recordUrl: (id) => `https://osv.dev/vulnerability/${id}`,
  },
  go: {
    ecosystem: "go",
    label: `golang/vulndb (OSV), snapshot of ${day(sources.go.snapshot)}`,
    url: "https://github.com/golang/vulndb",
    complete: true,
    note: `advisories published after ${day(sources.go.snapshot)} are not in it`,
    recordUrl: (id) => `https://pkg.go.dev/vuln/${id}`,
  },
  crates: {
    ecosystem: "cargo",
    label: `rustsec/advisory-db, snapshot of ${day(sources.crates.snapshot)}`,
    url: "https://github.com/rustsec/advisory-db",
    complete: true,
    note: `advisories published after ${day(sources.crates.snapshot)} are not in it; informational advisories (unmaintained, unsound) are not vulnerabilities and are left out`,
    recordUrl: (id) => `https://rustsec.org/advisories/${id}.html`,
  },
  npm: {
    ecosystem: "npm",
    label: `nodejs/security-wg historical npm reports (vuln/npm), as of ${day(sources.npm.snapshot)}`,
    url: "https://github.com/nodejs/security-wg/tree/main/vuln/npm",
    complete: false,
    note: "historical ecosystem reports only (the list stopped years ago), not the GitHub Advisory Database: a package it does not list, or a version it does not name, is not known to be clean",
    recordUrl: (id) => `https://github.com/nodejs/security-wg/blob/main/vuln/npm/${id.replace(/^NSWG-ECO-/, "")}.json`,
  },
};

interface SnapshotRecord {
  id: string;
  aliases?: string[];
  summary?: string;
  published?: string;
  modified?: string;
  withdrawn?: string;
  severity?: { type: string; score: string }[];
  affected?: {
    package?: { ecosystem?: string; name?: string };
    ranges?: { type: string; events: Record<string, string>[] }[];
    versions?: string[];
  }[];
  database_specific?: {
    vulnerable_versions?: string;
    patched_versions?: string;
    patched?: string[];
    unaffected?: string[];
    informational?: string | null;
  };
  references?: string[];
}

/** The lowest version a requirement allows (`>=1.5.2` → 1.5.2), or null. */
function floorOf(range: string): string | null {
  try {
    const v = semver().validRange(range) ? semver().minVersion(range) : null;
    return v && v.version !== "0.0.0" ? v.version : null;
  } catch {
    return null;
  }
}

/**
 * A snapshot record in the OSV form the store takes. npm reports give their versions as npm
 * ranges and RustSec ones as Cargo requirements: they become NPM_RANGE and CARGO_UNAFFECTED
 * ranges, which the matcher evaluates in the ecosystem's own terms. Informational RustSec
 * advisories are dropped (null).
 */
export function snapshotToOsv(id: SnapshotId, r: SnapshotRecord, snapshotDay: string): OsvRecord | null {
  const d = r.database_specific ?? {};
  if (id === "crates" && d.informational) return null;
  const affected = (r.affected ?? []).map((a) => {
    if (id === "npm") {
      const fixed = d.patched_versions ? floorOf(d.patched_versions) : null;
      return {
        package: a.package,
        ranges: d.vulnerable_versions ? [{ type: "NPM_RANGE", events: [], expr: d.vulnerable_versions, fixed: fixed ? [fixed] : [] }] : [],
      };
    }
    if (id === "crates") {
      const fixed = (d.patched ?? []).map((p) => floorOf(cargoRange(p) ?? "")).filter((v): v is string => !!v);
      return {
        package: a.package,
        ranges: [{ type: "CARGO_UNAFFECTED", events: [], unaffected: [...(d.patched ?? []), ...(d.unaffected ?? [])], fixed }],
      };
    }
    return { package: a.package, ranges: a.ranges, versions: a.versions };
  });
  return {
    id: r.id,
    aliases: r.aliases,
    summary: r.summary,
    published: r.published,
    // OSV needs a modified time; some snapshots leave it out (Go's "0001-01-01").
    modified: r.modified ?? r.published ?? snapshotDay,
    withdrawn: r.withdrawn,
    severity: r.severity,
    affected,
  };
}

/** Loads one chunk of a snapshot's JSON lines; registers the snapshot once all of it is stored. */
export const advisorySnapshotLoader =
  (id: SnapshotId) =>
  async (env: Env, text: string): Promise<{ rows: number }> => {
    const meta = SNAPSHOTS[id];
    const info = sources[id];
    const snapshotAt = Date.parse(info.snapshot);
    const asOf = new Date(snapshotAt).toISOString();
    const source = `${meta.label} (${info.license})`;
    const records = dataLines(text)
      .map((l) => snapshotToOsv(id, JSON.parse(l) as SnapshotRecord, asOf.slice(0, 10)))
      .filter((r): r is OsvRecord => r !== null);
    const db = env.DB;
    const stmts = await osvStatements(db, records, now(), {
      source: () => source,
      url: (r) => meta.recordUrl(r.id),
      asOf,
      rank: SOURCE_RANK.snapshot,
    });
    // The file's last line marks its end: the chunk that holds it registers the snapshot (scripts/seed.mjs
    // sends chunks in order and stops at the first that fails, so every record is stored by then).
    if (/^# end of snapshot/m.test(text)) {
      stmts.push(
        db
          .prepare(
            `INSERT INTO ${insertColumns(advisorySources, ["ecosystem", "scope", "source", "label", "url", "license", "asOf", "complete", "maxAgeMs", "records", "note"])}
             VALUES (?1, '*', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
             ON CONFLICT (ecosystem, scope, source) DO UPDATE SET label = excluded.label, url = excluded.url, license = excluded.license,
               as_of = excluded.as_of, complete = excluded.complete, max_age_ms = excluded.max_age_ms, records = excluded.records, note = excluded.note`,
          )
          .bind(
            meta.ecosystem,
            `snapshot:${id}`,
            meta.label,
            meta.url,
            info.license,
            snapshotAt,
            meta.complete ? 1 : 0,
            MAX_AGE_MS.advisories,
            info.kept,
            meta.note,
          ),
      );
    }
    await db.batch(stmts);
    return { rows: records.length };
  };
