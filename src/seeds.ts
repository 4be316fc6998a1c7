import type { Env } from "./env";
import { loadStarterSkills, starterSkillsCurrent } from "./skills";
import { loadDeprecations, loadReleases } from "./freshness";
import { loadModels } from "./models";
import { loadCuratedMalicious, loadHallucinated, loadMalicious, popularLoader } from "./packages";
import { loadMcpServers } from "./mcp-servers";
import { advisorySnapshotLoader } from "./freshness";

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
  /** `seedOrigin`: the origin the operator's seed request reached (what Lore's own skill names when PUBLIC_ORIGIN is not set). */
  load(env: Env, text: string, seedOrigin?: string): Promise<{ rows: number }>;
  /**
   * False when what the dataset loads depends on more than its file and that changed: the operator
   * routes then report it as not loaded, so the seed sends it again (its load must be idempotent).
   */
  current?(env: Env, seedOrigin: string): Promise<boolean>;
}

export const SEEDS: readonly SeedDataset[] = [
  // Lore's own skill (rendered for the deployment's origin) and its starter skills, published by the
  // system account through the normal publish path (scan, R2, D1). Loaded again whenever the
  // published `lore` is not this build's rendering for this origin.
  { name: "starter-skills", file: "skills", load: loadStarterSkills, current: starterSkillsCurrent },
  // Freshness and models: curated, dated facts; small files loaded whole.
  { name: "freshness-releases", file: "freshness/releases.json", load: loadReleases },
  { name: "freshness-deprecations", file: "freshness/deprecations.json", load: loadDeprecations },
  { name: "models", file: "freshness/models.json", load: loadModels },
  // Offline advisory snapshots (PyPI, Go, RustSec, the historical npm reports), into the tables the
  // OSV ingest fills; 1,000 records per chunk (about 0.5 MB).
  { name: "advisories-pypi", file: "advisories/pypi.jsonl", chunkLines: 1000, load: advisorySnapshotLoader("pypi") },
  { name: "advisories-go", file: "advisories/go.jsonl", chunkLines: 1000, load: advisorySnapshotLoader("go") },
  { name: "advisories-crates", file: "advisories/crates.jsonl", chunkLines: 1000, load: advisorySnapshotLoader("crates") },
  { name: "advisories-npm", file: "advisories/npm.jsonl", chunkLines: 1000, load: advisorySnapshotLoader("npm") },
  // Package check: the OpenSSF malicious snapshot (~33k rows, 4,000 lines per chunk: one json_each
  // statement each) and the popular-name lists (each loaded whole, atomically, with its typo keys).
  { name: "packages-malicious", file: "packages/malicious.tsv", chunkLines: 4000, load: loadMalicious },
  // The malicious names among the curated package-check facts (some are not in the partial snapshot).
  { name: "packages-malicious-curated", file: "freshness/package-checks.json", load: loadCuratedMalicious },
  { name: "packages-popular-npm", file: "packages/popular-npm.txt", load: popularLoader("npm") },
  { name: "packages-popular-pypi", file: "packages/popular-pypi.txt", load: popularLoader("pypi") },
  { name: "packages-popular-cargo", file: "packages/popular-cargo.txt", load: popularLoader("cargo") },
  { name: "packages-popular-go", file: "packages/popular-go.txt", load: popularLoader("go") },
  { name: "packages-hallucinated", file: "packages/hallucinated.json", load: loadHallucinated },
  // Reviewed MCP servers: server.json facts and the tools read from each source, upserted and scanned like registry records.
  { name: "mcp-servers", file: "mcp-servers.json", load: loadMcpServers },
];
