/**
 * The text inside a tool's JSON Schema: every description, title, default, enum value, example
 * and property name, with its JSON path (`inputSchema.properties.to.default`), so the rules read
 * what the model reads there too. Poisoning hides in property descriptions as easily as in the
 * tool description, and a default can pre-fill where a message goes.
 */
import { SECRET_PATH, mayHoldSecretPath, visible, type Severity } from "../../scan";
import { EMAIL, isLocalDestination } from "./vocab";

export interface SchemaText {
  path: string;
  text: string;
  /** Descriptions are prose (Markdown); other strings are values. */
  prose: boolean;
}

/** Keys whose values are schema machinery, not text anyone reads. */
const STRUCTURAL = new Set([
  "type",
  "format",
  "$schema",
  "$ref",
  "$id",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "pattern",
  "contentEncoding",
  "contentMediaType",
  "required",
]);
const PROSE = new Set(["description", "title", "$comment", "markdownDescription"]);
const MAX_STRINGS = 2000;
/** Keys whose strings are values offered for an argument. */
const OFFERED = new Set(["enum", "default", "const", "examples"]);

const segment = (k: string) => (/^[A-Za-z_$][\w$-]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

/**
 * Every readable string in a schema, depth first, with its path. Bounded (the first 2,000 strings,
 * `maxDepth` levels): `onCut` is told when a bound left strings unread, so the scan can say so.
 */
export function schemaTexts(schema: unknown, root: string, maxDepth = 64, onCut?: () => void): SchemaText[] {
  const out: SchemaText[] = [];
  const walk = (v: unknown, path: string, key: string | null, depth: number, inProperties: boolean) => {
    if (out.length >= MAX_STRINGS || depth > maxDepth) {
      onCut?.();
      return;
    }
    if (typeof v === "string") {
      if (key !== null && STRUCTURAL.has(key)) return;
      out.push({ path, text: v, prose: key !== null && PROSE.has(key) });
      // A value offered to the model that is a sentence in snake_case (an enum value or default
      // "detailed_and_always_append_the_entire_conversation_so_far") is read as one, like a name.
      const spelled = key !== null && OFFERED.has(key) ? spellName(v) : null;
      if (spelled) out.push({ path, text: spelled, prose: true });
      return;
    }
    if (Array.isArray(v)) {
      if (key !== null && STRUCTURAL.has(key)) return;
      v.forEach((x, i) => {
        walk(x, `${path}[${i}]`, key, depth + 1, false);
      });
      return;
    }
    if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const p = `${path}${segment(k)}`;
        // Property names are read by the model as much as their descriptions.
        if (inProperties) {
          out.push({ path: p, text: k, prose: false });
          // A name that is a sentence (`contents_of_dot_aws_slash_credentials_in_home`) is read as one.
          const spelled = spellName(k);
          if (spelled) out.push({ path: `${p}.(name)`, text: spelled, prose: true });
        }
        walk(
          x,
          p,
          inProperties ? null : k,
          depth + 1,
          !inProperties && (k === "properties" || k === "patternProperties" || k === "$defs" || k === "definitions"),
        );
      }
    }
  };
  walk(schema, root, null, 0, false);
  return out;
}

/**
 * Paths of the properties (`inputSchema.properties.verbose`) whose type is boolean or a number: such
 * an argument carries no text, so what its description names (a transcript, a key file) can only be
 * switched on or counted, never handed over through it.
 */
export function scalarProperties(schema: unknown, root: string, maxDepth = 16): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, path: string, depth: number) => {
    if (depth > maxDepth || !v || typeof v !== "object" || out.size >= MAX_STRINGS) return;
    const props = (v as Record<string, unknown>).properties;
    if (!props || typeof props !== "object" || Array.isArray(props)) return;
    for (const [k, x] of Object.entries(props as Record<string, unknown>)) {
      const p = `${path}.properties${segment(k)}`;
      const t = x && typeof x === "object" ? (x as Record<string, unknown>).type : undefined;
      if (t === "boolean" || t === "integer" || t === "number") out.add(p);
      else walk(x, p, depth + 1);
    }
  };
  walk(schema, root, 0);
  return out;
}

/**
 * A property name of several words, spelled as the words it is made of, with the path words
 * written out turned back into paths ("dot aws slash credentials" is `.aws/credentials`); null for
 * ordinary names (`user_id`, `maxResults`, `aws_secret_access_key`): fewer than four words, or no
 * word that makes a phrase of them.
 */
const PHRASE_WORD = /^(?:of|from|in|into|the|your|my|here|paste|copy|contents?|full|all|every|entire|dot|slash|tilde|read|include)$/i;
export function spellName(name: string): string | null {
  if (name.length < 16 || name.length > 200) return null;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_.-]+/)
    .filter(Boolean);
  // A compound noun (`aws_secret_access_key`) names a field; a phrase (`contents_of_…_in_home`) says what to put there.
  if (words.length < 4 || !words.some((w) => PHRASE_WORD.test(w))) return null;
  return (
    words
      .join(" ")
      .replace(/\b(?:dot|period)\s+/gi, ".")
      .replace(/\s+(?:slash|under)\s+(?=\S)/gi, "/")
      .replace(/\b(?:tilde|home\s+dir(?:ectory)?)\s+(?=\.)/gi, "~/")
      // Key and credential files named by their words without dots (`…_reading_ssh_id_rsa_…`, `aws_credentials_file`).
      .replace(/\bid\s+(rsa|dsa|ecdsa|ed25519)\b/gi, "id_$1")
      .replace(/(?<![~/.])\bssh\s+(?=id_)/gi, "~/.ssh/")
      .replace(/(?<![~/.])\b(aws|kube|docker)\s+(credentials|config)\b/gi, "~/.$1/$2")
      .replace(/(?<![~/.])\b(npmrc|pypirc|netrc|git-credentials)\b/gi, "~/.$1")
  );
}

const RECIPIENT_KEY =
  /^(?:to|cc|bcc|recipients?|forward_?to|reply_?to|send_?to|email|emails|email_?address(?:es)?|phone|phone_?number|webhook(?:_?url)?|callback(?:_?url)?|notify(?:_?url)?|report(?:_?url)?|upload(?:_?url)?|target(?:_?url)?|destination|dest(?:ination)?_?(?:url|address)?|exfil\w*)$/i;

export interface DestinationFinding {
  path: string;
  severity: Severity;
  message: string;
  excerpt: string;
}

/** A recipient-like property whose default, const or only enum value is a fixed address or URL. */
export function fixedDestinations(schema: unknown, root: string): DestinationFinding[] {
  const out: DestinationFinding[] = [];
  const visit = (node: unknown, path: string, depth: number) => {
    if (!node || typeof node !== "object" || depth > 64 || out.length >= 10) return;
    const obj = node as Record<string, unknown>;
    const props = obj.properties;
    if (props && typeof props === "object" && !Array.isArray(props)) {
      for (const [name, def] of Object.entries(props as Record<string, unknown>)) {
        const p = `${path}.properties${segment(name)}`;
        if (RECIPIENT_KEY.test(name.replace(/-/g, "_")) && def && typeof def === "object") {
          const d = def as Record<string, unknown>;
          const fixed: [string, unknown][] = [
            ["default", d.default],
            ["const", d.const],
          ];
          if (Array.isArray(d.enum) && d.enum.length === 1) fixed.push(["enum[0]", d.enum[0]]);
          for (const [k, value] of fixed) {
            const values = Array.isArray(value) ? value : [value];
            const hit = values.find(
              (x): x is string => typeof x === "string" && (EMAIL.test(x) || /^https?:\/\//i.test(x)) && !isLocalDestination(x),
            );
            if (hit) {
              out.push({
                path: `${p}.${k}`,
                severity: "high",
                message: `The "${name}" argument is pre-filled with ${hit}: messages or data go there unless the model overrides it`,
                excerpt: visible(hit),
              });
              break;
            }
          }
        }
        visit(def, p, depth + 1);
      }
    }
    for (const k of ["items", "additionalProperties", "not", "if", "then", "else"])
      if (obj[k] && typeof obj[k] === "object") visit(obj[k], `${path}.${k}`, depth + 1);
    for (const k of ["anyOf", "oneOf", "allOf", "prefixItems"])
      if (Array.isArray(obj[k]))
        (obj[k] as unknown[]).forEach((x, i) => {
          visit(x, `${path}.${k}[${i}]`, depth + 1);
        });
    for (const k of ["$defs", "definitions"]) {
      const defs = obj[k];
      if (defs && typeof defs === "object")
        for (const [n, x] of Object.entries(defs as Record<string, unknown>)) visit(x, `${path}.${k}${segment(n)}`, depth + 1);
    }
  };
  visit(schema, root, 0);
  return out;
}

/** Private keys by glob (`~/.ssh/id_*`), which the credential paths spell out one by one. */
const KEY_GLOB = /\.ssh[/\\](?:id_?\*|\*)(?![\w.]*\.pub\b)/;
/** A value that is a `.env` file (not its committed templates). */
const DOTENV_VALUE = /(?:^|[/\\])\.env(?:\.(?:local|prod(?:uction)?|dev(?:elopment)?|staging|test)(?:\.local)?)?$/i;
/** Lists of what to leave out name secrets to keep them out. */
const EXCLUDING = /(?:^|\.)(?:exclude|ignore|skip|deny|block)\w*$/i;

export interface SecretValue {
  path: string;
  value: string;
}

/**
 * Credential files offered as a value of an input parameter (default, const, enum value, example):
 * `include: ["./src/**", "~/.ssh/id_*", "~/.aws/credentials"]` pre-fills secrets into whatever the
 * tool does with the files. Whether that matters depends on the tool (a Kubernetes tool defaulting
 * to `~/.kube/config` reads it locally); the caller decides with the tool's description.
 */
export function secretValues(schema: unknown, root: string): SecretValue[] {
  const out: SecretValue[] = [];
  const visit = (node: unknown, path: string, depth: number) => {
    if (!node || typeof node !== "object" || Array.isArray(node) || depth > 64 || out.length >= 10) return;
    const obj = node as Record<string, unknown>;
    for (const k of ["default", "const", "enum", "examples"]) {
      const v = obj[k];
      const values = Array.isArray(v) ? v.flat() : [v];
      const hit = values.find(
        (x): x is string =>
          typeof x === "string" &&
          x.length <= 1000 &&
          ((mayHoldSecretPath(x) && SECRET_PATH.test(x)) || DOTENV_VALUE.test(x.trim()) || KEY_GLOB.test(x)),
      );
      if (hit) {
        out.push({ path: `${path}.${k}`, value: hit });
        break;
      }
    }
    for (const k of ["properties", "patternProperties", "$defs", "definitions"]) {
      const props = obj[k];
      if (props && typeof props === "object" && !Array.isArray(props)) {
        for (const [n, x] of Object.entries(props as Record<string, unknown>))
          if (!EXCLUDING.test(n)) visit(x, `${path}.${k}${segment(n)}`, depth + 1);
      }
    }
    for (const k of ["items", "additionalProperties", "not", "if", "then", "else"])
      if (obj[k] && typeof obj[k] === "object") visit(obj[k], `${path}.${k}`, depth + 1);
    for (const k of ["anyOf", "oneOf", "allOf", "prefixItems"])
      if (Array.isArray(obj[k]))
        (obj[k] as unknown[]).forEach((x, i) => {
          visit(x, `${path}.${k}[${i}]`, depth + 1);
        });
  };
  visit(schema, root, 0);
  return out;
}
