/**
 * What a file's bytes are, checked by structure rather than by their first bytes. A PNG signature
 * followed by a shell script is not an image (and `true`, the TrueType tag, is a shell command): a
 * file is only taken as media, a font, a document or an archive when it parses as one from its
 * first byte to its last — PNG chunks with their CRCs, JPEG segments up to the end-of-image
 * marker, GIF blocks up to the trailer, RIFF chunk sizes, font table directories inside the file,
 * MP3 frames back to back, Ogg pages, ISO-BMFF boxes, a ZIP central directory that accounts for
 * every byte. Each check is one bounded pass over the bytes.
 *
 * `identifyBytes` names the format a file's signature claims and whether the file really is one;
 * `printableRuns` lists the text a real binary carries (metadata chunks, PDF syntax), which
 * scanners still read; `readArchive` lists a real ZIP's, gzip's or tar's files, decompressed within
 * a budget, so that an archive is scanned rather than waved through.
 */
import { Inflate, Gunzip } from "fflate";
import { noteLimit } from "./limits";

export type FormatClass = "media" | "document" | "font" | "archive" | "executable";

export interface FormatCheck {
  label: string;
  cls: FormatClass;
  /** Extensions this format is published under. */
  extensions: readonly string[];
  /** The whole file parses as this format. */
  valid: boolean;
  /** Why it does not, when it does not. */
  problem?: string;
}

const u16be = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const u32be = (b: Uint8Array, i: number) =>
  (((b[i] ?? 0) << 24) | ((b[i + 1] ?? 0) << 16) | ((b[i + 2] ?? 0) << 8) | (b[i + 3] ?? 0)) >>> 0;
const u16le = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
const u32le = (b: Uint8Array, i: number) =>
  ((b[i] ?? 0) | ((b[i + 1] ?? 0) << 8) | ((b[i + 2] ?? 0) << 16) | ((b[i + 3] ?? 0) << 24)) >>> 0;
const ascii = (b: Uint8Array, at: number, s: string) => {
  for (let i = 0; i < s.length; i++) if (b[at + i] !== s.charCodeAt(i)) return false;
  return true;
};
const isTagChar = (c: number) => c >= 0x20 && c <= 0x7e;
const tag4 = (b: Uint8Array, at: number) =>
  at + 4 <= b.length && isTagChar(b[at]!) && isTagChar(b[at + 1]!) && isTagChar(b[at + 2]!) && isTagChar(b[at + 3]!);

let CRC: Uint32Array | null = null;
function crc32(b: Uint8Array, from: number, to: number): number {
  if (!CRC) {
    CRC = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = from; i < to; i++) c = CRC[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

type Check = (b: Uint8Array) => string | null;

const png: Check = (b) => {
  let p = 8;
  let first = true;
  while (p + 12 <= b.length) {
    const len = u32be(b, p);
    if (len > 0x7fffffff || p + 12 + len > b.length) return "a chunk runs past the end of the file";
    if (!/^[A-Za-z]{4}$/.test(String.fromCharCode(b[p + 4]!, b[p + 5]!, b[p + 6]!, b[p + 7]!))) return "a chunk has no valid type";
    const type = String.fromCharCode(b[p + 4]!, b[p + 5]!, b[p + 6]!, b[p + 7]!);
    if (first && (type !== "IHDR" || len !== 13)) return "it does not start with an IHDR chunk";
    first = false;
    if (crc32(b, p + 4, p + 8 + len) !== u32be(b, p + 8 + len)) return `the ${type} chunk's CRC does not match`;
    p += 12 + len;
    if (type === "IEND") return p === b.length ? null : "there are bytes after the IEND chunk";
  }
  return "it has no IEND chunk";
};

const jpeg: Check = (b) => {
  let p = 2;
  while (p + 1 < b.length) {
    if (b[p] !== 0xff) return "a segment does not start with a marker";
    while (b[p + 1] === 0xff && p + 2 < b.length) p++;
    const m = b[p + 1]!;
    if (m === 0xd9) {
      // Encoders sometimes pad after the end-of-image marker; anything else is a payload riding along.
      for (let i = p + 2; i < b.length; i++) if (b[i] !== 0 && b[i] !== 0xff) return "there are bytes after the end-of-image marker";
      return null;
    }
    if ((m >= 0xd0 && m <= 0xd7) || m === 0x01) {
      p += 2;
      continue;
    }
    const len = u16be(b, p + 2);
    if (len < 2 || p + 2 + len > b.length) return "a segment runs past the end of the file";
    p += 2 + len;
    if (m === 0xda) {
      // Entropy-coded data: up to the next marker that is not a stuffed 0xFF00 or a restart marker.
      const from = p;
      while (p + 1 < b.length && !(b[p] === 0xff && b[p + 1] !== 0 && !(b[p + 1]! >= 0xd0 && b[p + 1]! <= 0xd7) && b[p + 1] !== 0xff)) p++;
      if (p + 1 >= b.length) {
        // A truncated image (no end marker) still decodes; image data that reads as text does not.
        let printable = 0;
        for (let i = from; i < b.length; i++) if ((b[i]! >= 0x20 && b[i]! < 0x7f) || b[i] === 10) printable++;
        return b.length - from > 64 && printable / (b.length - from) > 0.7 ? "its image data reads as text" : null;
      }
    }
  }
  return "it has no end-of-image marker";
};

const gif: Check = (b) => {
  if (b.length < 13) return "it is shorter than a GIF header";
  let p = 13;
  const flags = b[10]!;
  if (flags & 0x80) p += 3 * (1 << ((flags & 7) + 1));
  const subBlocks = () => {
    while (p < b.length) {
      const n = b[p]!;
      p += 1 + n;
      if (n === 0) return true;
    }
    return false;
  };
  while (p < b.length) {
    const t = b[p]!;
    if (t === 0x3b) return p + 1 === b.length ? null : "there are bytes after the GIF trailer";
    if (t === 0x21) {
      p += 2;
      if (!subBlocks()) return "an extension block runs past the end";
    } else if (t === 0x2c) {
      if (p + 10 > b.length) return "an image descriptor runs past the end";
      const f = b[p + 9]!;
      p += 10;
      if (f & 0x80) p += 3 * (1 << ((f & 7) + 1));
      p += 1;
      if (!subBlocks()) return "image data runs past the end";
    } else return "a block has an unknown type";
  }
  return "it has no GIF trailer";
};

const riff: Check = (b) => {
  const size = u32le(b, 4);
  if (size + 8 !== b.length && size + 9 !== b.length) return "the RIFF size does not match the file";
  let p = 12;
  while (p + 8 <= b.length) {
    if (!tag4(b, p)) return "a chunk has no valid id";
    const len = u32le(b, p + 4);
    p += 8 + len + (len & 1);
    if (p > b.length + 1) return "a chunk runs past the end of the file";
  }
  return p >= b.length ? null : "there are bytes after the last chunk";
};

const bmp: Check = (b) => {
  if (b.length < 26) return "it is shorter than a BMP header";
  const size = u32le(b, 2);
  if (size !== b.length && size !== 0) return "the BMP size does not match the file";
  const dib = u32le(b, 14);
  if (![12, 40, 52, 56, 64, 108, 124].includes(dib)) return "its header size is not a BMP one";
  return u32le(b, 10) < b.length ? null : "its pixel data lies outside the file";
};

const ico: Check = (b) => {
  const count = u16le(b, 4);
  if (count === 0 || 6 + 16 * count > b.length) return "its image directory runs past the end";
  let end = 6 + 16 * count;
  for (let i = 0; i < count; i++) {
    const size = u32le(b, 6 + 16 * i + 8);
    const off = u32le(b, 6 + 16 * i + 12);
    if (off < 6 + 16 * count || off + size > b.length) return "an image lies outside the file";
    end = Math.max(end, off + size);
  }
  return end === b.length ? null : "there are bytes no image entry accounts for";
};

const tiff: Check = (b) => {
  const le = b[0] === 0x49;
  const ifd = le ? u32le(b, 4) : u32be(b, 4);
  if (ifd < 8 || ifd + 2 > b.length) return "its first directory lies outside the file";
  const n = le ? u16le(b, ifd) : u16be(b, ifd);
  return n > 0 && ifd + 2 + 12 * n <= b.length ? null : "its first directory runs past the end";
};

const pdf: Check = (b) => {
  if (!/^%PDF-\d\.\d/.test(String.fromCharCode(...b.subarray(0, 8)))) return "its header has no version";
  const tail = String.fromCharCode(...b.subarray(Math.max(0, b.length - 1024)));
  const eof = tail.lastIndexOf("%%EOF");
  if (eof === -1) return "it has no %%EOF marker";
  if (tail.slice(eof + 5).trim() !== "") return "there are bytes after the %%EOF marker";
  if (!/startxref\s+\d+/.test(tail)) return "it has no startxref";
  // The first object must follow the header (and its binary comment) directly: nothing else rides in front.
  const head = String.fromCharCode(...b.subarray(0, Math.min(b.length, 1024)));
  const obj = /(?:^|[\r\n])\d+\s+\d+\s+obj\b/.exec(head);
  if (!obj) return "no object follows its header";
  const before = head
    .slice(0, obj.index)
    .split(/\r\n|\r|\n/)
    .filter((l) => l.trim());
  return before.every((l) => l.startsWith("%")) ? null : "something other than comments sits between its header and its first object";
};

const sfnt: Check = (b) => {
  const n = u16be(b, 4);
  if (n === 0 || n > 100) return "its table count is not a font's";
  const dirEnd = 12 + 16 * n;
  if (dirEnd > b.length) return "its table directory runs past the end";
  let prev = "";
  const tags = new Set<string>();
  for (let i = 0; i < n; i++) {
    const at = 12 + 16 * i;
    if (!tag4(b, at)) return "a table has no valid tag";
    const t = String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
    if (t <= prev) return "its tables are not in order";
    prev = t;
    tags.add(t);
    const off = u32be(b, at + 8);
    const len = u32be(b, at + 12);
    if (off < dirEnd || off + len > b.length) return `its ${t.trim()} table lies outside the file`;
  }
  return tags.has("head") || tags.has("bhed") || tags.has("CFF ") ? null : "it has no head table";
};

const woff: Check = (b) => {
  if (u32be(b, 8) !== b.length) return "the WOFF length does not match the file";
  const n = u16be(b, 12);
  if (n === 0 || 44 + 20 * n > b.length) return "its table directory runs past the end";
  for (let i = 0; i < n; i++) {
    const at = 44 + 20 * i;
    if (!tag4(b, at)) return "a table has no valid tag";
    if (u32be(b, at + 4) + u32be(b, at + 8) > b.length) return "a table lies outside the file";
  }
  return null;
};

const woff2: Check = (b) => (u32be(b, 8) === b.length && u16be(b, 12) > 0 ? null : "the WOFF2 length does not match the file");

const ttc: Check = (b) => {
  const n = u32be(b, 8);
  if (n === 0 || n > 64 || 12 + 4 * n > b.length) return "its font count is not a collection's";
  for (let i = 0; i < n; i++) if (u32be(b, 12 + 4 * i) + 12 > b.length) return "a font lies outside the file";
  return null;
};

// MPEG audio frame sizes: bit rates (kbit/s) by version and layer, sample rates by version.
const BR: Record<string, number[]> = {
  "1-1": [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  "1-2": [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  "1-3": [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  "2-1": [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  "2-2": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SR: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** Length of the MPEG audio frame at `p`, or 0 when there is none. */
function mpegFrame(b: Uint8Array, p: number): number {
  if (b[p] !== 0xff || ((b[p + 1] ?? 0) & 0xe0) !== 0xe0) return 0;
  const v = ((b[p + 1]! >> 3) & 3) as 0 | 1 | 2 | 3;
  const layer = 4 - ((b[p + 1]! >> 1) & 3);
  const bri = (b[p + 2] ?? 0) >> 4;
  const sri = ((b[p + 2] ?? 0) >> 2) & 3;
  if (v === 1 || layer === 4 || bri === 0 || bri === 15 || sri === 3) return 0;
  const table = v === 3 ? `1-${layer}` : layer === 1 ? "2-1" : "2-2";
  const br = BR[table]![bri]! * 1000;
  const sr = SR[v]![sri]!;
  const pad = ((b[p + 2] ?? 0) >> 1) & 1;
  if (layer === 1) return (Math.floor((12 * br) / sr) + pad) * 4;
  return Math.floor(((layer === 3 && v !== 3 ? 72 : 144) * br) / sr) + pad;
}

const mp3: Check = (b) => {
  let p = 0;
  if (ascii(b, 0, "ID3")) {
    const ver = b[3]!;
    const flags = b[5]!;
    if (ver < 2 || ver > 4 || b[4] === 0xff) return "its ID3 tag version is not valid";
    if (flags & (ver === 4 ? 0x0f : ver === 3 ? 0x1f : 0x3f)) return "its ID3 tag sets undefined flags";
    for (let i = 6; i < 10; i++) if (b[i]! & 0x80) return "its ID3 tag size is not valid";
    const size = ((b[6]! << 21) | (b[7]! << 14) | (b[8]! << 7) | b[9]!) >>> 0;
    p = 10 + size + (ver === 4 && flags & 0x10 ? 10 : 0);
    if (p > b.length) return "its ID3 tag runs past the end of the file";
    while (p < b.length && b[p] === 0) p++;
  }
  let frames = 0;
  while (p < b.length) {
    if (p + 128 === b.length && ascii(b, p, "TAG")) break;
    const len = mpegFrame(b, p);
    if (len < 4) {
      if (frames > 0 && b.length - p <= 512) break;
      return frames ? "its frames stop before the end of the file" : "no audio frame follows its tag";
    }
    p += len;
    frames++;
  }
  return frames > 0 ? null : "it has no audio frames";
};

const ogg: Check = (b) => {
  let p = 0;
  while (p < b.length) {
    if (!ascii(b, p, "OggS") || b[p + 4] !== 0) return "a page does not start with OggS";
    const segs = b[p + 26];
    if (segs === undefined || p + 27 + segs > b.length) return "a page runs past the end";
    let len = 27 + segs;
    for (let i = 0; i < segs; i++) len += b[p + 27 + i]!;
    p += len;
  }
  return p === b.length ? null : "a page runs past the end";
};

const flac: Check = (b) => {
  let p = 4;
  let first = true;
  for (;;) {
    if (p + 4 > b.length) return "its metadata runs past the end";
    const h = b[p]!;
    const type = h & 0x7f;
    const len = (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
    if (first && (type !== 0 || len !== 34)) return "it does not start with STREAMINFO";
    if (type === 127) return "a metadata block has an invalid type";
    first = false;
    p += 4 + len;
    if (p > b.length) return "a metadata block runs past the end";
    if (h & 0x80) break;
  }
  return b[p] === 0xff && ((b[p + 1] ?? 0) & 0xfe) === 0xf8 ? null : "no audio frame follows its metadata";
};

const isobmff: Check = (b) => {
  let p = 0;
  let first = true;
  while (p < b.length) {
    if (p + 8 > b.length) return "a box runs past the end";
    let size = u32be(b, p);
    if (!tag4(b, p + 4)) return "a box has no valid type";
    if (first && !ascii(b, p + 4, "ftyp")) return "it does not start with an ftyp box";
    first = false;
    if (size === 1) {
      const hi = u32be(b, p + 8);
      size = hi * 2 ** 32 + u32be(b, p + 12);
      if (size < 16) return "a box has an invalid size";
    } else if (size === 0) size = b.length - p;
    else if (size < 8) return "a box has an invalid size";
    p += size;
  }
  return p === b.length ? null : "a box runs past the end";
};

const ebml: Check = (b) => {
  // EBML header: its size as a variable-length integer, then a Segment element.
  const first = b[4] ?? 0;
  let w = 1;
  while (w <= 8 && !(first & (0x80 >> (w - 1)))) w++;
  if (w > 8) return "its header size is not valid";
  let size = first & (0xff >> w);
  for (let i = 1; i < w; i++) size = size * 256 + (b[4 + i] ?? 0);
  const seg = 4 + w + size;
  return ascii(b, seg, "\x18\x53\x80\x67") ? null : "no Segment follows its header";
};

const elf: Check = (b) => ((b[4] === 1 || b[4] === 2) && (b[5] === 1 || b[5] === 2) && b[6] === 1 ? null : "its ELF header is not valid");
const pe: Check = (b) => {
  const at = u32le(b, 0x3c);
  return at > 0 && at + 4 <= b.length && ascii(b, at, "PE\0\0") ? null : "it has no PE header";
};
const wasm: Check = (b) => (u32le(b, 4) === 1 ? null : "its WebAssembly version is not valid");

// ---- archives ---------------------------------------------------------------------------------

interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compSize: number;
  size: number;
  local: number;
  dataAt: number;
}

function zipEntries(b: Uint8Array): { entries: ZipEntry[] } | { problem: string } {
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65535); i--) {
    if (b[i] === 0x50 && b[i + 1] === 0x4b && b[i + 2] === 5 && b[i + 3] === 6) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) return { problem: "it has no end-of-central-directory record" };
  if (eocd + 22 + u16le(b, eocd + 20) !== b.length) return { problem: "there are bytes after its central directory" };
  const count = u16le(b, eocd + 10);
  const cdSize = u32le(b, eocd + 12);
  const cdAt = u32le(b, eocd + 16);
  if (cdAt + cdSize !== eocd) return { problem: "its central directory is not where the end record says" };
  const entries: ZipEntry[] = [];
  let p = cdAt;
  for (let i = 0; i < count; i++) {
    if (!(b[p] === 0x50 && b[p + 1] === 0x4b && b[p + 2] === 1 && b[p + 3] === 2))
      return { problem: "a central directory entry is not valid" };
    const nameLen = u16le(b, p + 28);
    const local = u32le(b, p + 42);
    const e: ZipEntry = {
      flags: u16le(b, p + 8),
      method: u16le(b, p + 10),
      compSize: u32le(b, p + 20),
      size: u32le(b, p + 24),
      name: new TextDecoder().decode(b.subarray(p + 46, p + 46 + nameLen)),
      local,
      dataAt: 0,
    };
    if (!(b[local] === 0x50 && b[local + 1] === 0x4b && b[local + 2] === 3 && b[local + 3] === 4))
      return { problem: `the entry ${e.name} has no local header` };
    e.dataAt = local + 30 + u16le(b, local + 26) + u16le(b, local + 28);
    if (e.dataAt + e.compSize > cdAt) return { problem: `the entry ${e.name} runs into the central directory` };
    entries.push(e);
    p += 46 + nameLen + u16le(b, p + 30) + u16le(b, p + 32);
  }
  if (p !== eocd) return { problem: "its central directory has bytes no entry accounts for" };
  // Every byte before the directory belongs to an entry: nothing rides in front of or between them.
  const sorted = [...entries].sort((x, y) => x.local - y.local);
  let at = 0;
  for (const e of sorted) {
    if (e.local !== at) return { problem: "there are bytes before or between its entries that no entry accounts for" };
    at = e.dataAt + e.compSize;
    if (e.flags & 8) at += u32le(b, at) === 0x08074b50 ? 16 : 12;
  }
  if (at !== cdAt) return { problem: "there are bytes between its entries and its central directory" };
  return { entries };
}

const zip: Check = (b) => {
  const r = zipEntries(b);
  return "problem" in r ? r.problem : null;
};

const gzip: Check = (b) => (b[2] === 8 && (b[3]! & 0xe0) === 0 ? null : "its gzip header is not valid");

function tarValid(b: Uint8Array): boolean {
  if (b.length < 512 || b.length % 512 !== 0) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : b[i]!;
  const stored = parseInt(
    String.fromCharCode(...b.subarray(148, 156))
      .replace(/[\0 ]+$/, "")
      .trim(),
    8,
  );
  return stored === sum;
}
const tar: Check = (b) => (tarValid(b) ? null : "its header checksum does not match");

interface Signature {
  test: (b: Uint8Array) => boolean;
  label: string;
  cls: FormatClass;
  extensions: readonly string[];
  check: Check;
}

const SIGNATURES: Signature[] = [
  { test: (b) => b[0] === 0x89 && ascii(b, 1, "PNG\r\n\x1a\n"), label: "PNG image", cls: "media", extensions: ["png", "apng"], check: png },
  {
    test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
    label: "JPEG image",
    cls: "media",
    extensions: ["jpg", "jpeg", "jpe", "jfif"],
    check: jpeg,
  },
  { test: (b) => ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a"), label: "GIF image", cls: "media", extensions: ["gif"], check: gif },
  { test: (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP"), label: "WebP image", cls: "media", extensions: ["webp"], check: riff },
  { test: (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE"), label: "WAV audio", cls: "media", extensions: ["wav"], check: riff },
  { test: (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "AVI "), label: "AVI video", cls: "media", extensions: ["avi"], check: riff },
  { test: (b) => ascii(b, 0, "BM") && b.length > 26, label: "BMP image", cls: "media", extensions: ["bmp", "dib"], check: bmp },
  {
    test: (b) => b[0] === 0 && b[1] === 0 && (b[2] === 1 || b[2] === 2) && b[3] === 0,
    label: "icon",
    cls: "media",
    extensions: ["ico", "cur"],
    check: ico,
  },
  {
    test: (b) => (ascii(b, 0, "II") && b[2] === 42 && b[3] === 0) || (ascii(b, 0, "MM") && b[2] === 0 && b[3] === 42),
    label: "TIFF image",
    cls: "media",
    extensions: ["tif", "tiff"],
    check: tiff,
  },
  { test: (b) => ascii(b, 0, "%PDF-"), label: "PDF document", cls: "document", extensions: ["pdf"], check: pdf },
  { test: (b) => ascii(b, 0, "wOFF"), label: "WOFF font", cls: "font", extensions: ["woff"], check: woff },
  { test: (b) => ascii(b, 0, "wOF2"), label: "WOFF2 font", cls: "font", extensions: ["woff2"], check: woff2 },
  {
    test: (b) => (b[0] === 0 && b[1] === 1 && b[2] === 0 && b[3] === 0) || ascii(b, 0, "true") || ascii(b, 0, "typ1"),
    label: "TrueType font",
    cls: "font",
    extensions: ["ttf"],
    check: sfnt,
  },
  { test: (b) => ascii(b, 0, "OTTO"), label: "OpenType font", cls: "font", extensions: ["otf"], check: sfnt },
  { test: (b) => ascii(b, 0, "ttcf"), label: "font collection", cls: "font", extensions: ["ttc"], check: ttc },
  {
    test: (b) => ascii(b, 4, "ftyp"),
    label: "MP4/QuickTime media",
    cls: "media",
    extensions: ["mp4", "m4v", "m4a", "mov", "3gp", "avif", "heic", "heif"],
    check: isobmff,
  },
  {
    test: (b) => ascii(b, 0, "ID3") || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0),
    label: "MP3 audio",
    cls: "media",
    extensions: ["mp3"],
    check: mp3,
  },
  { test: (b) => ascii(b, 0, "OggS"), label: "Ogg media", cls: "media", extensions: ["ogg", "oga", "ogv", "opus"], check: ogg },
  { test: (b) => ascii(b, 0, "fLaC"), label: "FLAC audio", cls: "media", extensions: ["flac"], check: flac },
  {
    test: (b) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3,
    label: "Matroska/WebM media",
    cls: "media",
    extensions: ["webm", "mkv", "mka"],
    check: ebml,
  },
  {
    test: (b) => b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5),
    label: "zip archive",
    cls: "archive",
    extensions: [
      "zip",
      "docx",
      "xlsx",
      "pptx",
      "odt",
      "ods",
      "odp",
      "epub",
      "jar",
      "apk",
      "whl",
      "vsix",
      "xpi",
      "nupkg",
      "key",
      "pages",
      "numbers",
      "sketch",
      "kmz",
      "3mf",
      "ipa",
      "aar",
    ],
    check: zip,
  },
  { test: (b) => b[0] === 0x1f && b[1] === 0x8b, label: "gzip data", cls: "archive", extensions: ["gz", "tgz", "svgz"], check: gzip },
  { test: (b) => ascii(b, 0, "BZh"), label: "bzip2 data", cls: "archive", extensions: ["bz2", "tbz", "tbz2"], check: () => null },
  { test: (b) => b[0] === 0xfd && ascii(b, 1, "7zXZ"), label: "xz data", cls: "archive", extensions: ["xz", "txz"], check: () => null },
  {
    test: (b) => b[0] === 0x37 && b[1] === 0x7a && b[2] === 0xbc && b[3] === 0xaf,
    label: "7z archive",
    cls: "archive",
    extensions: ["7z"],
    check: () => null,
  },
  { test: (b) => ascii(b, 0, "Rar!"), label: "rar archive", cls: "archive", extensions: ["rar"], check: () => null },
  { test: (b) => b.length > 262 && ascii(b, 257, "ustar"), label: "tar archive", cls: "archive", extensions: ["tar"], check: tar },
  {
    test: (b) => b[0] === 0x7f && ascii(b, 1, "ELF"),
    label: "ELF executable",
    cls: "executable",
    extensions: ["so", "elf", "bin", "o"],
    check: elf,
  },
  {
    test: (b) => ascii(b, 0, "MZ"),
    label: "Windows PE executable",
    cls: "executable",
    extensions: ["exe", "dll", "sys", "scr", "com"],
    check: pe,
  },
  {
    test: (b) => [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(u32be(b, 0)),
    label: "Mach-O executable",
    cls: "executable",
    extensions: ["dylib", "bundle", "so"],
    check: () => null,
  },
  {
    test: (b) => u32be(b, 0) === 0xcafebabe,
    label: "Mach-O universal binary or Java class file",
    cls: "executable",
    extensions: ["class", "dylib"],
    check: () => null,
  },
  { test: (b) => b[0] === 0 && ascii(b, 1, "asm"), label: "WebAssembly module", cls: "executable", extensions: ["wasm"], check: wasm },
];

/** The format a file's leading bytes claim, and whether the whole file is one; null when no signature matches. */
export function identifyBytes(bytes: Uint8Array): FormatCheck | null {
  for (const s of SIGNATURES) {
    if (!s.test(bytes)) continue;
    let problem: string | null;
    try {
      problem = s.check(bytes);
    } catch {
      problem = "it does not parse";
    }
    return { label: s.label, cls: s.cls, extensions: s.extensions, valid: problem === null, ...(problem ? { problem } : {}) };
  }
  return null;
}

/** The format a file name's extension claims (media, documents, fonts, archives, executables), or null. */
export function formatOfName(path: string): { label: string; cls: FormatClass } | null {
  const base = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return null;
  const ext = base.slice(dot + 1);
  for (const s of SIGNATURES) if (s.extensions.includes(ext)) return { label: s.label, cls: s.cls };
  return null;
}

export const extensionMatches = (check: FormatCheck, path: string): boolean => {
  const base = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const dot = base.lastIndexOf(".");
  return dot > 0 && check.extensions.includes(base.slice(dot + 1));
};

/**
 * Runs of printable text inside a binary (at least `min` characters each), joined by line breaks
 * and capped at `max` characters: PNG text chunks, EXIF comments, PDF syntax, strings in a font.
 */
export function printableRuns(bytes: Uint8Array, min = 24, max = 256 * 1024): string {
  const out: string[] = [];
  let total = 0;
  let start = -1;
  // Text past `max` is not read: noted as a limit (a scan of the file cannot pass what it did not read).
  let cut = false;
  const flush = (end: number) => {
    if (start >= 0 && end - start >= min && total < max) {
      if (end - start > max - total) cut = true;
      const s = String.fromCharCode(...bytes.subarray(start, Math.min(end, start + (max - total))));
      out.push(s);
      total += s.length + 1;
    }
    start = -1;
  };
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    const printable = (c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13;
    if (printable) {
      if (start < 0) start = i;
      // String.fromCharCode with a spread is bounded: flush long runs in pieces.
      if (i - start >= 8192) flush(i);
    } else flush(i);
    if (total >= max) {
      if (i + 1 < bytes.length) cut = true;
      break;
    }
  }
  flush(bytes.length);
  if (cut) noteLimit("printable-runs");
  return out.join("\n");
}

// ---- reading archives ----------------------------------------------------------------------------

export interface ArchiveFile {
  name: string;
  bytes: Uint8Array;
}

export interface ArchiveRead {
  files: ArchiveFile[];
  /** What could not be read (encrypted or unsupported entries, the budget reached). */
  unread: string[];
}

/** Inflates raw DEFLATE (or gzip) data, giving up once the output passes `limit` bytes: a bomb costs at most that much work. */
export function inflateBounded(data: Uint8Array, limit: number, gz = false): Uint8Array | null {
  const r = inflateWithin(data, limit, gz);
  return r === "over" ? null : r;
}

/** `inflateBounded` that also says whether the output passed `limit` (a bomb, or a budget too small for it). */
export function inflateOrOver(data: Uint8Array, limit: number, gz = false): Uint8Array | "over" | null {
  return inflateWithin(data, limit, gz);
}

/**
 * Input is pushed in pieces whose worst-case output (deflate expands at most ~1032:1) stays
 * within `budget`, so a bomb costs at most the limit plus that budget; at least 1 KiB, at most
 * 64 KiB. Each push costs fflate a fresh output buffer (the 32 KiB window plus 128 KiB of room,
 * copied as it grows): with 1 KiB pieces a 4 MiB archive spent more time there than inflating.
 */
const pieceFor = (budget: number) => Math.max(1024, Math.min(65_536, Math.floor(budget / 1032)));

/** `inflateBounded`, telling a bomb ("over": the output passed `limit`) from data that is not deflate (null). */
function inflateWithin(data: Uint8Array, limit: number, gz = false, piece = pieceFor(limit)): Uint8Array | "over" | null {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  const stream = gz ? new Gunzip() : new Inflate();
  stream.ondata = (chunk: Uint8Array) => {
    size += chunk.length;
    if (size > limit) over = true;
    else chunks.push(chunk);
  };
  try {
    for (let i = 0; i < data.length && !over; i += piece)
      stream.push(data.subarray(i, Math.min(data.length, i + piece)), i + piece >= data.length);
  } catch {
    return over ? "over" : null;
  }
  if (over) return "over";
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function tarFiles(b: Uint8Array, prefix: string, budget: { left: number }, out: ArchiveRead) {
  for (let p = 0; p + 512 <= b.length; ) {
    const header = b.subarray(p, p + 512);
    if (header.every((x) => x === 0)) break;
    const name = new TextDecoder().decode(header.subarray(0, 100)).replace(/\0.*$/s, "");
    const size = parseInt(new TextDecoder().decode(header.subarray(124, 136)).replace(/\0.*$/s, "").trim() || "0", 8);
    const type = String.fromCharCode(header[156]!);
    if (!Number.isFinite(size) || size < 0) break;
    if ((type === "0" || type === "\0") && name) {
      if (size > budget.left) out.unread.push(`${prefix}${name} (over the reading budget)`);
      else {
        budget.left -= size;
        out.files.push({ name: `${prefix}${name}`, bytes: b.subarray(p + 512, p + 512 + size) });
      }
    }
    p += 512 + Math.ceil(size / 512) * 512;
  }
}

/**
 * The files inside a real ZIP, gzip or tar archive, decompressed within `budget` bytes in all.
 * Encrypted entries, methods other than stored and deflate, and whatever passes the budget are
 * listed as unread. Nested archives are not opened (they are listed as files).
 */
export function readArchive(bytes: Uint8Array, budget = 4 * 1024 * 1024): ArchiveRead | null {
  const check = identifyBytes(bytes);
  if (check?.cls !== "archive" || !check.valid) return null;
  const out: ArchiveRead = { files: [], unread: [] };
  const left = { left: budget };
  if (check.label === "zip archive") {
    const r = zipEntries(bytes);
    if ("problem" in r) return null;
    for (const e of r.entries.slice(0, 500)) {
      if (e.name.endsWith("/")) continue;
      if (e.flags & 1) {
        out.unread.push(`${e.name} (encrypted)`);
        continue;
      }
      const raw = bytes.subarray(e.dataAt, e.dataAt + e.compSize);
      if (e.method === 0) {
        if (raw.length > left.left) out.unread.push(`${e.name} (over the reading budget)`);
        else {
          left.left -= raw.length;
          out.files.push({ name: e.name, bytes: raw });
        }
      } else if (e.method === 8) {
        // Said to be larger than what is left: not inflated (an entry that lies about its size
        // and passes the budget stops the reading below).
        if (e.size > left.left) {
          out.unread.push(`${e.name} (over the reading budget)`);
          continue;
        }
        const data = inflateWithin(raw, left.left, false, pieceFor(budget));
        if (data === "over") {
          // The entry inflated past what was left of the budget: that work is spent (else every
          // entry of a zip of bombs would cost the whole budget again).
          left.left = 0;
          out.unread.push(`${e.name} (over the reading budget)`);
        } else if (!data) out.unread.push(`${e.name} (not valid deflate)`);
        else {
          left.left -= data.length;
          out.files.push({ name: e.name, bytes: data });
        }
      } else out.unread.push(`${e.name} (compression method ${e.method})`);
    }
    if (r.entries.length > 500) out.unread.push(`${r.entries.length - 500} more entries`);
    return out;
  }
  if (check.label === "gzip data") {
    const data = inflateBounded(bytes, left.left, true);
    if (!data) return { files: [], unread: ["its content (over the reading budget or not valid gzip)"] };
    if (data.length > 262 && ascii(data, 257, "ustar")) tarFiles(data, "", { left: Infinity }, out);
    else out.files.push({ name: "(decompressed)", bytes: data });
    return out;
  }
  if (check.label === "tar archive") {
    tarFiles(bytes, "", left, out);
    return out;
  }
  return { files: [], unread: [`its content (${check.label} is not read)`] };
}
