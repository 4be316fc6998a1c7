// The npm mirror reachable here lacks workerd's macOS and Windows binaries for the pinned
// version, so `npm install` writes a lockfile without them, and `npm ci` then refuses the lockfile
// as out of sync. This adds those entries back as npm would on a full registry: optional,
// os/cpu-restricted, and therefore never fetched on Linux. Run it after any `npm install` that
// rewrites package-lock.json.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fail, runMain } from "./lib.mjs";

runMain(() => {
  if (!existsSync("package-lock.json")) fail("no package-lock.json here: run this from the project folder after npm install");
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
  const workerd = lock.packages["node_modules/workerd"];
  if (!workerd) fail("package-lock.json has no workerd entry: run npm install first");
  const platforms = {
    "@cloudflare/workerd-darwin-64": ["darwin", "x64"],
    "@cloudflare/workerd-darwin-arm64": ["darwin", "arm64"],
    "@cloudflare/workerd-linux-64": ["linux", "x64"],
    "@cloudflare/workerd-linux-arm64": ["linux", "arm64"],
    "@cloudflare/workerd-windows-64": ["win32", "x64"],
  };
  let added = 0;
  for (const [name, [os, cpu]] of Object.entries(platforms)) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    lock.packages[key] = {
      version: workerd.version,
      cpu: [cpu],
      dev: true,
      license: "Apache-2.0",
      optional: true,
      os: [os],
      engines: { node: ">=16" },
    };
    added++;
  }
  const sorted = {};
  for (const k of Object.keys(lock.packages).sort((a, b) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))))
    sorted[k] = lock.packages[k];
  lock.packages = sorted;
  writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`lockfile: ${added} workerd platform entries added`);
}, "[lock-platforms]");
