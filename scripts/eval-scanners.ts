/**
 * Scores a labelled case file against the scanners as an outside evaluator would: each case is
 * scanned as it would be published (skills: every file decoded as UTF-8 when it is, else bytes;
 * MCP: the tool list as sent to POST /v1/mcp-servers/scan), and only the verdict is read.
 *
 *   tsx scripts/eval-scanners.ts skills <cases.json> [--list] [--judge]
 *   tsx scripts/eval-scanners.ts mcp <cases.json> [--list] [--judge]
 *   tsx scripts/eval-scanners.ts agent-text <cases.json> [--list]
 *
 * `--judge` adds the second opinion as a deployment runs it (src/scan/judge.ts, the same prompt,
 * parser and scope): Workers AI through Cloudflare's REST API, with CLOUDFLARE_ACCOUNT_ID,
 * CLOUDFLARE_API_TOKEN, and SCAN_JUDGE_MODEL (default: the model wrangler.toml's comment names);
 * SCAN_JUDGE_SCOPE=uncertain reads only the rules' uncertain passages. One call a case, in turn.
 * Without the variables it stops before scanning anything.
 *
 * The case file is kept outside the repository when it is a held-out set (its first scan is the
 * honest figure; docs/scanner.md records how the rounds were run). Its shape, a JSON array or
 * `{ "cases": [...] }`:
 *   skills: { id, label: "malicious" | "benign", family?, files: { "<path>": "<text>" | { "base64": "…" } } }
 *   mcp:    { id, label: "poisoned" | "benign", family?, instructions?, tools: [{ name, description?, inputSchema?, … }] }
 *   agent-text: { id, label: "malicious" | "benign", family?, title, body } — a forum post or knowledge-base
 *           entry, scanned as those writes scan it (the agent-text rules over `title` and `bodyMd`)
 * A case counts as caught when its verdict is `flagged` or `warn`; the figures for `flagged`
 * alone are printed beside. Recall is given per family.
 */
import { readFileSync } from "node:fs";
import "./cloudflare-stub";
import type { Judge, ScanLayer } from "../src/scan/judge";

// Dynamic imports, after ./cloudflare-stub's hook.
const { scanSkill } = await import("../src/skills/scanner");
const { scanMcpTools } = await import("../src/mcp-servers/scanner");
const { scanAgentText, AGENT_TEXT_RULESET } = await import("../src/skills/scanner/agent-text");
const { SKILL_RULESET } = await import("../src/skills/scanner/ruleset");
const { MCP_RULESET } = await import("../src/mcp-servers/scanner/ruleset");
const { judgeSkillScan } = await import("../src/skills/second-opinion");
const { judgeMcpScan } = await import("../src/mcp-servers/second-opinion");
const { restJudgeFromEnv, defaultJudgeModel } = await import("../src/scan/workers-ai-judge");

type Verdict = { status: string; findings: { ruleId: string; severity: string }[]; layers?: ScanLayer[] };
interface Case {
  id: string;
  label: string;
  family?: string;
  files?: Record<string, string | { base64: string }>;
  instructions?: string;
  tools?: unknown[];
  title?: string;
  body?: string;
}

const [kind, file, ...rest] = process.argv.slice(2);
if ((kind !== "skills" && kind !== "mcp" && kind !== "agent-text") || !file) {
  console.error("usage: tsx scripts/eval-scanners.ts <skills|mcp|agent-text> <cases.json> [--list] [--judge]");
  process.exit(2);
}
const list = rest.includes("--list");
let judge: Judge | null = null;
if (rest.includes("--judge") && kind === "agent-text") {
  console.error("eval-scanners: the judge does not read forum and knowledge-base text; run agent-text without --judge");
  process.exit(2);
}
if (rest.includes("--judge")) {
  try {
    judge = restJudgeFromEnv(process.env, defaultJudgeModel(readFileSync(new URL("../wrangler.toml", import.meta.url), "utf8")));
  } catch (e) {
    console.error(`eval-scanners: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  }
}
const raw = JSON.parse(readFileSync(file, "utf8"));
const cases: Case[] = Array.isArray(raw) ? raw : raw.cases;
const utf8 = new TextDecoder("utf-8", { fatal: true });
const enc = new TextEncoder();

async function scanOne(c: Case): Promise<Verdict> {
  if (kind === "agent-text") {
    // The judge does not read forum and knowledge-base text (src/forum/content-scan.ts): the rules decide.
    return scanAgentText([
      { path: "title", text: c.title ?? "" },
      { path: "bodyMd", text: c.body ?? "" },
    ]);
  }
  if (kind === "skills") {
    const files = Object.entries(c.files ?? {}).map(([path, content]) => {
      const bytes =
        typeof content === "string"
          ? content.startsWith("\u0000BINARY:")
            ? Uint8Array.from(atob(content.slice(8)), (ch) => ch.charCodeAt(0))
            : enc.encode(content)
          : Uint8Array.from(atob(content.base64), (ch) => ch.charCodeAt(0));
      let text: string | null = null;
      try {
        text = utf8.decode(bytes);
      } catch {}
      return { path, bytes, text };
    });
    const rules = scanSkill(files);
    return judge ? judgeSkillScan(judge, rules, files) : rules;
  }
  const input = { instructions: c.instructions, tools: (c.tools ?? []) as never };
  const rules = scanMcpTools(input);
  return judge ? judgeMcpScan(judge, rules, input) : rules;
}

const bad = kind === "mcp" ? "poisoned" : "malicious";
const rows: { c: Case; status: string; rules: string[]; judged: string }[] = [];
for (const c of cases) {
  const v = await scanOne(c);
  const rules = [...new Set(v.findings.filter((f) => f.severity !== "info").map((f) => `${f.ruleId}:${f.severity}`))];
  const j = v.layers?.find((l) => l.layer === "judge");
  rows.push({ c, status: v.status, rules, judged: j ? `judge:${j.outcome}${j.outcome === "failed" ? ` (${j.detail})` : ""}` : "" });
}
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : "n/a");
const pos = rows.filter((r) => r.c.label === bad);
const neg = rows.filter((r) => r.c.label !== bad);
const caught = (r: (typeof rows)[number]) => r.status === "flagged" || r.status === "warn";
const tp = pos.filter(caught).length;
const fp = neg.filter(caught).length;
const tpFlag = pos.filter((r) => r.status === "flagged").length;
const fpFlag = neg.filter((r) => r.status === "flagged").length;
console.log(
  `${kind} ${file}: ruleset ${kind === "skills" ? SKILL_RULESET.version : kind === "mcp" ? MCP_RULESET.version : AGENT_TEXT_RULESET.version}${judge ? ` + judge ${judge.model} (scope ${judge.scope})` : ""}`,
);
if (judge) {
  const outcomes = new Map<string, number>();
  for (const r of rows) {
    const o = r.judged.split(" ")[0] || "judge:none";
    outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
  }
  console.log(
    `judge outcomes: ${[...outcomes].map(([o, k]) => `${o.slice(6)} ${k}`).join(", ")} (a failed judge leaves a case warn: rerun those)`,
  );
}
console.log(`cases: ${pos.length} ${bad}, ${neg.length} benign`);
console.log(
  `recall (flagged or warn): ${pct(tp, pos.length)} (${tp}/${pos.length}); benign flagged or warn: ${pct(fp, neg.length)} (${fp}/${neg.length})`,
);
console.log(
  `recall (flagged only):    ${pct(tpFlag, pos.length)} (${tpFlag}/${pos.length}); benign flagged:         ${pct(fpFlag, neg.length)} (${fpFlag}/${neg.length})`,
);
if (tp + fp) console.log(`precision (flagged or warn): ${(tp / (tp + fp)).toFixed(3)}`);
const families = new Map<string, [number, number]>();
for (const r of pos) {
  const f = r.c.family ?? "(none)";
  const s = families.get(f) ?? [0, 0];
  s[1]++;
  if (caught(r)) s[0]++;
  families.set(f, s);
}
console.log("recall per family (caught/total):");
for (const [f, [a, b]] of [...families].sort((x, y) => x[1][0] / x[1][1] - y[1][0] / y[1][1] || x[0].localeCompare(y[0])))
  console.log(`  ${f}: ${a}/${b}`);
if (list) {
  console.log("cases:");
  for (const r of rows) {
    const mark = r.c.label === bad ? (caught(r) ? "TP" : "FN") : caught(r) ? "FP" : "TN";
    console.log(`  ${mark} ${r.status.padEnd(7)} ${r.c.id} [${r.c.family ?? ""}] ${r.rules.join(" ")}${r.judged ? ` ${r.judged}` : ""}`);
  }
}
