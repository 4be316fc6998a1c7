import { badRequest } from "../core/errors";

/** One uploaded file as the browser named it: a folder upload names it by its relative path, folder first. */
export interface UploadedFile {
  name: string;
  bytes: Uint8Array;
}

/** A file of the skill, at its path inside the skill. */
export interface SkillFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * What operating systems and version control leave in a folder: never part of a skill, and a
 * folder picked in a file manager almost always carries some (`.DS_Store`, a `.git` folder).
 */
const SYSTEM_FILE = /(?:^|\/)(?:\.DS_Store|Thumbs\.db|desktop\.ini|\._[^/]*)$|(?:^|\/)(?:\.git|__MACOSX)\//i;

export const isSystemFile = (name: string) => SYSTEM_FILE.test(name);

const dirOf = (name: string) => (name.includes("/") ? name.slice(0, name.lastIndexOf("/")) : "");
const depth = (dir: string) => (dir === "" ? 0 : dir.split("/").length);
const listed = (names: string[]) =>
  names
    .slice(0, 3)
    .map((n) => `'${n}'`)
    .join(", ") + (names.length > 3 ? ` and ${names.length - 3} more` : "");

/**
 * The skill's files from a dashboard upload: a folder (`<input webkitdirectory>`, each file named
 * `<picked folder>/<path>`) and/or single files (named by their base name).
 *
 * The skill's root is the folder that holds `SKILL.md`: the picked folder itself, or the one
 * folder below it that has one (the shallowest `SKILL.md` wins; a nested one further down is just
 * a file of the skill). Paths are made relative to it, so `my-skill/scripts/run.sh` becomes
 * `scripts/run.sh`. Two candidate roots at the same depth, or files outside the root, are refused
 * with a sentence that says which folder to pick; with no `SKILL.md` at all only the picked
 * folder's name is removed, and the publish operation says what is missing. System files are left
 * out (and counted in `skipped`). Every other rule (path syntax, count, size) is the operation's.
 */
export function skillFiles(folder: readonly UploadedFile[], single: readonly UploadedFile[]): { files: SkillFile[]; skipped: string[] } {
  const skipped: string[] = [];
  const keep = (f: UploadedFile) => {
    if (isSystemFile(f.name)) skipped.push(f.name);
    return !isSystemFile(f.name);
  };
  const tree = folder.filter(keep);
  const files: SkillFile[] = [];
  if (tree.length) {
    const roots = [...new Set(tree.filter((f) => f.name === "SKILL.md" || f.name.endsWith("/SKILL.md")).map((f) => dirOf(f.name)))];
    let root: string;
    if (roots.length) {
      const top = Math.min(...roots.map(depth));
      const shallowest = roots.filter((r) => depth(r) === top);
      if (shallowest.length > 1) {
        throw badRequest(
          `The folder holds more than one skill (${listed(shallowest.map((r) => `${r}/SKILL.md`))}): upload one skill's folder at a time`,
          ["files"],
        );
      }
      root = shallowest[0]!;
      const outside = tree.filter((f) => root !== "" && !f.name.startsWith(`${root}/`)).map((f) => f.name);
      if (outside.length) {
        throw badRequest(
          `${listed(outside)} ${outside.length === 1 ? "is" : "are"} outside the folder that holds SKILL.md ('${root}/'): choose that folder itself`,
          ["files"],
        );
      }
    } else {
      // No SKILL.md anywhere: drop the picked folder's name and let the operation say what is missing.
      root = tree[0]!.name.includes("/") ? tree[0]!.name.slice(0, tree[0]!.name.indexOf("/")) : "";
    }
    for (const f of tree)
      files.push({ path: root && f.name.startsWith(`${root}/`) ? f.name.slice(root.length + 1) : f.name, bytes: f.bytes });
  }
  // Single files: the base name only (old browsers sent a whole client path).
  for (const f of single.filter(keep)) files.push({ path: f.name.split(/[/\\]/).pop()!, bytes: f.bytes });
  return { files, skipped };
}

/** Standard base64 (what the publish operation's `encoding: "base64"` takes), in chunks so a 5 MiB file never overflows the call stack. */
export function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
