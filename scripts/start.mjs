// `npm start`: migrate the local D1, serve on 127.0.0.1:$PORT (default 8787) with local D1, R2 and
// Durable Objects (state in .wrangler/state), then load the data the project ships (data/: the
// offline package, freshness, model and MCP-server data, Lore's own skills) through the Worker's
// operator routes. A fresh ADMIN_TOKEN is made for each run and never written anywhere.
import { migrateLocal, newAdminToken, startDev, waitForServer } from "./lib.mjs";
import { seed } from "./seed.mjs";

const port = Number(process.env.PORT ?? 8787);
const origin = `http://127.0.0.1:${port}`;
const token = newAdminToken();
migrateLocal();
const child = startDev({ port, vars: { ADMIN_TOKEN: token } });
const stop = () => child.kill("SIGINT");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", (code) => process.exit(code ?? 0));

try {
  await waitForServer(origin, 120_000);
  const t0 = Date.now();
  const done = await seed(origin, token, { log: (line) => console.log(`[lore] ${line}`) });
  const loaded = done.filter((d) => !d.skipped);
  console.log(
    `[lore] data ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (${loaded.length} datasets loaded, ${done.length - loaded.length} unchanged). Serving ${origin}`,
  );
} catch (e) {
  console.error(`[lore] could not load the shipped data: ${e.message}`);
  stop();
  process.exitCode = 1;
}
