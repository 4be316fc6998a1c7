/** Models: prices, limits, lifecycle and coding benchmarks, every fact dated and sourced. */
import { jsonCols } from "../core/bulk";
import { ftsQuery, pagedSearch, emptyPage } from "../core/fts";
import type { ModelOut } from "./models.schemas";
import { columnsOf, keysOf, type SqlRow, insertColumns, upsertSet } from "../core/columns";
import { models } from "../db/freshness";

export type ModelFacts = ModelOut;

/** The stored row of a model (see UPSERT_MODELS for the column order). */
export function modelRow(m: ModelFacts): unknown[] {
  return [
    m.id,
    m.provider,
    m.apiModelId,
    m.name,
    JSON.stringify(m.aliases),
    m.releaseDate.value,
    m.releaseDate.notes,
    m.pricing ? JSON.stringify(m.pricing) : null,
    m.limits.context,
    m.limits.input,
    m.limits.output,
    JSON.stringify(m.lifecycle),
    m.lifecycle.status,
    m.lifecycle.retirementDate,
    JSON.stringify(m.benchmarks),
    JSON.stringify(m.sources),
    m.sources[0] ?? m.lifecycle.source,
    JSON.stringify({
      releaseDate: { asOf: m.releaseDate.asOf, source: m.releaseDate.source },
      limits: { asOf: m.limits.asOf, source: m.limits.source, notes: m.limits.notes },
    }),
    m.origin,
  ];
}

/** ?1 = JSON rows from modelRow, ?2 = now; `ingested_at` moves only when a fact changed. */
const MODEL_FACT_KEYS = [
  "provider",
  "apiModelId",
  "name",
  "aliases",
  "releaseDate",
  "releaseDateNotes",
  "pricing",
  "contextWindow",
  "maxInputTokens",
  "maxOutputTokens",
  "lifecycle",
  "lifecycleStatus",
  "retirementDate",
  "benchmarks",
  "sources",
  "source",
  "factsAsOf",
  "origin",
] as const;
export const UPSERT_MODELS = `INSERT INTO ${insertColumns(models, ["id", ...MODEL_FACT_KEYS, "ingestedAt"])}
  SELECT ${jsonCols(1 + MODEL_FACT_KEYS.length)}, ?2 FROM json_each(?1) WHERE true
  ON CONFLICT (id) DO UPDATE SET ${upsertSet(models, [...MODEL_FACT_KEYS, "ingestedAt"])}
  WHERE models.name IS NOT excluded.name OR models.aliases IS NOT excluded.aliases OR models.release_date IS NOT excluded.release_date
     OR models.pricing IS NOT excluded.pricing OR models.context_window IS NOT excluded.context_window
     OR models.max_output_tokens IS NOT excluded.max_output_tokens OR models.max_input_tokens IS NOT excluded.max_input_tokens
     OR models.lifecycle IS NOT excluded.lifecycle OR models.benchmarks IS NOT excluded.benchmarks OR models.sources IS NOT excluded.sources`;

/** What `modelOut` reads: every stored column but the derived filter columns and the ingest's bookkeeping. */
const MODEL_KEYS = keysOf(models, ["lifecycleStatus", "retirementDate", "source", "ingestedAt"]);
type ModelRow = SqlRow<typeof models, (typeof MODEL_KEYS)[number]>;

export function modelOut(r: ModelRow): ModelOut {
  const asOf = JSON.parse(r.facts_as_of) as {
    releaseDate: { asOf: string; source: string };
    limits: { asOf: string; source: string; notes: string | null };
  };
  return {
    id: r.id,
    provider: r.provider,
    apiModelId: r.api_model_id,
    name: r.name,
    aliases: JSON.parse(r.aliases),
    releaseDate: { value: r.release_date, notes: r.release_date_notes, ...asOf.releaseDate },
    pricing: r.pricing ? JSON.parse(r.pricing) : null,
    limits: {
      context: r.context_window,
      input: r.max_input_tokens,
      output: r.max_output_tokens,
      notes: asOf.limits.notes,
      asOf: asOf.limits.asOf,
      source: asOf.limits.source,
    },
    // Rows stored before replacementNotes existed read as "none recorded".
    lifecycle: { replacementNotes: null, ...JSON.parse(r.lifecycle) },
    benchmarks: JSON.parse(r.benchmarks),
    sources: JSON.parse(r.sources),
    origin: r.origin as ModelOut["origin"],
  };
}

const COLS = columnsOf(models, "m", MODEL_KEYS);

/** `q` is full text over names, ids, aliases and provider (bm25); filters by provider and lifecycle status. */
export async function searchModels(
  db: D1Database,
  input: { q?: string; provider?: string; status?: string; page: number; perPage: number },
) {
  const where: string[] = [];
  const binds: unknown[] = [];
  const q = input.q?.trim();
  const match = q ? ftsQuery(q) : null;
  if (q && !match) return emptyPage(input);
  if (input.provider) {
    where.push("m.provider = ?");
    binds.push(input.provider);
  }
  if (input.status) {
    where.push("m.lifecycle_status = ?");
    binds.push(input.status);
  }
  const { rows, ...total } = await pagedSearch<ModelRow>(db, {
    from: "models m",
    key: "m.id",
    columns: COLS,
    fts: match ? { table: "models_fts", match, rank: "bm25(models_fts, 0.0, 10.0, 8.0, 2.0)" } : undefined,
    where,
    binds,
    order: match ? "m.release_date DESC" : "m.release_date DESC, m.id",
    page: input.page,
    perPage: input.perPage,
  });
  return { items: rows.map(modelOut), ...total, page: input.page, perPage: input.perPage };
}

/** Stored models by id (for the models.dev ingest's merge with curated facts). */
export async function modelsById(db: D1Database, ids: string[]): Promise<Map<string, ModelOut>> {
  if (!ids.length) return new Map();
  const rows = await db
    .prepare(`SELECT ${COLS} FROM json_each(?1) j JOIN models m ON m.id = j.value`)
    .bind(JSON.stringify(ids))
    .all<ModelRow>();
  return new Map(rows.results.map((r) => [r.id, modelOut(r)]));
}
