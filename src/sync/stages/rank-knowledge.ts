/**
 * Stage 6 of a full sync: the knowledge and skill recommendations for the stack's topics. The
 * ranking itself is the reads' (verified items by votes, skills by fit and use); a delta keeps only
 * the items and recommendations changed after the cursor.
 */
import type { SyncOut } from "../sync.schemas";
import type { SyncMode } from "./choose-mode";
import { type ChangesRead, changedIn } from "./read-changes";

export interface RankedKnowledge {
  knowledge: NonNullable<SyncOut["knowledge"]>;
  recommendations: NonNullable<SyncOut["recommendations"]>;
}

export function rankKnowledge(
  origin: string,
  topics: string[],
  mode: Pick<SyncMode, "delta" | "since">,
  changes: Pick<ChangesRead, "cut" | "knowledge" | "deltaKb" | "recommended" | "skillSeqs">,
): RankedKnowledge {
  const { delta, since } = mode;
  const knowledge = delta
    ? changes.deltaKb.filter((k) => k.tags.some((t) => topics.includes(t)) && k.status !== "DRAFT")
    : changes.knowledge;
  return {
    knowledge: knowledge.map((k) => ({ ...k, source: `${origin}/v1/kb/${encodeURIComponent(k.slug)}` })),
    recommendations: changes.recommended
      .filter((r) => !delta || changedIn(changes, changes.skillSeqs.get(r.slug.toLowerCase()), since))
      .map((r) => ({ ...r, source: `${origin}/v1/skills/${encodeURIComponent(r.slug)}` })),
  };
}
