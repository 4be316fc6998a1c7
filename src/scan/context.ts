/**
 * Where a line of a document stands: an instruction, or writing about something. Security skills
 * quote the attacks they look for (a red-flag table, a fenced "what a malicious step looks like —
 * do not run", a YARA or Sigma rule file, a fixture of injection payloads); a rule that fires there
 * is reporting the description, not the attack. This module marks those regions once per text so
 * that every rule (and the intent model) can tell them apart, in time linear in the text:
 *   - fenced blocks whose lead-in line, first comment or section heading says they are examples,
 *     indicators or vulnerable code;
 *   - table rows of a table whose header catalogues patterns, rules or signals;
 *   - whole files that are detection rules (YARA, Sigma, Semgrep) or test payload fixtures.
 * A plain "For example:" counts only in a skill whose stated purpose is security work: elsewhere an
 * attacker could dress a payload up as an example.
 */
import { LineIndex, RecentByText } from "./text";
import type { FileKind } from "./files";

/**
 * Words that say a passage describes an attack rather than asks for one. A signature counts as a
 * detection's pattern, not where it is an email, commit or code signature the skill makes.
 */
export const STRONG_EXAMPLE_CUE =
  /\b(?:do(?:es)?\s+not\s+(?:run|execute|use|apply)|don'?t\s+(?:run|execute)|never\s+(?:run|execute)|not\s+(?:be\s+)?executed|quoted|indicators?|iocs?|malicious|malware|vulnerable|insecure|unsafe|dangerous|attack(?:s|er|ers)?|payloads?|observed|found\s+in|defang(?:ed)?|injected|injections?|poison(?:ed|ing)?|red[- ]flags?|bad\s+(?:example|practice)|what\s+not\s+to|anti-?patterns?|exploit(?:s|ed)?|worm|backdoor(?:ed)?|trojan(?:ed)?|detects?|detections?|(?<!\b(?:e-?mail|digital|code|commit|gpg|pgp|ssh|cryptographic|webhook|request|hmac|type|function|method|message|pdf|document|electronic|handwritten)[\s-])signatures?|suspicious|compromised|phishing|typical\s+findings?|looks?\s+like\s+this|positive\s+(?:sample|case|for)|negative\s+(?:sample|case|for)|sigma|yara|semgrep|ssrf|❌|✗)(?!\w)/i;
// "e.g." ends in a full stop, after which `\b` never holds at the end of a line: it is matched apart.
// A proof of concept is how a penetration test writes the payload it demonstrates, and "Bad (flagged):" how a
// scanner's documentation shows what a rule catches (security skills only).
export const WEAK_EXAMPLE_CUE =
  /\b(?:examples?|for\s+instance|such\s+as|like\s+this|samples?|sample\s+output|would\s+look|pocs?|proofs?[- ]of[- ]concept|flagged)\b|\be\.g\./i;
/** A table header that catalogues patterns (a red-flag table, a rule catalogue, a threat table). */
const CATALOGUE_HEADER =
  /\b(?:patterns?|signals?|red\s+flags?|indicators?|iocs?|rules?|catches|triggers?(?:\s+on)?|threats?|attacks?|techniques?|signatures?|why\s+it\s+matters|detects?|detection|example|severity|looks\s+like|finding)\b/i;

/** Headings over sections that catalogue what to look for. */
const HEADING_CUE =
  /\b(?:red\s+flags?|don'?ts|look(?:s|ing)?\s+for|know\s+what|what\s+\w+\s+(?:did|does|do|looks?\s+like)|catalog(?:ue)?|signals?|indicators?|threats?|channels)\b/i;
/** Headings that say what follows is not to be done ("Never do this", "Anti-patterns", "Avoid"): fences under them are examples too. */
const NEGATING_HEADING =
  /\b(?:never\s+do|don'?t\s+do|do\s+not\s+do|don'?ts|anti-?patterns?|(?:bad|insecure|unsafe|vulnerable|dangerous)\s+(?:examples?|practices?|code|patterns?|versions?)|what\s+not\s+to\s+do|wrong\s+way)\b/i;
/** Not to be run: said of the things a heading lists ("never run them", "do not execute these"). */
const RUN_FORBIDDEN = /\b(?:never|do\s+not|don'?t)\s+(?:run|execute|try|paste)\s+(?:them|these|those|any\s+of\s+(?:them|these))\b/i;
/** A catalogue entry's heading rates a severity ("### remote-code-execution (high)"): what follows is a specimen of it. */
const SEVERITY_HEADING = /\(\s*(?:critical|high|medium|low)\s*\)\s*$|[-–—:]\s*(?:critical|high|medium|low)\s*$/i;
/** Fence languages that hold text or data, never commands. */
const DATA_FENCE =
  /^(?:text|txt|plain|plaintext|markdown|md|json|jsonc|json5|yaml|yml|xml|html|http|log|email|eml|ini|cfg|conf|properties|toml)$/;
/** Fence languages of detection rules: every string in them is a pattern to look for. */
const DETECTION_FENCE = /^(?:yara|yar|sigma|semgrep|snort|suricata|zeek|kql|spl)$/;
/** …and, in a skill whose purpose is security work, headings over rules, patterns and examples. */
const SECURITY_HEADING_CUE = /\b(?:rules?|patterns?|checks?|checklist|examples?|findings?|triggers?|cases?|payloads?|samples?|tests?)\b/i;

/** The purpose a skill states (front matter, first heading) is security work: auditing, detection, response. */
const SECURITY_PURPOSE =
  /\b(?:secur\w*|audit\w*|scan(?:s|ner|ners|ning)?|detect\w*|hunt\w*|triage|incident|threat\w*|harden\w*|defen[cs]\w*|vulnerab\w*|malware|forensic\w*|red[- ]team\w*|pentest\w*|penetration\s+test\w*|prompt[- ]injection|exfiltration|attacks?|sigma|yara|semgrep|siem|iocs?|compromis\w*|ctf|leaked?\s+(?:secrets?|credentials?))\b/i;

export function securityPurpose(skillMd: string): boolean {
  const head = skillMd.slice(0, 4000);
  const fm = /^---\r?\n([\s\S]*?)\r?\n---/.exec(head)?.[1] ?? "";
  const desc = /^(?:description|name)\s*:.*$/gim;
  let stated = "";
  for (const m of fm.matchAll(desc)) stated += ` ${m[0]}`;
  stated += ` ${/^#\s+(.+)$/m.exec(head)?.[1] ?? ""}`;
  return SECURITY_PURPOSE.test(stated);
}

/** Line roles. */
export const LineKind = { Prose: 0, Fence: 1, FenceMark: 2, Heading: 3, Table: 4, Front: 5 } as const;

export interface DocContext {
  lines: LineIndex;
  /** Per 1-based line (index 0 unused): LineKind. */
  kind: Uint8Array;
  /** Per line: 1 when it sits in a region that describes rather than instructs. */
  describes: Uint8Array;
  /** Section number of a line (a new one at every heading). */
  section: (line: number) => number;
  /** First and last line of a section. */
  sectionLines: (section: number) => [number, number];
  /** The language tag of the fence a line is in ("" for none). */
  fenceLang: (line: number) => string;
}

const FENCE = /^\s{0,12}(```+|~~~+)\s*([\w+#.-]*)/;
const HEADING = /^\s{0,3}#{1,6}\s/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+\S/;
const COMMENT_LINE = /^\s*(?:#(?!!)|\/\/|--|<!--|;|rem\s)/i;

/**
 * Roles of a Markdown document's lines. `security` is the skill's stated purpose (`securityPurpose`):
 * only then does a plain "for example" lead-in make a fenced block descriptive.
 */
const recent = [new RecentByText<DocContext>(), new RecentByText<DocContext>()];

export function markdownContext(text: string, lines?: LineIndex, security = false): DocContext {
  // The rules, the intent model and the description context of one scan read the same text in turn.
  const cache = recent[security ? 1 : 0]!;
  return cache.get(text) ?? cache.set(text, buildContext(text, lines ?? LineIndex.of(text), security));
}

function buildContext(text: string, lines: LineIndex, security: boolean): DocContext {
  const n = lines.count;
  const kind = new Uint8Array(n + 2);
  const describes = new Uint8Array(n + 2);
  // Headings' lines, in order: a line's section is the number of headings at or before it (no per-line array).
  const headings: number[] = [];
  const langs = new Map<number, string>();
  let sec = 0;
  let fence: { mark: string; from: number; lang: string } | null = null;
  let lastProse = "";
  let lastProseLine = 0;
  let leadIn = "";
  let headingDescribes = false;
  // Open headings by level: a sub-heading under "Red flags" or "Never do this" stays in it.
  const open: { level: number; describes: boolean; negating: boolean }[] = [];
  let negating = false;
  let tableDescribes = false;
  let inTable = false;
  let listLead = false;
  let listDescribes = false;
  const cue = (s: string) => STRONG_EXAMPLE_CUE.test(s) || (security && WEAK_EXAMPLE_CUE.test(s));
  let l = 1;
  // Front matter.
  if (text.startsWith("---")) {
    for (let k = 2; k <= Math.min(n, 200); k++) {
      if (/^---\s*$/.test(lines.line(k))) {
        for (let j = 1; j <= k; j++) kind[j] = LineKind.Front;
        l = k + 1;
        break;
      }
    }
  }
  for (; l <= n; l++) {
    // Blank lines (a text of millions of them is a valid input) take no slicing and no regular expression.
    const start = lines.startOf(l);
    const c0 = text.charCodeAt(start);
    if (start >= text.length || c0 === 10 || (c0 === 13 && text.charCodeAt(start + 1) === 10)) {
      if (fence) {
        kind[l] = LineKind.Fence;
      } else {
        kind[l] = LineKind.Prose;
        inTable = false;
        if (headingDescribes) describes[l] = 1;
      }
      continue;
    }
    const line = lines.line(l);
    if (fence) {
      const m = FENCE.exec(line);
      if (m && m[1]!.startsWith(fence.mark[0]!) && m[1]!.length >= fence.mark.length && !m[2]) {
        kind[l] = LineKind.FenceMark;
        fence = null;
        continue;
      }
      kind[l] = LineKind.Fence;
      continue;
    }
    const f = FENCE.exec(line);
    if (f) {
      kind[l] = LineKind.FenceMark;
      fence = { mark: f[1]!, from: l, lang: (f[2] ?? "").toLowerCase() };
      langs.set(l, fence.lang);
      // Lead-in: the last prose line shortly before, or the first line inside if it is a comment. (A
      // heading alone does not make a block of commands an example: that is where the commands are.)
      // Text, not commands: a quoted tool description or message under a "patterns to look for" heading is a specimen.
      let example =
        negating ||
        DETECTION_FENCE.test(fence.lang) ||
        (headingDescribes && DATA_FENCE.test(fence.lang)) ||
        (l - lastProseLine <= 3 && (cue(lastProse) || cue(leadIn)));
      if (!example) {
        for (let k = l + 1; k <= Math.min(n, l + 3); k++) {
          const inner = lines.line(k);
          if (FENCE.test(inner)) break;
          if (!inner.trim()) continue;
          if (COMMENT_LINE.test(inner) && cue(inner)) example = true;
          break;
        }
      }
      if (example) {
        describes[l] = 1;
        for (let k = l + 1; k <= n; k++) {
          const inner = lines.line(k);
          const m = FENCE.exec(inner);
          describes[k] = 1;
          if (m && m[1]!.startsWith(f[1]![0]!) && m[1]!.length >= f[1]!.length && !m[2]) break;
        }
      }
      continue;
    }
    if (HEADING.test(line)) {
      listLead = false;
      listDescribes = false;
      kind[l] = LineKind.Heading;
      headings.push(l);
      sec++;
      const level = /^\s*(#+)/.exec(line)![1]!.length;
      while (open.length && open[open.length - 1]!.level >= level) open.pop();
      const parent = open[open.length - 1];
      const own = cue(line) || HEADING_CUE.test(line) || (security && SECURITY_HEADING_CUE.test(line));
      // A heading that catalogues what to look for and says not to run what it lists ("Red flags (examples
      // of what to flag, never run them)") introduces specimens, commands included.
      negating =
        NEGATING_HEADING.test(line) ||
        (security && SEVERITY_HEADING.test(line)) ||
        ((HEADING_CUE.test(line) || (security && SECURITY_HEADING_CUE.test(line))) && RUN_FORBIDDEN.test(line)) ||
        (parent?.negating ?? false);
      headingDescribes = own || negating || (parent?.describes ?? false);
      open.push({ level, describes: headingDescribes, negating });
      inTable = false;
      if (headingDescribes) describes[l] = 1;
      continue;
    }
    if (TABLE_ROW.test(line) || (inTable && TABLE_RULE.test(line))) {
      kind[l] = LineKind.Table;
      if (!inTable) {
        inTable = true;
        tableDescribes = CATALOGUE_HEADER.test(line) || headingDescribes;
      }
      if (tableDescribes || headingDescribes) describes[l] = 1;
      continue;
    }
    inTable = false;
    kind[l] = LineKind.Prose;
    if (headingDescribes) describes[l] = 1;
    // A list introduced by a line that says it lists red flags or examples ("Red flags, in order of severity:").
    if (LIST_ITEM.test(line)) {
      if (listLead) listDescribes = true;
      listLead = false;
      if (listDescribes) describes[l] = 1;
    } else if (line.trim()) {
      if (listDescribes && /^\s+\S/.test(line)) describes[l] = 1;
      else {
        listDescribes = false;
        listLead = /:\s*$/.test(line) && cue(line);
      }
    }
    if (line.trim()) {
      // A lead-in sentence wrapped over two lines ("Examples of **malicious** entries seen\nin the wild:").
      leadIn = lastProseLine === l - 1 && !/[.!?]\s*$/.test(lastProse) ? `${lastProse} ${line}` : line;
      lastProse = line;
      lastProseLine = l;
    }
  }
  const sectionOf = (line: number) => {
    let lo = 0;
    let hi = headings.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (headings[mid]! <= line) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return {
    lines,
    kind,
    describes,
    section: sectionOf,
    sectionLines: (k: number) => [k === 0 ? 1 : headings[k - 1]!, k < headings.length ? headings[k]! - 1 : n],
    // The opening fence above a fenced line (one walk per call: callers ask once per block).
    fenceLang: (line: number) => {
      let k = line;
      while (k > 0 && kind[k] !== LineKind.FenceMark) k--;
      return langs.get(k) ?? "";
    },
  };
}

/** "Run the above", "execute it now", "paste that into your terminal": what was shown, now to be done. */
export const RUN_WHAT_WAS_SHOWN =
  /\b(?:run|execute|apply|paste|type|use|do)\s+(?:it|this|that|them|these|those|the\s+(?:above|command|commands|line|lines|snippet|example|one\s+above))\b/i;

// Line-start patterns read blanks as [ \t]*, never \s*: under the m flag \s* runs on across the
// newlines and back, and a text of a million blank lines took minutes.
const YARA = /^[ \t]*(?:(?:private|global)[ \t]+)*rule[ \t]+\w+[^\n]*$/m;
const YARA_PARTS = /^[ \t]*(?:strings|condition|meta)[ \t]*:/m;
const SIGMA = /^[ \t]*logsource[ \t]*:/m;
const SIGMA_DETECTION = /^[ \t]*detection[ \t]*:/m;
const SEMGREP = /^[ \t]*rules[ \t]*:/m;
const SEMGREP_PATTERN = /^[ \t]*-?[ \t]*(?:pattern(?:s|-either|-regex|-inside|-not|-not-inside)?|metavariable-regex)\s*:/m;
const TESTISH_PATH = /(?:^|\/)(?:tests?|fixtures?|payloads?|samples?|corpus|testdata|cases|evals?)(?:\/|[._-]|$)/i;
const FIXTURE_KEYS = /^[ \t]*-?[ \t]*["']?(?:expect(?:ed)?|label|verdict|should(?:_\w+)?|category|attack|payload)["']?\s*:/im;

/**
 * A file of detection rules (YARA, Sigma, Semgrep) or of labelled test payloads: every string in
 * it is a pattern to look for, not something to do. Only data kinds qualify (a script is code
 * whatever its folder), and a file a skill runs is never taken for one (the caller checks).
 */

export function ruleDataFile(path: string, kind: FileKind, text: string): string | null {
  if (!["yaml", "json", "text", "toml"].includes(kind) && !/\.(?:yara?|sigma|rules?)$/i.test(path)) return null;
  const head = text.slice(0, 200_000);
  if (/\.yara?$/i.test(path) || (YARA.test(head) && YARA_PARTS.test(head))) return "a YARA rule file";
  if (SIGMA.test(head) && SIGMA_DETECTION.test(head)) return "a Sigma rule file";
  if (SEMGREP.test(head) && SEMGREP_PATTERN.test(head)) return "a Semgrep rule file";
  if (TESTISH_PATH.test(path) && FIXTURE_KEYS.test(head)) return "a file of labelled test payloads";
  return null;
}

const cache = new WeakMap<object, { text: string; security: boolean; ctx: DocContext }>();
/** `markdownContext` of a target's text, computed once per target object (rules of one scan share it). */
export function contextOf(target: { text: string | null }, security = false): DocContext | null {
  if (target.text === null) return null;
  const hit = cache.get(target);
  if (hit && hit.text === target.text && hit.security === security) return hit.ctx;
  const ctx = markdownContext(target.text, LineIndex.of(target.text), security);
  cache.set(target, { text: target.text, security, ctx });
  return ctx;
}

/** The instructions make a step wait for the user: a destructive or persistent change done at the user's request. */
export const CONSENT_CUE =
  /\b(?:only\s+(?:after|if|when|once)\s+(?:the\s+user|they|the\s+team)\s+(?:confirms?|agrees?|approves?|asks?|says?\s+yes|explicitly\s+asks?)|(?:ask|check\s+with|confirm\s+with)\s+the\s+user\s+(?:first|before)|after\s+(?:the\s+user|they)\s+(?:confirms?|agrees?|approves?|says?\s+yes)|with\s+the\s+user'?s\s+(?:explicit\s+)?(?:ok|okay|approval|consent|go-ahead|confirmation|agreement)|(?:wait|ask)\s+for\s+(?:a|an\s+explicit|the\s+user'?s)\s+(?:yes|go-ahead|confirmation|approval)|unless\s+the\s+user\s+(?:explicitly\s+)?asks|(?:confirm|agree)\s+(?:it\s+)?with\s+the\s+(?:user|team)|the\s+user\s+(?:must|has\s+to)\s+(?:confirm|approve)|only\s+(?:after|if|when|once)\s+(?:the\s+user|they)\s+(?:has\s+|have\s+)?(?:asked|requested|confirmed|approved)|after\s+(?:(?:the\s+user'?s|their|explicit)\s+)?approval|wait\s+for\s+approval|ask\s+for\s+(?:(?:their|explicit)\s+)?(?:approval|consent)|(?:show|present)\s+(?:the\s+\w+(?:\s+\w+)?|it|them)\s+to\s+the\s+user\s+(?:before|first))\b/i;

const SEMGREP_RULE_ID = /^[ \t]*-[ \t]*id[ \t]*:\s*["']?([\w.-]{1,100})["']?\s*$/gm;
/** The ids of the Semgrep rules a file defines (empty for any other file). */
export function semgrepRuleIds(path: string, text: string): string[] {
  if (!/\.ya?ml$/i.test(path)) return [];
  const head = text.slice(0, 200_000);
  if (!SEMGREP.test(head) || !SEMGREP_PATTERN.test(head)) return [];
  return [...head.matchAll(SEMGREP_RULE_ID)].slice(0, 500).map((m) => m[1]!);
}

const SEMGREP_TEST_MARK = /^[ \t]*(?:#|\/\/|--|\/\*)\s*(?:ruleid|todoruleid)\s*:\s*([\w.-]{1,100})/gm;
/**
 * A test case of a Semgrep rule the same bundle defines: a script in a test folder whose
 * `# ruleid: <id>` comments name those rules. It is what `semgrep --test` matches the rule
 * against, an example of what the rule catches, never run (the caller checks nothing runs it).
 */
export function ruleTestFile(path: string, text: string, ruleIds: ReadonlySet<string>): string | null {
  if (!ruleIds.size || !TESTISH_PATH.test(path)) return null;
  const marks = [...text.slice(0, 200_000).matchAll(SEMGREP_TEST_MARK)].slice(0, 200);
  return marks.length > 0 && marks.every((m) => ruleIds.has(m[1]!)) ? "a test case of the bundle's Semgrep rules" : null;
}
