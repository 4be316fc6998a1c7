// `npm run deploy`: from a Cloudflare account to a live Lore, in the order the README's "Deploy to
// Cloudflare" section explains: check the login, create the D1 database and the R2 bucket (or find
// them), write the database id into wrangler.toml, apply the migrations to the remote database,
// deploy the scanner Worker (src/scan-worker/) and the MCP SDK Worker (src/mcp-worker/), then the Worker, set the ADMIN_TOKEN secret, load the shipped data (scripts/seed.mjs) and check the
// live service with one request. Running it again is safe: what exists is found, not recreated.
//
//   npm run deploy                         # the whole thing
//   npm run deploy -- --dry-run            # print every step and command, change nothing
//   npm run deploy -- --hostname api.example.com   # a custom domain, added to PUBLIC_HOSTNAMES
//   npm run deploy -- --url https://api.example.com # where the Worker answers, when not workers.dev
//
// LORE_ADMIN_TOKEN=<token> reuses an operator token instead of making a new one (it is never
// printed). LORE_WRANGLER runs another wrangler (the test suite's recorded stand-in).
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import {
  ROOT,
  WRANGLER,
  WRANGLER_ENV,
  errorMessage,
  fail,
  functionsForArrows,
  newAdminToken,
  newSecret,
  requestJson,
  runMain,
} from "./lib.mjs";
import { seed } from "./seed.mjs";

const USAGE = "usage: npm run deploy -- [--dry-run] [--config wrangler.toml] [--hostname <custom domain>]... [--url <https://…>]";
/**
 * The Workers the main Worker reaches over a service binding, each deployed before it from its own
 * configuration (relative to the project folder) and named after it: the binding's service must be
 * the main Worker's name + `suffix`.
 */
const HELPERS = [
  { binding: "SCANNER", config: "src/scan-worker/wrangler.toml", suffix: "-scanner", what: "scanner Worker" },
  { binding: "MCP_SDK", config: "src/mcp-worker/wrangler.toml", suffix: "-mcp-sdk", what: "MCP SDK Worker" },
];

/**
 * Secrets the Worker needs, put with `wrangler secret put` after the deploy. `env` is where a
 * value comes from; `generate` makes one when it is not set. A `keep` secret is generated only when
 * the Worker has none yet (`wrangler secret list`): changing it would break what it signed (agent
 * keys, sync cursors), so a value from `env` is the only way to replace it (and the README says how
 * to rotate). Areas that need a secret add it here (and say so in their README section).
 */
export const SECRETS = [
  { name: "ADMIN_TOKEN", env: "LORE_ADMIN_TOKEN", generate: newAdminToken, about: "operator token for /internal (seeding)" },
  {
    name: "KEY_SECRET",
    env: "LORE_KEY_SECRET",
    generate: newSecret,
    keep: true,
    about: "tags agent keys with their account; replacing it without KEY_SECRET_PREVIOUS breaks every key",
  },
  { name: "CURSOR_SECRET", env: "LORE_CURSOR_SECRET", generate: newSecret, keep: true, about: "signs sync cursors" },
];

const STRIPE_SECRETS = ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"];

/** What the deployed Worker does about billing, from its secret names and wrangler.toml's [vars], with what to set. */
export function billingAdvice(secretNames, toml) {
  const has = (n) => secretNames.includes(n) || new RegExp(`^\\s*${n}\\s*=\\s*"[^"]+"`, "m").test(toml);
  if (STRIPE_SECRETS.some(has)) return "billing: Stripe (the STRIPE_* secrets are set; README 'Payments with Stripe' lists all five)";
  if (has("BILLING_PROVIDER")) return "billing: BILLING_PROVIDER is set (local: paid plans are granted without charging)";
  return (
    "billing: not configured, so paid plans are refused (subscribing answers 409 and says so). To sell them, set " +
    "STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_STARTER, STRIPE_PRICE_PRO and STRIPE_PRICE_EXPERT (README 'Payments with Stripe'); " +
    "to grant them without charging on a private deployment, `npx wrangler secret put BILLING_PROVIDER` with the value local"
  );
}

/** The first workers.dev URL in `wrangler deploy` output (custom routes print none). */
export function deployedUrl(output) {
  return /https:\/\/[a-z0-9.-]+\.workers\.dev\b/i.exec(output)?.[0] ?? null;
}

/** The `[[section]]` block of wrangler.toml whose binding is `binding` ("" when there is none). */
const block = (toml, section, binding) =>
  toml.split(/^\s*\[\[/m).find((b) => b.startsWith(`${section}]]`) && new RegExp(`^\\s*binding\\s*=\\s*"${binding}"`, "m").test(b)) ?? "";
/** A string field of a block, or null. */
const field = (b, key) => new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, "m").exec(b)?.[1] ?? null;

/** The names wrangler.toml gives the D1 database (binding DB) and the R2 bucket (binding SKILLS). */
export function resourceNames(toml) {
  const d1 = block(toml, "d1_databases", "DB");
  const r2 = block(toml, "r2_buckets", "SKILLS");
  return { database: field(d1, "database_name"), databaseId: field(d1, "database_id"), bucket: field(r2, "bucket_name") };
}

/** wrangler.toml with the DB binding's database_id set (comments and layout kept). */
export function withDatabaseId(toml, id) {
  return toml.replace(/(\[\[d1_databases\]\][^[]*?binding\s*=\s*"DB"[^[]*?database_id\s*=\s*")[^"]*(")/s, `$1${id}$2`);
}

/** wrangler.toml with these hostnames added to [vars] PUBLIC_HOSTNAMES. */
export function withHostnames(toml, hostnames) {
  const m = /^(\s*PUBLIC_HOSTNAMES\s*=\s*")([^"]*)(")/m.exec(toml);
  if (!m) fail(`wrangler.toml has no PUBLIC_HOSTNAMES line under [vars]: add PUBLIC_HOSTNAMES = "" there first`);
  const have = m[2]
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  const all = [...new Set([...have, ...hostnames.map((h) => h.trim().toLowerCase())])];
  return toml.replace(m[0], `${m[1]}${all.join(",")}${m[3]}`);
}

/** Runs wrangler, showing its output as it comes and returning it; `input` goes to its stdin. */
function wrangler(args, { input, quiet = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(WRANGLER, args, { cwd: ROOT, env: WRANGLER_ENV, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    const take = (stream, sink) =>
      stream.on("data", (d) => {
        out += d;
        if (!quiet) sink.write(d);
      });
    take(child.stdout, process.stdout);
    take(child.stderr, process.stderr);
    child.on("error", (e) => resolve({ code: -1, out: `${out}\n${e.message}` }));
    child.on("close", (code) => resolve({ code, out }));
    child.stdin.end(input ?? "");
  });
}

export async function deploy(argv = process.argv.slice(2), log = (line) => console.log(`[deploy] ${line}`)) {
  let opts;
  try {
    opts = parseArgs({
      args: argv,
      options: {
        "dry-run": { type: "boolean" },
        config: { type: "string" },
        hostname: { type: "string", multiple: true },
        url: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (e) {
    fail(`${e.message.split(".")[0]}; ${USAGE}`);
  }
  if (opts.help) return log(USAGE);
  const dry = !!opts["dry-run"];
  const configPath = path.resolve(ROOT, opts.config ?? "wrangler.toml");
  const c = ["--config", configPath];
  let toml;
  try {
    toml = readFileSync(configPath, "utf8");
  } catch {
    fail(`cannot read ${configPath}: run this from the project folder, or pass --config`);
  }
  const names = resourceNames(toml);
  if (!names.database || !names.bucket) fail(`${configPath} has no D1 binding DB or R2 binding SKILLS: restore them from the repository`);
  // The helper Workers (HELPERS): the main Worker's service bindings name them, so they are deployed
  // first (a binding to a Worker that does not exist yet is refused), under the name each binding
  // gives, which must be this Worker's name + the helper's suffix: a second configuration (staging)
  // then deploys and binds its own helpers rather than replacing the production ones.
  const workerName = /^name\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (!workerName) fail(`${configPath} has no top-level name = "…": restore it from the repository`);
  const helpers = HELPERS.map((h) => {
    const bound = field(block(toml, "services", h.binding), "service");
    if (!bound) fail(`${configPath} has no [[services]] binding ${h.binding}: restore it from the repository`);
    const name = `${workerName}${h.suffix}`;
    if (bound !== name)
      fail(
        `${configPath} names the Worker "${workerName}" but binds ${h.binding} to "${bound}": bind service = "${name}", ` +
          `so each deployment has its own ${h.what} (deploy creates it)`,
      );
    return { ...h, name, config: path.join(ROOT, h.config) };
  });
  const total = 9 + HELPERS.length;
  let n = 0;
  const step = (what) => log(`${++n}/${total} ${what}${dry ? "  (dry run: not run)" : ""}`);
  const run = async (args, what, opts = {}) => {
    const shown = `wrangler ${args.filter((a) => a !== configPath && a !== "--config").join(" ")}${opts.config ? ` --config ${path.relative(ROOT, opts.config)}` : ""}`;
    if (dry) return (log(`    ${shown}`), { code: 0, out: "" });
    const r = await wrangler([...args, ...(opts.config ? ["--config", opts.config] : c)], opts);
    if (r.code !== 0 && !opts.allowFailure?.(r.out))
      fail(`${what} failed (\`${shown}\`, output above)${opts.hint ? `: ${opts.hint}` : ""}`);
    return r;
  };
  if (dry) log("dry run: every step and command, in order; nothing is created, changed or deployed");

  step("Cloudflare login");
  const who = await run(["whoami"], "checking the login", {
    quiet: true,
    hint: "run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN) and try again",
  });
  if (!dry && /not authenticated|not logged in/i.test(who.out))
    fail("not logged in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then npm run deploy again");

  step(`D1 database "${names.database}"`);
  const findDb = async () => {
    const list = await run(["d1", "list", "--json"], "listing D1 databases", { quiet: true });
    try {
      return JSON.parse(list.out.slice(list.out.indexOf("["))).find((d) => d.name === names.database)?.uuid ?? null;
    } catch {
      fail(`could not read \`wrangler d1 list --json\` output: ${list.out.trim().split("\n")[0]}`);
    }
  };
  let databaseId = dry ? null : await findDb();
  if (dry) log(`    wrangler d1 list --json   → if "${names.database}" is missing: wrangler d1 create ${names.database}`);
  else if (databaseId) log(`    exists: ${databaseId}`);
  else {
    await run(["d1", "create", names.database], `creating the D1 database ${names.database}`);
    databaseId = await findDb();
    if (!databaseId) fail(`created ${names.database} but \`wrangler d1 list\` does not show it: run npm run deploy again`);
  }

  step("database id and hostnames into wrangler.toml");
  let next = dry ? toml : withDatabaseId(toml, databaseId);
  if (opts.hostname?.length) next = withHostnames(next, opts.hostname);
  if (dry)
    log(
      `    database_id = "<id of ${names.database}>"${opts.hostname?.length ? `; PUBLIC_HOSTNAMES += ${opts.hostname.join(",")}` : ""} in ${path.relative(ROOT, configPath)}`,
    );
  else if (next !== toml) {
    writeFileSync(configPath, next);
    log(`    ${path.relative(ROOT, configPath)} updated: commit it, so the next deploy uses the same database`);
  } else log("    already up to date");

  step(`R2 bucket "${names.bucket}"`);
  await run(["r2", "bucket", "create", names.bucket], `creating the R2 bucket ${names.bucket}`, {
    quiet: true,
    allowFailure: (out) => /already exists/i.test(out),
  });

  step("migrations on the remote database");
  await run(["d1", "migrations", "apply", "DB", "--remote"], "applying the migrations");

  for (const h of helpers) {
    step(`deploy the ${h.what} "${h.name}" (no public route; the Worker calls it over RPC)`);
    await run(["deploy", "--name", h.name], `deploying the ${h.what}`, { config: h.config });
  }

  step("deploy the Worker");
  // Built by wrangler, then esbuild's module wrappers in it written as `function` expressions rather
  // than arrows (lib.mjs's functionsForArrows: a cold isolate then only pre-parses the modules it does
  // not run yet), and uploaded as it is.
  const built = path.join(".wrangler", "deploy");
  await run(["deploy", "--dry-run", "--outdir", path.join(built, "wrangler")], "building the Worker", { quiet: true });
  if (dry) log(`    esbuild's module wrappers written as function expressions → ${path.join(built, "upload", "index.js")}`);
  else await functionsForArrows(path.join(ROOT, built, "wrangler"), path.join(ROOT, built, "upload"));
  // Already minified: `--minify=false` only stops wrangler warning that it cannot minify without bundling.
  const deployed = await run(["deploy", "--no-bundle", "--minify=false", path.join(built, "upload", "index.js")], "deploying");
  const url = (opts.url ?? deployedUrl(deployed.out) ?? (dry ? "https://lore.<your-subdomain>.workers.dev" : null))?.replace(/\/+$/, "");
  if (!url)
    fail("deployed, but wrangler printed no workers.dev URL: pass the Worker's URL with --url https://… and run npm run deploy again");
  log(`    live at ${url}`);

  step("secrets");
  const listed = await run(["secret", "list", "--format", "json"], "listing the Worker's secrets", { quiet: true });
  let existing = [];
  try {
    existing = dry ? [] : JSON.parse(listed.out.slice(listed.out.indexOf("["))).map((x) => x.name);
  } catch {
    fail(`could not read \`wrangler secret list --format json\` output: ${listed.out.trim().split("\n")[0]}`);
  }
  const values = {};
  for (const s of SECRETS) {
    if (s.keep && !process.env[s.env] && existing.includes(s.name)) {
      log(`    ${s.name} kept (${s.about}; set ${s.env} to replace it)`);
      continue;
    }
    const value = process.env[s.env] || s.generate?.();
    if (!value) fail(`the secret ${s.name} (${s.about}) has no value: set ${s.env} and run npm run deploy again`);
    values[s.name] = value;
    await run(["secret", "put", s.name], `setting the secret ${s.name}`, { input: value, quiet: true });
    log(`    ${s.name} set (${s.about}; the value is not shown${process.env[s.env] ? `, it came from ${s.env}` : ""})`);
  }
  log(`    ${billingAdvice(existing, readFileSync(configPath, "utf8"))}`);

  step("load the shipped data (scripts/seed.mjs)");
  if (dry) log(`    LORE_ADMIN_TOKEN=… node scripts/seed.mjs ${url}`);
  else {
    const done = await seed(url, values.ADMIN_TOKEN, { log: (line) => log(`    ${line}`) });
    log(`    ${done.length} datasets (${done.filter((d) => d.skipped).length} unchanged)`);
  }

  step("check the live service");
  log(`    curl -s ${url}/v1/plans`);
  if (!dry) {
    const r = await requestJson(url, "/v1/plans", {
      hint: "the Worker may need a few seconds after its first deploy: run npm run deploy again",
    });
    if (r.status !== 200 || !Array.isArray(r.body?.items)) fail(`${url}/v1/plans answered ${r.status}: ${errorMessage(r)}`);
    log(`    ${r.status}: ${r.body.items.length} plans. Lore is live at ${url} (MCP: ${url}/v1/mcp)`);
    if (!process.env.LORE_ADMIN_TOKEN)
      log("    to load data again later: LORE_ADMIN_TOKEN=<new token> npm run deploy (it sets that token as the secret)");
  }
  return { url, databaseId };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) runMain(() => deploy(), "[deploy]");
