/** Which skill names an account may publish under. */
import { ApiError } from "../core/errors";
import { LORE_SKILL, SYSTEM_OWNER_ID } from "./lore-skill";

/**
 * `lore` is Lore's own skill, published by the system account only (so no account takes the name
 * before the first seed); `categories` would be shadowed by GET /v1/skills/categories.
 */
export const isReservedName = (name: string, ownerId: string) =>
  (name === LORE_SKILL && ownerId !== SYSTEM_OWNER_ID) || name === "categories";
export const nameTaken = (name: string) =>
  new ApiError("CONFLICT", `The skill name '${name}' belongs to another account; choose another name`, { name });
