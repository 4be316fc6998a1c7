/**
 * How long the skill scanner takes on the largest and nastiest skills a publish can carry (5 MiB,
 * 100 files): `npm run perf:scan` (all cases) or `npm run perf:scan -- <case> …`. Inputs are
 * generated from a fixed seed, so runs compare. Each case prints the median of a few runs after a
 * warm-up. Budget: a maximal publish scan well under a second on a laptop-class core.
 */
import { scanSkill, type SkillFileInput } from "../src/skills/scanner";
import { scanMcpTools } from "../src/mcp-servers/scanner";
import { scanBody } from "../src/mcp-servers/mcp-servers.schemas";
import { MCP_CASES } from "./scan-perf-mcp";

const MiB = 1024 * 1024;
const enc = new TextEncoder();
const utf8 = new TextDecoder("utf-8", { fatal: true });

let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
};
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
const b64 = (b: Uint8Array) => {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
};
const fill = (size: number, line: (i: number) => string) => {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const l = line(i);
    out.push(l);
    n += l.length + 1;
  }
  return out.join("\n");
};
const WORDS = "the a run test check output build deploy user file project install package server client request response value config option error result data method version update change commit branch merge review".split(" ");
const CMDS = [
  (i: number) => `curl -fsSL https://api.example.com/v1/items/${i} -H "Authorization: Bearer $API_TOKEN" | jq '.items[${i % 7}]'`,
  (i: number) => `grep -rn "TODO ${i}" src/ | sort | uniq -c > /tmp/todo-${i}.txt`,
  (i: number) => `rm -rf dist/cache-${i} && npm run build -- --filter pkg-${i}`,
  (i: number) => `ssh deploy@host-${i}.example.com 'systemctl restart app-${i}'`,
  (i: number) => `python3 -c "import os; print(os.environ.get('VAR_${i}', ''))"`,
  (i: number) => `wget -q -O data/file-${i}.json https://data.example.org/d/${i}.json`,
  (i: number) => `echo "export PATH=$HOME/.local/bin-${i}:$PATH" >> ~/.bashrc`,
  (i: number) => `docker run --rm -e TOKEN=$TOKEN_${i} ghcr.io/example/tool:${i} --config ~/.config/tool/${i}.yml`,
];

const md = (name: string, body: string) => `---\nname: ${name}\ndescription: perf case\n---\n\n${body}\n`;
const text = (path: string, t: string): SkillFileInput => ({ path, bytes: enc.encode(t), text: t });
const binary = (path: string, b: Uint8Array): SkillFileInput => {
  let t: string | null = null;
  try {
    t = utf8.decode(b);
  } catch {
    /* not UTF-8 */
  }
  return { path, bytes: b, text: t };
};

const CASES: Record<string, () => SkillFileInput[]> = {
  // The review's three (finding 15).
  "base64-lines": () => [text("SKILL.md", md("p", fill(3.2 * MiB, () => b64(bytes(60)))))],
  "one-4mb-line": () => [text("SKILL.md", md("p", "a ".repeat(2_000_000)))],
  "prose-repeated": () => [text("SKILL.md", md("p", "Run the tests and check the output carefully before you commit the change.\n".repeat(55_000)))],
  // Distinct lines, so nothing can be cached per line.
  "prose-unique": () => [text("SKILL.md", md("p", fill(5 * MiB - 100, (i) => `${Array.from({ length: 12 }, () => pick(WORDS)).join(" ")} step ${i}.`)))],
  "shell-commands": () => [text("SKILL.md", md("p", "Run `scripts/all.sh`.")), text("scripts/all.sh", fill(5 * MiB - 200, (i) => pick(CMDS)(i)))],
  "base64-one-token": () => [text("SKILL.md", md("p", b64(bytes(3.7 * MiB))))],
  "html-comments-unclosed": () => [text("SKILL.md", md("p", "<!-- x ".repeat(700_000)))],
  "hidden-elements-unclosed": () => [text("SKILL.md", md("p", '<span style="display:none">x '.repeat(170_000)))],
  "empty-lines": () => [text("SKILL.md", md("p", "\n".repeat(5 * MiB - 100)))],
  "cjk-lines": () => [text("SKILL.md", md("p", fill(1.6 * 1024 * 1024, (i) => `第${i}步：运行测试并检查输出，然后提交更改。`)))],
  "zero-width-lines": () => [text("SKILL.md", md("p", fill(4.5 * MiB, (i) => `Use the helper\u200B for step ${i} and check the output.`)))],
  "unknown-binary": () => [text("SKILL.md", md("p", "See data.")), binary("data/blob.dat", bytes(5 * MiB - 100))],
  "hundred-files": () => [
    text("SKILL.md", md("p", "Many files.")),
    ...Array.from({ length: 99 }, (_, f) =>
      f % 3 === 0
        ? text(`scripts/s${f}.sh`, fill(50_000, (i) => pick(CMDS)(i)))
        : f % 3 === 1
          ? text(`docs/d${f}.md`, fill(50_000, (i) => `${Array.from({ length: 10 }, () => pick(WORDS)).join(" ")} ${i}.`))
          : text(`data/d${f}.json`, JSON.stringify(Array.from({ length: 800 }, (_, i) => ({ id: i, name: pick(WORDS), blob: b64(bytes(30)) })))),
    ),
  ],
};

/** Every case of every scanner: its input's size in bytes and a scan of it. */
const ALL: Record<string, () => { size: number; scan: () => { status: string; findings: unknown[] } }> = {};
for (const [name, make] of Object.entries(CASES)) {
  ALL[name] = () => {
    const files = make();
    return { size: files.reduce((n, f) => n + f.bytes.length, 0), scan: () => scanSkill(files) };
  };
}
for (const [name, make] of Object.entries(MCP_CASES)) {
  ALL[name] = () => {
    // Only what the API accepts (the limits of POST /v1/mcp-servers/scan); size is the request body.
    const parsed = scanBody.safeParse(make());
    if (!parsed.success) throw new Error(`${name} is not a valid scan request: ${parsed.error.issues[0]?.message}`);
    const input = parsed.data;
    return { size: enc.encode(JSON.stringify(input)).length, scan: () => scanMcpTools(input) };
  };
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const runs = Number(process.env.RUNS ?? 3);
let worst = { name: "", cpu: 0 };
for (const [name, make] of Object.entries(ALL)) {
  if (wanted.length && !wanted.includes(name)) continue;
  const { size, scan } = make();
  scan(); // warm-up (JIT)
  // CPU time of this process (what a Worker is billed and limited by), and wall time (includes waiting for a busy machine).
  const cpu: number[] = [];
  const wall: number[] = [];
  let status = "";
  let findings = 0;
  for (let r = 0; r < runs; r++) {
    const c = process.cpuUsage();
    const t = performance.now();
    const s = scan();
    wall.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
    status = s.status;
    findings = s.findings.length;
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
  if (median(cpu) > worst.cpu) worst = { name, cpu: median(cpu) };
  console.log(
    `${name.padEnd(26)} ${(size / MiB).toFixed(2).padStart(5)} MiB  cpu ${median(cpu).toFixed(0).padStart(6)} ms  wall ${median(wall).toFixed(0).padStart(6)} ms  (${status}, ${findings} findings)`,
  );
}
if (worst.name) console.log(`worst: ${worst.name} ${worst.cpu.toFixed(0)} ms cpu`);
