/** Which skill names an account may publish under. */
import { ApiError } from "../core/errors";
import { LORE_SKILL, SYSTEM_OWNER_ID } from "./lore-skill";

/**
 * A name as it reads, after the manner of a Unicode TR39 skeleton, for the only characters a name
 * can hold (ASCII `a-z0-9-` with single hyphens, bundle.ts: case, other scripts' look-alikes and
 * doubled hyphens never reach this). Digits read as the letters they pass for in a skill list (TR39
 * maps `0` and `1`; `3 4 5 7 8` are the leetspeak readings a list reader falls for too), `i` and
 * `l` are one letter (`1` reads as either), TR39's multi-letter look-alikes `rn`→`m`, `vv`→`w`,
 * `cl`→`d` fold, and with `hyphens: false` the separators go (`lore-sync` reads as `loresync`).
 */
const DIGIT_READS: Record<string, string> = { "0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b" };
export function skeleton(name: string, hyphens = false): string {
  const read = name
    .replace(/[0134578]/g, (d) => DIGIT_READS[d]!)
    .replace(/i/g, "l")
    .replace(/rn/g, "m")
    .replace(/vv/g, "w")
    .replace(/cl/g, "d");
  return hyphens ? read : read.replace(/-/g, "");
}

/** A name or token and its form without a trailing number (`lore2` is `lore` with a version on it). */
const readings = (s: string) => {
  const bare = s.replace(/\d+$/, "");
  return bare && bare !== s ? [skeleton(s), skeleton(bare)] : [skeleton(s)];
};

/**
 * The system account's skills as the seed publishes them: `lore` and the folders of data/skills (a
 * test keeps this list equal to that folder). Reserved from the first request, before any seed has
 * run; the publish batch adds whatever the system account has published since.
 */
export const SYSTEM_SKILLS: readonly string[] = [
  LORE_SKILL,
  "lore-check-packages",
  "lore-find-skills",
  "lore-forum",
  "lore-knowledge",
  "lore-sync",
];

/** Ordinary words that begin with the letters `lore` (as skeletons): they name no Lore skill. */
const LORE_WORDS = new Set(["lorem", "lorenz", "lorentz", "lorenzo", "lorena", "loretta", "lorelei"].map((w) => skeleton(w)));
/** Words that, before a final `lore`, claim it is Lore's own (`official-lore`), not a world's lore. */
const CLAIMS = new Set(["official", "verified", "real", "true", "team", "the"].map((w) => skeleton(w)));

/**
 * Whether a name reads as one of Lore's own, and which: (a) one of the system skills' skeletons
 * (other than `lore`) as a run of whole hyphen-separated words, also with a trailing number
 * (`loresync`, `loresync-pro`, `official-loresync`, `l0reforum-v2`, `lorecheck-packages`,
 * `loresync2`), or its words in another order (`sync-lore`, `forum-lore-app`); (b) a word beginning with `lore` (`lore-x`, `my-l0r3-tools`, `lorehq`,
 * `loreofficial`, `lore2sync`, `lore2024`) or the whole name beginning with it across hyphens
 * (`lo-re`, `lo-re-official`). Not refused: ordinary words that begin with the letters (`lorem`,
 * `lorentz`, `loretta` …), `lore` or `lores` as the last word after another (`game-lore`,
 * `folk-lores`: a world's lore) unless that word claims it (`official-lore`), and names that only
 * hold the letters (`explorer`, `folklore-tools`).
 */
export function looksLikeLore(name: string, systemNames: readonly string[] = []): string | null {
  const tokens = name.split("-");
  const system = [...new Set([...SYSTEM_SKILLS, ...systemNames])].filter((s) => s !== LORE_SKILL);
  for (let i = 0; i < tokens.length; i++)
    for (let j = i + 1; j <= tokens.length; j++) {
      const run = readings(tokens.slice(i, j).join("-"));
      const hit = system.find((s) => run.includes(skeleton(s)));
      if (hit) return hit;
    }
  // A system skill's words in another order (`sync-lore`, `forum-lore-app`): the same words read as the same skill.
  const words = new Set(tokens.map((t) => skeleton(t.replace(/\d+$/, "") || t)));
  const reordered = system.find((s) => s.split("-").every((w) => words.has(skeleton(w))));
  if (reordered) return reordered;
  const word = skeleton(LORE_SKILL);
  for (let i = 0; i < tokens.length; i++) {
    const read = skeleton(tokens[i]!);
    if (!read.startsWith(word)) continue;
    const bare = skeleton(tokens[i]!.replace(/\d+$/, ""));
    if (LORE_WORDS.has(bare)) continue;
    const last = i > 0 && i === tokens.length - 1;
    if (last && (bare === word || bare === `${word}s`) && !CLAIMS.has(skeleton(tokens[i - 1]!))) continue;
    return LORE_SKILL;
  }
  if (skeleton(name).startsWith(word) && !skeleton(tokens[0]!).startsWith(word)) return LORE_SKILL;
  return null;
}

/**
 * `lore` and every name that reads as it or as one of the system account's skills are Lore's own,
 * published by the system account only (so no account takes one before the seed, or passes its own
 * off as Lore's); `categories` would be shadowed by GET /v1/skills/categories. `systemNames`: the
 * system account's published skills (the publish batch reads them).
 */
export const isReservedName = (name: string, ownerId: string, systemNames: readonly string[] = []) =>
  name === "categories" || (ownerId !== SYSTEM_OWNER_ID && looksLikeLore(name, systemNames) !== null);
export const nameReserved = (name: string, systemNames: readonly string[] = []) => {
  const like = name === "categories" ? null : looksLikeLore(name, systemNames);
  return new ApiError(
    "CONFLICT",
    like === null
      ? `The skill name '${name}' is reserved by Lore; choose another name`
      : like === LORE_SKILL
        ? `The skill name '${name}' is reserved by Lore: 'lore' and names with a hyphen-separated word beginning with 'lore' (also spelt with look-alike digits, e.g. 'l0re', 'lor3'; a last word 'lore' as in 'game-lore' is anyone's) are Lore's own skills; choose another name`
        : `The skill name '${name}' is reserved by Lore: it reads as Lore's own skill '${like}'; choose another name`,
    { name },
  );
};
export const nameTaken = (name: string) =>
  new ApiError("CONFLICT", `The skill name '${name}' belongs to another account; choose another name`, { name });
