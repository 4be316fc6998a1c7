/**
 * What the models area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { modelOperations } from "./models.ops";
export type { ModelOut } from "./models.schemas";
export { loadModels } from "./models.seed";
export { UPSERT_MODELS, modelRow, modelsById } from "./models.service";
