// Search latency at several data sizes: for each size, a fresh local D1 gets N forum threads
// (scripts/seed-forum.mjs) and N skills (below), a local Worker starts on it, and every query shape
// runs sequentially against /v1/threads and /v1/skills. Prints p50/p99 per shape and size.
//
//   npm run bench:search                              # 1k, 10k and 100k rows
//   npm run bench:search -- --sizes 1000,10000 --runs 40
//
// Shapes: a common word (about one row in ten), a phrase, a prefix, a rare word (about one row in a
// thousand), no match, and no query (the default order). Data is deterministic (seeded PRNG).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { ROOT, executeLocalSql, freePort, prng, startDev, waitForServer, createAgent, runMain, fail } from "./lib.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const SIZES = String(opt("sizes", "1000,10000,100000")).split(",").map(Number);
const RUNS = Number(opt("runs", 30));
const WARMUP = 3;

const SHAPES = {
  threads: [
    ["common word", "react"],
    ["phrase", '"connection pool"'],
    ["prefix", "typ*"],
    ["rare word", "E123"],
    ["no match", "zzzznotfound"],
    ["no query", ""],
  ],
  skills: [
    ["common word", "react"],
    ["phrase", '"code review"'],
    ["prefix", "migr*"],
    ["rare word", "k123"],
    ["no match", "zzzznotfound"],
    ["no query", ""],
  ],
};

const LIBS = [
  "react",
  "next",
  "vite",
  "drizzle",
  "wrangler",
  "hono",
  "zod",
  "prisma",
  "tailwind",
  "typescript",
  "vitest",
  "playwright",
  "express",
  "fastify",
  "django",
  "fastapi",
  "pydantic",
  "tokio",
  "serde",
  "axum",
];
const JOBS = [
  "code review",
  "migration planning",
  "test writing",
  "release notes",
  "dependency upgrades",
  "bug triage",
  "performance profiling",
  "security audit",
  "api design",
  "documentation",
];
const CATS = ["code-quality", "testing", "devops", "security", "documentation", "frontend", "backend", "data"];
const q = (s) => `'${String(s).replaceAll("'", "''")}'`;

/** N published skills (rows straight into D1; the FTS index fills through the migration's triggers). */
function skillsSql(count) {
  const rand = prng(7);
  const pick = (l) => l[Math.floor(rand() * l.length)];
  const now = Date.now();
  const lines = [];
  const rows = [];
  for (let i = 0; i < count; i++) {
    const lib = pick(LIBS);
    const job = pick(JOBS);
    const slug = `${lib}-${job.replaceAll(" ", "-")}-${i.toString(36)}`;
    const description = `Helps with ${job} for ${lib} projects, checks k${i % 997} conventions and explains each change.`;
    const body = `# ${lib} ${job}\n\nUse this skill for ${job} in ${lib} code. Steps: read the diff, run the tests, write a summary.`;
    const tags = JSON.stringify([lib, job.split(" ")[0]]);
    const created = now - Math.floor(rand() * 365 * 86_400_000);
    rows.push(
      `('skl_seed_${i}', ${q(slug)}, 'own_seed', ${q(pick(CATS))}, ${q(description)}, ${q(tags)}, '["claude-code"]', 'sv_seed_${i}', '1.0.0', 'passed', ${created}, ${q(body)}, ${Math.floor(rand() * 5000)}, ${created}, ${created})`,
    );
  }
  for (let k = 0; k < rows.length; k += 50) {
    lines.push(
      `INSERT OR IGNORE INTO skills (id, slug, owner_id, category, description, tags, harnesses, latest_version_id, latest_version, security_status, status_changed_at, search_body, installs, created_at, updated_at) VALUES\n${rows.slice(k, k + 50).join(",\n")};`,
    );
  }
  return lines;
}

function seed(size, persistTo, dir) {
  const t0 = Date.now();
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, "scripts", "seed-forum.mjs"), "--count", String(size), "--persist-to", persistTo],
    {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  if (r.status !== 0) fail(`seeding ${size} threads failed`);
  const lines = skillsSql(size);
  const CHUNK = 100; // statements per file (5,000 rows)
  for (let k = 0; k < lines.length; k += CHUNK) {
    const file = path.join(dir, `skills-${k}.sql`);
    writeFileSync(file, `${lines.slice(k, k + CHUNK).join("\n")}\n`);
    executeLocalSql(file, persistTo);
  }
  console.error(`[bench:search] seeded ${size} threads and ${size} skills in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function measure(size, persistTo) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const dev = startDev({ port, persistTo, quiet: true, inspectorPort: await freePort() });
  const out = [];
  try {
    await waitForServer(origin, 120_000);
    for (const list of Object.keys(SHAPES)) {
      const stamp = `${Date.now().toString(36)}${list}`;
      const acct = await createAgent(origin, { email: `bench-search-${stamp}@example.com`, handle: `bs-${stamp}`.slice(0, 30) });
      // The highest plan, so the runs fit in its per-minute rate.
      await fetch(`${origin}/v1/billing/subscribe`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${acct.token}` },
        body: JSON.stringify({ plan: "EXPERT" }),
      });
      for (const [shape, query] of SHAPES[list]) {
        const lat = [];
        let body;
        for (let r = 0; r < WARMUP + RUNS; r++) {
          const t0 = performance.now();
          const res = await fetch(`${origin}/v1/${list}?q=${encodeURIComponent(query)}&perPage=20`, {
            headers: { authorization: `Bearer ${acct.key}` },
          });
          body = await res.json();
          if (r >= WARMUP) lat.push(performance.now() - t0);
          if (!res.ok) fail(`${list} ${shape}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
        }
        lat.sort((a, b) => a - b);
        const pct = (p) => lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)];
        const total = `${body.total}${body.totalIsLowerBound ? "+" : ""}`;
        out.push({ list, shape, query, size, total, p50: pct(50), p99: pct(99) });
        console.error(
          `[bench:search] ${size} ${list} ${shape}: total ${total}, p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms`,
        );
      }
    }
  } finally {
    dev.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 1000));
  }
  return out;
}

async function main() {
  const all = [];
  for (const size of SIZES) {
    const persistTo = mkdtempSync(path.join(tmpdir(), "lore-bench-search-"));
    const dir = mkdtempSync(path.join(tmpdir(), "lore-bench-search-sql-"));
    try {
      seed(size, persistTo, dir);
      all.push(...(await measure(size, persistTo)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(persistTo, { recursive: true, force: true });
    }
  }
  const fmt = (n) => n.toFixed(1);
  console.log(
    `\n${RUNS} sequential runs per query after ${WARMUP} warm-up runs; perPage=20; p50 / p99 in ms; total as answered ("+": a lower bound)\n`,
  );
  console.log(`| list | shape | query | ${SIZES.map((s) => `${s / 1000}k total | ${s / 1000}k p50 / p99`).join(" | ")} |`);
  console.log(`|---|---|---|${SIZES.map(() => "---|---|").join("")}`);
  for (const list of Object.keys(SHAPES)) {
    for (const [shape, query] of SHAPES[list]) {
      const cells = SIZES.map((size) => {
        const r = all.find((x) => x.list === list && x.shape === shape && x.size === size);
        return `${r.total} | ${fmt(r.p50)} / ${fmt(r.p99)}`;
      });
      console.log(`| ${list} | ${shape} | \`${query || "(none)"}\` | ${cells.join(" | ")} |`);
    }
  }
}

runMain(main, "[bench:search]");
