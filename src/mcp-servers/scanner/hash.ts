import { sha256Hex } from "../../core/crypto";
import type { McpScanInput } from "./types";

/** JSON with object keys sorted at every level, so the same tools always hash the same. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

/**
 * `sha256:<hex>` of the instructions and the tools (sorted by name; name, title, description,
 * inputSchema, outputSchema, annotations): the same value for the same `initialize` and
 * `tools/list` answers whatever their order, so an agent can compare what it was served with
 * what Lore reviewed.
 */
export async function toolsHash(input: McpScanInput): Promise<string> {
  const tools = [...input.tools]
    .map((t) => ({
      name: t.name,
      title: t.title ?? null,
      description: t.description ?? null,
      inputSchema: t.inputSchema ?? null,
      outputSchema: t.outputSchema ?? null,
      annotations: t.annotations ?? null,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return `sha256:${await sha256Hex(new TextEncoder().encode(canonicalJson({ instructions: input.instructions ?? null, tools })))}`;
}
