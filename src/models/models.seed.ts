/** Loads data/freshness/models.json (curated model facts, each with its source and as-of date). */
import type { Env } from "../env";
import { bulkStatements } from "../core/bulk";
import { now } from "../core/clock";
import { UPSERT_MODELS, modelRow, type ModelFacts } from "./models.service";

interface ModelsFile {
  as_of: string;
  models: {
    id: string;
    provider: string;
    api_model_id: string;
    name: string;
    aliases?: string[];
    release_date?: string | null;
    release_date_notes?: string;
    pricing_usd_per_mtok?: {
      input?: number;
      output?: number;
      cache_read?: number;
      cache_write_5m?: number;
      tiers?: { applies_when: string; input?: number; output?: number; cache_read?: number }[];
    };
    pricing_notes?: string;
    context_window?: number;
    max_input_tokens?: number;
    max_output_tokens?: number;
    context_notes?: string;
    lifecycle?: {
      status?: string;
      deprecation_announced?: string | null;
      retirement_date?: string | null;
      retirement_precision?: string;
      replacement?: string | null;
      replacement_notes?: string;
      replacement_source?: string;
      notes?: string;
      source?: string;
      verification?: string;
    };
    benchmarks?: {
      name: string;
      score: number;
      metric: string;
      variant?: string;
      date?: string;
      reported_by?: string;
      notes?: string;
      source: string;
      verification?: string;
    }[];
    sources?: string[];
    source: string;
    /** `models.dev` for a model taken from the catalog as it is; curated by default. */
    origin?: "curated" | "models.dev";
    /** The catalog's date for this model's release, price and limit facts (default: the file's as_of). */
    catalog_as_of?: string;
  }[];
}

const LIFECYCLE: Record<string, ModelFacts["lifecycle"]["status"]> = {
  active_as_of_source: "active",
  active: "active",
  deprecated: "deprecated",
  retired: "retired",
};

export async function loadModels(env: Env, text: string): Promise<{ rows: number }> {
  const file = JSON.parse(text) as ModelsFile;
  const asOf = file.as_of;
  const rows = file.models.map((m) => {
    const catalog = m.sources?.find((s) => s.includes("models.dev")) ?? m.source;
    const factsAsOf = m.catalog_as_of ?? asOf;
    const p = m.pricing_usd_per_mtok;
    const facts: ModelFacts = {
      id: m.id,
      provider: m.provider,
      apiModelId: m.api_model_id,
      name: m.name,
      aliases: m.aliases ?? [],
      releaseDate: { value: m.release_date ?? null, notes: m.release_date_notes ?? null, asOf: factsAsOf, source: catalog },
      pricing: p
        ? {
            currency: "USD",
            unit: "per million tokens",
            input: p.input ?? null,
            output: p.output ?? null,
            cacheRead: p.cache_read ?? null,
            cacheWrite: p.cache_write_5m ?? null,
            tiers: (p.tiers ?? []).map((t) => ({
              appliesWhen: t.applies_when,
              input: t.input ?? null,
              output: t.output ?? null,
              cacheRead: t.cache_read ?? null,
            })),
            notes:
              [m.pricing_notes, p.cache_write_5m !== undefined ? "cacheWrite is the 5-minute cache write price." : null]
                .filter(Boolean)
                .join(" ") || null,
            asOf: factsAsOf,
            source: catalog,
          }
        : null,
      limits: {
        context: m.context_window ?? null,
        input: m.max_input_tokens ?? null,
        output: m.max_output_tokens ?? null,
        notes: m.context_notes ?? null,
        asOf: factsAsOf,
        source: catalog,
      },
      lifecycle: {
        status: LIFECYCLE[m.lifecycle?.status ?? ""] ?? "unknown",
        deprecationAnnounced: m.lifecycle?.deprecation_announced ?? null,
        retirementDate: m.lifecycle?.retirement_date ?? null,
        retirementPrecision: m.lifecycle?.retirement_precision ?? null,
        replacement: m.lifecycle?.replacement ?? null,
        replacementNotes:
          [m.lifecycle?.replacement_notes, m.lifecycle?.replacement_source ? `Source: ${m.lifecycle.replacement_source}` : null]
            .filter(Boolean)
            .join(" ") || null,
        notes: m.lifecycle?.notes ?? null,
        verification: m.lifecycle?.verification ?? null,
        asOf: m.origin === "models.dev" ? factsAsOf : asOf,
        source: m.lifecycle?.source ?? m.source,
      },
      benchmarks: (m.benchmarks ?? []).map((b) => ({
        name: b.name,
        score: b.score,
        metric: b.metric,
        variant: b.variant ?? null,
        date: b.date ?? null,
        reportedBy: b.reported_by ?? null,
        notes: b.notes ?? null,
        verification: b.verification ?? null,
        asOf,
        source: b.source,
      })),
      sources: m.sources ?? [m.source],
      origin: m.origin ?? "curated",
    };
    return modelRow(facts);
  });
  await env.DB.batch(bulkStatements(env.DB, UPSERT_MODELS, rows, [now()]));
  return { rows: rows.length };
}
