/**
 * Security advisories (OSV records) and the malicious-package reports, stored once and matched
 * against pinned versions with each ecosystem's own range rules. The functions at the bottom are
 * what sync calls: a whole stack in one D1 round trip, never a query per dependency.
 */
import * as z from "zod/v4";
import { bulkStatements, jsonCols } from "../core/bulk";
import { constantRead, runRead, type BatchRead } from "../core/batch";
import { groupBy } from "../core/group";
import { columnsOf, type SqlRow, insertColumns, upsertSet } from "../core/columns";
import { sha256Hex } from "../core/crypto";
import { advisories, advisoryAffected, maliciousPackages } from "../db/freshness";
import { packageKey } from "../ecosystems/topics";
import { inSnapshotVersions, osvAffects, parseEcosystem, pinnedVersion, type Ecosystem, type OsvRange } from "../ecosystems/versions";
import type { OsvRecord } from "../sources/osv";

export const advisoryOut = z.object({
  id: z.string(),
  aliases: z.array(z.string()),
  summary: z.string().nullable(),
  /** LOW | MODERATE | HIGH | CRITICAL when the source gives a label (GHSA); MALICIOUS for MAL- reports. */
  severity: z.string().nullable(),
  cvssVector: z.string().nullable(),
  published: z.string().nullable(),
  modified: z.string().nullable(),
  malicious: z.boolean(),
  url: z.string(),
  source: z.string(),
  /** When the source said this: a snapshot's date, or the time Lore last stored the record from OSV. */
  asOf: z.string(),
});
export type AdvisoryOut = z.infer<typeof advisoryOut>;

export const vulnerabilityOut = z.object({
  name: z.string(),
  ecosystem: z.string(),
  version: z.string(),
  advisory: advisoryOut,
  /** Versions that fix it (empty: no fix published, or every version is affected). */
  fixedVersions: z.array(z.string()),
});
export type VulnerabilityOut = z.infer<typeof vulnerabilityOut>;

const OSV_ECOS: Record<string, Ecosystem> = { npm: "npm", PyPI: "pypi", Go: "go", "crates.io": "cargo" };

function severityOf(r: OsvRecord): { label: string | null; vector: string | null } {
  const label = (r.database_specific?.severity as string | undefined) ?? null;
  const pick = (t: string) => r.severity?.find((s) => s.type === t)?.score ?? null;
  return {
    label: r.id.startsWith("MAL-") ? "MALICIOUS" : label ? label.toUpperCase() : null,
    vector: pick("CVSS_V3") ?? pick("CVSS_V4") ?? pick("CVSS_V2"),
  };
}

/** Where a batch of OSV records comes from (the OSV API by default). */
export interface OsvOrigin {
  /** The `source` stored with each record. */
  source?: (r: OsvRecord) => string;
  /** The page a reader follows for the record. */
  url?: (r: OsvRecord) => string;
  /** When the source said this (ISO 8601); default: the time of the write. */
  asOf?: string;
  /** Which source wins a tie on `modified` (SOURCE_RANK); default the live OSV record's. */
  rank?: number;
}

/**
 * A tie on `modified` goes to the higher rank: the live OSV record is the source of truth, and a
 * snapshot line is a shortened copy of it (summary cut, no severity label, no version lists), so
 * the two would otherwise differ on every load and replace each other each time.
 */
export const SOURCE_RANK = { snapshot: 0, osv: 1 } as const;

/** What an advisory row says, in the order the ingest sends it after its id; a newer record replaces all of it. */
const ADVISORY_FACT_KEYS = [
  "aliases",
  "summary",
  "details",
  "severity",
  "cvssVector",
  "published",
  "modified",
  "malicious",
  "url",
  "source",
  "asOf",
  "sourceRank",
  "contentKey",
] as const;

/**
 * `modified` as an instant (UTC, milliseconds): sources spell one instant differently (OSV with
 * microseconds, a snapshot in whole seconds or as a date), and as text `…:00Z` sorts after
 * `…:00.5Z`. Kept as given when SQLite cannot read it.
 */
const instant = (expr: string) => `coalesce(strftime('%Y-%m-%dT%H:%M:%fZ', ${expr}), ${expr})`;

/**
 * Whether an incoming record (its `modified`, rank and content key as SQL expressions) replaces the
 * stored advisory `o`: newer by `modified`; or as new and from a higher-ranked source; or as new,
 * as ranked and saying something else. Milliseconds are all `modified` resolves, so a correction
 * within the same millisecond (a new summary, the same rows) is told apart by its content.
 */
const beats = (mod: string, rank: string, key: string, o: string) =>
  `(${instant(mod)} > ${instant(`${o}.modified`)} OR (${instant(mod)} = ${instant(`${o}.modified`)} AND (${rank} > ${o}.source_rank OR (${rank} = ${o}.source_rank AND ${key} IS NOT ${o}.content_key))))`;

interface StoreRow {
  eco: Ecosystem;
  name: string;
  ranges: OsvRange[];
  versions: string[];
  fixed: string[];
}

const sortedKeys = (o: object) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * An affected row in one normal form, for comparison only (the store keeps what the source sent):
 * key order and list order do not count, and a listed version its ranges already cover is left
 * out (OSV enumerates `versions` next to the ranges and grows the list as releases appear; a
 * snapshot keeps the ranges only), since it changes no answer.
 */
function normalRow(p: StoreRow) {
  const ranges = p.ranges
    .map((r) =>
      JSON.stringify({
        ...sortedKeys({
          ...r,
          events: r.events
            .map(sortedKeys)
            .map((e) => JSON.stringify(e))
            .sort(byText),
        }),
        ...(r.unaffected ? { unaffected: [...new Set(r.unaffected)].sort(byText) } : {}),
      }),
    )
    .sort(byText);
  const uncovered = [...new Set(p.versions)].filter((v) => {
    try {
      return !osvAffects(p.eco, v, { ranges: p.ranges, versions: [] });
    } catch {
      return true;
    }
  });
  return [p.eco, p.name, [...new Set(ranges)], uncovered.sort(byText), [...new Set(p.fixed)].sort(byText)];
}

/** The served content of a record (what a reader of the advisory sees), as a SHA-256 hex. */
function contentKey(
  adv: {
    aliases: string[];
    summary: string | null;
    severity: string | null;
    vector: string | null;
    published: string | null;
    malicious: boolean;
    url: string;
  },
  rows: StoreRow[],
) {
  const normal = rows.map(normalRow).sort((a, b) => byText(`${a[0]}\u0000${a[1]}`, `${b[0]}\u0000${b[1]}`));
  return sha256Hex(
    JSON.stringify([
      [...new Set(adv.aliases)].sort(byText),
      adv.summary,
      adv.severity,
      adv.vector,
      adv.published,
      adv.malicious,
      adv.url,
      normal,
    ]),
  );
}

/**
 * The statements that store OSV records (withdrawn ones are deleted, not stored). A record never
 * replaces a newer one (by `modified`): an old snapshot loaded after the OSV ingest changes nothing.
 * On a tie the live OSV record outranks a snapshot line (SOURCE_RANK), whatever either says; between
 * two of the same rank the served content decides (summary, severity, aliases, url, affected rows
 * in one normal form: `contentKey`): the same content writes nothing and logs nothing, other content
 * (a source corrected in place) replaces the stored rows and advisory, logged as a change like a
 * newer record.
 */
export async function osvStatements(
  db: D1Database,
  records: OsvRecord[],
  at: number,
  origin: OsvOrigin = {},
): Promise<D1PreparedStatement[]> {
  const adv: unknown[][] = [];
  const affected: unknown[][] = [];
  const mal: unknown[][] = [];
  const withdrawn: string[] = [];
  const asOf = origin.asOf ?? new Date(at).toISOString();
  const rank = origin.rank ?? SOURCE_RANK.osv;
  for (const r of records) {
    if (r.withdrawn) {
      withdrawn.push(r.id);
      continue;
    }
    const sev = severityOf(r);
    const url = origin.url?.(r) ?? r.references?.find((x) => x.type === "ADVISORY")?.url ?? `https://osv.dev/vulnerability/${r.id}`;
    const source = origin.source?.(r) ?? `https://osv.dev/vulnerability/${r.id}`;
    const perPkg = new Map<string, StoreRow & { raw: string }>();
    for (const a of r.affected ?? []) {
      const eco = OSV_ECOS[a.package?.ecosystem ?? ""];
      if (!eco || !a.package?.name) continue;
      const key = `${eco}\u0000${packageKey(eco, a.package.name)}`;
      const cur = perPkg.get(key) ?? {
        eco,
        name: packageKey(eco, a.package.name),
        raw: a.package.name,
        ranges: [],
        versions: [],
        fixed: [],
      };
      for (const rg of a.ranges ?? []) {
        if (rg.type === "GIT") continue;
        cur.ranges.push({
          type: rg.type,
          events: rg.events,
          ...(rg.expr !== undefined ? { expr: rg.expr } : {}),
          ...(rg.unaffected ? { unaffected: rg.unaffected } : {}),
        });
        for (const e of rg.events) if (e.fixed) cur.fixed.push(e.fixed);
        for (const f of rg.fixed ?? []) cur.fixed.push(f);
      }
      cur.versions.push(...(a.versions ?? []));
      perPkg.set(key, cur);
    }
    const aliases = r.aliases ?? [];
    const malicious = r.id.startsWith("MAL-");
    const key = await contentKey(
      { aliases, summary: r.summary ?? null, severity: sev.label, vector: sev.vector, published: r.published ?? null, malicious, url },
      [...perPkg.values()],
    );
    adv.push([
      r.id,
      JSON.stringify(aliases),
      r.summary ?? null,
      (r.details ?? "").slice(0, 4000),
      sev.label,
      sev.vector,
      r.published ?? null,
      r.modified,
      malicious ? 1 : 0,
      url,
      source,
      asOf,
      rank,
      key,
    ]);
    for (const p of perPkg.values()) {
      affected.push([
        r.id,
        p.eco,
        p.name,
        JSON.stringify(p.ranges),
        JSON.stringify(p.versions),
        JSON.stringify([...new Set(p.fixed)]),
        r.modified,
        rank,
        key,
      ]);
      if (malicious) {
        const all = p.ranges.some(
          (rg) => rg.events.some((e) => e.introduced === "0") && !rg.events.some((e) => e.fixed || e.last_affected || e.limit),
        );
        mal.push([
          p.eco,
          p.name,
          r.id,
          p.raw,
          all || (!p.versions.length && !p.ranges.length) ? "*" : p.versions.join(",") || "?",
          r.id,
          r.modified.slice(0, 10),
          /typosquat/i.test(r.details ?? "") ? "typosquat" : null,
          "osv",
        ]);
      }
    }
  }
  const ids = adv.map((a) => [a[0], a[1 + ADVISORY_FACT_KEYS.indexOf("modified")], rank, a.at(-1)]);
  // Whose affected rows to replace: a record not stored, or one that beats the stored advisory.
  // These run before the advisory row is written, so each is judged against the stored record.
  const replaces = (v: (k: number) => string) =>
    `NOT EXISTS (SELECT 1 FROM advisories o WHERE o.id = ${v(0)} AND NOT ${beats(v(1), v(2), v(3), "o")})`;
  const at4 =
    (...ks: number[]) =>
    (k: number) =>
      `json_extract(value, '$[${ks[k]}]')`;
  return [
    ...(withdrawn.length
      ? [
          // A withdrawal is a change too: the change log's newest position names the advisory data
          // sync holds per isolate (src/sync/views.ts), and deletes fire no trigger. Logged as an
          // `advisory` change of the withdrawn id, which no stack's advisory rows name any more.
          db
            .prepare(
              `INSERT INTO sync_changes (kind, scope, ref, at)
               SELECT 'advisory', w.value, w.value, ?2 FROM json_each(?1) w
                WHERE EXISTS (SELECT 1 FROM advisories a WHERE a.id = w.value) OR EXISTS (SELECT 1 FROM malicious_packages m WHERE m.mal_id = w.value)`,
            )
            .bind(JSON.stringify(withdrawn), at),
          db
            .prepare("DELETE FROM advisory_affected WHERE advisory_id IN (SELECT value FROM json_each(?1))")
            .bind(JSON.stringify(withdrawn)),
          db.prepare("DELETE FROM advisories WHERE id IN (SELECT value FROM json_each(?1))").bind(JSON.stringify(withdrawn)),
          db.prepare("DELETE FROM malicious_packages WHERE mal_id IN (SELECT value FROM json_each(?1))").bind(JSON.stringify(withdrawn)),
        ]
      : []),
    ...(ids.length
      ? [
          db
            .prepare(
              `DELETE FROM advisory_affected WHERE advisory_id IN (
                 SELECT json_extract(value, '$[0]') FROM json_each(?1) WHERE ${replaces(at4(0, 1, 2, 3))})`,
            )
            .bind(JSON.stringify(ids)),
        ]
      : []),
    ...bulkStatements(
      db,
      `INSERT OR REPLACE INTO ${insertColumns(advisoryAffected, ["advisoryId", "ecosystem", "name", "ranges", "versions", "fixed"])}
       SELECT ${jsonCols(6)} FROM json_each(?1) WHERE ${replaces(at4(0, 6, 7, 8))}`,
      affected,
    ),
    ...bulkStatements(
      db,
      `INSERT INTO ${insertColumns(advisories, ["id", ...ADVISORY_FACT_KEYS, "ingestedAt"])}
       SELECT ${jsonCols(1 + ADVISORY_FACT_KEYS.length)}, ?2 FROM json_each(?1) WHERE true
       ON CONFLICT (id) DO UPDATE SET ${upsertSet(advisories, [...ADVISORY_FACT_KEYS, "ingestedAt"])}
       WHERE ${beats("excluded.modified", "excluded.source_rank", "excluded.content_key", "advisories")}`,
      adv,
      [at],
    ),
    ...bulkStatements(
      db,
      `INSERT INTO ${insertColumns(maliciousPackages, ["ecosystem", "nameKey", "record", "name", "versions", "malId", "modified", "summaryKind", "origin", "ingestedAt"])}
       SELECT ${jsonCols(9)}, ?2 FROM json_each(?1) WHERE true
       ON CONFLICT (ecosystem, name_key, record) DO UPDATE SET versions = excluded.versions, modified = excluded.modified, ingested_at = excluded.ingested_at
       WHERE malicious_packages.versions IS NOT excluded.versions OR malicious_packages.modified IS NOT excluded.modified`,
      mal,
      [at],
    ),
  ];
}

/** An advisory as ADV_COLS reads it: `as_of` falls back to the ingest time, so it is never null. */
const ADV_KEYS = ["id", "aliases", "summary", "severity", "cvssVector", "published", "modified", "malicious", "url", "source"] as const;
export type AdvRowDb = SqlRow<typeof advisories, (typeof ADV_KEYS)[number]> & { as_of: string };
export const ADV_COLS = `${columnsOf(advisories, "a", ADV_KEYS)}, coalesce(a.as_of, strftime('%Y-%m-%dT%H:%M:%fZ', a.ingested_at / 1000.0, 'unixepoch')) AS as_of`;

export const advisoryFromRow = (r: AdvRowDb): AdvisoryOut => ({
  id: r.id,
  aliases: JSON.parse(r.aliases),
  summary: r.summary,
  severity: r.severity,
  cvssVector: r.cvss_vector,
  published: r.published,
  modified: r.modified,
  malicious: !!r.malicious,
  url: r.url ?? `https://osv.dev/vulnerability/${r.id}`,
  source: r.source,
  asOf: r.as_of,
});

/** A malicious-snapshot row (read with `m.*`); its `record` (the OSV JSON) is not read from it. */
export type MaliciousRow = Omit<SqlRow<typeof maliciousPackages>, "record">;

/** A malicious-snapshot row as an advisory (its MAL- id, or a stable id from its origin when it has none). */
export function maliciousAdvisory(m: MaliciousRow): AdvisoryOut {
  const id = m.mal_id ?? `MAL-UNNUMBERED:${m.ecosystem}:${m.name}`;
  const target = m.summary_kind?.startsWith("typosquat:")
    ? ` (typosquat of ${m.summary_kind.slice(10)})`
    : m.summary_kind === "typosquat"
      ? " (typosquat)"
      : "";
  return {
    id,
    aliases: [],
    summary: `Reported malicious package${target}; affected versions: ${m.versions === "*" ? "all" : m.versions === "?" ? "not known" : m.versions}`,
    severity: "MALICIOUS",
    cvssVector: null,
    published: m.modified,
    modified: m.modified,
    malicious: true,
    url: m.mal_id
      ? `https://osv.dev/vulnerability/${m.mal_id}`
      : m.origin.startsWith("package-checks@")
        ? registryPage(m.ecosystem, m.name)
        : "https://github.com/ossf/malicious-packages",
    source:
      m.origin === "osv"
        ? "https://osv.dev"
        : m.origin.startsWith("package-checks@")
          ? `Lore's curated package facts (${m.origin})`
          : `https://github.com/ossf/malicious-packages (snapshot ${m.origin})`,
    // A snapshot's origin names its date (`name@YYYY-MM-DD`); an OSV record is as of its ingest.
    asOf: /@(\d{4}-\d{2}-\d{2})$/.exec(m.origin)?.[1] ?? new Date(m.ingested_at).toISOString(),
  };
}

/** The registry's public page of a package (the source of a curated fact without an OSV id). */
function registryPage(eco: string, name: string): string {
  switch (eco) {
    case "pypi":
      return `https://pypi.org/project/${name}/`;
    case "cargo":
      return `https://crates.io/crates/${name}`;
    case "go":
      return `https://pkg.go.dev/${name}`;
    default:
      return `https://www.npmjs.com/package/${name}`;
  }
}

export interface StackEntry {
  name: string;
  version: string;
  ecosystem?: string;
}

/** An OSV affected row joined with its advisory (AFFECTED_COLS): its package as `eco` and `key`. */
const AFFECTED_KEYS = ["ranges", "versions", "fixed"] as const;
export type AffectedRow = AdvRowDb & SqlRow<typeof advisoryAffected, (typeof AFFECTED_KEYS)[number]> & { eco: string; key: string };

/** The entries of a stack that can be matched: known ecosystem, readable version. */
export function matchableEntries<S extends StackEntry>(stack: S[]) {
  const out: { eco: Ecosystem; name: string; key: string; version: string; src: S }[] = [];
  for (const s of stack) {
    const eco = parseEcosystem(s.ecosystem);
    if (!eco) continue;
    const version = pinnedVersion(eco, s.version);
    // `src`: the caller's entry, so a caller can tell which of its entries a match is about without keying it again.
    if (version) out.push({ eco, name: s.name, key: packageKey(eco, s.name), version, src: s });
  }
  return out;
}

/**
 * One package's advisory rows, parsed once: what matching a version reads of them, in the order
 * the rows came. Sync holds these per ingest generation (src/sync/views.ts), so a row's ranges and
 * its advisory are parsed once per isolate, not once per entry and request.
 */
export interface PackageAdvisories {
  aff: { id: string; ranges: string; versions: string; fixed: string; row: AffectedRow; parsed?: ParsedAffected }[];
  mal: MaliciousRow[];
}
interface ParsedAffected {
  affected: { ranges: OsvRange[]; versions: string[] };
  advisory: AdvisoryOut;
  fixed: string[];
}
/** One advisory that affects a version, as an entry's vulnerability carries it. */
export interface PackageMatch {
  advisory: AdvisoryOut;
  fixedVersions: string[];
}

export const packageAdvisories = (aff: AffectedRow[], mal: MaliciousRow[]): PackageAdvisories => ({
  aff: aff.map((r) => ({ id: r.id, ranges: r.ranges, versions: r.versions, fixed: r.fixed, row: r })),
  mal,
});

function parsedAffected(a: PackageAdvisories["aff"][number]): ParsedAffected {
  a.parsed ??= {
    affected: { ranges: JSON.parse(a.ranges), versions: JSON.parse(a.versions) },
    advisory: advisoryFromRow(a.row),
    fixed: JSON.parse(a.fixed),
  };
  return a.parsed;
}

/**
 * The advisories of one package that affect one (pinned) version: OSV rows first, each advisory
 * once, then malicious reports. The objects are shared by every caller matching the same rows;
 * nobody changes them.
 */
export function matchPackage(eco: Ecosystem, version: string, p: PackageAdvisories): PackageMatch[] {
  const out: PackageMatch[] = [];
  const seen = new Set<string>();
  for (const a of p.aff) {
    if (seen.has(a.id)) continue;
    const parsed = parsedAffected(a);
    if (osvAffects(eco, version, parsed.affected)) {
      seen.add(a.id);
      out.push({ advisory: parsed.advisory, fixedVersions: parsed.fixed });
    }
  }
  for (const m of p.mal) {
    const adv = maliciousAdvisory(m);
    if (seen.has(adv.id)) continue;
    // `?`: the report does not say which versions; sync reports it (a human must look), the check warns.
    if (inSnapshotVersions(eco, version, m.versions) !== false) {
      seen.add(adv.id);
      out.push({ advisory: adv, fixedVersions: [] });
    }
  }
  return out;
}

/** An entry's vulnerability from a package match (the key order is the answer's). */
export const vulnerabilityOf = (e: { eco: Ecosystem; name: string; version: string }, m: PackageMatch): VulnerabilityOut => ({
  name: e.name,
  ecosystem: e.eco,
  version: e.version,
  advisory: m.advisory,
  fixedVersions: m.fixedVersions,
});

/**
 * Which of the given advisory rows affect which entries (OSV ranges and explicit versions with the
 * ecosystem's own order; malicious reports by their versions). Pure: sync's notification sweep
 * reuses it on rows it selected itself.
 */
export function matchAdvisories(stack: StackEntry[], affRows: AffectedRow[], malRows: MaliciousRow[]): VulnerabilityOut[] {
  const out: VulnerabilityOut[] = [];
  const affBy = groupBy(affRows, (r) => `${r.eco}\u0000${r.key}`);
  const malBy = groupBy(malRows, (m) => `${m.ecosystem}\u0000${m.name_key}`);
  const packages = new Map<string, PackageAdvisories>();
  for (const e of matchableEntries(stack)) {
    const k = `${e.eco}\u0000${e.key}`;
    let p = packages.get(k);
    if (!p) {
      p = packageAdvisories(affBy.get(k) ?? [], malBy.get(k) ?? []);
      packages.set(k, p);
    }
    for (const m of matchPackage(e.eco, e.version, p)) out.push(vulnerabilityOf(e, m));
  }
  return out;
}

/** The columns of an affected row joined with its advisory (`f` = advisory_affected, `a` = advisories). */
export const AFFECTED_COLS = `f.ecosystem AS eco, f.name AS key, ${columnsOf(advisoryAffected, "f", AFFECTED_KEYS)}, ${ADV_COLS}`;

/**
 * The two statements that read the advisory rows of packages (`[ecosystem, key]` pairs): their OSV
 * affected rows joined with the advisory (AFFECTED_COLS), then their malicious reports (`m.*`).
 * Read by advisoriesForStackRead and by sync's per-generation cache, which must see the same rows.
 */
export function packageAdvisoryStatements(db: D1Database, pairs: [ecosystem: string, key: string][]): D1PreparedStatement[] {
  const json = JSON.stringify(pairs);
  return [
    db
      .prepare(
        `SELECT ${AFFECTED_COLS}
           FROM json_each(?1) j
           JOIN advisory_affected f ON f.ecosystem = json_extract(j.value, '$[0]') AND f.name = json_extract(j.value, '$[1]')
           JOIN advisories a ON a.id = f.advisory_id`,
      )
      .bind(json),
    db
      .prepare(
        `SELECT m.* FROM json_each(?1) j
           JOIN malicious_packages m ON m.ecosystem = json_extract(j.value, '$[0]') AND m.name_key = json_extract(j.value, '$[1]')`,
      )
      .bind(json),
  ];
}

/**
 * Advisories that affect the pinned versions of a stack (up to 500 entries), as a read that can
 * join another caller's batch: two statements, whatever the stack size.
 */
export function advisoriesForStackRead(db: D1Database, stack: StackEntry[]): BatchRead<VulnerabilityOut[]> {
  const entries = matchableEntries(stack);
  if (!entries.length) return constantRead([]);
  const pairs = [...new Set(entries.map((e) => `${e.eco}\u0000${e.key}`))].map((s) => s.split("\u0000") as [string, string]);
  return {
    statements: packageAdvisoryStatements(db, pairs),
    read: ([aff, mal]) => matchAdvisories(stack, aff!.results as unknown as AffectedRow[], mal!.results as unknown as MaliciousRow[]),
  };
}

/**
 * Advisories that affect the pinned versions of a stack (up to 500 entries): OSV records by their
 * ranges and explicit versions, and malicious-package reports by their versions. Two statements in
 * one D1 batch, whatever the stack size. Entries whose version cannot be read are skipped.
 */
export const advisoriesForStack = (db: D1Database, stack: StackEntry[]): Promise<VulnerabilityOut[]> =>
  runRead(db, advisoriesForStackRead(db, stack));

/**
 * Advisories published (or, for snapshot rows without a date, ingested) after `since` (ISO date or
 * timestamp), optionally only for these packages. Newest first, at most `limit`.
 */
export async function advisoriesSince(
  db: D1Database,
  since: string,
  opts: { packages?: { name: string; ecosystem?: string }[]; limit?: number } = {},
): Promise<{ name: string; ecosystem: string; advisory: AdvisoryOut }[]> {
  const limit = Math.min(opts.limit ?? 200, 1000);
  const filter = opts.packages?.flatMap((p) => {
    const eco = parseEcosystem(p.ecosystem);
    return eco ? [[eco, packageKey(eco, p.name)]] : [];
  });
  const join = filter
    ? "JOIN json_each(?2) j ON json_extract(j.value, '$[0]') = f.ecosystem AND json_extract(j.value, '$[1]') = f.name"
    : "";
  const joinM = filter
    ? "JOIN json_each(?2) j ON json_extract(j.value, '$[0]') = m.ecosystem AND json_extract(j.value, '$[1]') = m.name_key"
    : "";
  const binds = filter ? [since, JSON.stringify(filter)] : [since];
  const [adv, mal] = await db.batch([
    db
      .prepare(`SELECT DISTINCT f.ecosystem AS eco, f.name AS key, ${ADV_COLS} FROM advisories a JOIN advisory_affected f ON f.advisory_id = a.id ${join}
                 WHERE a.published > ?1 AND a.malicious = 0 ORDER BY a.published DESC LIMIT ${limit}`)
      .bind(...binds),
    db
      .prepare(
        `SELECT m.* FROM malicious_packages m ${joinM} WHERE coalesce(m.modified, '') > substr(?1, 1, 10) ORDER BY m.modified DESC LIMIT ${limit}`,
      )
      .bind(...binds),
  ]);
  const items = [
    ...(adv!.results as unknown as (AdvRowDb & { eco: string; key: string })[]).map((r) => ({
      name: r.key,
      ecosystem: r.eco,
      advisory: advisoryFromRow(r),
    })),
    ...(mal!.results as unknown as MaliciousRow[]).map((m) => ({ name: m.name, ecosystem: m.ecosystem, advisory: maliciousAdvisory(m) })),
  ];
  return items.sort((a, b) => (b.advisory.published ?? "").localeCompare(a.advisory.published ?? "")).slice(0, limit);
}
