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
  md: "markdown",
  mdx: "markdown",
  markdown: "markdown",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  fish: "shell",
  ksh: "shell",
  command: "shell",
  ps1: "powershell",
  psm1: "powershell",
  psd1: "powershell",
  bat: "batch",
  cmd: "batch",
  py: "python",
  pyw: "python",
  ipynb: "json",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  ts: "javascript",
  mts: "javascript",
  cts: "javascript",
  jsx: "javascript",
  tsx: "javascript",
  rb: "ruby",
  pl: "perl",
  pm: "perl",
  php: "php",
  go: "go",
  json: "json",
  jsonc: "json",
  json5: "json",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  html: "html",
  htm: "html",
  svg: "html",
  xml: "html",
  txt: "text",
  csv: "text",
  tsv: "text",
  ini: "text",
  cfg: "text",
  conf: "text",
  env: "text",
  sql: "text",
  rs: "text",
  java: "text",
  kt: "text",
  c: "text",
  h: "text",
  cpp: "text",
  cs: "text",
  swift: "text",
  lua: "text",
  r: "text",
  dockerfile: "shell",
  makefile: "shell",
  mk: "shell",
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

/** An inert data format (image, document, font, audio, video) and the extensions it is published under. */
export interface MediaFormat {
  label: string;
  extensions: readonly string[];
}

const ascii = (bytes: Uint8Array, at: number, s: string) => {
  for (let i = 0; i < s.length; i++) if (bytes[at + i] !== s.charCodeAt(i)) return false;
  return true;
};

/**
 * Images, PDFs, fonts, audio and video by magic number. A binary file is only taken as data when
 * its bytes prove one of these and its name agrees (`mediaMatchesPath`); anything else that is not
 * UTF-8 may be a script with a stray byte in front, so scanners read it as text.
 */
export function mediaFormat(bytes: Uint8Array): MediaFormat | null {
  const b = (i: number) => bytes[i] ?? -1;
  if (b(0) === 0x89 && ascii(bytes, 1, "PNG\r\n\x1a\n")) return { label: "PNG image", extensions: ["png", "apng"] };
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return { label: "JPEG image", extensions: ["jpg", "jpeg", "jpe", "jfif"] };
  if (ascii(bytes, 0, "GIF87a") || ascii(bytes, 0, "GIF89a")) return { label: "GIF image", extensions: ["gif"] };
  if (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WEBP")) return { label: "WebP image", extensions: ["webp"] };
  if (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WAVE")) return { label: "WAV audio", extensions: ["wav"] };
  if (ascii(bytes, 0, "BM") && bytes.length > 26 && b(14) >= 12) return { label: "BMP image", extensions: ["bmp", "dib"] };
  if (b(0) === 0 && b(1) === 0 && (b(2) === 1 || b(2) === 2) && b(3) === 0) return { label: "icon", extensions: ["ico", "cur"] };
  if ((ascii(bytes, 0, "II") && b(2) === 42 && b(3) === 0) || (ascii(bytes, 0, "MM") && b(2) === 0 && b(3) === 42))
    return { label: "TIFF image", extensions: ["tif", "tiff"] };
  if (ascii(bytes, 0, "%PDF-")) return { label: "PDF document", extensions: ["pdf"] };
  if (ascii(bytes, 0, "wOFF")) return { label: "WOFF font", extensions: ["woff"] };
  if (ascii(bytes, 0, "wOF2")) return { label: "WOFF2 font", extensions: ["woff2"] };
  if ((b(0) === 0 && b(1) === 1 && b(2) === 0 && b(3) === 0) || ascii(bytes, 0, "true"))
    return { label: "TrueType font", extensions: ["ttf"] };
  if (ascii(bytes, 0, "OTTO")) return { label: "OpenType font", extensions: ["otf"] };
  if (ascii(bytes, 0, "ttcf")) return { label: "font collection", extensions: ["ttc"] };
  if (ascii(bytes, 4, "ftyp")) {
    const brand = String.fromCharCode(b(8), b(9), b(10), b(11));
    if (/^(?:avif|avis)$/.test(brand)) return { label: "AVIF image", extensions: ["avif"] };
    if (/^(?:heic|heix|mif1|msf1|hevc)$/.test(brand)) return { label: "HEIF image", extensions: ["heic", "heif"] };
    return { label: "MP4/QuickTime media", extensions: ["mp4", "m4v", "m4a", "mov", "3gp"] };
  }
  if (ascii(bytes, 0, "ID3") || (b(0) === 0xff && (b(1) & 0xe0) === 0xe0)) return { label: "MP3 audio", extensions: ["mp3"] };
  if (ascii(bytes, 0, "OggS")) return { label: "Ogg media", extensions: ["ogg", "oga", "ogv", "opus"] };
  if (ascii(bytes, 0, "fLaC")) return { label: "FLAC audio", extensions: ["flac"] };
  if (b(0) === 0x1a && b(1) === 0x45 && b(2) === 0xdf && b(3) === 0xa3)
    return { label: "Matroska/WebM media", extensions: ["webm", "mkv", "mka"] };
  return null;
}

/** The file's extension is one its media format is published under (a PNG named `setup` is not an image to a shell). */
export function mediaMatchesPath(format: MediaFormat, path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const dot = base.lastIndexOf(".");
  return dot > 0 && format.extensions.includes(base.slice(dot + 1));
}

const SHEBANG_KINDS: [RegExp, FileKind][] = [
  [/^(?:ba|z|da|k|c|tc|fi|a)?sh$|^busybox$/, "shell"],
  [/^python[\d.]*$|^pypy[\d.]*$|^uv$/, "python"],
  [/^(?:node|nodejs|deno|bun|tsx|ts-node|zx)$/, "javascript"],
  [/^ruby[\d.]*$/, "ruby"],
  [/^perl[\d.]*$/, "perl"],
  [/^php[\d.]*$/, "php"],
  [/^(?:pwsh|powershell)(?:\.exe)?$/, "powershell"],
];

/** What a file without a telling extension is, from its first line (`#!/usr/bin/env python3`, `<?php`). */
export function kindFromContent(text: string): FileKind | null {
  const first = text.slice(0, 200).replace(/^\uFEFF/, "");
  if (first.startsWith("<?php")) return "php";
  if (!first.startsWith("#!")) return null;
  const words = first.slice(2, `${first}\n`.indexOf("\n")).trim().split(/\s+/);
  let prog = words[0]?.slice(words[0].lastIndexOf("/") + 1) ?? "";
  // `#!/usr/bin/env -S python3 -u`: the program is the first word that is not an option of env.
  if (prog === "env") prog = words.slice(1).find((w) => !w.startsWith("-") && !w.includes("=")) ?? "";
  for (const [re, kind] of SHEBANG_KINDS) if (re.test(prog)) return kind;
  return null;
}

/**
 * Text from bytes that are not valid UTF-8, so nothing goes unread: UTF-16 (with a byte-order
 * mark, or by the pattern of zero bytes) as UTF-16, anything else as UTF-8 with each invalid byte
 * replaced by U+FFFD (`bash` runs the rest of such a file all the same).
 */
export function decodeLenient(bytes: Uint8Array): string {
  const b = (i: number) => bytes[i] ?? -1;
  const utf16 = (le: boolean, from: number) => {
    let body = bytes.subarray(from, from + ((bytes.length - from) & ~1));
    if (!le) {
      const swapped = new Uint8Array(body.length);
      for (let i = 0; i + 1 < body.length; i += 2) {
        swapped[i] = body[i + 1]!;
        swapped[i + 1] = body[i]!;
      }
      body = swapped;
    }
    return new TextDecoder("utf-16le", { fatal: false, ignoreBOM: true }).decode(body);
  };
  if (b(0) === 0xff && b(1) === 0xfe) return utf16(true, 2);
  if (b(0) === 0xfe && b(1) === 0xff) return utf16(false, 2);
  const sample = Math.min(bytes.length & ~1, 4096);
  if (sample >= 8) {
    let zeroEven = 0;
    let zeroOdd = 0;
    for (let i = 0; i < sample; i += 2) {
      if (bytes[i] === 0) zeroEven++;
      if (bytes[i + 1] === 0) zeroOdd++;
    }
    const pairs = sample / 2;
    if (zeroOdd > pairs * 0.4 && zeroEven < pairs * 0.05) return utf16(true, 0);
    if (zeroEven > pairs * 0.4 && zeroOdd < pairs * 0.05) return utf16(false, 0);
  }
  return new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(bytes);
}
