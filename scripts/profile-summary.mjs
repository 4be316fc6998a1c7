// Self and total time per function of a .cpuprofile (as `npm run bench` with BENCH_PROFILE writes
// them): `node scripts/profile-summary.mjs <file> [rows]`. Total counts a function once per sample
// however deep it recurses; names are `function file:line` of the unminified Worker.
import { readFileSync } from "node:fs";

const [file, rowsArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/profile-summary.mjs <file.cpuprofile> [rows]");
  process.exit(2);
}
const rows = Number(rowsArg ?? 25);
const p = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;
const timeOf = new Map();
for (let i = 0; i < p.samples.length; i++) timeOf.set(p.samples[i], (timeOf.get(p.samples[i]) ?? 0) + (p.timeDeltas[i + 1] ?? 0));
const self = new Map();
const total = new Map();
let all = 0;
for (const [id, t] of timeOf) {
  all += t;
  const leaf = name(byId.get(id));
  self.set(leaf, (self.get(leaf) ?? 0) + t);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const nm = name(byId.get(cur));
    if (seen.has(nm)) continue;
    seen.add(nm);
    total.set(nm, (total.get(nm) ?? 0) + t);
  }
}
const table = (m) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([n, t]) => `${(t / 1000).toFixed(1).padStart(9)} ms ${((100 * t) / all).toFixed(1).padStart(5)}%  ${n}`)
    .join("\n");
console.log(`${(all / 1000).toFixed(0)} ms sampled\n\nself:\n${table(self)}\n\ntotal:\n${table(total)}`);
