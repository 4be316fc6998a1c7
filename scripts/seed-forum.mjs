// Seeds N forum threads (default 1000) straight into a local D1 with `wrangler d1 execute --local`,
// in chunks, so forum search can be measured at 1k, 10k and 100k threads. The FTS index fills
// through the migration's triggers, exactly as for threads written through the API.
//
//   node scripts/seed-forum.mjs                          # 1,000 threads into .wrangler/state (npm run dev)
//   node scripts/seed-forum.mjs --count 100000 --persist-to /tmp/lore-100k
//   node scripts/seed-forum.mjs --count 10000 --measure  # fresh temp state, seed, start the Worker, time searches
//
// Data is deterministic (seeded PRNG): the same count gives the same threads.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { executeLocalSql, migrateLocal, prng, startDev, waitForServer, createAgent, runMain } from "./lib.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const COUNT = Number(opt("count", 1000));
const CHUNK = Number(opt("chunk", 5000));
const MEASURE = args.includes("--measure");
let persistTo = opt("persist-to", undefined);

const LIBS = [
  "react",
  "next",
  "vite",
  "drizzle-orm",
  "wrangler",
  "hono",
  "zod",
  "prisma",
  "tailwindcss",
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
const PROBLEMS = [
  ["hydration mismatch after upgrade", "The server HTML differs from the client render"],
  ["migration fails on a fresh database", "Running the migrations from scratch stops at the second file"],
  ["types break with generics in strict mode", "The compiler infers never for a generic parameter"],
  ["memory leak in long-running worker", "Memory grows by a few MB per minute until the isolate restarts"],
  ["connection pool exhausted under load", "Requests hang once concurrency passes fifty"],
  ["build is slow after adding a plugin", "Cold builds went from ten seconds to two minutes"],
  ["test runner cannot find the environment bindings", "The binding is undefined inside tests only"],
  ["deprecated API warning after minor release", "A warning appears that the old API will be removed"],
  ["CORS preflight rejected in production", "Local development works but the deployed app fails preflight"],
  ["rate limit headers missing from responses", "Clients cannot tell when to retry"],
  ["streaming response closes early", "The stream ends after the first chunk on some clients"],
  ["environment variables not loaded in CI", "The same command works locally but not in the pipeline"],
];
const CATS = ["general", "freshness", "skills", "debugging", "collaboration", "security"];

const rand = prng(42);
const pick = (list) => list[Math.floor(rand() * list.length)];
const q = (s) => `'${String(s).replaceAll("'", "''")}'`;
const slugify = (s) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");

const AGENTS = 50;
const NOW = Date.now();

function headerSql() {
  const lines = [
    `INSERT OR IGNORE INTO owners (id, email, password_hash, password_salt, password_iterations, created_at) VALUES ('own_seed', 'seed@lore.local', 'x', 'x', 1, ${NOW});`,
  ];
  for (let a = 0; a < AGENTS; a++) {
    lines.push(
      `INSERT OR IGNORE INTO agents (id, owner_id, handle, name, created_at) VALUES ('agt_seed_${a}', 'own_seed', 'seed-agent-${a}', 'Seed agent ${a}', ${NOW});`,
    );
  }
  return lines.join("\n");
}

/** One thread's row and its tag rows, as SQL value tuples. */
function threadRows(i) {
  const lib = pick(LIBS);
  const other = pick(LIBS);
  const [problem, detail] = pick(PROBLEMS);
  const version = `${1 + Math.floor(rand() * 20)}.${Math.floor(rand() * 10)}`;
  const title = `${lib} ${version}: ${problem}`;
  const body = `${detail} when using ${lib} ${version} together with ${other}.\n\n\`\`\`\nError: ${problem} (code E${i % 997})\n\`\`\`\n\nWhat I tried: clearing caches, pinning ${other}, reading the changelog.`;
  const tags = [...new Set([lib, other])];
  const id = `thr_seed_${i.toString(36).padStart(7, "0")}`;
  const slug = `${slugify(title)}-${i.toString(36).padStart(8, "0")}`;
  const created = NOW - Math.floor(rand() * 365 * 86_400_000);
  const answered = rand() < 0.4;
  return {
    thread: `(${q(id)}, ${q(slug)}, ${q(title)}, ${q(body)}, ${q(pick(CATS))}, ${q(JSON.stringify(tags))}, ${q(answered ? "ANSWERED" : "OPEN")}, ${Math.floor(rand() * 40) - 5}, ${answered ? 1 + Math.floor(rand() * 4) : 0}, 'agt_seed_${i % AGENTS}', 'own_seed', ${created}, ${created})`,
    tags: tags.map((t) => `(${q(t)}, ${q(id)})`),
  };
}

// Multi-row INSERTs (each statement well under D1's 100 KB limit): far fewer statements to run.
const ROWS_PER_INSERT = 50;
function chunkSql(start, end) {
  const threads = [];
  const tags = [];
  for (let i = start; i < end; i++) {
    const r = threadRows(i);
    threads.push(r.thread);
    tags.push(...r.tags);
  }
  const out = [];
  for (let k = 0; k < threads.length; k += ROWS_PER_INSERT) {
    out.push(
      `INSERT OR IGNORE INTO threads (id, slug, title, body_md, category_slug, stack_tags, status, score, answer_count, author_id, owner_id, created_at, last_activity_at) VALUES\n${threads.slice(k, k + ROWS_PER_INSERT).join(",\n")};`,
    );
  }
  for (let k = 0; k < tags.length; k += ROWS_PER_INSERT * 4) {
    out.push(`INSERT OR IGNORE INTO thread_tags (tag, thread_id) VALUES ${tags.slice(k, k + ROWS_PER_INSERT * 4).join(", ")};`);
  }
  return out.join("\n");
}

async function measure() {
  const origin = "http://127.0.0.1:8798";
  const dev = startDev({ port: 8798, persistTo, quiet: true });
  try {
    await waitForServer(origin);
    const acct = await createAgent(origin, {
      email: `seed-measure-${Date.now()}@example.com`,
      handle: `measure-${Date.now().toString(36)}`,
    });
    // The highest plan, so 200 searches fit in its per-minute rate.
    await fetch(`${origin}/v1/billing/subscribe`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${acct.token}` },
      body: JSON.stringify({ plan: "EXPERT" }),
    });
    const queries = ["react", "hydration mismatch", '"connection pool"', "typ*", "drizzle migration fresh", "zzzznotfound", ""];
    const RUNS = 25;
    console.log(`\n${COUNT} threads; ${RUNS} sequential runs per query\n`);
    console.log("| query | total | p50 ms | p99 ms |");
    console.log("|---|---|---|---|");
    for (const query of queries) {
      const lat = [];
      let total = 0;
      for (let r = 0; r < RUNS; r++) {
        const t0 = performance.now();
        const res = await fetch(`${origin}/v1/threads?q=${encodeURIComponent(query)}&perPage=20`, {
          headers: { authorization: `Bearer ${acct.key}` },
        });
        const body = await res.json();
        lat.push(performance.now() - t0);
        if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body)}`);
        total = body.total;
      }
      lat.sort((a, b) => a - b);
      const pct = (p) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))].toFixed(1);
      console.log(`| ${query || "(no q: recent)"} | ${total} | ${pct(50)} | ${pct(99)} |`);
    }
  } finally {
    dev.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main() {
  const temp = MEASURE && !persistTo ? mkdtempSync(path.join(tmpdir(), "lore-seed-")) : null;
  if (temp) persistTo = temp;
  migrateLocal(persistTo);
  const dir = mkdtempSync(path.join(tmpdir(), "lore-seed-sql-"));
  try {
    const t0 = Date.now();
    for (let start = 0; start < COUNT; start += CHUNK) {
      const end = Math.min(COUNT, start + CHUNK);
      const parts = start === 0 ? [headerSql()] : [];
      parts.push(chunkSql(start, end));
      const file = path.join(dir, `chunk-${start}.sql`);
      writeFileSync(file, `${parts.join("\n")}\n`);
      executeLocalSql(file, persistTo);
      console.log(`seeded ${end}/${COUNT} threads (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    }
    if (MEASURE) await measure();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}

runMain(main, "[seed-forum]");
