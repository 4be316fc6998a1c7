/**
 * What an agent reports of its project, as sync and setup accept it: dependencies (names and
 * versions, never source code) and installed skills. Here, below the areas, because more than one
 * area takes it in.
 */
import * as z from "zod/v4";
import { ref, visibleString } from "../core/text";
import { ECOSYSTEMS } from "./versions";

export const MAX_STACK_ENTRIES = 500;
export const MAX_INSTALLED_SKILLS = 200;

/** One dependency: only names and versions are sent, never source code. */
export const stackEntry = z.object({
  name: visibleString().trim().min(1, "must not be empty").max(214, "at most 214 characters"),
  version: visibleString().trim().min(1, "must not be empty").max(128, "at most 128 characters"),
  ecosystem: z.enum(ECOSYSTEMS).optional(),
});
export type StackEntryIn = z.infer<typeof stackEntry>;

export const stackInput = z.array(stackEntry).max(MAX_STACK_ENTRIES, `at most ${MAX_STACK_ENTRIES} entries`);
export const installedSkillsInput = z.array(ref(64)).max(MAX_INSTALLED_SKILLS, `at most ${MAX_INSTALLED_SKILLS} skills`);
