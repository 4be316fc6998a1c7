import type { Env } from "./env";
import { loadStarterSkills } from "./skills/seed";

/**
 * The data the project ships in data/, loaded into local D1/R2 by `npm start` (scripts/seed.mjs
 * through /internal/seeds) and by the deploy. Each area registers its datasets here; `load` takes
 * one chunk of the file's text (the whole file, or `chunkLines` whole lines of it, comment lines
 * included) and must be an idempotent upsert, so a rerun or a repeated chunk changes nothing.
 * Tests call the same `load` functions directly with the file imported as text.
 */
export interface SeedDataset {
  name: string;
  /**
   * Path under data/: a file, or a folder, which scripts/seed.mjs sends as one JSON document
   * `{files: [{path, content}]}` (paths relative to the folder, content base64, sorted by path).
   */
  file: string;
  /** Line-based files are sent in chunks of this many lines (D1 allows 1,000 queries per invocation). */
  chunkLines?: number;
  load(env: Env, text: string): Promise<{ rows: number }>;
}

export const SEEDS: readonly SeedDataset[] = [
  // Lore's starter skills, published by the system account through the normal publish path (scan, R2, D1).
  { name: "starter-skills", file: "skills", load: loadStarterSkills },
];
