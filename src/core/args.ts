import * as z from "zod/v4";

/**
 * One argument table for REST and MCP. Operations declare strict JSON schemas (`z.number()`,
 * `z.boolean()`, never `z.coerce`): MCP arguments arrive as JSON and are parsed by them as they
 * are, so an integer given as `true`, `"1"` or `1.5` is an error naming the argument. REST query
 * strings and path segments arrive as strings; `fromStrings` derives, once per operation, the
 * schema that turns those strings into what the strict schema expects (and nothing else), then
 * validates with the strict schema itself. A new operation is strict in MCP and coerced in REST
 * without doing anything.
 */

type Kind = "number" | "boolean" | "array" | "string";

// zod's internal definition, enough to walk wrappers down to the value a field expects.
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  element?: z.ZodType;
  values?: unknown[];
  getter?: () => z.ZodType;
  coerce?: boolean;
}
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The JSON kinds a schema accepts (after unwrapping optional, default, pipe, union…). */
function kinds(schema: z.ZodType, depth = 0): Set<Kind> {
  const out = new Set<Kind>();
  if (depth > 20) return out;
  const def = defOf(schema);
  switch (def.type) {
    case "number":
    case "int":
    case "bigint":
      out.add("number");
      break;
    case "boolean":
      out.add("boolean");
      break;
    case "array":
      out.add("array");
      break;
    case "literal":
      for (const v of def.values ?? []) out.add(typeof v === "number" ? "number" : typeof v === "boolean" ? "boolean" : "string");
      break;
    case "union":
      for (const o of def.options ?? []) for (const k of kinds(o, depth + 1)) out.add(k);
      break;
    case "pipe":
      // A preprocess is pipe(transform → schema): what it ends up expecting is `out`.
      for (const k of kinds(defOf(def.in!).type === "transform" ? def.out! : def.in!, depth + 1)) out.add(k);
      break;
    case "lazy":
      for (const k of kinds(def.getter!(), depth + 1)) out.add(k);
      break;
    default:
      if (def.innerType) for (const k of kinds(def.innerType, depth + 1)) out.add(k);
      else out.add("string");
  }
  return out;
}

/** The element schema of an array field (through its wrappers), for coercing each item. */
function elementOf(schema: z.ZodType, depth = 0): z.ZodType | undefined {
  if (depth > 20) return undefined;
  const def = defOf(schema);
  if (def.type === "array") return def.element;
  if (def.type === "pipe") return elementOf(defOf(def.in!).type === "transform" ? def.out! : def.in!, depth + 1);
  if (def.innerType) return elementOf(def.innerType, depth + 1);
  return undefined;
}

// Plain decimal numbers only: Number() would also read "", " ", "0x10" and "Infinity".
const DECIMAL = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

function coerceScalar(v: unknown, k: Set<Kind>): unknown {
  if (typeof v !== "string") return v;
  if (k.has("number") && DECIMAL.test(v)) return Number(v);
  if (k.has("boolean")) {
    if (v === "true" || v === "1") return true;
    if (v === "false" || v === "0") return false;
  }
  // Anything else stays a string, so the strict schema names the argument and what it expects.
  return v;
}

function coercer(field: z.ZodType): ((v: unknown) => unknown) | null {
  const k = kinds(field);
  if (k.has("array")) {
    const element = elementOf(field);
    const ek = element ? kinds(element) : new Set<Kind>(["string"]);
    // A key given once arrives as a string, given twice as an array.
    return (v) => (v === undefined ? v : (Array.isArray(v) ? v : [v]).map((x) => coerceScalar(x, ek)));
  }
  if (k.has("number") || k.has("boolean")) return (v) => coerceScalar(v, k);
  return null;
}

const derived = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The schema for string inputs (query string, path segments): each field that expects a number,
 * a boolean or an array first has its string turned into that, then the operation's own strict
 * field validates it. Fields that expect strings are used as they are.
 */
export function fromStrings<T extends z.ZodObject>(schema: T): z.ZodType<z.output<T>> {
  const cached = derived.get(schema);
  if (cached) return cached as z.ZodType<z.output<T>>;
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const fn = coercer(field);
    shape[key] = fn ? z.preprocess(fn, field) : field;
  }
  const out = z.object(shape) as unknown as z.ZodType<z.output<T>>;
  derived.set(schema, out);
  return out;
}

/**
 * Paths (`query.perPage`, `body.stack[0].name`) of fields that coerce their input (`z.coerce.*`).
 * Such a field would accept `"1"` or `true` for a number from MCP too, so operations must not
 * use them: the test suite checks every operation with this.
 */
export function coercedFields(schema: z.ZodType | undefined, path = "", depth = 0, seen = new Set<unknown>()): string[] {
  if (!schema || depth > 30 || seen.has(schema)) return [];
  seen.add(schema);
  const def = defOf(schema);
  const found: string[] = def.coerce ? [path || "(root)"] : [];
  const next = (s: z.ZodType | undefined, p: string) => found.push(...coercedFields(s, p, depth + 1, seen));
  if (def.type === "object") {
    for (const [k, v] of Object.entries((schema as z.ZodObject).shape as Record<string, z.ZodType>)) next(v, path ? `${path}.${k}` : k);
  }
  if (def.type === "array") next(def.element, `${path}[]`);
  for (const o of def.options ?? []) next(o, path);
  next(def.innerType, path);
  next(def.in, path);
  next(def.out, path);
  if (def.type === "lazy") next(def.getter!(), path);
  return found;
}
