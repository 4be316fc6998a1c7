/**
 * Which bundled files a text runs: `sh assets/logo.png`, `python3 fonts/x.ttf`, `source lib.sh`,
 * `. ./env.sh`, `bash -c "$(cat x)"`, `cat x | sh`, `./tool`, `node scripts/setup.js`, an npm
 * lifecycle script, `npm install` in a folder with a package.json. A file that is run is a script
 * whatever its name says, and what it does is part of what the text that runs it asks for. One
 * pass of a few regular expressions per text; names are resolved against the bundle's paths.
 */
import type { FileKind } from "./files";
import { LineIndex } from "./text";
import { noteLimit } from "./limits";

export interface RunRef {
  /** The path as written (quotes and a leading `./` removed). */
  ref: string;
  /** 1-based line of the run instruction. */
  line: number;
  /** What runs it: the file is read as this kind. */
  as: FileKind;
}

const INTERPRETER: [RegExp, FileKind][] = [
  [/^(?:(?:ba|z|da|k|fi|c|tc)?sh|source|\.|exec|busybox\s+sh)$/, "shell"],
  [/^(?:python[\d.]*|py|pypy[\d.]*|uv\s+run|pipenv\s+run\s+python|poetry\s+run\s+python)$/, "python"],
  [/^(?:node|nodejs|deno\s+run|deno|bun(?:\s+run)?|tsx|ts-node|npx\s+(?:tsx|ts-node)|zx)$/, "javascript"],
  [/^ruby$/, "ruby"],
  [/^perl$/, "perl"],
  [/^php$/, "php"],
  [/^(?:pwsh|powershell(?:\.exe)?)(?:\s+-(?:File|f))?$/i, "powershell"],
];

const INTERP = String.raw`(?:(?:ba|z|da|k|fi|c|tc)?sh|source|\.|exec|busybox[ \t]+sh|python[\d.]*|py|pypy[\d.]*|uv[ \t]+run|node|nodejs|deno[ \t]+run|deno|bun(?:[ \t]+run)?|tsx|ts-node|npx[ \t]+(?:tsx|ts-node)|zx|ruby|perl|php|pwsh|powershell(?:\.exe)?(?:[ \t]+-(?:File|f))?)`;
/** An interpreter at a command position, its options, then the file it runs. */
const RUN = new RegExp(
  String.raw`(?:^|[\s;&|({\x60"'\[,]|\$\()(?:sudo[ \t]+(?:-\S+[ \t]+)*)?(?:(?:\/usr)?(?:\/local)?\/bin\/|\/usr\/bin\/env[ \t]+)?(${INTERP})[ \t]+((?:-{1,2}[\w-]+(?:=\S+)?[ \t]+)*)["']?([^\s"'\x60;&|)<>]+)`,
  "gim",
);
/** `bash -c "$(cat x)"`, `eval "$(cat x)"`, `cat x | sh`, `sh < x`, `./x`, `["bash", "x"]`. */
const OTHER: [RegExp, FileKind | null][] = [
  [/\$\(\s*(?:cat|<)\s+["']?([^\s"'`;&|)]+)["']?\s*\)/g, "shell"],
  [/\bcat\s+["']?([^\s"'`;&|)]+)["']?\s*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b/g, "shell"],
  [/\b(?:ba|z|da)?sh\s*<\s*["']?([^\s"'`;&|)]+)/g, "shell"],
  [/(?:^|[\s;&|(`"'])\.\/([\w@%+./-]+)/gm, null],
  [/["'](?:ba|z)?sh["']\s*,\s*["']([^"']+)["']/g, "shell"],
  [/["']python[\d.]*["']\s*,\s*["']([^"']+)["']/g, "python"],
  [/["']node["']\s*,\s*["']([^"']+)["']/g, "javascript"],
];

function kindOf(interp: string): FileKind {
  const i = interp
    .trim()
    .toLowerCase()
    .replace(/^\/usr\/bin\/env\s+/, "");
  for (const [re, kind] of INTERPRETER) if (re.test(i)) return kind;
  return "shell";
}

const MAX_REFS = 200;

/** Run references in a text (scripts, Markdown, package.json). Bounded: at most 200 (a limit noted when it cuts). */
export function findRunRefs(text: string): RunRef[] {
  const out: RunRef[] = [];
  let full = false;
  if (text.length === 0) return out;
  const index = LineIndex.of(text);
  const lineAt = (offset: number) => index.lineOf(offset);
  const push = (ref: string, at: number, as: FileKind | null, interp?: string) => {
    const clean = ref.replace(/^["']|["']$/g, "").replace(/^\.\//, "");
    if (!clean || clean.startsWith("-") || /^(?:\$\w+|\/dev\/|https?:)/.test(clean)) return;
    if (out.length >= MAX_REFS) {
      // One more reference than the cap: the rest of the file's references are not followed.
      full = true;
      noteLimit("run-reference-count", at);
      return;
    }
    out.push({ ref: clean, line: lineAt(at), as: as ?? (interp ? kindOf(interp) : "shell") });
  };
  RUN.lastIndex = 0;
  for (let m = RUN.exec(text); m; m = RUN.exec(text)) {
    const interp = m[1]!;
    const opts = m[2] ?? "";
    // `sh -c '…'` and `python -c …` run inline code; `python -m x` a module: no file.
    if (/(?:^|\s)-[a-z]*[cme]\s*$/i.test(opts) && !/^\.\/|\//.test(m[3]!)) continue;
    // `. ` needs a path after it (a sentence's full stop is not a source command).
    if (interp === "." && !/[/.]/.test(m[3]!)) continue;
    push(m[3]!, m.index + m[0].length - 1, null, interp);
    if (full) break;
  }
  for (const [re, kind] of OTHER) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      push(m[1]!, m.index + m[0].length - 1, kind);
      if (full) break;
    }
    if (full) break;
  }
  return out;
}

/** An npm install in the skill's folder runs its package.json lifecycle scripts. */
export const NPM_INSTALL =
  /\b(?:npm\s+(?:install|i|ci|rebuild)|yarn(?:\s+install)?|pnpm\s+(?:install|i)|bun\s+install)\b(?!\s+(?:-g|--global|[@\w][\w@/.-]*))/;

/**
 * The bundled path a reference names: the exact path, a path that ends with it
 * (`~/.claude/skills/x/scripts/a.sh`, `"$(dirname "$0")/a.sh"`), or a unique base name.
 */
export function resolveRef(ref: string, paths: readonly string[]): string | null {
  const r = ref.replace(/^(?:\$\{?\w+\}?|\$\([^)]*\)|~|\.\.?)\//, "").replace(/^["']|["']$/g, "");
  if (paths.includes(r)) return r;
  const suffix = paths.filter((p) => r.endsWith(`/${p}`) || p.endsWith(`/${r}`));
  if (suffix.length === 1) return suffix[0]!;
  const base = r.slice(r.lastIndexOf("/") + 1);
  if (!base || base.length < 2) return null;
  const byBase = paths.filter((p) => p.slice(p.lastIndexOf("/") + 1) === base);
  return byBase.length === 1 ? byBase[0]! : null;
}
