// The process CPU per request of each of the Worker's answers (worker.js), interleaved six rounds of
// 1,000 requests at concurrency 8 after 500 to warm up: `node scripts/experiments/answer-bytes/run.mjs`
// (default: every route), or name routes: `… run.mjs /str /bytes`. The CPU is read as the bench
// reads it (scripts/lib.mjs: the workerd process running the Worker, /proc/<pid>/stat).
// EXPERIMENT_DIR=<folder> runs another experiment's Worker the same way (page-headers/wrangler.toml says how).
// ACCEPT_ENCODING=<value> sends that Accept-Encoding (default: fetch's own, `gzip, deflate`: the dev
// server then gzips JSON and HTML answers in the Worker's process, as Cloudflare's edge does outside it).
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cpuMs, freePort, waitForServer, workerdPid } from "../../lib.mjs";

const HERE = process.env.EXPERIMENT_DIR ? path.resolve(process.env.EXPERIMENT_DIR) : path.dirname(fileURLToPath(import.meta.url));
const WRANGLER = path.join(HERE, "../../../node_modules/.bin/wrangler");
const ACCEPT = process.env.ACCEPT_ENCODING ? { "accept-encoding": process.env.ACCEPT_ENCODING } : {};
const port = await freePort();
const dev = spawn(WRANGLER, ["dev", "--local", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false"], {
  cwd: HERE,
  stdio: ["ignore", "pipe", "pipe"],
});
dev.stdout.resume();
dev.stderr.resume();
const origin = `http://127.0.0.1:${port}`;
try {
  await waitForServer(origin, 60_000, { child: dev });
  const pid = workerdPid(dev.pid, port);
  async function chunk(route, n) {
    let next = 0;
    const c0 = cpuMs(pid);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) {
          const i = next++;
          await (await fetch(`${origin}${route}?id=${i}`, { headers: ACCEPT })).arrayBuffer();
        }
      }),
    );
    return (cpuMs(pid) - c0) / n;
  }
  const routes = process.argv.length > 2 ? process.argv.slice(2) : ["/x", "/str", "/bytes", "/fill", "/blob", "/same"];
  for (const r of routes) await chunk(r, 500);
  const sum = Object.fromEntries(routes.map((r) => [r, 0]));
  for (let round = 0; round < 6; round++) for (const r of routes) sum[r] += await chunk(r, 1000);
  for (const r of routes) console.log(r, (sum[r] / 6).toFixed(3), "ms/req");
} finally {
  dev.kill("SIGINT");
}
