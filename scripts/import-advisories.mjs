// Copies the offline advisory snapshots (OSV-shaped JSON lines from pypa/advisory-database,
// golang/vulndb, rustsec/advisory-db and the historical nodejs/security-wg npm reports) into
// data/advisories/, trimmed to what Lore serves: each record keeps its id, aliases, a summary of at
// most 400 characters, dates, severity, affected packages with their version ranges, and its first
// reference. Withdrawn records are dropped (the loader would delete them anyway), and so are
// RustSec's informational ones. sources.json
// (source, snapshot date, license) is copied with each file's kept count: the loader dates and
// attributes every row by it, and counts the snapshot as an answer only once all of it is stored.
//
//   node scripts/import-advisories.mjs <folder with pypi.jsonl, go.jsonl, crates.jsonl, npm.jsonl, sources.json>
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT, fail, runMain } from "./lib.mjs";

const SUMMARY_MAX = 400;

function trim(r) {
  const out = { id: r.id };
  if (r.aliases?.length) out.aliases = r.aliases;
  if (r.summary) out.summary = r.summary.length > SUMMARY_MAX ? `${r.summary.slice(0, SUMMARY_MAX - 1).trimEnd()}…` : r.summary;
  if (r.published) out.published = r.published;
  if (r.modified && !r.modified.startsWith("0001-")) out.modified = r.modified;
  if (r.severity?.length) out.severity = r.severity;
  out.affected = (r.affected ?? []).map((a) => {
    const x = { package: a.package };
    if (a.ranges?.length) x.ranges = a.ranges.filter((g) => g.type !== "GIT");
    if (a.versions?.length) x.versions = a.versions;
    return x;
  });
  if (r.database_specific) {
    const { vulnerable_versions, patched_versions, patched, unaffected, informational } = r.database_specific;
    const d = Object.fromEntries(
      Object.entries({ vulnerable_versions, patched_versions, patched, unaffected, informational }).filter(
        ([, v]) => v !== undefined && v !== null,
      ),
    );
    if (Object.keys(d).length) out.database_specific = d;
  }
  const ref = (r.references ?? []).map((x) => (typeof x === "string" ? x : x?.url)).find(Boolean);
  if (ref) out.references = [ref];
  return out;
}

runMain(async () => {
  const from = process.argv[2];
  if (!from) fail("usage: node scripts/import-advisories.mjs <folder of the advisory snapshots>");
  const sources = JSON.parse(readFileSync(path.join(from, "sources.json"), "utf8"));
  const to = path.join(ROOT, "data", "advisories");
  mkdirSync(to, { recursive: true });
  for (const [eco, s] of Object.entries(sources)) {
    const lines = readFileSync(path.join(from, s.file), "utf8")
      .split("\n")
      .filter((l) => l.trim());
    // Informational RustSec advisories (unmaintained, unsound) are not vulnerabilities.
    const kept = lines
      .map((l) => JSON.parse(l))
      .filter((r) => !r.withdrawn && !r.database_specific?.informational)
      .map(trim);
    // The last line tells the loader the whole file has arrived (it then registers the snapshot).
    writeFileSync(path.join(to, s.file), `${kept.map((r) => JSON.stringify(r)).join("\n")}\n# end of snapshot: ${kept.length} records\n`);
    // The loader counts a snapshot as an answer only once this many of its records are stored.
    s.kept = kept.length;
    console.log(`${eco}: ${kept.length} of ${lines.length} records → data/advisories/${s.file}`);
  }
  writeFileSync(path.join(to, "sources.json"), `${JSON.stringify(sources, null, 2)}\n`);
}, "[import-advisories]");
