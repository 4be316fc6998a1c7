/** Which skill names an account may publish under. */
import { ApiError } from "../core/errors";
import { LORE_SKILL } from "./lore-skill";

/** `lore` is Lore's own skill; `categories` would be shadowed by GET /v1/skills/categories. */
export const isReservedName = (name: string) => name === LORE_SKILL || name === "categories";
export const nameTaken = (name: string) =>
  new ApiError("CONFLICT", `The skill name '${name}' belongs to another account; choose another name`, { name });
