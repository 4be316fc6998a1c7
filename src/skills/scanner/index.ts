/**
 * The skill scanner: every rule group over SKILL.md and every bundled file, plus the capability
 * diff against the previous version. Pure and deterministic: the same files (and previous
 * capabilities) always give the same findings. See docs/scanner.md for the rules and their
 * reasoning, and test/skills-scanner.test.ts for each rule's positive and negative cases and the
 * labelled corpus.
 */
import {
  CONSENT_CUE,
  LineKind,
  contextOf,
  RUN_WHAT_WAS_SHOWN,
  STRONG_EXAMPLE_CUE,
  WEAK_EXAMPLE_CUE,
  NPM_INSTALL,
  chainFindings,
  decodeLenient,
  extensionMatches,
  findRunRefs,
  collectLimits,
  limitScope,
  noteLimit,
  LineIndex,
  formatOfName,
  identifyBytes,
  intentChains,
  isNegated,
  quotedIn,
  kindFromContent,
  kindFromPath,
  markdownContext,
  printableRuns,
  readArchive,
  readIntent,
  resolveRef,
  ruleDataFile,
  ruleTestFile,
  semgrepRuleIds,
  runRules,
  securityPurpose,
  sortFindings,
  statusOf,
  type DescribeFn,
  type FileKind,
  type Finding,
  type IntentDoc,
  type IntentLink,
  type Rule,
  type ScanTarget,
} from "../../scan";
import { INJECTION_RULES } from "./rules/injection";
import { EXECUTION_RULES, assembledStrings, charCodeStrings, continuedCommands, reversedStrings } from "./rules/execution";
import { EGRESS_RULES } from "./rules/egress";
import { EXFILTRATION_RULES } from "./rules/exfiltration";
import { SMUGGLING_RULES } from "./rules/smuggling";
import { DESTRUCTIVE_RULES } from "./rules/destructive";
import { PERSISTENCE_RULES } from "./rules/persistence";
import { FILE_RULES } from "./rules/files";
import { UNICODE_RULES } from "./rules/unicode";
import { MARKDOWN_RULES, markdownHidden } from "./rules/markdown";
import { INTENT_RULES, INTENT_RULE_ID } from "./rules/intent";
import { BUNDLE_SUPPLY_RULES, SUPPLY_RULES } from "./rules/supply";
import { AUTHORITY_RULES } from "./rules/authority";
import { SABOTAGE_RULES } from "./rules/sabotage";
import { INTEREST_RULES } from "./rules/interest";
import { AGAINST_USER_SKILL_RULES } from "./rules/against-user";
import { collectUncertain, ruleDefaults } from "../../scan/uncertain";
import {
  NO_CAPABILITIES,
  capabilityChanges,
  capabilityFindings,
  capabilityReader,
  detectCapabilities,
  type Capabilities,
} from "./capabilities";
import { SKILL_RULESET } from "./ruleset";
import type { SkillFileInput, SkillScan } from "./types";

export { SKILL_RULESET };
export type { SkillFileInput, SkillScan } from "./types";

/**
 * Rules that apply to any text an agent reads (prompt injection, concealment, secrets, egress,
 * commands, hidden Unicode). The MCP tool-description scanner reuses them as they are.
 */
export const ANY_TEXT_RULES: readonly Rule[] = [
  ...INJECTION_RULES,
  ...EXECUTION_RULES,
  ...EGRESS_RULES,
  ...EXFILTRATION_RULES,
  ...DESTRUCTIVE_RULES,
  ...PERSISTENCE_RULES,
  ...UNICODE_RULES,
  ...MARKDOWN_RULES,
  ...SUPPLY_RULES,
  ...AUTHORITY_RULES,
];

/**
 * What a forum post or knowledge-base entry is scanned with (agent-text.ts): every rule that reads
 * a text for what it asks an agent to do, the harm to the user beyond injection and theft
 * (sabotage, steering, acts kept from the user) and the intent chain included; only the rules about
 * a bundle (its files, manifests, smuggled archives) are left to skills. With them, a blind set of
 * 65 posts (set P, 2026-11-27) went from 46.9% to 59.4% recall at the same 3 of 33 benign flagged or warn.
 */
export const AGENT_TEXT_RULES: readonly Rule[] = [
  ...ANY_TEXT_RULES,
  ...SABOTAGE_RULES,
  ...INTEREST_RULES,
  ...AGAINST_USER_SKILL_RULES,
  ...INTENT_RULES,
];

export const SKILL_RULES: readonly Rule[] = [
  ...ANY_TEXT_RULES,
  ...BUNDLE_SUPPLY_RULES,
  ...SMUGGLING_RULES,
  ...SABOTAGE_RULES,
  ...INTEREST_RULES,
  ...AGAINST_USER_SKILL_RULES,
  ...INTENT_RULES,
  ...FILE_RULES,
];
const SKILL_RULE_DEFAULTS = ruleDefaults(SKILL_RULES);

/** Hidden regions the engine scans besides encoded payloads and hidden Unicode: Markdown comments and invisible elements, reversed, ROT13 and concatenated strings, commands continued over lines. */
export const skillHidden = (target: ScanTarget, lines: LineIndex) => [
  ...markdownHidden(target, lines),
  ...reversedStrings(target, lines),
  ...assembledStrings(target, lines),
  ...charCodeStrings(target, lines),
  ...continuedCommands(target, lines),
];

/**
 * Characters of a skill's text the whole-text analyses read (the sentence and paragraph rules, the
 * intent model; src/scan/engine.ts `analysisBudget`): four times the 256 KiB a large real skill
 * stays under, hidden regions and decoded payloads included, so only padding reaches it; it is what
 * bounds a 5 MiB publish's cost (a limit noted when it cuts: test/skills/scan-limits.test.ts).
 */
export const ANALYSIS_BUDGET = 1024 * 1024;

/**
 * Characters of a skill's own text the line rules, the search for encoded payloads and hidden
 * regions, and the capability reading cover (src/scan/engine.ts `lineBudget`): the whole-text analyses' bound, four times the
 * 256 KiB a large real skill stays under. Past it a 5 MiB publish of dense text cost up to a second
 * of CPU in a long-lived isolate; hidden Unicode and control characters are still looked for in
 * every byte (a limit noted when it cuts: test/skills/scan-limits.test.ts).
 */
export const LINE_BUDGET = 1024 * 1024;

/** Run references are looked for in this much of a file (a limit noted when a file is longer). */
const MAX_RUN_TEXT = 2_000_000;
const SCRIPT_KINDS: ReadonlySet<FileKind> = new Set(["shell", "powershell", "batch", "python", "javascript", "ruby", "perl", "php", "go"]);
/** Text kinds a skill's files are read as when nothing else says: data formats stay data unless something runs them. */
const RUNNABLE_TEXT: ReadonlySet<FileKind> = new Set([...SCRIPT_KINDS, "markdown", "json", "yaml", "toml", "text", "html"]);

/** A decoded text reads like a script: a `#!` line near the top, or several lines of shell or code statements. */
function scriptLike(text: string): boolean {
  const head = text.slice(0, 4096);
  if (/(?:^|\n)#!\s*\/\S+/.test(head)) return true;
  let n = 0;
  for (const line of head.split("\n")) {
    if (
      /^\s*(?:[A-Za-z_]\w*=\S|if\s|for\s|while\s|case\s|exec\b|export\s|echo\s|printf\s|curl\s|wget\s|chmod\s|mkdir\s|rm\s|cd\s|set\s[+-]|crontab\b|nohup\s|import\s|from\s\S+\simport|def\s|function\s|const\s|let\s|var\s|require\(|\(?\s*(?:crontab|curl|env)\b)/.test(
        line,
      )
    )
      n++;
    if (n >= 3) return true;
  }
  return false;
}

export interface PreparedSkill {
  targets: ScanTarget[];
  /** Text A runs file B (`bash scripts/x.sh`): indexes into `targets`. */
  links: { from: number; to: number; line: number }[];
  /** The skill says its purpose is security work (auditing, detection, response). */
  security: boolean;
}

/**
 * One scan target per file (and per file inside an archive, and per text inside a binary). A file
 * is read as what its bytes are: binary only when it fully parses as the format its signature
 * claims (src/scan/formats.ts), and then its printable text is still read; anything else is text,
 * decoded leniently when it is not UTF-8. A file that SKILL.md or a script runs (`sh assets/x.png`,
 * `python fonts/y.ttf`, `source lib`) is read as the script it is run as. Where the bytes, the name
 * and the use disagree, the target carries a `disguise` for the file rules to report.
 */
export function prepareSkill(files: readonly SkillFileInput[]): PreparedSkill {
  const sorted = [...files].sort((a, b) => (a.path === "SKILL.md" ? -1 : b.path === "SKILL.md" ? 1 : a.path < b.path ? -1 : 1));
  const paths = sorted.map((f) => f.path);
  // Texts that can run other files: every UTF-8 file, and every file whose bytes are not a real binary.
  const checks = sorted.map((f) => (f.text === null ? identifyBytes(f.bytes) : null));
  // Executables stay binary whatever their state (they are flagged as such); other claims must hold.
  const texts = sorted.map((f, i) => f.text ?? (checks[i]?.valid || checks[i]?.cls === "executable" ? null : decodeLenient(f.bytes)));
  const runAs = new Map<number, { kind: FileKind; by: string; line: number }>();
  const rawLinks: { from: number; to: number; line: number }[] = [];
  const pkg = paths.indexOf("package.json");
  texts.forEach((t, i) => {
    if (t === null) return;
    const refs = limitScope(
      paths[i]!,
      () => {
        if (t.length <= MAX_RUN_TEXT) return findRunRefs(t);
        // The rest of a longer file is not searched for what it runs: said as a limit, at the line it starts.
        noteLimit("run-references", MAX_RUN_TEXT);
        return findRunRefs(t.slice(0, MAX_RUN_TEXT));
      },
      (o) => lineOf(t.slice(0, o + 1), /[\s\S]$/),
    );
    for (const ref of refs) {
      const target = resolveRef(ref.ref, paths);
      if (target === null) continue;
      const j = paths.indexOf(target);
      if (j === i) continue;
      rawLinks.push({ from: i, to: j, line: ref.line });
      if (!runAs.has(j)) runAs.set(j, { kind: ref.as, by: paths[i]!, line: ref.line });
    }
    if (pkg >= 0 && pkg !== i && NPM_INSTALL.test(t)) rawLinks.push({ from: i, to: pkg, line: lineOf(t, NPM_INSTALL) });
  });
  // A script that reads a bundled data file (a list of paths, a config) joins that file's contents to what it does.
  texts.forEach((t, i) => {
    if (t === null) return;
    const kind = runAs.get(i)?.kind ?? kindFromPath(paths[i]!) ?? kindFromContent(t);
    if (!kind || !SCRIPT_KINDS.has(kind)) return;
    paths.forEach((p, j) => {
      if (j === i || texts[j] === null) return;
      const k = kindFromPath(p);
      if (k !== "json" && k !== "yaml" && k !== "toml" && k !== "text") return;
      const base = p.slice(p.lastIndexOf("/") + 1);
      const at = t.indexOf(base);
      if (base.length >= 4 && at !== -1 && !/[\w.-]/.test(t[at + base.length] ?? ""))
        rawLinks.push({ from: i, to: j, line: lineOf(t.slice(0, at + 1), /[\s\S]$/) });
    });
  });
  const security = securityPurpose(sorted.find((f) => f.path === "SKILL.md")?.text ?? "");
  // The bundle's own Semgrep rules: their test cases (`# ruleid: <id>` in tests/) are examples, not code to run.
  const semgrepIds = new Set(texts.flatMap((t, i) => (t === null ? [] : semgrepRuleIds(paths[i]!, t))));
  const targets: ScanTarget[] = [];
  const index = new Map<number, number>();
  sorted.forEach((f, i) => {
    const check = checks[i];
    const run = runAs.get(i);
    const byPath = kindFromPath(f.path);
    const named = formatOfName(f.path);
    let disguise: ScanTarget["disguise"] = null;
    const text = texts[i];
    if (text === null || text === undefined) {
      // A real binary. Run as a script, it is read as one all the same (and that is the finding).
      if (run && check!.cls !== "executable") {
        index.set(i, targets.length);
        targets.push({
          path: f.path,
          kind: run.kind,
          text: decodeLenient(f.bytes),
          bytes: f.bytes,
          lossy: true,
          disguise: {
            severity: "high",
            message: `${run.by}:${run.line} runs this ${check!.label} as a ${run.kind} script: a ${check!.cls} file is never a script`,
          },
        });
        return;
      }
      index.set(i, targets.length);
      const mismatch =
        check!.valid && !extensionMatches(check!, f.path) && (check!.cls === "media" || check!.cls === "font" || check!.cls === "document");
      targets.push({
        path: f.path,
        kind: "binary",
        text: null,
        bytes: f.bytes,
        disguise: mismatch
          ? { severity: "low", message: `The bytes are a ${check!.label}, but the name says ${named ? `a ${named.label}` : "otherwise"}` }
          : null,
      });
      if (check!.cls === "archive") {
        const read = readArchive(f.bytes);
        for (const entry of read?.files ?? []) {
          const name = `${f.path}:${entry.name}`;
          let t: string | null = null;
          try {
            t = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(entry.bytes);
          } catch {
            const inner = identifyBytes(entry.bytes);
            if (inner?.valid && inner.cls !== "archive") continue;
            t = decodeLenient(entry.bytes);
          }
          targets.push({
            path: name,
            kind: kindFromPath(entry.name) ?? kindFromContent(t) ?? "text",
            text: t,
            embedded: `a file inside ${f.path}`,
          });
        }
        if (read) targets[index.get(i)!]!.contents = { unread: read.unread };
      } else if (check!.cls !== "executable") {
        const runs = limitScope(f.path, () => printableRuns(f.bytes));
        if (runs.trim()) targets.push({ path: f.path, kind: "text", text: runs, embedded: `text inside the ${check!.label}` });
      }
      return;
    }
    const lossy = f.text === null;
    let kind: FileKind = run?.kind ?? byPath ?? kindFromContent(text) ?? "text";
    if (run && byPath && SCRIPT_KINDS.has(byPath) && !SCRIPT_KINDS.has(run.kind)) kind = byPath;
    if (!RUNNABLE_TEXT.has(kind)) kind = "text";
    const script = scriptLike(text);
    if (check && !check.valid) {
      // Bytes that claim a format they are not: a polyglot, or a damaged file.
      disguise = {
        severity: run || script ? "high" : "medium",
        message: `Starts like a ${check.label} but is not one (${check.problem})${run ? `, and ${run.by}:${run.line} runs it as a ${run.kind} script` : script ? "; it reads like a script" : ""}`,
      };
    } else if (named && (named.cls === "media" || named.cls === "font" || named.cls === "document" || named.cls === "archive")) {
      disguise = {
        severity: run ? "high" : script ? "high" : "medium",
        message: `Named like a ${named.label} but it is text${run ? `, and ${run.by}:${run.line} runs it as a ${run.kind} script` : script ? " that reads like a script" : ""}`,
      };
    } else if (run && byPath && !SCRIPT_KINDS.has(byPath) && byPath !== "markdown") {
      disguise = { severity: "medium", message: `${run.by}:${run.line} runs this ${byPath} file as a ${run.kind} script` };
    }
    const describes = run ? null : SCRIPT_KINDS.has(kind) ? ruleTestFile(f.path, text, semgrepIds) : ruleDataFile(f.path, kind, text);
    index.set(i, targets.length);
    targets.push({
      path: f.path,
      kind,
      text,
      bytes: f.bytes,
      ...(lossy ? { lossy: true } : {}),
      ...(describes ? { describes } : {}),
      ...(disguise ? { disguise } : {}),
    });
  });
  // Links between targets, with what a run file runs in turn (a package.json hook's script, a script's helper).
  const direct = rawLinks
    .filter((l) => index.has(l.from) && index.has(l.to))
    .map((l) => ({ from: index.get(l.from)!, to: index.get(l.to)!, line: l.line }));
  const links = [...direct];
  const seen = new Set(direct.map((l) => `${l.from}>${l.to}`));
  for (let depth = 0; depth < 3; depth++) {
    for (const a of [...links]) {
      for (const b of direct) {
        if (b.from !== a.to || b.to === a.from || seen.has(`${a.from}>${b.to}`)) continue;
        seen.add(`${a.from}>${b.to}`);
        links.push({ from: a.from, to: b.to, line: a.line });
      }
    }
  }
  return { targets, links, security };
}

function lineOf(text: string, re: RegExp): number {
  const m = re.exec(text);
  if (!m) return 1;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < m.index; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

export function toTargets(files: readonly SkillFileInput[]): ScanTarget[] {
  return prepareSkill(files).targets;
}

/** Rules whose own reading of the context stands (or that report facts about a file): the description context never lowers them. */
export const DESCRIBE_EXEMPT: ReadonlySet<string> = new Set([
  "unicode.hidden",
  "markdown.hidden-instructions",
  INTENT_RULE_ID,
  "files.executable",
  "files.archive",
  "files.unknown-binary",
  "files.disguised",
  // A review skill's "Reporting rules" section is where it hides findings: the rule reads its own
  // negations, quotes and talk about attackers, and a security heading over it describes nothing.
  "sabotage.suppressed-findings",
]);
const ACTOR = /\b(?:attackers?|adversar(?:y|ies)|malware|worms?|threat\s+actors?|malicious|compromised|injected|poisoned)\b/i;

/**
 * Where a Markdown or text file writes about attacks: example fences, pattern tables, sections
 * under a "red flags" heading, and on a prose line a negated match or a quoted one in a sentence
 * that says it describes something (src/scan/context.ts).
 */
export function describeFor(security: boolean) {
  return (target: ScanTarget, lines: LineIndex): DescribeFn | null => {
    if (!target.text || !["markdown", "text", "html"].includes(target.kind) || target.embedded) return null;
    const ctx = target.kind === "markdown" ? markdownContext(target.text, lines, security) : null;
    // What a line's hits share, worked out once per line (`lineText` is always line `n`): a line of
    // megabytes with thousands of hits must not cost a pass over the line (and its neighbour) per hit.
    let at = 0;
    let prev = "";
    let cued = false;
    let quoted: ((index: number, length: number) => boolean) | null = null;
    return (n, lineText, index, length) => {
      if (ctx) {
        if (ctx.describes[n]) return ctx.kind[n] === LineKind.Table ? "in a table of patterns" : "in an example";
        if (ctx.kind[n] !== LineKind.Prose) return null;
      }
      if (isNegated(lineText, index, true)) return "negated";
      if (at !== n) {
        at = n;
        // The sentence may have started on the line before (a wrapped list item).
        prev = "";
        if (n > 1 && !/^\s*(?:[-*+]|\d+[.)])\s/.test(lineText)) {
          const p = lines.line(n - 1);
          if (p.trim() && (!ctx || ctx.kind[n - 1] === LineKind.Prose)) prev = p;
        }
        const around = prev ? `${prev} ${lineText}` : lineText;
        cued = STRONG_EXAMPLE_CUE.test(around) || ACTOR.test(around) || (security && WEAK_EXAMPLE_CUE.test(around));
        // Not when the next line says to run what was shown ("Run the above now"); read once per line
        // (a prose-length start of it: a line of megabytes is not read once per hit).
        if (cued && n < lines.count) cued = !RUN_WHAT_WAS_SHOWN.test(lines.line(n + 1).slice(0, 400));
        quoted = null;
      }
      // Negation reaches 140 characters back: across the line break only for a match near the line's start.
      if (prev && index < 140 && isNegated(`${prev.slice(-141)} ${lineText.slice(0, index)}`, Math.min(prev.length, 141) + 1 + index, true))
        return "negated";
      if (cued && (quoted ??= quotedIn(lineText))(index, length)) return "quoted as an example";
      return null;
    };
  };
}

/** Destructive steps the instructions hold until the user confirms (purging a leaked file from history, resetting a database). */
const CONSENT_GATED: ReadonlySet<string> = new Set([
  "destructive.git-history",
  "destructive.force-push",
  "destructive.production-data",
  "destructive.cloud",
  "destructive.credentials",
]);
const STARTUP_RULE = "persistence.startup";
const NO_CONSENT =
  /\bwithout\s+(?:asking|confirmation|confirming|prompting)\b|\b(?:do\s+not|don'?t|never)\s+(?:ask|prompt|wait)\b|\bno\s+need\s+to\s+(?:ask|confirm)\b|\bconfirmations?\s+(?:only\s+)?slow\b/i;

/**
 * A scheduled job the user dictates and approves: "ask the user what to run and when", "add it only
 * after confirmation". The job is theirs; (the shared cue wants the user named beside the verb).
 */
const USER_ASKS_CUE =
  /\b(?:only\s+)?after\s+(?:(?:their|the\s+user'?s|explicit)\s+)?confirmation\b|\bask\s+the\s+user\s+(?:what|which|when|how\s+often)\b|\bwhen\s+(?:you|the\s+user)\s+asks?\s+for\s+it\b/i;

/**
 * A destructive finding in a section of SKILL.md that makes the step wait for the user's explicit
 * confirmation (and does not also say to skip it) is lowered to low: shown, not blocking.
 */
function consentGated(findings: Finding[], targets: readonly ScanTarget[]): Finding[] {
  if (!findings.some((f) => CONSENT_GATED.has(f.ruleId) || (f.ruleId === STARTUP_RULE && f.severity === "medium"))) return findings;
  const byPath = new Map(targets.filter((t) => t.kind === "markdown" && t.text !== null && !t.embedded).map((t) => [t.path, t]));
  return findings.map((f) => {
    // A startup item that only runs local commands (medium) is the skill's job when the user asked for it (a nightly test run, a service).
    const startup = f.ruleId === STARTUP_RULE && f.severity === "medium";
    if ((!CONSENT_GATED.has(f.ruleId) && !startup) || f.severity === "info" || f.severity === "low") return f;
    const t = byPath.get(f.path);
    const c = t ? contextOf(t) : null;
    if (!t || !c) return f;
    const [from, to] = c.sectionLines(c.section(f.line));
    let text = c.lines.text.slice(c.lines.startOf(from), c.lines.startOf(to + 1));
    if (startup && c.section(f.line) > 1) {
      // The preamble under the title states the conditions for the whole skill ("Only when the user asked for a schedule").
      const [pf, pt] = c.sectionLines(1);
      text += `\n${c.lines.text.slice(c.lines.startOf(pf), c.lines.startOf(pt + 1))}`;
    }
    if (!(CONSENT_CUE.test(text) || (startup && USER_ASKS_CUE.test(text))) || NO_CONSENT.test(text)) return f;
    return { ...f, severity: "low", message: `${f.message} — the instructions wait for the user's confirmation first` };
  });
}

/**
 * Scans a skill. `previous` is the capabilities of the version before (none for a first
 * publish): what this version adds is reported as `capability.added.*` findings (low severity:
 * shown, not blocking).
 */
export function scanSkill(files: readonly SkillFileInput[], previous: Capabilities | null = null): SkillScan {
  // A bound that cut an analysis is a finding: what was not read cannot pass (src/scan/limits.ts).
  const { result, limits } = collectLimits(() => scanSkillWithin(files, previous));
  if (!limits.length) return result;
  const findings = sortFindings([...result.findings, ...limits]);
  // The uncertain passages point at findings by index: moved by the sort, they follow their finding.
  const at = new Map(findings.map((f, i) => [f, i]));
  const uncertain = result.uncertain.map((u) => ({ ...u, covers: u.covers.map((i) => at.get(result.findings[i]!)!) }));
  return { ...result, status: statusOf(findings), findings, uncertain };
}

const PY_IMPORT = /^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*))/gm;
const JS_IMPORT =
  /\brequire\(\s*["'`]((?:@[\w.-]+\/)?[\w.-]+)|\bfrom\s+["'`]((?:@[\w.-]+\/)?[\w.-]+)["'`]|\bimport\s*\(?\s*["'`]((?:@[\w.-]+\/)?[\w.-]+)["'`]/g;

/** Top-level modules the bundle's scripts import (lowercase, without `-_.`), for the manifest look-alike reading. */
function importedModules(targets: readonly ScanTarget[]): Set<string> {
  const out = new Set<string>();
  for (const t of targets) {
    // SKILL.md's own examples count: they show which module the skill means.
    if (t.text === null || t.embedded || (t.kind !== "python" && t.kind !== "javascript" && t.kind !== "markdown")) continue;
    const text = t.text.slice(0, 200_000);
    const found =
      t.kind === "python"
        ? text.matchAll(PY_IMPORT)
        : t.kind === "javascript"
          ? text.matchAll(JS_IMPORT)
          : [...text.matchAll(PY_IMPORT), ...text.matchAll(JS_IMPORT)];
    for (const m of found) {
      if (out.size >= 500) return out;
      const raw = m[1] ?? m[2] ?? m[3] ?? "";
      for (const n of raw.split(",")) {
        const name = n
          .trim()
          .toLowerCase()
          .replace(/^node:/, "")
          .replace(/[-_.]/g, "");
        if (name && !name.startsWith("/")) out.add(name);
      }
    }
  }
  return out;
}

function scanSkillWithin(files: readonly SkillFileInput[], previous: Capabilities | null): SkillScan {
  const { targets, links, security } = prepareSkill(files);
  // The intent model reads each top-level text once: the engine's chain rule and the cross-file chains share it.
  const docs = new Map<ScanTarget, IntentDoc>();
  const docList: IntentDoc[] = [];
  const docIndex = new Map<ScanTarget, number>();
  const capabilities = capabilityReader(LINE_BUDGET);
  let intentLeft = ANALYSIS_BUDGET;
  let intentCut = false;
  for (const t of targets) {
    capabilities.add(t);
    if (t.text === null || t.embedded) continue;
    // The intent model reads within the same bound as the whole-text rules, up to the last line that fits.
    let text = t.text;
    if (text.length > intentLeft) {
      const end = intentLeft > 0 ? text.lastIndexOf("\n", intentLeft - 1) + 1 : 0;
      const full = text;
      // Noted once, where it ran out (the engine notes the same cut for the whole-text rules).
      if (!intentCut)
        limitScope(
          t.path,
          () => noteLimit("text-analysis", end),
          (o) => LineIndex.of(full).lineOf(o),
        );
      text = text.slice(0, end);
      intentCut = true;
    }
    intentLeft -= text.length;
    const d = limitScope(
      t.path,
      () =>
        readIntent(text, {
          path: t.path,
          kind: t.kind,
          securityPurpose: security,
          ...(t.describes ? { describes: t.describes } : {}),
        }),
      (o) => LineIndex.of(text).lineOf(o),
    );
    docs.set(t, d);
    docIndex.set(t, docList.length);
    docList.push(d);
  }
  const findings = runRules(SKILL_RULES, targets, {
    derive: skillHidden,
    analysisBudget: ANALYSIS_BUDGET,
    lineBudget: LINE_BUDGET,
    meta: { securityPurpose: security, intentDocs: docs, imports: importedModules(targets) },
    describe: describeFor(security),
    describeExempt: DESCRIBE_EXEMPT,
  });
  // Chains across files: SKILL.md (or a script) and what it runs, one chain with both places.
  const intentLinks: IntentLink[] = [];
  for (const l of links) {
    const from = docIndex.get(targets[l.from]!);
    const to = docIndex.get(targets[l.to]!);
    if (from !== undefined && to !== undefined) intentLinks.push({ from, to, line: l.line });
  }
  const cross = intentLinks.length ? intentChains(docList, { links: intentLinks }).filter((c) => c.source.path !== c.sink.path) : [];
  const { caps, where } = capabilities.result();
  const changes = previous ? capabilityChanges(previous ?? NO_CAPABILITIES, caps) : [];
  const all = sortFindings([
    ...consentGated(findings, targets),
    ...chainFindings(cross, docList, INTENT_RULE_ID),
    ...capabilityFindings(changes, where),
  ]);
  const byPath = new Map<string, ScanTarget>();
  for (const t of targets) if (t.text !== null && !byPath.has(t.path)) byPath.set(t.path, t);
  const uncertain = collectUncertain(
    all,
    (i) => {
      const t = byPath.get(all[i]!.path);
      return t?.text != null ? { path: t.path, text: t.text } : null;
    },
    SKILL_RULE_DEFAULTS,
    targets.filter((t) => t.lossy && t.text !== null).map((t) => ({ path: t.path, text: t.text! })),
  );
  return {
    status: statusOf(all),
    findings: all,
    rulesetVersion: SKILL_RULESET.version,
    capabilities: caps,
    capabilityChanges: changes,
    uncertain,
  };
}

export type { Capabilities, CapabilityChange } from "./capabilities";
