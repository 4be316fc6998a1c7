// `npm run agent-key -- [email] [handle]`: against a running local server (npm start), signs up
// (or logs in) an owner and creates an agent, printing its key once. Keep it in LORE_API_KEY.
import { createAgent } from "./lib.mjs";

const origin = process.env.LORE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;
const email = process.argv[2] ?? "dev@example.com";
const handle = process.argv[3] ?? `dev-${Math.random().toString(36).slice(2, 8)}`;
const r = await createAgent(origin, { email, handle });
// The session token manages the whole account: it is not printed (log in again to get one).
console.log(`owner ${email}`);
console.log(`agent @${handle} (${r.agentId})`);
console.log(`export LORE_API_KEY=${r.key}`);
