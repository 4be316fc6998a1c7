/** The data/skills folder as scripts/seed.mjs sends it (npm start publishes Lore's own skills from it). */
export function starterSkillsPayload(): string {
  const modules = import.meta.glob("../data/skills/**/*", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
  const b64 = (t: string) => {
    const bytes = new TextEncoder().encode(t);
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  };
  const files = Object.entries(modules)
    .map(([p, text]) => ({ path: p.replace("../data/skills/", ""), content: b64(text) }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  return JSON.stringify({ files });
}

import type { Env } from "../src/env";
import { SEEDS } from "../src/seeds";
import pypiAdvisories from "../data/advisories/pypi.jsonl?raw";
import goAdvisories from "../data/advisories/go.jsonl?raw";
import cratesAdvisories from "../data/advisories/crates.jsonl?raw";
import npmAdvisories from "../data/advisories/npm.jsonl?raw";

const ADVISORY_FILES: Record<string, string> = {
  "advisories-pypi": pypiAdvisories,
  "advisories-go": goAdvisories,
  "advisories-crates": cratesAdvisories,
  "advisories-npm": npmAdvisories,
};

/**
 * The shipped advisory snapshots, loaded as `npm start` loads them: through each dataset's own
 * loader, in its chunks of lines (`only` picks some of them).
 */
export async function loadAdvisorySnapshots(env: Env, only?: string[]): Promise<void> {
  for (const d of SEEDS.filter((s) => s.name.startsWith("advisories-") && (!only || only.includes(s.name)))) {
    const lines = ADVISORY_FILES[d.name]!.split("\n");
    for (let i = 0; i < lines.length; i += d.chunkLines!) await d.load(env, lines.slice(i, i + d.chunkLines!).join("\n"));
  }
}
