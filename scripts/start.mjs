// `npm start`: migrate the local D1, serve on 127.0.0.1:$PORT (default 8787) with local D1, R2 and
// Durable Objects (state in .wrangler/state), then load the data the project ships (data/: the
// offline package, freshness, advisory, model and MCP-server data, Lore's own skills) through the
// Worker's operator routes, then run one pass of the scheduled ingest in the background (the npm
// registry first: local releases and "latest" versions are then current; sources that cannot be
// reached fail fast and are reported). A fresh ADMIN_TOKEN is made for each run and never written anywhere.
import { createServer } from "node:net";
import { errorMessage, fail, migrateLocal, newAdminToken, requestJson, runMain, startDev, waitForServer } from "./lib.mjs";
import { seed } from "./seed.mjs";

const startedAt = Date.now();
const secs = (t) => `${((Date.now() - t) / 1000).toFixed(1)} s`;

/** The sources the start pass asks after npm, each reported (the ingest's own list, npm first). */
const OTHER_SOURCES = ["pypi", "go", "crates", "github", "changelog", "osv", "osv-malicious", "models.dev"];

/**
 * One pass of the scheduled ingest, as the cron would run it, in the background: npm first (what
 * this machine can reach), then every other source with a short timeout. Never stops the server.
 */
async function startIngest(origin, token, log) {
  const run = async (sources) => {
    const r = await requestJson(origin, "/internal/ingest", { method: "POST", token, body: { sources, maxTopics: 200, timeoutMs: 5000 } });
    if (r.status !== 200 || !r.body) throw new Error(errorMessage(r));
    return r.body.sources;
  };
  const line = (s) =>
    s.unreachable
      ? `${s.source}: unreachable from here (${(s.errors[0] ?? "").replace(/^[^:]*: /, "").slice(0, 120)}); its facts stay as shipped, dated`
      : `${s.source}: ${s.ok} ok, ${s.failed} failed, ${s.items} facts in ${(s.ms / 1000).toFixed(1)} s${s.failed ? ` (${s.errors[0]?.slice(0, 120)})` : ""}`;
  const [npm] = await run(["npm"]);
  log(`ingest ${line(npm)}`);
  if (npm?.ok)
    log(`npm facts current ${secs(startedAt)} after npm start (releases and latest versions of ${npm.ok} npm topics from the registry)`);
  for (const s of await run(OTHER_SOURCES)) log(`ingest ${line(s)}`);
}

const port = Number(process.env.PORT ?? 8787);
const origin = `http://127.0.0.1:${port}`;

/** True when nothing listens on the port yet (wrangler's own message for a taken port is easy to miss). */
const portIsFree = (p) =>
  new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(p, "127.0.0.1", () => srv.close(() => resolve(true)));
  });

runMain(async () => {
  if (!Number.isInteger(port) || port <= 0 || port > 65535) fail(`PORT=${process.env.PORT} is not a port number: try PORT=8787 npm start`);
  if (!(await portIsFree(port)))
    fail(`port ${port} is taken (is Lore already running?): stop that server, or run PORT=${port + 1} npm start`);
  const token = newAdminToken();
  migrateLocal();
  const child = startDev({ port, vars: { ADMIN_TOKEN: token } });
  const stop = () => child.kill("SIGINT");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  child.on("exit", (code) => process.exit(code ?? 0));
  try {
    await waitForServer(origin, 120_000, { adminToken: token });
    const t0 = Date.now();
    const done = await seed(origin, token, { log: (line) => console.log(`[lore] ${line}`) });
    const loaded = done.filter((d) => !d.skipped);
    console.log(
      `[lore] data ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (${loaded.length} datasets loaded, ${done.length - loaded.length} unchanged). Serving ${origin}`,
    );
    // In the background: the server answers meanwhile, with the shipped (dated) facts until then.
    startIngest(origin, token, (l) => console.log(`[lore] ${l}`)).catch((e) =>
      console.log(`[lore] the start-up ingest pass failed: ${e?.message ?? e}`),
    );
  } catch (e) {
    stop();
    throw e;
  }
});
