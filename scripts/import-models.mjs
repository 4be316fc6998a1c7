// Refreshes data/freshness/models.json from a models.dev checkout (github.com/anomalyco/models.dev,
// the catalog the production ingest reads as api.json): every model of the first-party providers
// (Anthropic, OpenAI, Google), with its release date, prices, limits and models.dev status, dated
// by the checkout's commit. Models with curated facts (provider lifecycle pages, benchmarks) keep
// them. Every deprecated or retired model gets `replacement`: the one its provider named, or null
// with `replacement_notes` saying why Lore has none.
//
//   node scripts/import-models.mjs <models.dev checkout> <commit> <commit date YYYY-MM-DD>
import { readFileSync, readdirSync, existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { ROOT, fail, runMain } from "./lib.mjs";

const PROVIDERS = ["anthropic", "openai", "google"];
const DEPRECATION_PAGES = {
  anthropic: "https://platform.claude.com/docs/en/about-claude/model-deprecations",
  openai: "https://developers.openai.com/api/docs/deprecations",
  google: "https://ai.google.dev/gemini-api/docs/deprecations",
};

/**
 * Replacements the provider named, with where that was read. Only what a source states: anything
 * else stays null, with the reason (NO_REPLACEMENT) instead.
 */
const NAMED = {
  "anthropic/claude-sonnet-4-20250514": {
    replacement: "anthropic/claude-sonnet-4-6",
    notes: "Anthropic's deprecations table (deprecation announced 2026-04-14, retired 2026-06-15) names claude-sonnet-4-6.",
    source: "https://platform.claude.com/docs/en/about-claude/model-deprecations",
  },
  "anthropic/claude-opus-4-20250514": {
    replacement: "anthropic/claude-opus-4-8",
    notes: "Anthropic's deprecations table (deprecation announced 2026-04-14, retired 2026-06-15) names claude-opus-4-8.",
    source: "https://platform.claude.com/docs/en/about-claude/model-deprecations",
  },
};

/**
 * Lifecycle facts models.dev lags behind on (it still listed these without a status at the commit
 * used): the Claude 4.0 pair and their `-4-0` aliases, retired with the snapshots they resolve to.
 */
const CLAUDE_4_0_RETIREMENT = {
  status: "retired",
  deprecation_announced: "2026-04-14",
  retirement_date: "2026-06-15",
  retirement_precision: "exact",
  source: "https://platform.claude.com/docs/en/about-claude/model-deprecations",
  verification: "secondary",
  notes:
    "Dates from community compilations of Anthropic's deprecations page; models.dev still listed the model without a status on the catalog's date. Amazon Bedrock and Vertex AI run their own schedules.",
};
const LIFECYCLE = {
  "anthropic/claude-opus-4-20250514": CLAUDE_4_0_RETIREMENT,
  "anthropic/claude-opus-4-0": CLAUDE_4_0_RETIREMENT,
  "anthropic/claude-sonnet-4-0": CLAUDE_4_0_RETIREMENT,
};
NAMED["anthropic/claude-opus-4-0"] = NAMED["anthropic/claude-opus-4-20250514"];
NAMED["anthropic/claude-sonnet-4-0"] = NAMED["anthropic/claude-sonnet-4-20250514"];

const NO_REPLACEMENT = (provider) =>
  `No replacement recorded: ${provider === "anthropic" ? "Anthropic names one on its deprecations page for every deprecated model, but" : "the provider may name one on its deprecations page, but"} that page was not read for this data (models.dev carries no replacements). Read ${DEPRECATION_PAGES[provider] ?? "the provider's deprecations page"}.`;

const readToml = (file) => parse(readFileSync(file, "utf8"));

runMain(async () => {
  const [dir, commit, date] = process.argv.slice(2);
  if (!dir || !commit || !/^\d{4}-\d{2}-\d{2}$/.test(date ?? ""))
    fail("usage: node scripts/import-models.mjs <models.dev checkout> <commit> <commit date YYYY-MM-DD>");
  const file = path.join(ROOT, "data", "freshness", "models.json");
  const current = JSON.parse(readFileSync(file, "utf8"));
  const curated = new Map(current.models.filter((m) => (m.origin ?? "curated") === "curated").map((m) => [m.id, m]));
  // A catalog entry that is another name of a curated model (`claude-haiku-4-5` for the dated snapshot) is that model.
  const aliasOf = new Map([...curated.values()].flatMap((m) => (m.aliases ?? []).map((a) => [`${m.provider}/${a}`, m.id])));
  const catalogUrl = (provider, id) => `https://github.com/anomalyco/models.dev/blob/${commit}/providers/${provider}/models/${id}.toml`;
  const out = [];
  for (const provider of PROVIDERS) {
    const mdir = path.join(dir, "providers", provider, "models");
    for (const f of readdirSync(mdir)
      .filter((n) => n.endsWith(".toml"))
      .sort()) {
      const apiId = f.slice(0, -5);
      let m = readToml(path.join(mdir, f));
      // Provider files inherit the lab's model file (`base_model = "openai/gpt-5"`).
      if (m.base_model) {
        const base = path.join(dir, "models", `${m.base_model}.toml`);
        if (existsSync(base)) m = { ...readToml(base), ...m };
      }
      const modalities = m.modalities?.output ?? ["text"];
      if (!modalities.includes("text")) continue; // image, audio and embedding models are not coding models
      const id = `${provider}/${apiId}`;
      if (aliasOf.has(id)) continue;
      const c = curated.get(id);
      const deprecated = m.status === "deprecated";
      const entry = c
        ? { ...c }
        : {
            id,
            provider,
            api_model_id: apiId,
            name: m.name ?? apiId,
            release_date: m.release_date ?? null,
            release_date_notes: null,
            pricing_usd_per_mtok: m.cost
              ? { input: m.cost.input, output: m.cost.output, cache_read: m.cost.cache_read, cache_write_5m: m.cost.cache_write }
              : undefined,
            context_window: m.limit?.context,
            max_input_tokens: m.limit?.input,
            max_output_tokens: m.limit?.output,
            lifecycle: {
              status: deprecated ? "deprecated" : "active",
              retirement_date: null,
              notes: deprecated
                ? "models.dev: no longer served by the provider's public API (no dates given)."
                : "Listed by models.dev without a deprecated status.",
              source: catalogUrl(provider, apiId),
              verification: "secondary",
            },
            benchmarks: [],
            sources: [catalogUrl(provider, apiId)],
            source: catalogUrl(provider, apiId),
            origin: "models.dev",
            catalog_as_of: date,
          };
      if (!c && LIFECYCLE[id]) entry.lifecycle = { ...LIFECYCLE[id] };
      if (entry.pricing_usd_per_mtok)
        entry.pricing_usd_per_mtok = Object.fromEntries(Object.entries(entry.pricing_usd_per_mtok).filter(([, v]) => v !== undefined));
      const status = entry.lifecycle?.status;
      if (status === "deprecated" || status === "retired") {
        const named = NAMED[id];
        entry.lifecycle = {
          ...entry.lifecycle,
          replacement: named?.replacement ?? null,
          replacement_notes: named ? named.notes : NO_REPLACEMENT(provider),
          ...(named ? { replacement_source: named.source } : {}),
        };
      }
      out.push(entry);
      curated.delete(id);
    }
  }
  // Curated models models.dev no longer lists (retired and removed there) stay, with their facts.
  for (const c of curated.values()) {
    const status = c.lifecycle?.status;
    const named = NAMED[c.id];
    if (status === "deprecated" || status === "retired")
      c.lifecycle = {
        ...c.lifecycle,
        replacement: named?.replacement ?? null,
        replacement_notes: named ? named.notes : NO_REPLACEMENT(c.provider),
      };
    out.push(c);
  }
  out.sort((a, b) => (b.release_date ?? "").localeCompare(a.release_date ?? "") || a.id.localeCompare(b.id));
  const doc = {
    ...current,
    description:
      "LLM model facts (prices, limits, lifecycle, coding benchmarks) for the first-party providers. Every model of Anthropic, OpenAI and Google in the models.dev catalog (text output), dated by the catalog's commit; curated lifecycle and benchmark facts from the providers' own pages where recorded. Every record says where it came from.",
    catalog: { name: "models.dev", repository: "https://github.com/anomalyco/models.dev", commit, date, license: "MIT" },
    models: out,
  };
  writeFileSync(file, `${JSON.stringify(doc, null, 1)}\n`);
  console.log(
    `${out.length} models (${out.filter((m) => m.origin === "models.dev").length} from models.dev ${commit.slice(0, 7)} of ${date}) → data/freshness/models.json`,
  );
}, "[import-models]");
