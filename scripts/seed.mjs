// Loads the data the project ships (data/) into a running Lore through its operator routes
// (/internal/seeds, src/admin): each dataset file is sent whole or in chunks of whole lines, and
// marked done with its digest, so a dataset whose file did not change is skipped next time.
//
//   npm start does this by itself. Against a deployed Worker (see the README's deploy section):
//   LORE_ADMIN_TOKEN=... node scripts/seed.mjs https://lore.example.workers.dev
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, errorMessage, fail, requestJson, runMain } from "./lib.mjs";

/**
 * A dataset's bytes: the file, or for a folder one JSON document `{files: [{path, content}]}`
 * (every file under it, paths relative to it, content base64, sorted by path so the digest is stable).
 */
export function datasetBytes(file) {
  const full = path.join(ROOT, "data", file);
  if (!statSync(full).isDirectory()) return readFileSync(full);
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  const files = walk(full)
    .map((p) => path.relative(full, p).split(path.sep).join("/"))
    .sort()
    .map((rel) => ({ path: rel, content: readFileSync(path.join(full, rel)).toString("base64") }));
  return Buffer.from(JSON.stringify({ files }));
}

/**
 * Seeds every dataset the Worker lists (but those `skip(name)` leaves out); returns
 * [{name, rows, skipped, ms}].
 */
export async function seed(origin, token, { log = () => {}, skip = () => false } = {}) {
  const api = async (p, init = {}) => {
    const r = await requestJson(origin, p, {
      method: init.method,
      body: init.body,
      token,
      headers: init.headers,
      hint: "is the Worker deployed and the URL right?",
    });
    if (r.status === 401)
      fail(`${origin} refused the admin token: use the Worker's ADMIN_TOKEN secret (wrangler secret put ADMIN_TOKEN sets a new one)`);
    if (r.status === 404 && p === "/internal/seeds")
      fail(`${origin} has no operator routes: set the ADMIN_TOKEN secret on the Worker first (wrangler secret put ADMIN_TOKEN)`);
    if (r.status >= 300 || !r.body) fail(`${init.method ?? "GET"} ${p} failed: ${errorMessage(r)}`);
    return r.body;
  };
  const { items } = await api("/internal/seeds");
  const out = [];
  for (const d of items) {
    if (skip(d.name)) continue;
    const t0 = Date.now();
    const bytes = datasetBytes(d.file);
    const digest = createHash("sha256").update(bytes).digest("hex");
    if (d.loadedDigest === digest) {
      out.push({ name: d.name, rows: d.rows, skipped: true, ms: Date.now() - t0 });
      continue;
    }
    const text = bytes.toString("utf8");
    const chunks = [];
    if (d.chunkLines) {
      const lines = text.split("\n");
      for (let i = 0; i < lines.length; i += d.chunkLines) chunks.push(lines.slice(i, i + d.chunkLines).join("\n"));
    } else {
      chunks.push(text);
    }
    let rows = 0;
    for (const chunk of chunks) {
      const r = await api(`/internal/seeds/${d.name}`, {
        method: "POST",
        body: chunk,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
      rows += r.rows;
    }
    await api(`/internal/seeds/${d.name}/done`, {
      method: "POST",
      body: JSON.stringify({ digest, rows }),
      headers: { "content-type": "application/json" },
    });
    out.push({ name: d.name, rows, skipped: false, ms: Date.now() - t0 });
    log(`seeded ${d.name}: ${rows} rows in ${Date.now() - t0} ms`);
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runMain(async () => {
    const origin = process.argv[2] ?? process.env.LORE_URL;
    const token = process.env.LORE_ADMIN_TOKEN;
    if (!origin || !token)
      fail("usage: LORE_ADMIN_TOKEN=<token> node scripts/seed.mjs <origin>   (the token is the Worker's ADMIN_TOKEN secret)");
    const r = await seed(origin.replace(/\/+$/, ""), token, { log: console.log });
    console.log(`${r.length} datasets: ${r.map((d) => `${d.name} ${d.skipped ? "unchanged" : `${d.rows} rows`}`).join(", ") || "none"}`);
  }, "[seed]");
}
