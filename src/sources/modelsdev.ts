/** models.dev `api.json`: providers → models with prices (USD per million tokens), limits and status. */
import { readJson, SourceError, sourceFetch, unexpectedStatus, type SourceCtx } from "./http";

const SOURCE = "models.dev";
export const MODELS_DEV = "https://models.dev/api.json";

export interface ModelsDevModel {
  id: string;
  name?: string;
  release_date?: string;
  last_updated?: string;
  limit?: { context?: number; input?: number; output?: number };
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
  status?: "alpha" | "beta" | "deprecated";
}
export type ModelsDevCatalog = Record<string, { id?: string; name?: string; models?: Record<string, ModelsDevModel> }>;

export async function modelsDevCatalog(ctx: SourceCtx): Promise<ModelsDevCatalog> {
  const res = await sourceFetch(SOURCE, MODELS_DEV, ctx, { headers: { accept: "application/json" } });
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  const doc = await readJson<ModelsDevCatalog>(SOURCE, res);
  if (Array.isArray(doc)) throw new SourceError(SOURCE, "malformed", "catalog is not an object of providers");
  return doc;
}
