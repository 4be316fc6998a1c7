/**
 * The verdict on one package: a table of checks (CHECKS), each with its name, when it applies and
 * the reasons it may conclude, run in the table's order over what the check learnt (offline facts,
 * the registry's answer, the version judged, OSV's answer). Precedence: any `block` reason makes the
 * verdict `block`, else any `warn` reason `warn`, else `ok`; the reasons list the blocks first, then
 * the warnings, each in the table's order. docs/behaviour-freshness.md lists the table.
 */
import { LruCache } from "../core/cache";
import { DAY_MS, iso } from "../core/clock";
import { packageKey, registryKey } from "../ecosystems/topics";
import { inSnapshotVersions, osvAffects } from "../ecosystems/versions";
import { type AffectedRow, advisoryFromRow, entryCoverage, type SourceRow } from "../freshness";
import { isRetracted } from "../sources/goproxy";
import type { OsvRecord } from "../sources/osv";
import {
  type Entry,
  type Facts,
  type Failure,
  type Known,
  type KnownAdvisory,
  maliciousRows,
  nearKey,
  type OsvAnswer,
  pairKey,
  popularRank,
  REGISTRY_NAMES,
} from "./facts";
import type { Judgement } from "./judge";
import type { CheckResult } from "./packages.schemas";
import { classify, TYPO_MESSAGES, type TypoKind } from "./typo";

const NEW_PACKAGE_DAYS = 30;

function bestImitation(e: Entry, facts: Facts): { target: string; kind: TypoKind } | null {
  let best: { target: string; kind: TypoKind; rank: number } | null = null;
  const caseSensitive = e.eco === "npm" || e.eco === "go";
  for (const n of facts.near.get(nearKey(e)) ?? []) {
    let kind: TypoKind | null;
    if (n.name_key === e.key) {
      // The same folded name: the same package for PyPI and crates; another one for npm and Go.
      kind = caseSensitive && registryKey(e.eco, n.name) !== registryKey(e.eco, e.name) ? "case" : null;
    } else kind = classify(e.eco, e.key, n.name_key);
    if (kind && (!best || n.rank < best.rank)) best = { target: n.name, kind, rank: n.rank };
  }
  return best;
}

const originLabel = (origin: string) =>
  origin === "osv"
    ? "OSV"
    : origin.startsWith("package-checks@")
      ? `Lore's curated package facts (${origin})`
      : `OpenSSF malicious-packages, ${origin}`;

/** An OSV record's facts for one package, as the check names them. */
function knownFromOsv(r: OsvRecord, e: Entry, at: number): KnownAdvisory {
  const fixed = new Set<string>();
  for (const a of r.affected ?? []) {
    if (packageKey(e.eco, a.package?.name ?? "") !== e.key) continue;
    for (const rg of a.ranges ?? []) for (const ev of rg.events) if (ev.fixed) fixed.add(ev.fixed);
  }
  const label = r.database_specific?.severity;
  return {
    id: r.id,
    aliases: r.aliases ?? [],
    severity: typeof label === "string" ? label.toUpperCase() : null,
    summary: r.summary ?? null,
    fixedVersions: [...fixed],
    url: `https://osv.dev/vulnerability/${r.id}`,
    source: `https://osv.dev/vulnerability/${r.id}`,
    asOf: iso(at),
  };
}

const sourceSummary = (r: SourceRow, at: number) =>
  `${r.label}${r.label.includes(iso(r.as_of).slice(0, 10)) ? "" : `, as of ${iso(r.as_of).slice(0, 10)}`}${r.complete ? (at - r.as_of > r.max_age_ms ? " (stale: advisories published since are not in it)" : "") : " (lists only some advisories)"}`;

const sourceOut = (r: SourceRow, at: number) => ({
  source: r.label,
  asOf: iso(r.as_of),
  status: at - r.as_of <= r.max_age_ms ? ("current" as const) : ("stale" as const),
  complete: !!r.complete,
});
/** What the checks of one entry look at. */
export interface VerdictInput {
  e: Entry;
  facts: Facts;
  /** The registry's answer: this request's lookup, the cache, why it could not be asked, or nothing (decided offline). */
  known: Known | Failure | null;
  /** The version question against a found answer (null: no found answer). */
  j: Judgement | null;
  at: number;
  /** OSV's answer for the version judged (none: not a candidate for the advisory query). */
  osv?: OsvAnswer;
  osvRecords?: Map<string, OsvRecord>;
}

/** The input and what every check derives from it the same way. */
export interface Seen extends VerdictInput {
  /** The popular-list rank of this exact name, if it is on the list. */
  rank: number | undefined;
  hall: ReturnType<Facts["hallucinated"]["get"]>;
  /** The popular name this one most likely imitates (not for popular or hallucinated names). */
  imit: { target: string; kind: TypoKind } | null;
  found: Extract<Known, { status: "found" }> | null;
  /** A found answer with its version question: what the registry-found checks read. */
  answered: { sum: Extract<Known, { status: "found" }>["summary"]; j: Judgement } | null;
  /**
   * The version whose safety is judged: the one asked (a range, tag or query: the version it
   * resolves to), else the latest the registry offers; null when Lore cannot tell.
   */
  judged: string | null;
  /** The known advisories of the version judged (stored ones that match, then OSV's), when OSV was asked. */
  knownAdv: Map<string, KnownAdvisory> | null;
}

/** What the checks write, in the table's order. */
export interface Draft {
  result: CheckResult;
  block: CheckResult["reasons"];
  warn: CheckResult["reasons"];
  advisories: string[];
  unverified: string[];
}

type Code = CheckResult["reasons"][number]["code"];

export interface Check {
  name: string;
  /** When it applies (it runs only then). */
  when: (s: Seen) => boolean;
  /** The reasons it may conclude, and the verdict each carries; empty for a check that only records facts. */
  concludes: readonly { code: Code; verdict: "block" | "warn" }[];
  run: (s: Seen, d: Draft) => void;
}

const block = (code: Code) => ({ code, verdict: "block" as const });
const warn = (code: Code) => ({ code, verdict: "warn" as const });

/**
 * Whether a stored advisory row affects a version: a pure function of the row's ranges and
 * versions (as stored) and the version, so held per isolate under all of them; an ingest that
 * changes a row's ranges asks anew. Parsing the ranges and comparing versions is most of what a
 * check of popular names does with their advisories. Bounded by count and by bytes (the key holds
 * the row's text).
 */
const affectsHeld = new LruCache<string, boolean>({ maxEntries: 20_000, maxBytes: 4 * 1024 * 1024 });
function affects(eco: Entry["eco"], version: string, a: Pick<AffectedRow, "ranges" | "versions">): boolean {
  const id = `${eco}\u0000${version}\u0000${a.ranges}\u0000${a.versions}`;
  const held = affectsHeld.get(id);
  if (held !== undefined) return held;
  const hit = osvAffects(eco, version, { ranges: JSON.parse(a.ranges), versions: JSON.parse(a.versions) });
  return affectsHeld.set(id, hit, 64 + 2 * id.length);
}

/** The stored advisories that affect the version judged, then those OSV named (details stored, fetched, or bare). */
function knownAdvisories(s: VerdictInput, judged: string, osv: OsvAnswer): Map<string, KnownAdvisory> {
  const { e, facts, at } = s;
  const knownAdv = new Map<string, KnownAdvisory>();
  const rows = facts.advisories.get(pairKey(e.eco, e.key)) ?? [];
  const fromRow = (a: AffectedRow): KnownAdvisory => {
    const adv = advisoryFromRow(a);
    return {
      id: adv.id,
      aliases: adv.aliases,
      severity: adv.severity,
      summary: adv.summary,
      fixedVersions: JSON.parse(a.fixed),
      url: adv.url,
      source: adv.source,
      asOf: adv.asOf,
    };
  };
  for (const a of rows) if (affects(e.eco, judged, a)) knownAdv.set(a.id, fromRow(a));
  if (osv.status === "answered") {
    for (const id of osv.ids) {
      // Malicious reports are the osv-malicious check's, not advisories of the version.
      if (knownAdv.has(id) || id.startsWith("MAL-")) continue;
      const row = rows.find((a) => a.id === id);
      const rec = s.osvRecords?.get(id);
      knownAdv.set(
        id,
        row
          ? fromRow(row)
          : rec
            ? knownFromOsv(rec, e, at)
            : {
                id,
                aliases: [],
                severity: null,
                summary: null,
                fixedVersions: [],
                url: `https://osv.dev/vulnerability/${id}`,
                source: "https://osv.dev",
                asOf: iso(at),
              },
      );
    }
  }
  return knownAdv;
}

function see(input: VerdictInput): Seen {
  const { e, facts, known, j } = input;
  const rank = popularRank(e, facts);
  const hall = facts.hallucinated.get(pairKey(e.eco, e.key));
  const found = known?.status === "found" ? known : null;
  const judged = j ? j.judged : e.spec?.kind === "exact" ? e.spec.version : null;
  return {
    ...input,
    rank,
    hall,
    imit: rank === undefined && !hall ? bestImitation(e, facts) : null,
    found,
    answered: found && j ? { sum: found.summary, j } : null,
    judged,
    knownAdv: judged && input.osv ? knownAdvisories(input, judged, input.osv) : null,
  };
}

/** The checks, in the order they run: the order of the reasons within `block` and within `warn`. */
export const CHECKS: readonly Check[] = [
  {
    name: "invalid-name",
    when: (s) => !s.e.validName,
    concludes: [block("INVALID_NAME")],
    run: ({ e }, d) => {
      d.block.push({
        code: "INVALID_NAME",
        message: `"${e.name}" is not a valid ${e.eco} package name, so it cannot be installed from the registry as written`,
      });
      d.result.exists = false;
    },
  },
  {
    name: "hallucinated",
    when: (s) => !!s.hall,
    concludes: [block("HALLUCINATED")],
    run: ({ e, hall }, d) => {
      d.block.push({
        code: "HALLUCINATED",
        message: `"${e.name}" is a name coding models are known to invent: ${hall!.note} Use "${hall!.suggestion}". (${hall!.source})`,
      });
      d.result.suggestion = hall!.suggestion;
    },
  },
  {
    name: "malicious-reports",
    when: (s) => maliciousRows(s.e, s.facts).length > 0,
    concludes: [block("MALICIOUS"), warn("MALICIOUS_VERSIONS")],
    run: ({ e, facts, judged, rank }, d) => {
      for (const m of maliciousRows(e, facts)) {
        const source = originLabel(m.origin);
        // "MAL-2022-1, …" or, for a report without an OSV id, nothing before the versions.
        const id = m.mal_id ? `${m.mal_id}, ` : "";
        const target = m.summary_kind?.startsWith("typosquat:") ? m.summary_kind.slice(10) : null;
        if (target && !d.result.suggestion) {
          d.result.suggestion = target;
          d.result.imitates = target;
        }
        const hit = m.versions === "*" ? true : judged ? inSnapshotVersions(e.eco, judged, m.versions) : null;
        if (hit === true) {
          d.block.push({
            code: "MALICIOUS",
            message: `reported malicious (${id}${m.versions === "*" ? "every version" : `versions ${m.versions}`}${target ? `, a typosquat of "${target}"` : ""}; source: ${source})`,
          });
          if (m.mal_id) d.advisories.push(m.mal_id);
        } else if (hit === null && rank === undefined) {
          // Not a popular name, and Lore cannot tell which version an install would get (no version
          // asked and no registry answer, or the versions are not known): the report covers it.
          const which =
            m.versions === "?"
              ? "affected versions not known"
              : `versions ${m.versions}; Lore could not learn which version an install would get`;
          d.block.push({
            code: "MALICIOUS",
            message: `reported malicious (${id}${which}, so every version is treated as affected${target ? `; a typosquat of "${target}"` : ""}; source: ${source})`,
          });
          if (m.mal_id) d.advisories.push(m.mal_id);
        } else if (hit === null) {
          // A popular name with some compromised releases: which one an install gets is not known here.
          d.warn.push({
            code: "MALICIOUS_VERSIONS",
            message: `some versions were reported malicious (${m.mal_id ?? source}: ${m.versions === "?" ? "which ones is not known" : m.versions}); ${m.versions === "?" ? "check the release you install against the report" : "pin a version that is not among them"}`,
          });
          if (m.mal_id) d.advisories.push(m.mal_id);
        }
        // hit === false: the version judged is not among the reported ones; nothing to say.
      }
    },
  },
  {
    name: "invalid-version",
    when: (s) => s.e.spec?.kind === "invalid",
    concludes: [block("VERSION_NOT_FOUND")],
    run: ({ e }, d) => {
      if (e.spec?.kind === "invalid") d.block.push({ code: "VERSION_NOT_FOUND", message: e.spec.reason });
    },
  },
  {
    name: "registry-missing",
    when: (s) => s.known?.status === "missing",
    concludes: [block("NOT_FOUND")],
    run: ({ e, known, imit }, d) => {
      if (known?.status !== "missing") return;
      d.result.exists = false;
      let detail = `${known.detail} (${known.source}, checked ${iso(known.fetchedAt)})`;
      if (e.eco === "npm" && /[A-Z]/.test(e.name)) {
        detail += `; npm package names are case-sensitive and new packages cannot contain capital letters, so nobody can publish "${e.name}"`;
        if (imit?.kind === "case") detail += `: did you mean "${imit.target}"?`;
      } else if (e.eco === "go" && imit?.kind === "case") {
        detail += `; Go module paths are case-sensitive: did you mean "${imit.target}"?`;
      }
      d.block.push({ code: "NOT_FOUND", message: detail });
      d.result.source = known.source;
      d.result.checkedAt = iso(known.fetchedAt);
    },
  },
  {
    name: "registry-unreachable",
    when: (s) => s.known?.status === "error",
    concludes: [warn("NOT_CHECKED"), warn("REGISTRY_UNREACHABLE")],
    run: ({ e, known, rank }, d) => {
      if (known?.status !== "error") return;
      d.warn.push({
        code: known.notChecked ? "NOT_CHECKED" : "REGISTRY_UNREACHABLE",
        message: `could not verify with ${REGISTRY_NAMES[e.eco]}: ${known.reason}${known.notChecked && rank !== undefined ? ` (a popular package: rank ${rank} of Lore's ${e.eco} list)` : ""}`,
      });
    },
  },
  {
    name: "registry-found",
    when: (s) => !!s.answered,
    concludes: [],
    run: ({ found, answered }, d) => {
      const { sum } = answered!;
      d.result.exists = true;
      d.result.source = sum.source;
      d.result.checkedAt = iso(found!.fetchedAt);
      if (sum.latestVersion) d.result.latestVersion = sum.latestVersion;
      if (sum.firstPublished) d.result.firstPublished = sum.firstPublished;
    },
  },
  {
    name: "security-holder",
    when: (s) => !!s.answered?.sum.securityHolder,
    concludes: [block("SECURITY_HOLDER")],
    run: ({ answered }, d) => {
      d.block.push({
        code: "SECURITY_HOLDER",
        message: `npm removed this package for security reasons and holds the name with a "${answered!.sum.latestVersion}" stub (security holding package); it has no real code`,
      });
    },
  },
  {
    name: "quarantined",
    when: (s) => !!s.answered?.sum.quarantined,
    concludes: [block("QUARANTINED")],
    run: (_, d) => {
      d.block.push({
        code: "QUARANTINED",
        message: "PyPI quarantined this project (reported malicious): nothing can be installed from it",
      });
    },
  },
  {
    // A holder's or a quarantined project's versions are not worth a word.
    name: "version-asked",
    when: (s) => !!s.answered && !!s.e.spec && s.e.spec.kind !== "invalid" && !s.answered.sum.securityHolder && !s.answered.sum.quarantined,
    concludes: [warn("NOT_CHECKED"), warn("UNVERIFIED_TAG"), warn("REGISTRY_UNREACHABLE"), block("VERSION_NOT_FOUND")],
    run: ({ e, answered }, d) => {
      const { sum, j } = answered!;
      const spec = e.spec!;
      if (j.unverified) d.warn.push({ code: j.unverified.code, message: j.unverified.message });
      else if (j.versionFound === false) {
        const what =
          spec.kind === "exact"
            ? `version ${e.version} does not exist`
            : spec.kind === "tag"
              ? `npm has no dist-tag "${spec.tag}" for this package`
              : spec.kind === "probe"
                ? `"${e.version}" is not a version of this module`
                : `no published version satisfies ${e.version}${e.eco === "pypi" || e.eco === "cargo" ? " (yanked releases left out, as the installer does)" : e.eco === "go" ? " (retracted versions left out)" : ""}`;
        d.block.push({
          code: "VERSION_NOT_FOUND",
          message: `${what}${j.note ?? ""}${sum.latestVersion ? `; the latest is ${sum.latestVersion}` : ""}`,
        });
      }
    },
  },
  {
    name: "resolved-version",
    when: (s) => !!s.answered?.j.resolved,
    concludes: [],
    run: ({ answered }, d) => {
      d.result.resolvedVersion = answered!.j.resolved!;
    },
  },
  {
    name: "deprecated",
    when: (s) => !!s.answered && !!(s.answered.j.flags?.d || s.answered.sum.packageDeprecated),
    concludes: [warn("DEPRECATED")],
    run: ({ answered, judged }, d) => {
      const { sum, j } = answered!;
      if (j.flags?.d) d.warn.push({ code: "DEPRECATED", message: `${judged} is deprecated: ${j.flags.d}` });
      else d.warn.push({ code: "DEPRECATED", message: `deprecated: ${sum.packageDeprecated}` });
    },
  },
  {
    name: "yanked",
    when: (s) =>
      !!s.answered && !!s.judged && s.answered.j.versionFound !== false && (s.answered.j.flags?.y !== undefined || !!retraction(s)),
    concludes: [warn("YANKED")],
    run: (s, d) => {
      const { e, judged } = s;
      const flags = s.answered!.j.flags ?? {};
      const range = retraction(s);
      d.warn.push({
        code: "YANKED",
        message: `${judged} was ${e.eco === "go" ? "retracted" : "yanked"}${flags.y ? `: ${flags.y}` : range ? ` (retract ${range})` : ""}`,
      });
    },
  },
  {
    name: "install-scripts",
    when: (s) => !!s.answered && !!s.judged && s.answered.j.versionFound !== false && !!s.answered.j.flags?.i,
    concludes: [warn("INSTALL_SCRIPTS")],
    run: ({ judged }, d) => {
      d.warn.push({ code: "INSTALL_SCRIPTS", message: `${judged} runs install scripts (preinstall/install/postinstall) when installed` });
    },
  },
  {
    name: "new-package",
    when: (s) =>
      !!s.answered?.sum.firstPublished &&
      s.answered.sum.datesTrusted &&
      (s.at - Date.parse(s.answered.sum.firstPublished)) / DAY_MS < NEW_PACKAGE_DAYS,
    concludes: [warn("NEW_PACKAGE")],
    run: ({ answered }, d) => {
      d.warn.push({
        code: "NEW_PACKAGE",
        message: `first published ${answered!.sum.firstPublished!.slice(0, 10)}, less than ${NEW_PACKAGE_DAYS} days ago`,
      });
    },
  },
  {
    name: "unverified-dates",
    when: (s) => !!s.answered && !s.answered.sum.datesTrusted,
    concludes: [warn("UNVERIFIED_DATES")],
    run: ({ e, rank }, d) => {
      d.unverified.push("firstPublished", ...(e.eco === "npm" ? ["deprecated"] : []));
      // A popular name is not new, whatever the dates say; anything else could be.
      if (rank === undefined)
        d.warn.push({
          code: "UNVERIFIED_DATES",
          message: "the registry answered without trustworthy publish dates (a mirror), so Lore could not verify how new this package is",
        });
    },
  },
  {
    name: "osv-malicious",
    when: (s) => s.osv?.status === "answered" && !!s.knownAdv && s.osv.ids.some((id) => id.startsWith("MAL-") && !s.knownAdv!.has(id)),
    concludes: [block("MALICIOUS")],
    run: ({ osv, knownAdv, judged }, d) => {
      if (osv?.status !== "answered") return;
      for (const id of osv.ids) {
        if (!id.startsWith("MAL-") || knownAdv!.has(id)) continue;
        if (!d.advisories.includes(id))
          d.block.push({
            code: "MALICIOUS",
            message: `OSV reports ${judged} malicious (${id}; source: https://osv.dev/vulnerability/${id})`,
          });
        d.advisories.push(id);
      }
    },
  },
  {
    name: "vulnerable",
    when: (s) => !!s.knownAdv?.size,
    concludes: [warn("VULNERABLE")],
    run: ({ knownAdv, judged }, d) => {
      for (const a of knownAdv!.values()) {
        d.advisories.push(a.id);
        const fix = a.fixedVersions.length ? `fixed in ${a.fixedVersions.join(", ")}` : "no fixed version published";
        d.warn.push({
          code: "VULNERABLE",
          message: `${judged} is affected by ${a.id}${a.severity ? ` (${a.severity}` : " ("}${a.severity ? "; " : ""}${fix})${a.summary ? `: ${a.summary}` : ""}`,
        });
      }
      d.result.knownAdvisories = [...knownAdv!.values()];
    },
  },
  {
    // What the advisories were looked up in; `ok` is never said of a version whose advisories were not checked.
    name: "advisory-check",
    when: (s) => !!s.knownAdv,
    concludes: [warn("ADVISORIES_UNCHECKED")],
    run: ({ e, facts, at, osv, judged, knownAdv }, d) => {
      const cov = entryCoverage(facts.sources, { ecosystem: e.eco, key: e.key, pinned: judged }, at);
      if (osv!.status === "answered") {
        d.result.advisoryCheck = {
          status: "current",
          version: judged!,
          sources: [
            { source: "OSV (api.osv.dev)", asOf: iso(at), status: "current", complete: true },
            ...cov.sources.map((r) => sourceOut(r, at)),
          ],
          note: null,
        };
        return;
      }
      const held = cov.sources.length ? cov.sources.map((r) => sourceSummary(r, at)).join("; ") : `no advisory data for ${e.eco}`;
      const note = `${osv!.reason}; what Lore holds: ${held}`;
      d.result.advisoryCheck = { status: cov.state, version: judged!, sources: cov.sources.map((r) => sourceOut(r, at)), note };
      if (cov.state !== "current") {
        const found = knownAdv!.size
          ? `the ${knownAdv!.size} listed are what is known, not all there is`
          : "none found there does not mean none exist";
        d.warn.push({ code: "ADVISORIES_UNCHECKED", message: `advisories unchecked for ${judged}: ${note}; ${found}` });
      }
    },
  },
  {
    name: "typosquat",
    when: (s) => !!s.imit,
    concludes: [warn("TYPOSQUAT")],
    run: ({ e, imit }, d) => {
      d.warn.push({
        code: "TYPOSQUAT",
        message: `"${e.name}" is ${TYPO_MESSAGES[imit!.kind](imit!.target)}; did you mean "${imit!.target}"?`,
      });
      d.result.imitates = imit!.target;
      d.result.suggestion ??= imit!.target;
    },
  },
];

/** The Go `retract` entry covering the version judged. */
const retraction = (s: Seen) =>
  s.e.eco === "go" && s.judged && s.answered ? s.answered.sum.retracted.find((r) => isRetracted(s.judged!, r)) : undefined;

/** Runs the checks that apply, in the table's order, and concludes. */
export function verdictFor(input: VerdictInput, checks: readonly Check[] = CHECKS): CheckResult {
  const { e } = input;
  const s = see(input);
  const d: Draft = {
    result: { name: e.name, ecosystem: e.eco, verdict: "ok", reasons: [], exists: null },
    block: [],
    warn: [],
    advisories: [],
    unverified: [],
  };
  if (e.version) d.result.version = e.version;
  for (const c of checks) if (c.when(s)) c.run(s, d);
  const { result } = d;
  result.reasons = [...d.block, ...d.warn];
  result.verdict = d.block.length ? "block" : d.warn.length ? "warn" : "ok";
  if (d.advisories.length) result.advisories = [...new Set(d.advisories)];
  if (d.unverified.length) result.unverified = [...new Set(d.unverified)];
  return result;
}
