/**
 * Typosquat detection against the popular-name lists (data/packages/popular-*.txt), in the spirit
 * of typogard/typomania and PyPI's typosnyper: one edit (insert, delete, substitute, swap of
 * neighbours), separators (`cross-env` / `crossenv`), homoglyphs (`rеact` with a Cyrillic е,
 * `0`/`o`, `rn`/`m`), swapped words (`dateutil-python`), noise suffixes (`requests2`, `lodash-js`),
 * npm scope look-alikes (`@type/node`) and Go owner look-alikes (`boltdb-go/bolt`).
 *
 * Fast on the hot path without loading a list into memory: every popular name is stored with its
 * neighbour keys (`popular_keys`, built at seed time by `neighbourKeys`). A candidate computes its
 * own keys; two names one trick apart always share a key (symmetric deletion: `jinja2` and `jinj2a`
 * both give `jinja`), so one indexed lookup finds every possible target, and `classify` confirms.
 * Precision and recall on a labelled corpus: test/packages/typo-eval.test.ts (figures in docs/behaviour-freshness.md).
 */
import { distance } from "fastest-levenshtein";
import type { Ecosystem } from "../ecosystems/versions";
import { CONFUSABLE } from "../core/confusables";

/** Deletion keys only for names this long: shorter ones collide with too many real names. */
const MIN_TYPO_LENGTH = 4;
/** One-edit matches only between names this long (measured: 4-letter pairs are mostly real, distinct packages). */
const MIN_EDIT_LENGTH = 5;

const stripSeparators = (k: string) => k.replace(/[-_.@/\s]/g, "");

/** ASCII look-alike skeleton: homoglyphs mapped, diacritics dropped, `0`→`o`, `1`→`l`, `rn`→`m`, `vv`→`w`. */
export function skeleton(k: string): string {
  let s = "";
  for (const ch of k.normalize("NFKD").replace(/\p{M}/gu, "")) s += CONFUSABLE[ch] ?? ch;
  return stripSeparators(s.toLowerCase()).replace(/0/g, "o").replace(/[1|]/g, "l").replace(/rn/g, "m").replace(/vv/g, "w");
}

const words = (k: string) => k.split(/[-_./]+/).filter(Boolean);
const sortedWords = (k: string) => [...words(k)].sort().join("-");

function deletions(k: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < k.length; i++) out.push(k.slice(0, i) + k.slice(i + 1));
  return out;
}

/** `@scope/name` → [scope, name]; null for unscoped names. */
const scopeOf = (k: string): [string, string] | null => {
  const m = /^@([^/]+)\/(.+)$/.exec(k);
  return m ? [m[1]!, m[2]!] : null;
};

/** Go `host/owner/repo[/...]` → host and repo with the owner left out, for owner look-alikes. */
const goRepoKey = (k: string) => {
  const parts = k.split("/");
  return parts.length >= 3 ? `${parts[0]}/${parts.slice(2).join("/")}` : null;
};

/** Variants without common noise (`-js`, `2`, `python-`…), looked up as exact popular names. */
function noiseVariants(eco: Ecosystem, k: string): string[] {
  const out = new Set<string>();
  // Not `2`/`-cli`: forks named `foo2` and companion `foo-cli` packages are mostly real (measured).
  const suffixes = [/[-_.]?js$/, /[-_.]node$/];
  const pySuffixes = [/[-_.]?py$/, /[-_.]python$/, /[-_.]?py3$/];
  const prefixes = eco === "pypi" ? [/^py(thon)?[-_.]?/] : eco === "npm" ? [/^node[-_.]/] : [];
  for (const re of [...suffixes, ...(eco === "pypi" ? pySuffixes : []), ...prefixes]) {
    const v = k.replace(re, "");
    if (v !== k && v.length >= 3) out.add(v);
  }
  return [...out];
}

/**
 * The keys of a name (a popular one at seed time, a candidate at check time). Kinds: `d:` the
 * name and its one-character deletions; `s:` the homoglyph/separator skeleton; `w:` sorted words;
 * `b:` an npm scoped name's bare name; `g:` a Go path without its owner.
 */
export function neighbourKeys(eco: Ecosystem, k: string, candidate = false): string[] {
  const keys = new Set<string>([`d:${k}`, `s:${skeleton(k)}`]);
  if (k.length >= MIN_TYPO_LENGTH) for (const d of deletions(k)) keys.add(`d:${d}`);
  if (words(k).length >= 2) keys.add(`w:${sortedWords(k)}`);
  const scoped = eco === "npm" ? scopeOf(k) : null;
  if (scoped) keys.add(`b:${scoped[1]}`);
  if (eco === "go") {
    const g = goRepoKey(k);
    if (g) keys.add(`g:${g}`);
  }
  if (candidate) for (const v of noiseVariants(eco, k)) keys.add(`d:${v}`);
  return [...keys];
}

/**
 * One insertion, deletion, substitution or swap of neighbours, between long enough names. Scoped npm
 * names of one scope compare their bare names (`@types/ms` and `@types/mv` are different packages).
 * A name that only lacks the target's trailing version digits (`soup` / `soup2`) is a family of
 * real packages far more often than a squat; the other direction (`requests2`) is still noise.
 */
function oneEdit(eco: Ecosystem, c: string, t: string): boolean {
  let [x, y] = [c, t];
  if (eco === "npm") {
    const a = scopeOf(c);
    const b = scopeOf(t);
    if (a && b && a[0] === b[0]) [x, y] = [a[1], b[1]];
  }
  if (Math.min(x.length, y.length) < MIN_EDIT_LENGTH) return false;
  if (y.startsWith(x) && /^[-_.]?\d+$/.test(y.slice(x.length))) return false;
  // A digit for a digit (`uuidv4`/`uuidv7`) is often a sibling version, but also a real attack
  // (`proc-macro1` for `proc-macro2`, MAL-2026-14338): kept as a warning.
  return distance(x, y) <= 1 || adjacentSwap(x, y);
}

/** `case`: the same name with other capitals, a different package where names are case-sensitive (npm, Go). */
export type TypoKind = "typo" | "separator" | "homoglyph" | "swapped-words" | "noise" | "scope" | "owner" | "case";

const adjacentSwap = (a: string, b: string) => {
  if (a.length !== b.length) return false;
  const diff: number[] = [];
  for (let i = 0; i < a.length && diff.length <= 2; i++) if (a[i] !== b[i]) diff.push(i);
  return diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] && a[diff[1]!] === b[diff[0]!];
};

/** How candidate `c` imitates popular name `t` (both keys), or null when it does not. */
export function classify(eco: Ecosystem, c: string, t: string): TypoKind | null {
  if (c === t) return null;
  const sc = stripSeparators(c);
  const st = stripSeparators(t);
  // `@rollup/plugin-babel` / `rollup-plugin-babel`: a project moving into its scope, not a squat.
  const scopeMove = eco === "npm" && !!scopeOf(c) !== !!scopeOf(t);
  if (sc === st && !scopeMove) return "separator";
  if (skeleton(c) === skeleton(t)) return "homoglyph";
  if (words(c).length >= 2 && sortedWords(c) === sortedWords(t)) return "swapped-words";
  if (eco === "npm") {
    const a = scopeOf(c);
    const b = scopeOf(t);
    if (a && b && a[1] === b[1] && a[0] !== b[0] && (distance(a[0], b[0]) <= 2 || skeleton(a[0]) === skeleton(b[0]))) return "scope";
  }
  if (oneEdit(eco, c, t)) return "typo";
  if (noiseVariants(eco, c).includes(t)) return "noise";
  if (eco === "go") {
    const pc = c.split("/");
    const pt = t.split("/");
    if (pc.length >= 3 && pt.length >= 3 && pc[0] === pt[0] && pc.slice(2).join("/") === pt.slice(2).join("/")) {
      const [oc, ot] = [pc[1]!, pt[1]!];
      if (oc !== ot && (oc.includes(ot) || ot.includes(oc) || distance(oc, ot) <= 2)) return "owner";
    }
  }
  return null;
}

export const TYPO_MESSAGES: Record<TypoKind, (t: string) => string> = {
  typo: (t) => `one character away from the popular package "${t}"`,
  separator: (t) => `the popular package "${t}" with different separators`,
  homoglyph: (t) => `looks like the popular package "${t}" (look-alike characters)`,
  "swapped-words": (t) => `the words of the popular package "${t}" in another order`,
  noise: (t) => `the popular package "${t}" with an extra prefix or suffix`,
  scope: (t) => `the popular scoped package "${t}" under a look-alike scope`,
  owner: (t) => `the popular module "${t}" under a look-alike owner`,
  case: (t) => `the popular package "${t}" with other capital letters (a different name to the registry)`,
};

/** FNV-1a, 32-bit signed: how neighbour keys are stored and looked up (popular_keys.key_hash). */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}
