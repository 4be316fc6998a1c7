/**
 * Changelog and release-note parsing into dated change records with breaking counts. Formats:
 *   Keep a Changelog   `## [1.2.0] - 2024-01-15`, sections Added/Changed/Deprecated/Removed/Fixed/Security
 *   Changesets         `## 1.2.0`, sections `### Major Changes` (each bullet breaks) / Minor / Patch (no dates)
 *   Conventional Commits in notes: `feat(api)!: …`, `BREAKING CHANGE: …` / `BREAKING-CHANGE: …`
 *   project formats    Express `5.0.0 / 2024-09-10` + `===` + `* breaking: …`; tokio `# 1.48.0 (October 14th, 2025)`;
 *                      pydantic `## v2.0 (2023-06-30)`; FastAPI `## 0.137.0 (2026-06-14)` + `### Breaking Changes`;
 *                      React `## 19.0.0 (December 5, 2024)`; gin `## Gin v1.10.0` (no date); Django `*December 4, 2023*`
 *                      with "Backwards incompatible changes in 5.0" / "Features removed in 5.0" sections (reST or Markdown).
 */
export interface ChangeItem {
  kind: string;
  text: string;
  breaking: boolean;
}

export interface ParsedRelease {
  version: string;
  date: string | null;
  /** Where the date was read ("changelog heading", "release notes date line"). */
  dateBasis: string | null;
  changes: ChangeItem[];
  /** Breaking items; null when the notes list no items at all (not assessed). */
  breaking: number | null;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** `2024-01-15`, `December 5, 2024`, `October 14th, 2025`, `5 December 2024`, `Dec 5, 2024` → `YYYY-MM-DD`. */
export function parseDate(s: string): string | null {
  const isoM = /(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (isoM) return valid(+isoM[1]!, +isoM[2]!, +isoM[3]!);
  const mdy = /\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b/.exec(s);
  if (mdy) {
    const m = monthOf(mdy[1]!);
    if (m) return valid(+mdy[3]!, m, +mdy[2]!);
  }
  const dmy = /\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})\b/.exec(s);
  if (dmy) {
    const m = monthOf(dmy[2]!);
    if (m) return valid(+dmy[3]!, m, +dmy[1]!);
  }
  return null;
}

const monthOf = (name: string) => {
  const n = name.toLowerCase();
  const i = MONTHS.findIndex((m) => m === n || (n.length >= 3 && m.startsWith(n)));
  return i >= 0 ? i + 1 : null;
};

function valid(y: number, m: number, d: number): string | null {
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d || y < 1990 || y > 2100) return null;
  return dt.toISOString().slice(0, 10);
}

const SECTIONS: [RegExp, string, boolean][] = [
  [/^(breaking changes?|breaking|⚠️?\s*breaking changes?)$/i, "breaking", true],
  [/^backwards?[- ]incompatible changes?\b/i, "breaking", true],
  [/^features removed\b/i, "removed", true],
  [/^major changes?$/i, "breaking", true],
  [/^removed$/i, "removed", true],
  [/^minor changes?$/i, "added", false],
  [/^patch changes?$/i, "fixed", false],
  [/^(added|features?|new features?|enhancements?|what's new)$/i, "added", false],
  [/^(changed|changes|what's changed|refactors?|upgrades?|internal|docs|documentation|translations|performance)$/i, "changed", false],
  [/^(deprecated|deprecations|features deprecated\b.*)$/i, "deprecated", false],
  [/^(fixed|fixes|bug ?fixes)$/i, "fixed", false],
  [/^security$/i, "security", false],
  [/^(other|misc|miscellaneous|notes?)$/i, "note", false],
];

function sectionOf(text: string): { kind: string; breaking: boolean } | null {
  const t = text
    .replace(/[*_`:#]/g, "")
    .replace(/\p{Extended_Pictographic}/gu, "")
    .trim();
  for (const [re, kind, breaking] of SECTIONS) if (re.test(t)) return { kind, breaking };
  return null;
}

const VERSION_IN_HEADING =
  /(?:^|[\s[(@])v?(\d+(?:\.\d+){0,3}(?:(?:-|\.)?(?:a|b|rc|alpha|beta|pre|dev|post|canary|next)\.?\d*)*(?:-[0-9A-Za-z.]+)?)(?=$|[\s\])(,:])/i;

/** A version heading's version and date, or null when the heading is not a version heading. */
function versionHeading(text: string): { version: string; date: string | null } | null {
  const t = text.trim();
  if (/^\[?unreleased\]?/i.test(t)) return null;
  if (sectionOf(t)) return null;
  const m = VERSION_IN_HEADING.exec(t);
  if (!m) return null;
  // "Backwards incompatible changes in 5.0" style headings are sections, caught above; prose with a number is not a heading.
  const before = t.slice(0, m.index).trim();
  if (before && !/^(\[|v|version|release|gin|[\w.@/-]+@?)$/i.test(before.replace(/[#\s]+$/, ""))) return null;
  return { version: m[1]!, date: parseDate(t.slice(m.index + m[0].length)) };
}

/** Conventional-commit or explicit markers that make one item breaking. */
export function isBreakingText(text: string): boolean {
  return (
    /\bBREAKING[ -]CHANGES?\b/.test(text) ||
    /^(\*\*|__)?breaking(\s+change)?s?(\*\*|__)?\s*[:!-]/i.test(text) ||
    /^(?:[0-9a-f]{7,40}\s+|\[[^\]]*\]\([^)]*\)\s+)?[a-z]+(?:\([^)]*\))?!:/i.test(text)
  );
}

interface Heading {
  line: number;
  text: string;
}

/** Markdown headings, reST headings (a line underlined by === or ---), and Express's `x.y.z / date` lines. */
function headings(lines: string[]): Heading[] {
  const out: Heading[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const md = /^#{1,4}\s+(.+?)\s*#*\s*$/.exec(l);
    if (md) {
      out.push({ line: i, text: md[1]! });
      continue;
    }
    const next = lines[i + 1];
    if (l.trim() && next && /^\s*(={3,}|-{3,}|~{3,})\s*$/.test(next) && !/^\s*[-*+]\s/.test(l)) {
      out.push({ line: i, text: l.trim() });
      i++;
    }
  }
  return out;
}

function itemsOf(lines: string[], sectionKind: { kind: string; breaking: boolean } | null): ChangeItem[] {
  const items: ChangeItem[] = [];
  let section = sectionKind;
  for (const l of lines) {
    const h = /^#{1,6}\s+(.+)$/.exec(l);
    if (h) {
      section = sectionOf(h[1]!) ?? section;
      continue;
    }
    const b = /^\s{0,3}[-*+]\s+(.+)$/.exec(l);
    const footer = /^(BREAKING[ -]CHANGE):\s*(.+)$/.exec(l.trim());
    if (!b && !footer) continue;
    const text = (b ? b[1]! : `${footer![1]}: ${footer![2]}`).trim().slice(0, 500);
    const breaking = (section?.breaking ?? false) || isBreakingText(text);
    items.push({ kind: breaking && section?.kind !== "removed" ? "breaking" : (section?.kind ?? "note"), text, breaking });
  }
  return items;
}

/** Splits a changelog into releases (newest first as written), each with dated items. */
export function parseChangelog(text: string): ParsedRelease[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const hs = headings(lines);
  const out: ParsedRelease[] = [];
  const versionHeads = hs.map((h) => ({ h, v: versionHeading(h.text) })).filter((x) => x.v);
  for (let k = 0; k < versionHeads.length; k++) {
    const { h, v } = versionHeads[k]!;
    const end = versionHeads[k + 1]?.h.line ?? lines.length;
    const body = lines.slice(h.line + 1, end);
    let date = v!.date;
    let basis: string | null = date ? "changelog heading" : null;
    if (!date) {
      // Django-style date line right under the title: *December 4, 2023*
      const dl = body.slice(0, 8).find((l) => /^\s*\*[A-Z][a-z]+ \d{1,2}(?:st|nd|rd|th)?, \d{4}\*\s*$/.test(l));
      if (dl) {
        date = parseDate(dl);
        basis = date ? "release notes date line" : null;
      }
    }
    // Sections may be reST headings inside the body: turn them into markdown for itemsOf.
    const bodyMd: string[] = [];
    for (let i = 0; i < body.length; i++) {
      const next = body[i + 1];
      if (body[i]!.trim() && next && /^\s*(={3,}|-{3,}|~{3,})\s*$/.test(next) && !/^\s*[-*+]\s/.test(body[i]!)) {
        bodyMd.push(`### ${body[i]!.trim()}`);
        i++;
      } else bodyMd.push(body[i]!);
    }
    const changes = itemsOf(bodyMd, null);
    out.push({
      version: v!.version,
      date,
      dateBasis: basis,
      changes,
      breaking: changes.length ? changes.filter((c) => c.breaking).length : null,
    });
  }
  return out;
}

/** One release's notes (a GitHub release body): its items and breaking count. */
export function parseReleaseNotes(body: string): { changes: ChangeItem[]; breaking: number | null } {
  const changes = itemsOf(body.replace(/\r\n?/g, "\n").split("\n"), null);
  return { changes, breaking: changes.length ? changes.filter((c) => c.breaking).length : null };
}

/** The version in a tag (`v1.2.3`, `react@19.0.0`, `tokio-1.48.0`, `Gin v1.10.0`), or null. */
export function versionFromTag(tag: string): string | null {
  const m = /(?:^|[@\s/-]|^v)v?(\d+\.\d+(?:\.\d+)?(?:[-.+][0-9A-Za-z.-]+)?)$/.exec(tag.trim());
  return m ? m[1]! : null;
}
