import * as z from "zod/v4";

/**
 * JSON Schema from a zod schema, in the spelling every reader accepts: the one converter behind
 * the OpenAPI document and the MCP tools' input and output schemas.
 *
 * - `type: ["string", "null"]` (zod's spelling of a nullable string) becomes
 *   `anyOf: [{type: "string"}, {type: "null"}]`: legal either way, but clients that map tool
 *   schemas onto a single-`type` dialect (Gemini function declarations, the MCP Inspector's
 *   portability check) reject or warn on the array form.
 * - `additionalProperties: {}` (zod's spelling of a free-form object's `z.unknown()` values) becomes
 *   `additionalProperties: true`: the same contract, in the form the MCP Inspector's portability
 *   check does not warn about (an empty schema "carries no validation keyword").
 * - A record keyed by an enum (`z.record(z.enum([...]), v)`) lists its keys under `required`
 *   but not under `properties`; it is written as an object with those properties, so every
 *   required property is defined (the OpenAPI linters check this).
 */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return portable(rest) as Record<string, unknown>;
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

export function portable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(portable);
  if (!isNode(value)) return value;
  let node: Node = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SUBSCHEMA_KEYS.has(k) ? portable(v) : v]));
  for (const k of MAP_KEYS) {
    if (isNode(node[k])) node[k] = Object.fromEntries(Object.entries(node[k] as Node).map(([p, v]) => [p, portable(v)]));
  }
  if (isNode(node.additionalProperties) && Object.keys(node.additionalProperties).length === 0)
    node = { ...node, additionalProperties: true };
  node = enumRecordAsProperties(node);
  if (Array.isArray(node.type)) node = splitTypes(node);
  return node;
}

// Keywords whose value is a schema or a list of schemas, and those whose value maps names to schemas.
const SUBSCHEMA_KEYS = new Set([
  "items",
  "prefixItems",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "additionalProperties",
  "contains",
  "if",
  "then",
  "else",
]);
const MAP_KEYS = ["properties", "patternProperties", "$defs", "definitions"];

// Keywords that only apply to one type, so they go to that type's branch when the types are split.
const FOR_TYPE: Record<string, string[]> = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: ["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"],
  object: ["properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties"],
};

function splitTypes(node: Node): Node {
  const types = node.type as string[];
  if (types.length === 1) return { ...node, type: types[0] };
  const specific = new Set(Object.values(FOR_TYPE).flat());
  const common: Node = {};
  for (const [k, v] of Object.entries(node)) if (k !== "type" && !specific.has(k) && k !== "enum") common[k] = v;
  const branches = types.map((t) => {
    const branch: Node = { type: t };
    for (const k of FOR_TYPE[t] ?? []) if (k in node) branch[k] = node[k];
    // An enum that mixes types (["a", "b", null]) keeps each type's values in its branch.
    if (Array.isArray(node.enum)) {
      const values = (node.enum as unknown[]).filter((v) => jsonType(v) === t || (t === "number" && jsonType(v) === "integer"));
      if (t !== "null" && values.length > 0) branch.enum = values;
    }
    return branch;
  });
  return { ...common, anyOf: branches };
}

const jsonType = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v;

function enumRecordAsProperties(node: Node): Node {
  const names = isNode(node.propertyNames) ? node.propertyNames.enum : undefined;
  if (!Array.isArray(names) || node.properties || !isNode(node.additionalProperties)) return node;
  const { propertyNames: _p, additionalProperties, ...rest } = node;
  return {
    ...rest,
    properties: Object.fromEntries(names.map((n) => [String(n), additionalProperties])),
    required: Array.isArray(node.required) ? node.required : names.map(String),
    additionalProperties: false,
  };
}
