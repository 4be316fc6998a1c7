// Self and total time per function of a .cpuprofile (as `npm run bench` with BENCH_PROFILE writes
// them): `node scripts/profile-summary.mjs <file> [rows]`. Total counts a function once per sample
// however deep it recurses; names are `function file:line` of the unminified Worker.
//
// `node scripts/profile-summary.mjs <scenario> --against <floor> [rows]`: the same tables as the
// difference, function by function, between a scenario's profile and its floor's (the bench
// profiles both over as many requests): the functions the scenario spends more on than its floor,
// most first. Sampling attributes native work (a Headers read, an RPC's setup) to its JavaScript
// caller and is noisy at these sizes: check what it shows with a measured change.
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const againstAt = args.indexOf("--against");
const against = againstAt >= 0 ? args.splice(againstAt, 2)[1] : undefined;
const [file, rowsArg] = args;
if (!file || (againstAt >= 0 && !against)) {
  console.error("usage: node scripts/profile-summary.mjs <file.cpuprofile> [--against <floor.cpuprofile>] [rows]");
  process.exit(2);
}
const rows = Number(rowsArg ?? 25);

/** Self and total microseconds per function name, and all sampled time. */
function summarise(path) {
  const p = JSON.parse(readFileSync(path, "utf8"));
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
  return { self, total, all };
}

const table = (m, all) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([n, t]) => `${(t / 1000).toFixed(1).padStart(9)} ms ${((100 * t) / all).toFixed(1).padStart(5)}%  ${n}`)
    .join("\n");

const s = summarise(file);
if (!against) {
  console.log(`${(s.all / 1000).toFixed(0)} ms sampled\n\nself:\n${table(s.self, s.all)}\n\ntotal:\n${table(s.total, s.all)}`);
} else {
  const f = summarise(against);
  const minus = (a, b) => new Map([...new Set([...a.keys(), ...b.keys()])].map((k) => [k, (a.get(k) ?? 0) - (b.get(k) ?? 0)]));
  // Idle is what the process waited; the rest is what it did.
  const busy = (x) => x.all - (x.self.get("(idle) :0") ?? 0);
  console.log(
    `${(s.all / 1000).toFixed(0)} ms sampled against ${(f.all / 1000).toFixed(0)} ms; busy ${(busy(s) / 1000).toFixed(0)} ms against ${(busy(f) / 1000).toFixed(0)} ms ` +
      `(shares below are of the scenario's sampled time)\n\nself, scenario − floor:\n${table(minus(s.self, f.self), s.all)}\n\n` +
      `total, scenario − floor:\n${table(minus(s.total, f.total), s.all)}`,
  );
}
