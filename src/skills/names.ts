/** Which skill names an account may publish under. */
import { ApiError } from "../core/errors";
import { LORE_SKILL, SYSTEM_OWNER_ID } from "./lore-skill";

/**
 * A name as it reads: the digits that pass for letters in a skill list (`l0re`, `1ore`) read as the
 * letters. Names are already ASCII `a-z0-9-` with single hyphens (bundle.ts), so case, other
 * scripts' look-alikes and doubled hyphens never reach this.
 */
const asRead = (name: string) => name.replace(/0/g, "o").replace(/1/g, "l");

/**
 * `lore` and every `lore-…` name are Lore's own skills, published by the system account only (so
 * no account takes one before the seed, or passes its own off as Lore's, also spelt `l0re-…`);
 * `categories` would be shadowed by GET /v1/skills/categories.
 */
export const isReservedName = (name: string, ownerId: string) => {
  const read = asRead(name);
  return ((read === LORE_SKILL || read.startsWith(`${LORE_SKILL}-`)) && ownerId !== SYSTEM_OWNER_ID) || name === "categories";
};
export const nameReserved = (name: string) =>
  new ApiError(
    "CONFLICT",
    name === "categories"
      ? `The skill name '${name}' is reserved by Lore; choose another name`
      : `The skill name '${name}' is reserved by Lore: 'lore' and names starting with 'lore-' are Lore's own skills; choose another name`,
    { name },
  );
export const nameTaken = (name: string) =>
  new ApiError("CONFLICT", `The skill name '${name}' belongs to another account; choose another name`, { name });
