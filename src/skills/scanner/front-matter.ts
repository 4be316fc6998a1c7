/**
 * SKILL.md front matter as YAML: parsed here, in the scanner Worker (src/scan-worker/index.ts),
 * which the publish reaches anyway, so that the YAML parser (js-yaml, about 5% of the main Worker's
 * compile at every cold start) is not bundled into the main Worker. What crosses the binding is
 * plain data: the front matter as JSON text (aliases expanded, bounded), the version labels as the
 * author wrote them, or the reason the YAML is refused. The checks of the fields themselves (name,
 * description, version, tags) stay in src/skills/bundle.ts, with the main Worker's errors.
 *
 * YAML 1.2's core schema (`yes`, `on` and dates stay text), no duplicate keys, no custom tags.
 */
import { CORE_SCHEMA, constructFromEvents, eventsToAst, parseEvents, type Node as YamlNode } from "js-yaml";
import { MAX_ALIASED_VALUES, MAX_FRONT_MATTER_CHARS, type FrontMatterYaml } from "./types";

/**
 * The version label as the author wrote it. YAML reads `version: 1.10` as the float 1.1 and
 * `version: 2.0` as the integer 2; a version label is text, so a plain scalar keeps its source.
 * `aliases` maps each alias node of the document to the node its anchor names.
 */
function versionLabel(root: YamlNode | null, path: string[], aliases: Map<YamlNode, YamlNode>): string | null {
  let node: YamlNode | undefined = root ?? undefined;
  for (const key of path) {
    if (node?.kind === "alias") node = aliases.get(node);
    if (node?.kind !== "mapping") return null;
    // A key may itself be an alias (`*v : 1.10` where `&v version`): compared as the scalar it stands for.
    node = node.items.find((i) => {
      const k = i.key.kind === "alias" ? aliases.get(i.key) : i.key;
      return k?.kind === "scalar" && k.value === key;
    })?.value;
  }
  if (node?.kind === "alias") node = aliases.get(node);
  if (node === undefined) return null;
  // Only asked for a value that was not read as null (the caller's `label`), so a scalar is its text.
  if (node.kind === "scalar") return node.value;
  // A mapping or a list: not a label (refused by the caller).
  return "[not a scalar]";
}

/** Each alias node of a document and the node it stands for (the nearest anchor of that name before it). */
function resolveAliases(root: YamlNode | null): Map<YamlNode, YamlNode> {
  const anchors = new Map<string, YamlNode>();
  const out = new Map<YamlNode, YamlNode>();
  const walk = (n: YamlNode) => {
    if (n.kind === "alias") {
      const target = anchors.get(n.anchor);
      if (target) out.set(n, target);
      return;
    }
    if (n.anchor) anchors.set(n.anchor, n);
    if (n.kind === "sequence") for (const i of n.items) walk(i);
    else if (n.kind === "mapping")
      for (const i of n.items) {
        walk(i.key);
        walk(i.value);
      }
  };
  if (root) walk(root);
  return out;
}

/**
 * Values that aliases add to the front matter once expanded (it is stored as JSON, where an alias is
 * a copy): an anchor used inside itself is circular (no JSON form), and a few aliases nested in
 * each other can stand for millions of values (an alias bomb). Counted on the parsed value, each
 * distinct object once, so the count costs what the document is, not what it expands to. `chars`
 * is the expanded text (keys and scalars): one aliased long string is one value but a copy of all
 * its characters each time, so a value count alone lets a 1 MiB string aliased 49 times through.
 * The same walk refuses the keys two YAML readers would read differently (`<<`, past 1024 characters).
 */
function aliasedValues(value: unknown): { aliased: number; chars: number } | "circular" | "merge" | "long key" {
  const sizes = new Map<object, { n: number; chars: number }>();
  const open = new Set<object>();
  const size = (v: unknown): { n: number; chars: number } => {
    if (v === null || typeof v !== "object") return { n: 1, chars: String(v).length };
    const known = sizes.get(v);
    if (known !== undefined) return known;
    if (open.has(v)) throw CIRCULAR;
    open.add(v);
    const s = { n: 1, chars: 0 };
    for (const [k, c] of Object.entries(v)) {
      if (!Array.isArray(v) && k === "<<") throw MERGE;
      if (k.length > MAX_IMPLICIT_KEY) throw LONG_KEY;
      const cs = size(c);
      s.n += cs.n;
      s.chars += cs.chars + (Array.isArray(v) ? 0 : k.length);
    }
    open.delete(v);
    sizes.set(v, s);
    return s;
  };
  let expanded: { n: number; chars: number };
  try {
    expanded = size(value);
  } catch (e) {
    if (e === CIRCULAR) return "circular";
    if (e === MERGE) return "merge";
    if (e === LONG_KEY) return "long key";
    throw e;
  }
  // The distinct values: each object once with its direct children.
  let distinct = 1;
  for (const o of sizes.keys()) distinct += Object.keys(o).length;
  return { aliased: Math.max(0, expanded.n - distinct), chars: expanded.chars };
}
const CIRCULAR = Symbol("circular");
const MERGE = Symbol("merge");
const LONG_KEY = Symbol("long key");
/** YAML allows an implicit key of at most 1024 characters (§7.4.2); js-yaml reads longer ones, other readers refuse them. */
const MAX_IMPLICIT_KEY = 1024;

/** The front matter's YAML text (between the `---` lines; the caller checked its length and line ends). */
export function readFrontMatterYaml(source: string): FrontMatterYaml {
  const refuse = (message: string): FrontMatterYaml => ({ ok: false, message });
  if (source.length > MAX_FRONT_MATTER_CHARS) return refuse(`SKILL.md front matter must be at most ${MAX_FRONT_MATTER_CHARS} characters`);
  let root: YamlNode | null = null;
  let data: unknown = null;
  try {
    const events = parseEvents(source, {});
    const values = constructFromEvents(events, { source, schema: CORE_SCHEMA, maxAliases: 50 });
    if (values.length > 1) throw new Error("the front matter holds more than one YAML document");
    data = values[0] ?? null;
    root = eventsToAst(events, { source, schema: CORE_SCHEMA })[0]?.contents ?? null;
  } catch (e) {
    return refuse(`SKILL.md front matter is not valid YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  const aliased = aliasedValues(data);
  if (aliased === "circular") return refuse("SKILL.md front matter must not contain circular aliases (an anchor used inside itself)");
  // Readers that disagree on what a SKILL.md says would let the skill that is listed and scanned differ from the one installed.
  if (aliased === "merge")
    return refuse(
      "SKILL.md front matter must not use '<<' merge keys: YAML 1.1 readers merge them and YAML 1.2 readers (this one) do not, so each would read another skill",
    );
  if (aliased === "long key")
    return refuse(`SKILL.md front matter keys must be at most ${MAX_IMPLICIT_KEY} characters (longer implicit keys are not YAML)`);
  if (aliased.aliased > MAX_ALIASED_VALUES)
    return refuse(`SKILL.md front matter is not valid YAML: its aliases expand to more than ${MAX_ALIASED_VALUES} values (an alias bomb)`);
  if (!data || typeof data !== "object" || Array.isArray(data)) return refuse("SKILL.md front matter must be a YAML mapping");
  if (aliased.chars > MAX_FRONT_MATTER_CHARS)
    return refuse(`SKILL.md front matter is too large: with its aliases expanded it holds more than ${MAX_FRONT_MATTER_CHARS} characters`);
  // Stored as JSON with the version (aliases expanded, bounded above; escapes can still lengthen it).
  const json = JSON.stringify(data);
  if (json.length > MAX_FRONT_MATTER_CHARS)
    return refuse(`SKILL.md front matter is too large: stored as JSON it is more than ${MAX_FRONT_MATTER_CHARS} characters`);
  const fm = data as Record<string, unknown>;
  const aliases = resolveAliases(root);
  // Null when the value read is null (`~`, `!!null ''`), whatever its source text; else the source text.
  const label = (value: unknown, path: string[]) =>
    value === null || value === undefined ? null : (versionLabel(root, path, aliases) ?? String(value));
  const metadata = fm.metadata;
  return {
    ok: true,
    json,
    version: label(fm.version, ["version"]),
    // Only a mapping's `version` is a label (the caller reads `metadata` as a mapping or not at all).
    metadataVersion:
      metadata && typeof metadata === "object" && !Array.isArray(metadata)
        ? label((metadata as Record<string, unknown>).version, ["metadata", "version"])
        : null,
  };
}
