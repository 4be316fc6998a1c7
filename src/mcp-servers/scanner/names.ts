/**
 * A tool name imitating another tool: look-alike letters from other scripts (`reаd_file` with a
 * Cyrillic а), digits for letters (`send_emai1`), invisible characters, or a near miss of a
 * widely used tool (`create_pul_request`). The model picks tools by name and description; a
 * name that reads as another server's tool can take its calls. Names that differ only in case or
 * separators (`read-file`) or in a plural are ordinary and pass. MCP asks for names of
 * `[A-Za-z0-9_.-]`, 1-128 characters; anything else is noted.
 */
import { hasInvisible, visible, type Severity } from "../../scan";
import { KNOWN_TOOLS, normalizeToolName } from "./known-tools";
import { CONFUSABLE } from "../../core/confusables";

export { CONFUSABLE };

/** What a name looks like: other scripts' look-alikes and digit-for-letter swaps folded, case and separators dropped. */
export function skeleton(name: string): string {
  let s = name.normalize("NFKC").replace(/I/g, "l");
  s = [...s.toLowerCase()].map((c) => CONFUSABLE[c] ?? c).join("");
  s = s.replace(/0/g, "o").replace(/1/g, "l").replace(/3/g, "e").replace(/5/g, "s").replace(/rn/g, "m").replace(/vv/g, "w");
  return s.replace(/[\s._-]+/g, "");
}

const plain = (n: string) => normalizeToolName(n).replace(/_/g, "");
/**
 * The known tools' skeletons and plain names, built on the first check rather than at module load
 * (the Worker evaluates this module at start-up; only scans need it).
 */
let knownIndex: { bySkeleton: Map<string, string>; plainList: (readonly [string, string])[]; plain: Set<string> } | null = null;
function known() {
  if (knownIndex) return knownIndex;
  const bySkeleton = new Map<string, string>();
  for (const k of KNOWN_TOOLS) if (!bySkeleton.has(skeleton(k))) bySkeleton.set(skeleton(k), k);
  const plainList = KNOWN_TOOLS.map((k) => [k, plain(k)] as const);
  return (knownIndex = { bySkeleton, plainList, plain: new Set(plainList.map(([, p]) => p)) });
}

export interface NameFinding {
  index: number;
  severity: Severity;
  message: string;
  excerpt: string;
}

/** Letters a reader takes for one another at a glance (the ones an impostor swaps in). */
const LOOK_ALIKE = ["il1|", "o0", "rn", "vu", "ce", "nh", "gq", "mn"];
const lookAlike = (x: string, y: string) => LOOK_ALIKE.some((g) => g.includes(x) && g.includes(y));

/**
 * One letter swapped for a look-alike, or two neighbours transposed: not any one-letter change,
 * which makes another word more often than an impostor (`search_notes` is not `search_nodes`).
 */
function nearMiss(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) === 1 && Math.min(a.length, b.length) >= 8) return doubledLetter(a, b);
  if (a.length !== b.length || a.length < 8) return false;
  const diff: number[] = [];
  for (let i = 0; i < a.length && diff.length <= 2; i++) if (a[i] !== b[i]) diff.push(i);
  if (diff.length === 1) return lookAlike(a[diff[0]!]!, b[diff[0]!]!);
  return diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] && a[diff[1]!] === b[diff[0]!];
}

/** One name is the other with one letter doubled (`slack_post_messsage`): the typo an impostor registers. */
function doubledLetter(a: string, b: string): boolean {
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  let i = 0;
  while (i < short.length && long[i] === short[i]) i++;
  return i > 0 && long[i] === long[i - 1] && long.slice(i + 1) === short.slice(i);
}

/** Findings on each tool's name, given every tool name of the server (an impostor may imitate a sibling). */
export function checkNames(names: readonly string[], extraKnown: readonly string[] = []): NameFinding[] {
  const out: NameFinding[] = [];
  const knownTools = known();
  const ownPlain = new Set(names.map(plain));
  const extraBySkeleton = new Map(extraKnown.map((k) => [skeleton(k), k]));
  const skeletons = names.map(skeleton);
  const plains = names.map(plain);
  names.forEach((name, index) => {
    const nonAscii = /[^\x00-\x7f]/.test(name);
    const sk = skeletons[index]!;
    const np = plains[index]!;
    const siblings = names.filter((_o, j) => j !== index && skeletons[j] === sk && plains[j] !== np);
    const imitated = knownTools.bySkeleton.get(sk) ?? extraBySkeleton.get(sk);
    const target = siblings[0] ?? (imitated && plain(imitated) !== np ? imitated : undefined);
    const excerpt = visible(name);
    if (target) {
      out.push({
        index,
        severity: nonAscii || hasInvisible(name) ? "high" : "medium",
        message: `Tool name "${excerpt}" imitates "${target}" (${nonAscii ? "look-alike letters from another script" : "digits or letter pairs standing in for letters"})`,
        excerpt,
      });
      return;
    }
    if (hasInvisible(name)) {
      out.push({
        index,
        severity: "high",
        message: "Invisible characters in a tool name: two names that look the same are different tools",
        excerpt,
      });
      return;
    }
    if (nonAscii) {
      // A name in another script (`поиск_дашбордов`, `promql_запрос`) imitates nothing; a word that mixes scripts can.
      const mixed = name
        .split(/[\s._-]+/)
        .some((w) => /[A-Za-z]/.test(w) && /[^\x00-\x7f]/.test(w) && /\p{L}/u.test(w.replace(/[A-Za-z0-9]/g, "")));
      out.push({
        index,
        severity: mixed ? "medium" : "info",
        message: mixed
          ? "A tool name mixes Latin letters with letters of another script in one word: it can look like another tool"
          : "Non-ASCII letters in a tool name (MCP tool names are portable ASCII); the name imitates no known tool",
        excerpt,
      });
      return;
    }
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(name)) {
      out.push({ index, severity: "low", message: "Not a portable MCP tool name (letters, digits, '_', '-', '.'; at most 128)", excerpt });
      return;
    }
    if (knownTools.plain.has(np) || ownPlain.size === 0) return;
    const miss = knownTools.plainList.find(([, p]) => Math.abs(p.length - np.length) <= 1 && !ownPlain.has(p) && nearMiss(np, p))?.[0];
    if (miss)
      out.push({
        index,
        severity: "medium",
        message: `Tool name "${name}" is one letter away from the widely used tool "${miss}"`,
        excerpt,
      });
  });
  return out;
}
