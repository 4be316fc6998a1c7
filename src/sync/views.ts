import type { BatchRead } from "../core/batch";
import { groupBy } from "../core/group";
import { LruCache } from "../core/cache";
import {
  type AffectedRow,
  type ChangeOut,
  changesOf,
  DEPRECATION_COLS,
  type DeprecationRowDb,
  type MaliciousRow,
  matchableEntries,
  matchPackage,
  type NormalisedStackEntry,
  type PackageAdvisories,
  type PackageMatch,
  packageAdvisories,
  packageAdvisoryStatements,
  pinnedByTopic,
  RELEASE_COLS,
  type ReleaseRowDb,
  sortReleases,
  type UpgradeView,
  upgradeView,
  type VulnerabilityOut,
  vulnerabilityOf,
} from "../freshness";

/**
 * Per-topic release views, prepared once per ingest generation and shared by every sync this
 * isolate answers until the next change.
 *
 * A topic's view is a pure function of its rows in `fresh_releases` and `fresh_deprecations`, and
 * every insert or update of those rows adds a row to `sync_changes` (triggers, migration 0012)
 * whose AUTOINCREMENT `seq` only grows. So the change log's newest row names the state of the
 * release data exactly: while it is the same, a view built before is the view that reading the
 * rows again would build. Sorting a topic's releases by version, parsing their change lists and
 * filtering the range is most of a full sync's CPU; this makes it once per topic and version.
 *
 * The newest row's `at` is part of the generation too, so storage rolled back to an earlier state
 * (the tests' per-test storage, a D1 restore) that reaches the same `seq` with other rows does not
 * match the views of the first. A sync whose batches saw two generations (an ingest committed in
 * between) answers from rows read again, never from a mix.
 */
export interface Generation {
  seq: number;
  at: number | null;
}

interface TopicPrep {
  changes: ChangeOut[];
  deps: DeprecationRowDb[];
}

/** What the cache may hold: a few MB of prepared rows per isolate (128 MB), whatever the stacks. */
export const VIEW_CACHE_BYTES = 8 * 1024 * 1024;

const MAX_VIEWS = 4000;

/** A package's advisory rows, parsed, and what they match per pinned version (bounded per package). */
interface HeldPackage {
  rows: PackageAdvisories;
  matches: Map<string, PackageMatch[]>;
  /** What it holds, in approximate bytes: its rows, its key, and each match kept (names and versions are the callers'). */
  bytes: number;
}
const MAX_PACKAGES = 20_000;
const MATCHES_PER_PACKAGE = 64;

/**
 * A held view and its JSON: its two lists serialised once, and the answer's text of the view as the
 * last answer that showed it had it (with that answer's object, to know when the next one may reuse it).
 */
interface HeldView {
  key: string;
  view: UpgradeView;
  /** Made when an answer first shows the view (most held views never are: only a topic's furthest-behind one). */
  lists: { changes: string; deps: string } | null;
  whole: WholeText | null;
  /** The view without its texts, in approximate bytes. */
  bytes: number;
}
/** How much longer than its lists a view's answer text may be and still be held (its packages, notes, dates). */
const WHOLE_SLACK = 4096;

let current: Generation | null = null;
// A topic without releases costs nothing by bytes, and topics are the callers' names: their count is bounded too.
const topicPreps = new LruCache<string, TopicPrep>({ maxEntries: MAX_VIEWS, maxBytes: VIEW_CACHE_BYTES });
// A view's releases are the prepared topic's objects (counted there); its JSON texts are counted here, two bytes a character.
const views = new LruCache<string, HeldView>({ maxEntries: MAX_VIEWS, maxBytes: VIEW_CACHE_BYTES });
const heldViews = new WeakMap<UpgradeView, HeldView>();
// Advisory rows are the largest part of a full sync's reads (a 500-entry stack of popular npm
// names: about 1,500 rows, 550 KB), and matching them is semver work per entry.
const packages = new LruCache<string, HeldPackage>({ maxEntries: MAX_PACKAGES, maxBytes: VIEW_CACHE_BYTES });

const sameGeneration = (a: Generation | null, b: Generation) => !!a && a.seq === b.seq && a.at === b.at;

/**
 * Whether this generation's views may be read from and written to the cache. A newer one (or the
 * same `seq` with another `at`: other storage) replaces what is held; an older one (a lagging
 * replica) bypasses the cache and leaves it alone.
 */
function usable(gen: Generation): boolean {
  if (sameGeneration(current, gen)) return true;
  if (current && gen.seq < current.seq) return false;
  current = { ...gen };
  topicPreps.clear();
  views.clear();
  packages.clear();
  return true;
}

/** For tests: forget everything held, as a fresh isolate would. */
export function clearViewCache(): void {
  current = null;
  topicPreps.clear();
  views.clear();
  packages.clear();
}

/** The most all three caches may hold together, in approximate bytes. */
export const HELD_BYTES_BOUND = 3 * VIEW_CACHE_BYTES;

/** For tests: how much is held (0 once a new generation has been seen and nothing read at it), and its approximate bytes. */
export const viewCacheSize = () => ({
  topics: topicPreps.size,
  views: views.size,
  packages: packages.size,
  bytes: topicPreps.bytes + views.bytes + packages.bytes,
  viewBytes: views.bytes,
  generation: current,
});

const prepCost = (rows: ReleaseRowDb[], deps: DeprecationRowDb[]) =>
  rows.reduce((n, r) => n + 300 + r.changes.length + (r.summary_md?.length ?? 0) + (r.title?.length ?? 0), 0) + deps.length * 300;

function prepare(rels: ReleaseRowDb[], deps: DeprecationRowDb[]): TopicPrep {
  return { changes: changesOf(sortReleases(rels)), deps };
}

/**
 * releasesForStackRead (freshness/sync-api.ts) with its topics taken from the cache of generation
 * `gen` where they are held: only the others are read (none when all are), and the answer is the
 * one reading them all would give, view for view. `commit(seenSeq)` keeps what was read, once the
 * caller knows its batch saw the same generation (`seenSeq`: the change log's newest seq in that
 * batch); with another one the caller must answer from `releasesForStackRead` instead.
 */
export function cachedReleasesRead(
  db: D1Database,
  entries: Pick<NormalisedStackEntry, "topic" | "ecosystem" | "pinned">[],
  gen: Generation,
): BatchRead<{ views: UpgradeView[]; fromCache: boolean; commit: (seenSeq: number) => void }> {
  const byTopic = pinnedByTopic(entries);
  const cacheable = usable(gen);
  const held = new Map<string, TopicPrep>();
  if (cacheable)
    for (const t of byTopic.keys()) {
      const p = topicPreps.get(t);
      if (p) held.set(t, p);
    }
  const missing = [...byTopic.keys()].filter((t) => !held.has(t));
  const topics = JSON.stringify(missing);
  return {
    statements: missing.length
      ? [
          db.prepare(`SELECT ${RELEASE_COLS} FROM json_each(?1) j JOIN fresh_releases r ON r.topic = j.value`).bind(topics),
          db
            .prepare(
              `SELECT ${DEPRECATION_COLS} FROM json_each(?1) j JOIN fresh_deprecations d ON d.topic = j.value WHERE d.removed_in IS NOT NULL`,
            )
            .bind(topics),
        ]
      : [],
    read: (results) => {
      const fresh = new Map<string, { prep: TopicPrep; cost: number }>();
      if (missing.length) {
        const relByTopic = groupBy(results[0]!.results as unknown as ReleaseRowDb[], (r) => r.topic);
        const depByTopic = groupBy(results[1]!.results as unknown as DeprecationRowDb[], (d) => d.topic);
        for (const t of missing) {
          const rels = relByTopic.get(t) ?? [];
          const deps = depByTopic.get(t) ?? [];
          fresh.set(t, { prep: prepare(rels, deps), cost: prepCost(rels, deps) });
        }
      }
      const made: [string, UpgradeView][] = [];
      const out: UpgradeView[] = [];
      for (const [topic, { ecosystem, versions }] of byTopic) {
        const prep = held.get(topic) ?? fresh.get(topic)!.prep;
        const fromHeld = held.has(topic);
        const list = versions.map((v) => {
          const key = `${topic}\u0000${ecosystem}\u0000${v}`;
          const hit = fromHeld ? views.get(key)?.view : undefined;
          if (hit) return hit;
          const view = upgradeView(topic, ecosystem, v, prep.changes, prep.deps);
          made.push([key, view]);
          return view;
        });
        // The entry furthest behind decides what the caller must read (as releasesForStackRead).
        out.push(list.sort((a, b) => b.releases.length - a.releases.length)[0]!);
      }
      return {
        views: out,
        fromCache: held.size > 0,
        commit: (seenSeq) => {
          if (!cacheable || seenSeq !== gen.seq || !sameGeneration(current, gen)) return;
          for (const [t, { prep, cost }] of fresh) topicPreps.set(t, prep, cost);
          for (const [k, v] of made) {
            if (!topicPreps.get(k.slice(0, k.indexOf("\u0000")))) continue;
            const bytes = 600 + 2 * k.length + 8 * (v.releases.length + v.removedDeprecations.length);
            const held: HeldView = { key: k, view: v, lists: null, whole: null, bytes };
            views.set(k, held, bytes);
            heldViews.set(v, held);
          }
        },
      };
    },
  };
}

const packageCost = (aff: AffectedRow[], mal: MaliciousRow[]) =>
  aff.reduce((n, r) => n + 400 + r.ranges.length + r.versions.length + r.fixed.length + (r.summary?.length ?? 0) + r.aliases.length, 0) +
  mal.length * 300;

/**
 * advisoriesForStackRead (freshness) with the packages' advisory rows taken from the cache of
 * generation `gen` where they are held: only the other packages' rows are read (no statement when
 * all are held), and each (package, pinned version) is matched once per generation. The answer is
 * the list reading every row would give, in its order. `commit(seenSeq)` as in cachedReleasesRead.
 *
 * Every insert or change of an advisory or malicious report adds a change-log row (triggers), and
 * so does a withdrawal (osvStatements): the generation names the advisory data as it names the
 * release data.
 */
export function cachedAdvisoriesRead<S extends { name: string; version: string; ecosystem?: string }>(
  db: D1Database,
  stack: S[],
  gen: Generation,
): BatchRead<{ vulns: VulnerabilityOut[]; of: S[]; fromCache: boolean; commit: (seenSeq: number) => void }> {
  const entries = matchableEntries(stack);
  const cacheable = usable(gen);
  const pkgKeys = [...new Set(entries.map((e) => `${e.eco}\u0000${e.key}`))];
  const held = new Map<string, HeldPackage>();
  if (cacheable)
    for (const k of pkgKeys) {
      const p = packages.get(k);
      if (p) held.set(k, p);
    }
  const missing = pkgKeys.filter((k) => !held.has(k));
  return {
    // The statements of advisoriesForStackRead, for the missing packages only.
    statements: missing.length
      ? packageAdvisoryStatements(
          db,
          missing.map((k) => k.split("\u0000") as [string, string]),
        )
      : [],
    read: (results) => {
      const fresh = new Map<string, { pkg: HeldPackage }>();
      if (missing.length) {
        const affBy = groupBy(results[0]!.results as unknown as AffectedRow[], (r) => `${r.eco}\u0000${r.key}`);
        const malBy = groupBy(results[1]!.results as unknown as MaliciousRow[], (m) => `${m.ecosystem}\u0000${m.name_key}`);
        for (const k of missing) {
          const aff = affBy.get(k) ?? [];
          const mal = malBy.get(k) ?? [];
          // A package with no rows is held too (most are, and that saves their read), at its key's size.
          fresh.set(k, {
            pkg: { rows: packageAdvisories(aff, mal), matches: new Map(), bytes: 400 + 2 * k.length + packageCost(aff, mal) },
          });
        }
      }
      const vulns: VulnerabilityOut[] = [];
      // The stack entry each vulnerability is about, index for index.
      const of: S[] = [];
      const grown = new Set<string>();
      for (const e of entries) {
        const k = `${e.eco}\u0000${e.key}`;
        const pkg = held.get(k) ?? fresh.get(k)!.pkg;
        let m = pkg.matches.get(e.version);
        if (!m) {
          m = matchPackage(e.eco, e.version, pkg.rows);
          if (pkg.matches.size < MATCHES_PER_PACKAGE) {
            pkg.matches.set(e.version, m);
            pkg.bytes += 96 + 2 * e.version.length + m.length * 200;
            if (held.has(k)) grown.add(k);
          }
        }
        for (const x of m) {
          vulns.push(vulnerabilityOf(e, x));
          of.push(e.src);
        }
      }
      return {
        vulns,
        of,
        fromCache: held.size > 0,
        commit: (seenSeq) => {
          if (!cacheable || seenSeq !== gen.seq || !sameGeneration(current, gen)) return;
          for (const [k, { pkg }] of fresh) packages.set(k, pkg, pkg.bytes);
          // A held package's new matches count against the bound too (set again at its new size).
          for (const k of grown) {
            const pkg = held.get(k)!;
            if (packages.get(k) === pkg) packages.set(k, pkg, pkg.bytes);
          }
        },
      };
    },
  };
}

/**
 * `JSON.stringify` of an object, byte for byte, with the named keys' values made by `parts`
 * (the same text, cached) instead of serialised again.
 */
function objectJson(o: object, parts: Record<string, (v: never) => string>): string {
  let s = "";
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined || typeof v === "function") continue;
    const part = parts[k];
    s += `${s ? "," : ""}${JSON.stringify(k)}:${part ? part(v as never) : JSON.stringify(v)}`;
  }
  return `{${s}}`;
}

/** Same keys in the same order, each value the same (arrays: the same elements): the same JSON text. */
function sameShallow(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i]) return false;
    const x = (a as Record<string, unknown>)[k];
    const y = (b as Record<string, unknown>)[k];
    if (x === y) continue;
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/** Which held view an answer's release object shows (set by the answer stage as it makes it). */
const viewOfOut = new WeakMap<object, UpgradeView>();
export function noteViewOut<T extends object>(view: UpgradeView, out: T): T {
  viewOfOut.set(out, view);
  return out;
}

/** A held view's text in one answer's shape, and its UTF-8 bytes (what a REST answer sends). */
interface WholeText {
  out: object;
  json: string;
  utf8: Uint8Array;
}
const utf8 = new TextEncoder();

/**
 * A release view's JSON in an answer. A held view's text is made once per shape: the next answer
 * that shows it with the same packages, notes, dates and flags (most: they change with the caller's
 * names and the data's age) reuses it; its lists are serialised once per generation. Other views
 * (a delta's filtered ones, a batch that saw two generations) are serialised as they are.
 */
function releasePiece(r: object): string | WholeText {
  const v = viewOfOut.get(r);
  const held = v && heldViews.get(v);
  // Texts are kept only on a view the cache still holds, and counted there (two bytes a character, and the UTF-8).
  if (!held || views.get(held.key) !== held) return JSON.stringify(r);
  if (held.whole && sameShallow(held.whole.out, r)) return held.whole;
  const lists = (held.lists ??= { changes: JSON.stringify(held.view.releases), deps: JSON.stringify(held.view.removedDeprecations) });
  const json = objectJson(r, {
    changes: (l: unknown[]) => (l === held.view.releases ? lists.changes : JSON.stringify(l)),
    removedDeprecations: (l: unknown[]) => (l === held.view.removedDeprecations ? lists.deps : JSON.stringify(l)),
  });
  // A text far longer than its lists (a topic named by many of the caller's packages) is not kept.
  held.whole = json.length <= lists.changes.length + lists.deps.length + WHOLE_SLACK ? { out: r, json, utf8: utf8.encode(json) } : null;
  views.set(held.key, held, held.bytes + 2 * (lists.changes.length + lists.deps.length) + (held.whole ? 3 * json.length + 400 : 0));
  return held.whole ?? json;
}

/**
 * A sync answer as `JSON.stringify` would write it, in pieces: texts, and the held release views'
 * texts (kept with their bytes). Same keys in the same order, undefined and function values left out.
 */
function answerPieces(out: object): (string | WholeText)[] {
  const pieces: (string | WholeText)[] = [];
  let s = "{";
  let first = true;
  for (const [k, v] of Object.entries(out)) {
    if (v === undefined || typeof v === "function") continue;
    s += `${first ? "" : ","}${JSON.stringify(k)}:`;
    first = false;
    if (k !== "releases") {
      s += JSON.stringify(v);
      continue;
    }
    s += "[";
    (v as object[]).forEach((r, i) => {
      if (i) s += ",";
      const p = releasePiece(r);
      if (typeof p === "string") s += p;
      else {
        pieces.push(s, p);
        s = "";
      }
    });
    s += "]";
  }
  pieces.push(`${s}}`);
  return pieces;
}

/** A sync answer's JSON text: its release views made once per held view and shape, the rest as usual. */
export const syncAnswerJson = (out: object): string =>
  answerPieces(out)
    .map((p) => (typeof p === "string" ? p : p.json))
    .join("");

/**
 * The same text as UTF-8, what the REST answer sends: the held views' bytes are copied, not encoded
 * again (most of a full answer of a large stack is its release views).
 */
export function syncAnswerBody(out: object): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = answerPieces(out).map((p) => (typeof p === "string" ? utf8.encode(p) : p.utf8));
  let n = 0;
  for (const b of parts) n += b.length;
  const body = new Uint8Array(n);
  let at = 0;
  for (const b of parts) {
    body.set(b, at);
    at += b.length;
  }
  return body;
}
