/** What kind of file a path is, by extension and, for bytes, by content: decides which rules read it. */

export type FileKind =
  | "markdown"
  | "shell"
  | "powershell"
  | "batch"
  | "python"
  | "javascript"
  | "ruby"
  | "perl"
  | "php"
  | "go"
  | "json"
  | "yaml"
  | "toml"
  | "html"
  | "text"
  | "binary";

const BY_EXT: Record<string, FileKind> = {
  md: "markdown", mdx: "markdown", markdown: "markdown",
  sh: "shell", bash: "shell", zsh: "shell", fish: "shell", ksh: "shell", command: "shell",
  ps1: "powershell", psm1: "powershell", psd1: "powershell",
  bat: "batch", cmd: "batch",
  py: "python", pyw: "python", ipynb: "json",
  js: "javascript", mjs: "javascript", cjs: "javascript", ts: "javascript", mts: "javascript", cts: "javascript", jsx: "javascript", tsx: "javascript",
  rb: "ruby", pl: "perl", pm: "perl", php: "php", go: "go",
  json: "json", jsonc: "json", json5: "json",
  yaml: "yaml", yml: "yaml", toml: "toml",
  html: "html", htm: "html", svg: "html", xml: "html",
  txt: "text", csv: "text", tsv: "text", ini: "text", cfg: "text", conf: "text", env: "text", sql: "text",
  rs: "text", java: "text", kt: "text", c: "text", h: "text", cpp: "text", cs: "text", swift: "text", lua: "text", r: "text",
  dockerfile: "shell", makefile: "shell", mk: "shell",
};

/** Extensions that must hold text: a binary under one of these names would hide code from the scanner. */
export const TEXT_KINDS: ReadonlySet<FileKind> = new Set(Object.values(BY_EXT));

export function kindFromPath(path: string): FileKind | null {
  const base = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  if (base === "dockerfile" || base === "makefile") return "shell";
  if (base.startsWith(".env")) return "text";
  const dot = base.lastIndexOf(".");
  if (dot <= 0 && !base.startsWith(".")) return null;
  return BY_EXT[base.slice(dot + 1)] ?? null;
}

/** Executable formats by magic number. */
export function executableFormat(bytes: Uint8Array): string | null {
  const b = (i: number) => bytes[i] ?? -1;
  if (b(0) === 0x7f && b(1) === 0x45 && b(2) === 0x4c && b(3) === 0x46) return "ELF executable";
  if (b(0) === 0x4d && b(1) === 0x5a) return "Windows PE executable";
  const m = ((b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3)) >>> 0;
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(m)) return "Mach-O executable";
  if (m === 0xcafebabe) return bytes.length > 8 && b(7) < 0x20 ? "Mach-O universal binary" : "Java class file";
  if (b(0) === 0x00 && b(1) === 0x61 && b(2) === 0x73 && b(3) === 0x6d) return "WebAssembly module";
  return null;
}

/** Archive and compressed formats by magic number: their content cannot be scanned in place. */
export function archiveFormat(bytes: Uint8Array): string | null {
  const b = (i: number) => bytes[i] ?? -1;
  if (b(0) === 0x50 && b(1) === 0x4b && (b(2) === 3 || b(2) === 5 || b(2) === 7)) return "zip archive";
  if (b(0) === 0x1f && b(1) === 0x8b) return "gzip data";
  if (b(0) === 0x42 && b(1) === 0x5a && b(2) === 0x68) return "bzip2 data";
  if (b(0) === 0xfd && b(1) === 0x37 && b(2) === 0x7a && b(3) === 0x58) return "xz data";
  if (b(0) === 0x37 && b(1) === 0x7a && b(2) === 0xbc && b(3) === 0xaf) return "7z archive";
  if (b(0) === 0x52 && b(1) === 0x61 && b(2) === 0x72 && b(3) === 0x21) return "rar archive";
  if (bytes.length > 262 && String.fromCharCode(...bytes.subarray(257, 262)) === "ustar") return "tar archive";
  return null;
}
