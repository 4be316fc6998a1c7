// The drizzle schema (src/db) and the SQL migrations must describe the same database:
// `drizzle-kit generate` run on a scratch copy must find nothing to migrate. A column added to the
// schema without a migration (or the reverse, via the snapshot in migrations/meta) fails here.
// Usage: npm run check:migrations
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execFileSync } from "node:child_process";

const root = resolve(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "lore-migrations-"));
try {
  for (const p of ["drizzle.config.ts", "package.json", "src", "migrations"]) cpSync(join(root, p), join(dir, p), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  const before = readdirSync(join(dir, "migrations")).length;
  const out = execFileSync(join(root, "node_modules/.bin/drizzle-kit"), ["generate"], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  execFileSync(join(root, "node_modules/.bin/drizzle-kit"), ["check"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  const after = readdirSync(join(dir, "migrations")).length;
  if (after !== before || !/No schema changes/.test(out)) {
    console.error(out);
    console.error(
      "check:migrations: src/db and migrations/ differ; write the migration (npx drizzle-kit generate --custom) and update migrations/meta",
    );
    process.exit(1);
  }
  console.log("check:migrations: schema and migrations agree");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
