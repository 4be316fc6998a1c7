/**
 * Advisory coverage: for the packages an answer speaks about, which advisory sources answered
 * (advisory_sources: a snapshot for a whole ecosystem, an OSV query for one package), as of when,
 * and which packages no current, complete source answered for. Those are "unchecked": whatever
 * advisories were found for them are listed, but their having no other is never implied.
 */
import * as z from "zod/v4";
import { iso } from "../core/clock";
import type { BatchRead } from "../core/batch";
import { constantRead } from "../core/batch";
import type { SqlRow } from "../core/columns";
import { advisorySources } from "../db/freshness";
import { freshness } from "./staleness";
import type { Ecosystem } from "../ecosystems/versions";
import { insertColumns } from "../core/columns";

export const ADVISORY_STATES = ["current", "stale", "unavailable"] as const;
export type AdvisoryState = (typeof ADVISORY_STATES)[number];

export const advisorySourceOut = z
  .object({
    /** What answered: a snapshot (named with its date) or `OSV (api.osv.dev)`. */
    source: z.string(),
    url: z.string().nullable(),
    /** When the source said what Lore holds (a snapshot's date, the time of the OSV query). */
    asOf: z.string(),
    /** `current`: younger than the advisory refresh interval (a day); `stale`: older. */
    status: z.enum(["current", "stale"]),
    /** True when absence from this source means "no known advisory"; false when it only lists what it lists (the historical npm reports). */
    complete: z.boolean(),
    /** `ecosystem`: the source covers every package of the ecosystem; `packages`: only the packages it was asked about. */
    scope: z.enum(["ecosystem", "packages"]),
    /** How many of the answer's packages this source answered for. */
    packages: z.number().int(),
    license: z.string().nullable(),
    /** What the source does not cover. */
    note: z.string().nullable(),
  })
  .describe(
    "One advisory source that answered: a snapshot (named with its date) or OSV; its date, whether it is current (younger than a day) and complete (absence from it means no known advisory), and how many of the answer's packages it answered for.",
  );

export const advisoryCoverageOut = z
  .object({
    ecosystem: z.string(),
    /**
     * The weakest state over the ecosystem's packages: `current` (every one checked against a
     * current, complete source), `stale` (some only against a complete source older than a day),
     * `unavailable` (some with no complete source at all).
     */
    status: z.enum(ADVISORY_STATES),
    /** The oldest date among the complete sources that answered (null: none did). */
    asOf: z.string().nullable(),
    /** Packages checked against a current, complete source (no findings there means none known). */
    checked: z.number().int(),
    /** Packages not checked that way: listed in `unchecked`, never to be read as clean. */
    unchecked: z.number().int(),
    sources: z.array(advisorySourceOut),
  })
  .describe(
    "Advisory coverage of one ecosystem of the answer: status current (every package checked against a current, complete source), stale (some only against a complete source older than a day) or unavailable (some with no complete source); the sources that answered, each with its date; how many packages were checked and how many were not.",
  );
export type AdvisoryCoverageOut = z.infer<typeof advisoryCoverageOut>;

export const UNCHECKED_REASONS = ["stale", "incomplete", "unavailable", "unreadable_version"] as const;
export const uncheckedOut = z
  .object({
    name: z.string(),
    ecosystem: z.string(),
    version: z.string(),
    /**
     * stale: only a complete source older than a day answered (newer advisories not checked);
     * incomplete: only a source that lists some advisories answered (npm's historical reports);
     * unavailable: no advisory source answered for this ecosystem or package;
     * unreadable_version: the version cannot be read in its ecosystem, so no advisory could be matched.
     */
    reason: z.enum(UNCHECKED_REASONS),
  })
  .describe(
    "A package no current, complete advisory source answered for: its listed advisories are what is known, not all there is. reason: stale (only a source older than a day), incomplete (only a source that lists some advisories, such as the historical npm reports), unavailable (no source), unreadable_version.",
  );
export type UncheckedOut = z.infer<typeof uncheckedOut>;

/** A row of `advisory_sources` (read with `s.*`), without the record count no answer shows. */
export type SourceRow = Omit<SqlRow<typeof advisorySources>, "records">;

export interface CoverageEntry {
  name: string;
  ecosystem: Ecosystem;
  /** Folded package key (packageKey). */
  key: string;
  version: string;
  /** The version matched against advisories, or null when it cannot be read. */
  pinned: string | null;
}

/** Where one package stands: checked against a current complete source, or why not. */
export interface EntryCoverage {
  state: AdvisoryState;
  reason: UncheckedOut["reason"] | null;
  /** The sources that apply to it, best first. */
  sources: SourceRow[];
}

/** The sources that answer for one package, best first (complete and current before the rest). */
export function entryCoverage(rows: SourceRow[], e: Pick<CoverageEntry, "ecosystem" | "key" | "pinned">, at: number): EntryCoverage {
  const applies = rows.filter((r) => r.ecosystem === e.ecosystem && (r.scope === "*" || r.scope === e.key));
  const rank = (r: SourceRow) => (r.complete ? 0 : 2) + (freshness(r.as_of, at, r.max_age_ms) === "current" ? 0 : 1);
  const sources = [...applies].sort((a, b) => rank(a) - rank(b) || b.as_of - a.as_of);
  const best = sources.find((r) => r.complete);
  let state: AdvisoryState = best ? freshness(best.as_of, at, best.max_age_ms) : "unavailable";
  let reason: EntryCoverage["reason"] =
    state === "current" ? null : state === "stale" ? "stale" : sources.length ? "incomplete" : "unavailable";
  if (e.pinned === null) {
    state = state === "current" ? "stale" : state;
    reason = "unreadable_version";
  }
  return { state, reason, sources };
}

const WORSE: Record<AdvisoryState, number> = { current: 0, stale: 1, unavailable: 2 };

/** The per-ecosystem coverage and the unchecked packages of an answer. */
export function summariseCoverage(
  rows: SourceRow[],
  entries: CoverageEntry[],
  at: number,
): { coverage: AdvisoryCoverageOut[]; unchecked: UncheckedOut[] } {
  const byEco = new Map<string, { entries: CoverageEntry[]; per: EntryCoverage[] }>();
  for (const e of entries) {
    const cur = byEco.get(e.ecosystem) ?? { entries: [], per: [] };
    cur.entries.push(e);
    cur.per.push(entryCoverage(rows, e, at));
    byEco.set(e.ecosystem, cur);
  }
  const coverage: AdvisoryCoverageOut[] = [];
  const unchecked: UncheckedOut[] = [];
  for (const [ecosystem, { entries: list, per }] of byEco) {
    let status: AdvisoryState = "current";
    const used = new Map<string, { row: SourceRow; packages: number }>();
    per.forEach((c, i) => {
      if (WORSE[c.state] > WORSE[status]) status = c.state;
      if (c.reason) unchecked.push({ name: list[i]!.name, ecosystem, version: list[i]!.version, reason: c.reason });
      for (const r of c.sources) {
        const k = `${r.scope === "*" ? "*" : "pkg"}\u0000${r.source}`;
        const u = used.get(k);
        if (u) {
          u.packages++;
          // Per-package answers (OSV) differ in date: the oldest one speaks for the group.
          if (r.as_of < u.row.as_of) u.row = r;
        } else used.set(k, { row: r, packages: 1 });
      }
    });
    const sources = [...used.values()].map(({ row, packages }) => ({
      source: row.label,
      url: row.url,
      asOf: iso(row.as_of),
      status: freshness(row.as_of, at, row.max_age_ms),
      complete: !!row.complete,
      scope: row.scope === "*" ? ("ecosystem" as const) : ("packages" as const),
      packages,
      license: row.license,
      note: row.note,
    }));
    const completeDates = [...used.values()].filter((u) => u.row.complete).map((u) => u.row.as_of);
    coverage.push({
      ecosystem,
      status,
      asOf: completeDates.length ? iso(Math.min(...completeDates)) : null,
      checked: per.filter((c) => c.reason === null).length,
      unchecked: per.filter((c) => c.reason !== null).length,
      sources,
    });
  }
  coverage.sort((a, b) => a.ecosystem.localeCompare(b.ecosystem));
  return { coverage, unchecked };
}

/**
 * The entries' ecosystems and `[ecosystem, key]` pairs as JSON, each once in the order first named,
 * when the caller has made them already (a sync's other reads bind the same pairs).
 */
export interface PackagesJson {
  ecosystems: string;
  pairs: string;
}

/** The advisory_sources rows that apply to these packages, as one statement of the caller's batch. */
export function advisorySourcesRead(
  db: D1Database,
  entries: Pick<CoverageEntry, "ecosystem" | "key">[],
  made?: PackagesJson,
): BatchRead<SourceRow[]> {
  if (!entries.length) return constantRead([]);
  const ecos = made?.ecosystems ?? JSON.stringify([...new Set(entries.map((e) => e.ecosystem))]);
  const pairs =
    made?.pairs ?? JSON.stringify([...new Set(entries.map((e) => `${e.ecosystem}\u0000${e.key}`))].map((p) => p.split("\u0000")));
  return {
    statements: [
      db
        .prepare(
          `SELECT s.* FROM advisory_sources s WHERE s.scope = '*' AND s.ecosystem IN (SELECT value FROM json_each(?1))
           UNION ALL
           SELECT s.* FROM json_each(?2) j JOIN advisory_sources s ON s.ecosystem = json_extract(j.value, '$[0]') AND s.scope = json_extract(j.value, '$[1]')`,
        )
        .bind(ecos, pairs),
    ],
    read: ([r]) => r!.results as unknown as SourceRow[],
  };
}

/** Coverage of these packages as a read that joins the caller's batch. */
export function advisoryCoverageRead(
  db: D1Database,
  entries: CoverageEntry[],
  at: number,
  made?: PackagesJson,
): BatchRead<{ coverage: AdvisoryCoverageOut[]; unchecked: UncheckedOut[] }> {
  const inner = advisorySourcesRead(db, entries, made);
  return { statements: inner.statements, read: (res) => summariseCoverage(inner.read(res) as SourceRow[], entries, at) };
}

/** One OSV query's answer for a package, as the statement that records it (scope = the package). */
export function osvCoverageStatement(db: D1Database, ecosystem: Ecosystem, key: string, at: number, maxAgeMs: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO ${insertColumns(advisorySources, ["ecosystem", "scope", "source", "label", "url", "license", "asOf", "complete", "maxAgeMs", "records", "note"])}
       VALUES (?1, ?2, 'osv', 'OSV (api.osv.dev)', 'https://osv.dev', 'CC-BY-4.0 (per database)', ?3, 1, ?4, NULL, NULL)
       ON CONFLICT (ecosystem, scope, source) DO UPDATE SET as_of = excluded.as_of, max_age_ms = excluded.max_age_ms`,
    )
    .bind(ecosystem, key, at, maxAgeMs);
}
