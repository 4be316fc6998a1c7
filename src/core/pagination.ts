import { z } from "zod";

/** `page` (1-based) and `perPage` (≤ 100, the contract's maximum) for every list endpoint. */
export const paginationQuery = {
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  perPage: z.coerce.number().int().min(1).max(100).default(20),
};

export const pageOffset = (p: { page: number; perPage: number }) => (p.page - 1) * p.perPage;

/** Query-string booleans: only `true`/`false`/`1`/`0` (z.coerce.boolean would read "false" as true). */
export const queryBool = z
  .union([z.boolean(), z.enum(["true", "false", "1", "0"])])
  .transform((v) => v === true || v === "true" || v === "1");
