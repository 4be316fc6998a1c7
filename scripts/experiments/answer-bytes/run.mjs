// The process CPU per request of each of the Worker's answers (worker.js), interleaved six rounds of
// 1,000 requests at concurrency 8 after 500 to warm up: `node scripts/experiments/answer-bytes/run.mjs`
// (default: every route), or name routes: `… run.mjs /str /bytes`.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../lib.mjs";
const HERE = path.dirname(fileURLToPath(import.meta.url));
const W = path.join(HERE, "../../../node_modules/.bin/wrangler");
const port = await freePort();
const dev = spawn(W, ["dev", "--local", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false"], {
  cwd: HERE,
  stdio: ["ignore", "pipe", "pipe"],
});
dev.stdout.resume();
dev.stderr.resume();
const origin = `http://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) {
  try {
    await fetch(origin);
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 300));
  }
}
function pids() {
  const kids = new Map();
  for (const d of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
    try {
      const st = readFileSync(`/proc/${d}/stat`, "utf8");
      const pp = Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[1]);
      kids.set(pp, [...(kids.get(pp) ?? []), Number(d)]);
    } catch {}
  }
  const out = [];
  const walk = (p) => {
    for (const c of kids.get(p) ?? []) {
      let cmd = "";
      try {
        cmd = readFileSync(`/proc/${c}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {
        continue;
      }
      if (/workerd\s+serve/.test(cmd) && !cmd.includes(`entry=127.0.0.1:${port} `)) out.push(c);
      walk(c);
    }
  };
  walk(dev.pid);
  return out;
}
const pid = pids()[0];
const cpu = () => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8")
    .slice(readFileSync(`/proc/${pid}/stat`, "utf8").lastIndexOf(")") + 2)
    .split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
async function chunk(path, n) {
  let next = 0;
  const c0 = cpu();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        const i = next++;
        const r = await fetch(`${origin}${path}?id=${i}`);
        await r.arrayBuffer();
      }
    }),
  );
  return (cpu() - c0) / n;
}
const paths = process.argv.length > 2 ? process.argv.slice(2) : ["/x", "/str", "/bytes", "/fill", "/blob", "/same"];
for (const p of paths) await chunk(p, 500);
const acc = Object.fromEntries(paths.map((p) => [p, 0]));
for (let r = 0; r < 6; r++) for (const p of paths) acc[p] += await chunk(p, 1000);
for (const p of paths) console.log(p, (acc[p] / 6).toFixed(3), "ms/req");
dev.kill();
process.exit(0);
