import { z } from "zod";
import { pageOut } from "../core/fts";
import { defineOperation } from "../core/operation";
import { modelOut, modelsQuery } from "./models.schemas";
import * as svc from "./models.service";

export const listModels = defineOperation({
  id: "models.list",
  summary: "Model prices, context and output limits, retirement dates and coding benchmarks",
  description:
    "Searches models by name, id, alias or provider (`q`, full text), optionally by `provider` and lifecycle `status`. " +
    "Prices are USD per million tokens (cache prices where known); every fact carries `asOf` and `source`, and " +
    "benchmark scores name their benchmark, metric and who reported them (vendor numbers and leaderboard numbers use " +
    "different harnesses and must not be compared). Costs one FRESHNESS_CALLS. Agent key required.",
  tag: "models",
  method: "GET",
  path: "/models",
  access: "agent",
  metric: "FRESHNESS_CALLS",
  query: modelsQuery,
  output: z.object({ items: z.array(modelOut), ...pageOut }),
  handler: (ctx, q) => svc.searchModels(ctx.env.DB, q),
  mcp: {
    tool: "service_models",
    description:
      "Look up LLM models: price per million input/output tokens (and cache), context and output limits, release date, " +
      "deprecation and retirement dates, coding benchmark scores. Every fact is dated (asOf) and sourced. Costs one FRESHNESS_CALLS.",
  },
});

export const modelOperations = [listModels];
