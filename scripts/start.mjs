// `npm start`: migrate the local D1, serve on 127.0.0.1:$PORT (default 8787) with local D1, R2 and
// Durable Objects (state in .wrangler/state), then load the data the project ships (data/: the
// offline package, freshness, model and MCP-server data, Lore's own skills) through the Worker's
// operator routes. A fresh ADMIN_TOKEN is made for each run and never written anywhere.
import { createServer } from "node:net";
import { fail, migrateLocal, newAdminToken, runMain, startDev, waitForServer } from "./lib.mjs";
import { seed } from "./seed.mjs";

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
  if (!(await portIsFree(port))) fail(`port ${port} is taken (is Lore already running?): stop that server, or run PORT=${port + 1} npm start`);
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
    stop();
    throw e;
  }
});
