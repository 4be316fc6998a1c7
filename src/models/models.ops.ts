import * as z from "zod/v4";
import { pageOut } from "../core/fts";
import { defineOperation } from "../core/operation";
import { list, text } from "../core/compact";
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
    title: "LLM models",
    description: "LLM prices, limits, retirement dates, benchmarks; dated and sourced.",
    compact: {
      view: {
        items: {
          id: true,
          name: true,
          pricing: { input: true, output: true, cacheRead: true, asOf: true },
          limits: { context: true, output: true },
          lifecycle: { status: true, retirementDate: true, replacement: true },
        },
        total: true,
        page: true,
        perPage: true,
      },
      defaults: { perPage: 10 },
      hint: "q:<model id> for one model's sources, notes and benchmarks",
    },
  },
});

export const modelOperations = [listModels];
