/**
 * What a skill bundles besides text: executables (ELF, PE, Mach-O, Java classes, WebAssembly)
 * run code nobody can read, and archives hide files from the scanner. A skill is instructions and
 * scripts; it has no need to ship compiled code.
 */
import { archiveFormat, executableFormat, type Rule } from "../../../scan";

const EXECUTABLE_EXT = /\.(?:exe|dll|so|dylib|bin|elf|com|scr|msi|pyc|pyo|class|jar|node|wasm|apk|app|dmg|pkg|deb|rpm)$/i;
const ARCHIVE_EXT = /\.(?:zip|tar|tgz|gz|bz2|xz|7z|rar|zst)$/i;

export const bundledExecutable: Rule = {
  id: "files.executable",
  severity: "high",
  title: "Bundled executable",
  kinds: ["binary"],
  bytes(bytes, target) {
    const format = executableFormat(bytes);
    if (format) return [{ message: `Bundles a compiled program (${format}) that cannot be reviewed or scanned` }];
    if (EXECUTABLE_EXT.test(target.path))
      return [{ message: `Bundles a compiled or packaged program (${target.path.split(".").pop()}) that cannot be reviewed or scanned` }];
    return [];
  },
};

/**
 * An archive whose files the scanner could not read (bzip2, xz, 7z, rar, encrypted or oversized
 * entries). ZIP, gzip and tar archives are opened and every file inside is scanned like any other.
 */
export const bundledArchive: Rule = {
  id: "files.archive",
  severity: "medium",
  title: "Bundled archive",
  kinds: ["binary"],
  bytes(bytes, target) {
    const format = archiveFormat(bytes);
    if (target.contents) {
      if (!target.contents.unread.length) return [];
      return [
        {
          message: `Bundles ${format ?? "an archive"} with files the scanner could not read: ${target.contents.unread.slice(0, 5).join(", ")}`,
        },
      ];
    }
    if (format || ARCHIVE_EXT.test(target.path)) {
      return [{ message: `Bundles ${format ?? "an archive"}: the files inside it are not scanned` }];
    }
    return [];
  },
};

/**
 * A file whose bytes, name and use disagree: it starts like an image, a font or a PDF but does
 * not parse as one (a polyglot), it is named like one but is text, or SKILL.md runs it as a
 * script. The reasons are worked out when the targets are built (src/skills/scanner/index.ts).
 */
export const disguisedFile: Rule = {
  id: "files.disguised",
  severity: "high",
  title: "File that is not what it claims",
  unbudgeted: true,
  kinds: [
    "binary",
    "markdown",
    "shell",
    "powershell",
    "batch",
    "python",
    "javascript",
    "ruby",
    "perl",
    "php",
    "go",
    "json",
    "yaml",
    "toml",
    "html",
    "text",
  ],
  text(_text, ctx) {
    const d = ctx.target.disguise;
    if (!d || ctx.hidden) return [];
    return [{ index: 0, length: 0, severity: d.severity, message: d.message }];
  },
  bytes(_bytes, target) {
    const d = target.disguise;
    return d ? [{ severity: d.severity, message: d.message }] : [];
  },
};

/**
 * Bytes that are neither UTF-8 text nor a format they prove (see `toTargets`): scanned as text
 * with the invalid bytes replaced, and never listed as they are. Nobody can review such a file in
 * a browser or an editor, and a shell or an interpreter still runs what it holds.
 */
export const unknownBinary: Rule = {
  id: "files.unknown-binary",
  severity: "medium",
  title: "Binary file of unknown type",
  unbudgeted: true,
  text(_text, ctx) {
    if (!ctx.target.lossy || ctx.hidden || ctx.target.disguise) return [];
    return [
      {
        index: 0,
        length: 0,
        message:
          "Not UTF-8 text and not a recognised image, document, font or media file: scanned as text with its invalid bytes replaced; publish text as UTF-8",
      },
    ];
  },
};

export const FILE_RULES: Rule[] = [bundledExecutable, bundledArchive, unknownBinary, disguisedFile];
