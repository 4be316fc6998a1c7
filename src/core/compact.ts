/**
 * Compact MCP answers. Whatever a tool returns goes whole into the calling model's context, so each
 * tool's default answer keeps the fields an agent needs to decide its next step (and the
 * identifiers to ask for the rest), and says what it left out; `detail: "full"` returns the REST
 * answer unchanged. One declaration per operation (`mcp.compact`, a View) gives both the answer's
 * projection and its advertised output schema, so the two cannot disagree: the schema is the full
 * one cut to the same fields, open to the fields it leaves out, so a full answer validates too.
 */

const LIST = Symbol("list");
const TEXT = Symbol("text");
const EACH = Symbol("each");

/** Every field of an object, each by its own view; fields not named are left out. */
export type Fields = { [field: string]: View };
/** An array: at most `max` items, each by `of`. */
export type ListView = { [LIST]: true; of: View; max: number };
/** A string cut to `max` characters (free text: a body, a summary). */
export type TextView = { [TEXT]: number };
/** Every value of a record (an object keyed by names), each by `of`. */
export type EachView = { [EACH]: View };
/** `true` keeps the value whole. */
export type View = true | Fields | ListView | TextView | EachView;

export const list = (of: View, max: number): ListView => ({ [LIST]: true, of, max });
export const text = (max: number): TextView => ({ [TEXT]: max });
export const each = (of: View): EachView => ({ [EACH]: of });

export interface Compact {
  /** The fields the default answer keeps. */
  view: View;
  /** Argument defaults of the compact answer only (a smaller first page); `detail: "full"` uses the REST defaults. */
  defaults?: Record<string, unknown>;
  /** How to get the rest besides `detail: "full"` ("page: 2", "service_forum_read {slug}"). */
  hint?: string;
}

export const DETAIL_VALUES = ["compact", "full"] as const;
export type Detail = (typeof DETAIL_VALUES)[number];

/** The property a cut answer adds: what was left out and how to get it. */
export const MORE = "more";

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);
const isList = (v: View): v is ListView => typeof v === "object" && LIST in v;
const isText = (v: View): v is TextView => typeof v === "object" && TEXT in v;
const isEach = (v: View): v is EachView => typeof v === "object" && EACH in v;

interface Cuts {
  fields: Set<string>;
  lists: string[];
  texts: number;
}

function project(value: unknown, view: View, path: string, cuts: Cuts): unknown {
  if (view === true || value === null || value === undefined) return value;
  if (isText(view)) {
    if (typeof value !== "string" || value.length <= view[TEXT]) return value;
    cuts.texts++;
    return `${value.slice(0, view[TEXT])}…`;
  }
  if (isList(view)) {
    if (!Array.isArray(value)) return value;
    if (value.length > view.max) cuts.lists.push(`${path || "items"}: ${view.max} of ${value.length}`);
    return value.slice(0, view.max).map((v) => project(v, view.of, `${path}[]`, cuts));
  }
  if (Array.isArray(value)) return value.map((v) => project(v, view, `${path}[]`, cuts));
  if (!isNode(value)) return value;
  if (isEach(view)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, project(v, view[EACH], `${path}.${k}`, cuts)]));
  const out: Node = {};
  for (const [k, v] of Object.entries(value)) {
    const sub = (view as Fields)[k];
    if (sub === undefined) cuts.fields.add(k);
    else out[k] = project(v, sub, path ? `${path}.${k}` : k, cuts);
  }
  return out;
}

/** A page of a longer list (`total`, `page`, `perPage`): which page this is, and how to get the next. */
function nextPage(full: Record<string, unknown>): string | null {
  const { total, page, perPage } = full;
  if (typeof total !== "number" || typeof page !== "number" || typeof perPage !== "number" || perPage < 1) return null;
  if (total <= page * perPage) return null;
  return `page ${page} of ${Math.ceil(total / perPage)} (${total} in all): page:${page + 1} for the next`;
}

/** Names listed in `more` at most: the field names, not their values, are what tells an agent whether to ask. */
const MAX_NAMED_FIELDS = 8;

/**
 * The compact answer: the view's fields, plus `more` when anything was cut, saying what and how
 * to get it. An answer the view leaves whole has no `more` and equals the full one.
 */
export function compactAnswer(full: Record<string, unknown>, compact: Compact): Record<string, unknown> {
  const cuts: Cuts = { fields: new Set(), lists: [], texts: 0 };
  const out = project(full, compact.view, "", cuts) as Record<string, unknown>;
  const next = nextPage(full);
  if (cuts.fields.size === 0 && cuts.lists.length === 0 && cuts.texts === 0 && !next) return out;
  const parts: string[] = [];
  if (next) parts.push(next);
  if (cuts.lists.length) parts.push(`shown ${cuts.lists.join(", ")}`);
  if (cuts.texts) parts.push(`${cuts.texts} text${cuts.texts === 1 ? "" : "s"} cut (…)`);
  if (cuts.fields.size) {
    const names = [...cuts.fields];
    parts.push(
      `left out ${names.slice(0, MAX_NAMED_FIELDS).join(", ")}${names.length > MAX_NAMED_FIELDS ? ` and ${names.length - MAX_NAMED_FIELDS} more fields` : ""}`,
    );
  }
  const how = `detail:"full" returns everything${compact.hint ? `; ${compact.hint}` : ""}`;
  return { ...out, [MORE]: `Compact answer: ${parts.join("; ")}. ${how}.` };
}

/**
 * The JSON Schema of the compact answer, from the full one: the same fields the view keeps (a
 * nullable object's branches alike), `required` cut to them, and objects the view cut left open
 * (no `additionalProperties: false`), so the full answer validates against it as well.
 */
export function compactSchema(schema: Node, compact: Compact): Node {
  const out = projectSchema(schema, compact.view);
  const properties = isNode(out.properties) ? out.properties : {};
  return {
    ...out,
    properties: {
      ...properties,
      [MORE]: { type: "string" },
    },
  };
}

function projectSchema(schema: Node, view: View): Node {
  if (view === true || isText(view)) return schema;
  for (const k of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(schema[k]))
      return { ...schema, [k]: (schema[k] as Node[]).map((b) => (isNode(b) && b.type !== "null" ? projectSchema(b, view) : b)) };
  }
  if (isList(view)) return isNode(schema.items) ? { ...schema, items: projectSchema(schema.items, view.of) } : schema;
  if (schema.type === "array" && isNode(schema.items)) return { ...schema, items: projectSchema(schema.items, view) };
  if (isEach(view)) {
    const props = isNode(schema.properties)
      ? { properties: Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, projectSchema(v as Node, view[EACH])])) }
      : {};
    const extra = isNode(schema.additionalProperties)
      ? { additionalProperties: projectSchema(schema.additionalProperties, view[EACH]) }
      : {};
    return { ...schema, ...props, ...extra };
  }
  if (!isNode(schema.properties)) return schema;
  const fields = view as Fields;
  const properties = Object.fromEntries(
    Object.entries(schema.properties)
      .filter(([k]) => k in fields)
      .map(([k, v]) => [k, projectSchema(v as Node, fields[k]!)]),
  );
  const { additionalProperties: _open, required, ...rest } = schema;
  const kept = Array.isArray(required) ? required.filter((k) => k in fields) : [];
  return { ...rest, properties, ...(kept.length ? { required: kept } : {}) };
}

/** What a reference costs where it stands: `{"$ref":"#/$defs/<name>"}`, with a short name. */
const REF_BYTES = 24;

// Keywords whose value is a schema, a list of schemas, or a map of names to schemas.
const ONE = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"];
const MANY = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAPS = ["properties", "patternProperties"];

/** The schema with `f` applied to each direct subschema (only schema positions: never a properties map or a default). */
function mapSubschemas(node: Node, f: (s: Node) => Node): Node {
  const out: Node = { ...node };
  for (const k of ONE) if (isNode(node[k])) out[k] = f(node[k] as Node);
  for (const k of MANY) if (Array.isArray(node[k])) out[k] = (node[k] as unknown[]).map((s) => (isNode(s) ? f(s) : s));
  for (const k of MAPS) {
    if (isNode(node[k])) out[k] = Object.fromEntries(Object.entries(node[k] as Node).map(([p, s]) => [p, isNode(s) ? f(s) : s]));
  }
  return out;
}

/**
 * The schema with each subschema that occurs more than once written once under `$defs` and
 * referenced (`{"$ref": "#/$defs/…"}`) everywhere it occurred, where that makes it shorter. Greedy:
 * the repeat that saves most goes first, then the schema is counted again, so a definition nested in a shared one is shared
 * only where it still repeats.
 */
export function shareDefs(schema: Node): Node {
  let root: Node = schema;
  const defs: Record<string, Node> = {};
  for (let n = 1; n < 100; n++) {
    const counts = new Map<string, number>();
    const visit = (s: Node) => {
      mapSubschemas(s, (sub) => {
        const key = JSON.stringify(sub);
        if (key.length > REF_BYTES && !("$ref" in sub)) counts.set(key, (counts.get(key) ?? 0) + 1);
        visit(sub);
        return sub;
      });
    };
    visit(root);
    for (const d of Object.values(defs)) visit(d);
    let best: string | undefined;
    let saved = 0;
    for (const [key, count] of counts) {
      // Each occurrence becomes a reference; the definition is written once more under its name.
      const s = count * (key.length - REF_BYTES) - (key.length + 8);
      if (count > 1 && s > saved) [best, saved] = [key, s];
    }
    if (!best) break;
    const name = `s${n}`;
    const replace = (s: Node): Node => (JSON.stringify(s) === best ? { $ref: `#/$defs/${name}` } : mapSubschemas(s, replace));
    root = mapSubschemas(root, replace);
    for (const k of Object.keys(defs)) defs[k] = mapSubschemas(defs[k]!, replace);
    defs[name] = JSON.parse(best) as Node;
  }
  return Object.keys(defs).length ? { ...root, $defs: defs } : root;
}
