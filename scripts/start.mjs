// `npm start`: migrate the local D1, then serve on 127.0.0.1:$PORT (default 8787) with local
// D1, R2 and Durable Objects (state in .wrangler/state). Seed data that the service ships lives in
// data/ and src/ and is bundled, so there is nothing else to load.
import { migrateLocal, startDev } from "./lib.mjs";

const port = Number(process.env.PORT ?? 8787);
migrateLocal();
const child = startDev({ port });
const stop = () => child.kill("SIGINT");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", (code) => process.exit(code ?? 0));
