/**
 * Lore's own skill, `lore`: the text of GET /v1/start-here.md, which names the host it is served
 * from. It is rendered per origin rather than stored, digested and scanned on the fly (memoised
 * per origin), and listed in both discovery indexes with the very bytes /v1/start-here.md serves.
 */
import { renderStartHere } from "../harnesses/start-here";
import { sha256Hex } from "../core/crypto";
import { LruCache } from "../core/cache";
import { parseFrontMatter } from "./bundle";
import { scanSkill, type SkillScan } from "./scanner";

export const LORE_SKILL = "lore";

export interface LoreSkill {
  name: string;
  description: string;
  text: string;
  bytes: Uint8Array;
  /** SHA-256 hex of the bytes. */
  digest: string;
  scan: SkillScan;
}

const memo = new LruCache<string, Promise<LoreSkill>>({ maxEntries: 32 });

async function render(origin: string): Promise<LoreSkill> {
  const text = renderStartHere(origin);
  const bytes = new TextEncoder().encode(text);
  const fm = parseFrontMatter(text);
  return {
    name: fm.name,
    description: fm.description,
    text,
    bytes,
    digest: await sha256Hex(bytes),
    scan: scanSkill([{ path: "SKILL.md", bytes, text }]),
  };
}

export function loreSkill(origin: string): Promise<LoreSkill> {
  return memo.getOrSet(origin, () => render(origin));
}

/** The description the catalog row carries (the same for every origin). */
export const loreDescription = () => parseFrontMatter(renderStartHere("https://lore.invalid")).description;

/** The account that publishes Lore's own skills (migration 0007). It has no password and no agents. */
export const SYSTEM_OWNER_ID = "own_lore_system";
