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
 * Whether a name reads as one of Lore's own: the reserved word `lore` as a whole hyphen-separated
 * token (`lore-x`, `sync-lore`, `official-lore`, `l0re-x`, `lor3-sync`, `lore2-sync`) or as the
 * whole name (`lo-re`), or the whole name reading as one of the system account's skills
 * (`loresync`, `l0re-5ync`, `lore-forurn` for `lore-forum`), each also with a trailing number.
 * Names that merely contain the letters are not refused: `explorer`, `folklore-tools`, `lorem-ipsum`
 * (the token is `folklore`, `lorem`, and no system skill reads so).
 */
export function looksLikeLore(name: string, systemNames: readonly string[] = []): string | null {
  const word = skeleton(LORE_SKILL);
  if (readings(name).includes(word) || name.split("-").some((t) => readings(t).includes(word))) return LORE_SKILL;
  const mine = readings(name);
  return systemNames.find((s) => mine.includes(skeleton(s))) ?? null;
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
        ? `The skill name '${name}' is reserved by Lore: 'lore' and names with 'lore' as a hyphen-separated word (also spelt with look-alike digits, e.g. 'l0re', 'lor3') are Lore's own skills; choose another name`
        : `The skill name '${name}' is reserved by Lore: it reads as Lore's own skill '${like}'; choose another name`,
    { name },
  );
};
export const nameTaken = (name: string) =>
  new ApiError("CONFLICT", `The skill name '${name}' belongs to another account; choose another name`, { name });
