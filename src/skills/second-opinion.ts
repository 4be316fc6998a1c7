/**
 * The skill scan with its second opinion (src/scan/judge.ts): what publish and the rescan store.
 * Without a configured judge this is the rules' scan as it is.
 */
import { excerpt } from "../scan/text";
import { sortFindings, type Finding } from "../scan/types";
import { secondOpinion, type Judge, type ScanLayer } from "../scan/judge";
import { wholeTextSpan, type UncertainSpan } from "../scan/uncertain";
import type { SkillScan } from "./scanner/types";

export interface JudgedSkillScan {
  status: SkillScan["status"];
  findings: Finding[];
  /** The version to store (the rules', marked decided or owed by the judge when one is configured). */
  rulesetVersion: string;
  layers: ScanLayer[];
}

/** Bundled files SKILL.md may point the agent to that the whole-text review reads, at most. */
const REFERENCED_FILES = 8;

/**
 * The instruction text a judge of scope "all" reads whole: SKILL.md (front matter included: its
 * description is what an agent reads first), then the text files SKILL.md names (by path, or by
 * file name when that is unambiguous), in the order it names them. Binary files are the rules' alone.
 */
export function skillReviewTexts(files: readonly { path: string; text: string | null }[]): UncertainSpan[] {
  const skill = files.find((f) => f.path === "SKILL.md");
  if (!skill?.text) return [];
  const body = skill.text;
  // One pass over SKILL.md (up to the publish limit), not one search per file: where each path-like
  // word first stands, whole ("notes.md", trailing full stops dropped) and by every tail after a slash.
  const whole = new Map<string, number>();
  const tails = new Map<string, number>();
  for (const m of body.matchAll(/[\p{L}\p{N}_./-]+/gu)) {
    const word = m[0].replace(/\.+$/, "").replace(/^\.\//, "");
    if (!word || whole.has(word)) continue;
    whole.set(word, m.index);
    for (let i = word.indexOf("/"); i >= 0; i = word.indexOf("/", i + 1)) {
      const tail = word.slice(i + 1);
      if (tail && !tails.has(tail)) tails.set(tail, m.index);
    }
  }
  const baseCount = new Map<string, number>();
  for (const f of files) {
    const base = f.path.split("/").pop()!;
    baseCount.set(base, (baseCount.get(base) ?? 0) + 1);
  }
  const named: { at: number; path: string; text: string }[] = [];
  for (const f of files) {
    if (f === skill || f.text === null || !f.text.trim()) continue;
    const base = f.path.split("/").pop()!;
    let at = whole.get(f.path) ?? tails.get(f.path) ?? -1;
    // By its file name alone when no other file has that name and the name is a real file name.
    if (at < 0 && baseCount.get(base) === 1 && base.includes(".") && base.length >= 4) at = whole.get(base) ?? -1;
    if (at >= 0) named.push({ at, path: f.path, text: f.text });
  }
  named.sort((a, b) => a.at - b.at);
  return [
    wholeTextSpan("SKILL.md", body, "the skill's instructions, read as a whole: what do they make the agent do, and for whom?"),
    ...named
      .slice(0, REFERENCED_FILES)
      .map((f) => wholeTextSpan(f.path, f.text, "a file SKILL.md tells the agent to read or run, read as a whole")),
  ];
}

export async function judgeSkillScan(
  judge: Judge | null,
  scan: SkillScan,
  files: readonly { path: string; text: string | null }[] = [],
): Promise<JudgedSkillScan> {
  const review = judge && judge.scope !== "uncertain" ? skillReviewTexts(files) : [];
  const v = await secondOpinion<Finding>(judge, { ...scan, review }, (span, ruleId, severity, message) => {
    const first = span.covers.length ? scan.findings[span.covers[0]!] : undefined;
    return {
      ruleId,
      severity,
      path: span.path,
      line: first?.line ?? span.line,
      excerpt: first?.excerpt ?? excerpt(span.text.split("\n")[0] ?? ""),
      message,
    };
  });
  return { status: v.status, findings: sortFindings(v.findings), rulesetVersion: v.rulesetVersion, layers: v.layers };
}
