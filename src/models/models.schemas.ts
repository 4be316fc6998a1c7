import * as z from "zod/v4";
import { paginationQuery } from "../core/pagination";

const dated = { asOf: z.string(), source: z.string() };

export const modelOut = z.object({
  id: z.string(),
  provider: z.string(),
  apiModelId: z.string(),
  name: z.string(),
  aliases: z.array(z.string()),
  releaseDate: z.object({ value: z.string().nullable(), notes: z.string().nullable(), ...dated }),
  pricing: z
    .object({
      currency: z.literal("USD"),
      unit: z.literal("per million tokens"),
      input: z.number().nullable(),
      output: z.number().nullable(),
      cacheRead: z.number().nullable(),
      cacheWrite: z.number().nullable(),
      tiers: z.array(
        z.object({
          appliesWhen: z.string(),
          input: z.number().nullable(),
          output: z.number().nullable(),
          cacheRead: z.number().nullable(),
        }),
      ),
      notes: z.string().nullable(),
      ...dated,
    })
    .nullable(),
  limits: z.object({
    context: z.number().nullable(),
    input: z.number().nullable(),
    output: z.number().nullable(),
    notes: z.string().nullable(),
    ...dated,
  }),
  lifecycle: z.object({
    status: z.enum(["active", "deprecated", "retired", "unknown"]),
    deprecationAnnounced: z.string().nullable(),
    retirementDate: z.string().nullable(),
    retirementPrecision: z.string().nullable(),
    /** The model the provider named to move to (a deprecated or retired model); null when none is recorded (then `replacementNotes` says why). */
    replacement: z.string().nullable(),
    /** Where the replacement was named, or why there is none recorded; null for an active model. */
    replacementNotes: z.string().nullable(),
    notes: z.string().nullable(),
    verification: z.string().nullable(),
    ...dated,
  }),
  benchmarks: z.array(
    z.object({
      name: z.string(),
      score: z.number(),
      metric: z.string(),
      variant: z.string().nullable(),
      date: z.string().nullable(),
      reportedBy: z.string().nullable(),
      notes: z.string().nullable(),
      verification: z.string().nullable(),
      ...dated,
    }),
  ),
  sources: z.array(z.string()),
  origin: z.enum(["curated", "models.dev"]),
});
export type ModelOut = z.infer<typeof modelOut>;

export const modelsQuery = z.object({
  q: z.string().max(200).optional(),
  provider: z.string().trim().toLowerCase().max(64).optional(),
  status: z.enum(["active", "deprecated", "retired", "unknown"]).optional(),
  ...paginationQuery,
});
