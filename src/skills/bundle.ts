/**
 * A skill bundle: the files of one publish, validated and decoded, its SKILL.md front matter, and
 * its discovery artifact (the SKILL.md bytes, or a deterministic .tar.gz of every file). Pure: no
 * storage here, so the same code serves the publish route, the seed loader and the rescan.
 */
import { gzipSync } from "fflate";
import { ApiError, badRequest } from "../core/errors";
import { sha256Hex } from "../core/crypto";
import { decodeBase64 } from "../scan/base64";
import { kindFromPath, TEXT_KINDS } from "../scan/files";
import { MAX_FRONT_MATTER_CHARS, type FrontMatterYaml } from "./scanner/types";

export const MAX_FILES = 100;
export const MAX_BUNDLE_BYTES = 5 * 1024 * 1024;
export const MAX_PATH = 200;
export const MAX_DESCRIPTION = 1024;
export const NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const TAG_RE = /^[a-z0-9@][a-z0-9@/._+-]{0,34}$/;
export const MAX_TAGS = 20;

export interface FileInput {
  path: string;
  content: string;
  encoding?: "utf8" | "base64";
}

export interface BundleFile {
  path: string;
  bytes: Uint8Array;
  /** UTF-8 text, or null when the bytes are not text (an image, for example). */
  text: string | null;
  /** SHA-256 hex of the bytes: the R2 key and the per-file digest. */
  digest: string;
}

export interface FrontMatter {
  name: string;
  description: string;
  /** `version` or `metadata.version`, when the author set one. */
  version: string | null;
  tags: string[];
  category: string | null;
  raw: Record<string, unknown>;
  /** `raw` as JSON, made while parsing: front matter that cannot be stored (circular aliases) is a 400 there. */
  rawJson: string;
}

export interface Bundle {
  files: BundleFile[];
  skillMd: BundleFile & { text: string };
  frontMatter: FrontMatter;
  totalBytes: number;
}

export interface Artifact {
  type: "skill-md" | "archive";
  bytes: Uint8Array;
  /** SHA-256 hex. */
  digest: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** RFC rules for file paths in a skill (and what the `skills` CLI accepts): see docs/behaviour-skills.md. */
export function pathProblem(path: string): string | null {
  if (path.length === 0) return "must not be empty";
  if (path.length > MAX_PATH) return `must be at most ${MAX_PATH} characters`;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "must be relative (no absolute paths)";
  if (path.includes("\\")) return "must use forward slashes";
  if (path.includes("..")) return "must not contain '..'";
  if (!/^[\x21-\x7e]+$/.test(path)) return "must be printable ASCII without spaces";
  if (/[?#[\]%:*"<>|]/.test(path)) return 'must not contain ? # [ ] % : * " < > |';
  const parts = path.split("/");
  if (parts.some((p) => p === "" || p === ".")) return "must not contain empty or '.' segments";
  return null;
}

/** Standard base64 with padding and nothing else (no whitespace, no URL-safe alphabet). */
const decodeBase64Strict = (s: string): Uint8Array | null =>
  s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s) ? decodeBase64(s) : null;

/** Decodes and checks every file; throws the contract's 400/413 with the offending path. */
export async function decodeFiles(input: readonly FileInput[]): Promise<BundleFile[]> {
  if (input.length === 0) throw badRequest("A skill needs at least SKILL.md", ["files"]);
  if (input.length > MAX_FILES) throw badRequest(`A skill has at most ${MAX_FILES} files (got ${input.length})`, ["files"]);
  const seen = new Map<string, string>();
  const files: BundleFile[] = [];
  let total = 0;
  for (const [i, f] of input.entries()) {
    const where = ["files", i, "path"];
    const problem = pathProblem(f.path);
    if (problem) throw badRequest(`File path '${f.path}' ${problem}`, where);
    const lower = f.path.toLowerCase();
    const clash = seen.get(lower);
    if (clash) throw badRequest(`File path '${f.path}' appears twice (as '${clash}'; paths are compared case-insensitively)`, where);
    seen.set(lower, f.path);
    let bytes: Uint8Array;
    if ((f.encoding ?? "utf8") === "base64") {
      const b = decodeBase64Strict(f.content);
      if (!b) throw badRequest(`File '${f.path}' is not valid base64`, ["files", i, "content"]);
      bytes = b;
    } else {
      if (!f.content.isWellFormed())
        throw badRequest(`File '${f.path}' contains unpaired surrogates (not encodable as UTF-8)`, ["files", i, "content"]);
      bytes = new TextEncoder().encode(f.content);
    }
    total += bytes.byteLength;
    if (total > MAX_BUNDLE_BYTES) {
      throw new ApiError("PAYLOAD_TOO_LARGE", `A skill's files total at most ${MAX_BUNDLE_BYTES} bytes (5 MiB)`, {
        limit: MAX_BUNDLE_BYTES,
      });
    }
    let text: string | null = null;
    try {
      text = utf8.decode(bytes);
    } catch {
      const kind = kindFromPath(f.path);
      // A script or a Markdown file must be readable text: binary bytes under such a name would hide code from the scanner.
      if (kind && TEXT_KINDS.has(kind))
        throw badRequest(`File '${f.path}' is not valid UTF-8 (text files must be UTF-8)`, ["files", i, "content"]);
    }
    files.push({ path: f.path, bytes, text, digest: await sha256Hex(bytes) });
  }
  // A path cannot be both a file and a folder (`a` and `a/b`): no file system could hold both.
  for (const p of seen.keys()) {
    const parts = p.split("/");
    for (let k = 1; k < parts.length; k++) {
      const prefix = parts.slice(0, k).join("/");
      if (seen.has(prefix)) throw badRequest(`'${seen.get(prefix)}' is a file and also a folder of '${seen.get(p)}'`, ["files"]);
    }
  }
  return files;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

function asTags(v: unknown): string[] {
  if (typeof v === "string") return v.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
  return [];
}

export function normalizeTags(tags: readonly string[], where: (string | number)[]): string[] {
  const out = new Set<string>();
  for (const t of tags) {
    const tag = t.trim().toLowerCase();
    if (!TAG_RE.test(tag)) throw badRequest(`Tag '${t}' must be 1-35 characters of a-z 0-9 @ / . _ + - (lowercase)`, where);
    out.add(tag);
  }
  if (out.size > MAX_TAGS) throw badRequest(`At most ${MAX_TAGS} tags`, where);
  return [...out];
}

/** Reads the front matter's YAML: in the scanner Worker (readFrontMatterRemote), or in-process in a test. */
export type FrontMatterReader = (source: string) => Promise<FrontMatterYaml> | FrontMatterYaml;

/**
 * Parses and checks SKILL.md's YAML front matter (agentskills.io: `name`, `description`). The YAML
 * itself is read by `readYaml` (src/skills/scanner/front-matter.ts, in the scanner Worker); its
 * refusals are this function's 400s.
 */
export async function parseFrontMatter(text: string, readYaml: FrontMatterReader): Promise<FrontMatter> {
  const where = ["files", "SKILL.md"];
  const m = FRONT_MATTER.exec(text);
  const bareCr = "SKILL.md front matter must use LF or CRLF line ends, not bare CR (the skills CLI reads only those)";
  if (!m && text.startsWith("---") && /\r(?!\n)/.test(text)) throw badRequest(bareCr, where);
  if (!m) throw badRequest("SKILL.md must start with YAML front matter between '---' lines (no byte-order mark before it)", where);
  const source = m[1]!;
  // YAML reads a lone CR as a line break but the `skills` CLI splits front matter on \r?\n only: it
  // would read `name: x\rdescription: …` as one line, so the skill it installs is not the one listed.
  if (/\r(?!\n)/.test(source)) throw badRequest(bareCr, where);
  // YAML 1.1 readers break lines at NEL, LS and PS, YAML 1.2 readers do not; a BOM inside a key makes
  // `\ufeffversion` look like `version`. Each would let two readers see two skills.
  if (/[\u0085\u2028\u2029\ufeff]/.test(source))
    throw badRequest(
      "SKILL.md front matter must not contain U+0085, U+2028, U+2029 or a byte-order mark (YAML readers disagree on them)",
      where,
    );
  if (source.length > MAX_FRONT_MATTER_CHARS)
    throw badRequest(`SKILL.md front matter must be at most ${MAX_FRONT_MATTER_CHARS} characters`, where);
  const yaml = await readYaml(source);
  if (!yaml.ok) throw badRequest(yaml.message, where);
  const rawJson = yaml.json;
  const fm = JSON.parse(rawJson) as Record<string, unknown>;
  const name = fm.name;
  if (typeof name !== "string" || name.length < 1 || name.length > 64 || !NAME_RE.test(name)) {
    throw badRequest(
      "SKILL.md front matter 'name' must be 1-64 characters of a-z, 0-9 and single hyphens, not starting or ending with a hyphen",
      [...where, "name"],
    );
  }
  const description = fm.description;
  if (typeof description !== "string" || description.trim() === "" || description.length > MAX_DESCRIPTION) {
    throw badRequest(`SKILL.md front matter 'description' must be a non-empty string of at most ${MAX_DESCRIPTION} characters`, [
      ...where,
      "description",
    ]);
  }
  const metadata =
    fm.metadata && typeof fm.metadata === "object" && !Array.isArray(fm.metadata) ? (fm.metadata as Record<string, unknown>) : {};
  const version = yaml.version ?? yaml.metadataVersion;
  if (version !== null && !/^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/.test(version)) {
    throw badRequest("SKILL.md 'version' must be 1-64 characters of letters, digits, '.', '+', '_' or '-'", [...where, "version"]);
  }
  const category = typeof metadata.category === "string" ? metadata.category : null;
  return {
    name,
    description: description.trim(),
    version,
    tags: normalizeTags(asTags(metadata.tags), [...where, "metadata", "tags"]),
    category,
    raw: fm,
    rawJson,
  };
}

/** Decodes the files, requires SKILL.md at the root and checks its front matter. */
export async function readBundle(input: readonly FileInput[], readYaml: FrontMatterReader): Promise<Bundle> {
  const files = await decodeFiles(input);
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw badRequest("A skill needs a SKILL.md file at its root", ["files"]);
  if (skillMd.text === null) throw badRequest("SKILL.md must be UTF-8 text", ["files", "SKILL.md"]);
  const frontMatter = await parseFrontMatter(skillMd.text, readYaml);
  return {
    files: files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    skillMd: skillMd as Bundle["skillMd"],
    frontMatter,
    totalBytes: files.reduce((n, f) => n + f.bytes.byteLength, 0),
  };
}

// ---- the archive ---------------------------------------------------------------------------

const enc = new TextEncoder();

function writeString(buf: Uint8Array, offset: number, length: number, s: string) {
  const b = enc.encode(s);
  buf.set(b.subarray(0, length), offset);
}

const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, "0")}\0`;

/** Splits a path into ustar name (≤ 100 bytes) and prefix (≤ 155 bytes) at a slash. */
function ustarName(path: string): { name: string; prefix: string } {
  if (path.length <= 100) return { name: path, prefix: "" };
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (prefix.length <= 155 && name.length <= 100) return { name, prefix };
  }
  throw badRequest(`File path '${path}' is too long for an archive (a name part over 100 characters)`, ["files"]);
}

function tarHeader(path: string, size: number): Uint8Array {
  const h = new Uint8Array(512);
  const { name, prefix } = ustarName(path);
  writeString(h, 0, 100, name);
  writeString(h, 100, 8, octal(0o644, 8));
  writeString(h, 108, 8, octal(0, 8));
  writeString(h, 116, 8, octal(0, 8));
  writeString(h, 124, 12, octal(size, 12));
  writeString(h, 136, 12, octal(0, 12));
  writeString(h, 148, 8, "        ");
  h[156] = 0x30; // '0': a regular file. No links, no folders: the CLI writes folders as it extracts.
  writeString(h, 257, 6, "ustar\0");
  writeString(h, 263, 2, "00");
  writeString(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  writeString(h, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return h;
}

/**
 * The archive of a multi-file skill: ustar, files in byte order of their paths at the archive
 * root, mode 0644, owner 0, time 0, then gzip (fflate, level 9, no timestamp, no name). The same
 * files always give the same bytes, so the digest is stable and can be recomputed.
 */
export function buildArchive(files: readonly { path: string; bytes: Uint8Array }[]): Uint8Array {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let size = 1024;
  for (const f of sorted) size += 512 + Math.ceil(f.bytes.byteLength / 512) * 512;
  const tar = new Uint8Array(size);
  let at = 0;
  for (const f of sorted) {
    tar.set(tarHeader(f.path, f.bytes.byteLength), at);
    at += 512;
    tar.set(f.bytes, at);
    at += Math.ceil(f.bytes.byteLength / 512) * 512;
  }
  return gzipSync(tar, { level: 9, mtime: 0 });
}

/** The discovery artifact: SKILL.md alone, or the archive of every file. */
export async function buildArtifact(bundle: Pick<Bundle, "files" | "skillMd">): Promise<Artifact> {
  if (bundle.files.length === 1) return { type: "skill-md", bytes: bundle.skillMd.bytes, digest: bundle.skillMd.digest };
  const bytes = buildArchive(bundle.files);
  return { type: "archive", bytes, digest: await sha256Hex(bytes) };
}

/** Content type a discovery file is served with: text is text, nothing is ever HTML or script for a browser. */
export function contentTypeFor(path: string, isText: boolean): string {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  if (ext === "md" || ext === "markdown") return "text/markdown; charset=utf-8";
  if (ext === "json") return "application/json; charset=utf-8";
  if (ext === "yaml" || ext === "yml") return "application/yaml; charset=utf-8";
  const images: Record<string, string> = {
    png: "image/png",
    jpg: "image/jpeg",
    jpeg: "image/jpeg",
    gif: "image/gif",
    webp: "image/webp",
    ico: "image/x-icon",
    pdf: "application/pdf",
  };
  if (images[ext]) return images[ext]!;
  if (ext === "gz" || ext === "tgz") return "application/gzip";
  return isText ? "text/plain; charset=utf-8" : "application/octet-stream";
}
