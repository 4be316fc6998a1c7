import * as z from "zod/v4";

/**
 * `page` (1-based) and `perPage` (≤ 100, the contract's maximum) for every list endpoint. Strict
 * numbers: REST query strings are coerced by the REST adapter (core/args.ts), MCP arguments are not.
 */
export const paginationQuery = {
  page: z.number().int().min(1).max(10_000).default(1),
  perPage: z.number().int().min(1).max(100).default(20),
};

export const pageOffset = (p: { page: number; perPage: number }) => (p.page - 1) * p.perPage;

/**
 * A boolean argument. In a REST query string `true`/`false`/`1`/`0` are read as booleans by the
 * REST adapter; MCP takes JSON booleans only. Kept as a name so query schemas read clearly.
 */
export const queryBool = z.boolean();
