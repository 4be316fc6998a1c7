/**
 * The YAML of the harness configuration snippets (Goose's, Continue's): block mappings and
 * sequences of JSON-shaped data, every string value double-quoted, so a URL, a `${VAR}` reference
 * or a `yes` is never read as another type by a YAML 1.1 or 1.2 reader. A double-quoted YAML
 * scalar takes JSON's escapes, so each string is written as its JSON text, with the characters
 * JSON leaves raw and YAML does not (DEL, the C1 controls, NEL and the Unicode line and paragraph
 * separators, which YAML 1.1 reads as line breaks, and the byte-order mark) escaped too.
 *
 * Written here rather than taken from js-yaml, whose dump wrote the same text: js-yaml is about 5%
 * of the compile every cold isolate pays before its first answer (docs/profiling.md, "Start-up"),
 * and this is all of YAML the main Worker writes. test/harnesses/yaml.test.ts checks the output
 * against js-yaml's dump for every harness and reads adversarial documents back with js-yaml.
 */

/**
 * Keys written plain: identifiers no YAML 1.1 or 1.2 reader takes for a boolean, a null or a number
 * (the `yaml` package's YAML 1.1 mode reads `e1` as a float).
 */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const NOT_TEXT = /^(?:y|n|yes|no|on|off|true|false|null|[eE][-+]?[0-9]+)$/i;
const JSON_RAW_YAML_ESCAPED = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;
/** An implicit key is at most 1024 characters (YAML 1.2 §7.4.2, 8.2.2); a longer one is written `? key`. */
const MAX_IMPLICIT_KEY = 1024;

// A lone surrogate has no UTF-8 form: it is written as U+FFFD, as encoding the snippet would.
const quoted = (s: string): string =>
  JSON.stringify(s.toWellFormed()).replace(JSON_RAW_YAML_ESCAPED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

const keyText = (k: string): string => (PLAIN_KEY.test(k) && !NOT_TEXT.test(k) ? k : quoted(k));

/** A mapping's entries as JSON keeps them (an `undefined` value has no key). */
const entriesOf = (v: object): [string, unknown][] => Object.entries(v).filter(([, x]) => x !== undefined);

const isNested = (v: unknown): v is object =>
  v !== null && typeof v === "object" && (Array.isArray(v) ? v.length > 0 : entriesOf(v).length > 0);

function inline(v: unknown): string {
  if (typeof v === "string") return quoted(v);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return Number.isNaN(v) ? ".nan" : v > 0 ? ".inf" : "-.inf";
    // YAML 1.1 reads an exponent without a decimal point (`1e+21`) as text.
    const s = String(v);
    return s.includes("e") && !s.includes(".") ? s.replace("e", ".0e") : s;
  }
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return "[]";
  if (v !== null && typeof v === "object") return "{}";
  // null, and an `undefined` list item (JSON writes null for it).
  return "null";
}

/** The lines of a non-empty mapping or sequence, each starting with `indent`. */
function block(value: object, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (!isNested(item)) {
        out.push(`${indent}- ${inline(item)}`);
        continue;
      }
      // The item's first line shares the dash's line: `- key: value`, `- - value`.
      const from = out.length;
      block(item, `${indent}  `, out);
      out[from] = `${indent}- ${out[from]!.slice(indent.length + 2)}`;
    }
    return;
  }
  for (const [k, v] of entriesOf(value)) {
    const key = keyText(k);
    if (key.length > MAX_IMPLICIT_KEY) {
      // An explicit key: `? "…"`, then `:` and the value.
      out.push(`${indent}? ${key}`);
      if (isNested(v)) {
        out.push(`${indent}:`);
        block(v, `${indent}  `, out);
      } else out.push(`${indent}: ${inline(v)}`);
    } else if (isNested(v)) {
      out.push(`${indent}${key}:`);
      block(v, `${indent}  `, out);
    } else out.push(`${indent}${key}: ${inline(v)}`);
  }
}

/** A JSON-shaped document as YAML, ending with a newline. */
export function toYaml(doc: unknown): string {
  if (!isNested(doc)) return `${inline(doc)}\n`;
  const out: string[] = [];
  block(doc, "", out);
  return `${out.join("\n")}\n`;
}
