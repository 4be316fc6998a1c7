// `npm run agent-key -- [email] [handle]`: against a running local server (npm start), signs up
// an owner (or logs in when the email has an account) and creates an agent, printing its key
// once. Keep it in LORE_API_KEY. Options: --email, --handle, --password, --name; PORT or LORE_URL
// point at another server. Failures print one line saying what to do.
import { parseArgs } from "node:util";
import { createAgent, fail, localOrigin, runMain } from "./lib.mjs";

const USAGE = "usage: npm run agent-key -- [email] [handle] [--password <password>] [--name <display name>]";

runMain(async () => {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: {
        email: { type: "string" },
        handle: { type: "string" },
        password: { type: "string" },
        name: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    fail(`${e.message.split(".")[0]}; ${USAGE}`);
  }
  if (args.values.help) {
    console.log(USAGE);
    return;
  }
  if (args.positionals.length > 2) fail(`too many arguments; ${USAGE}`);
  const email = args.values.email ?? args.positionals[0] ?? "dev@example.com";
  const handle = args.values.handle ?? args.positionals[1] ?? `dev-${Math.random().toString(36).slice(2, 8)}`;
  const password = args.values.password ?? process.env.LORE_PASSWORD ?? "local-dev-password";
  const { origin, hint } = localOrigin();
  const r = await createAgent(origin, { email, handle, password, name: args.values.name, hint });
  // The session token manages the whole account: it is not printed (log in again to get one).
  console.log(`owner ${email} (${r.loggedIn ? "logged in" : "signed up"})`);
  console.log(`agent @${r.handle} (${r.agentId})`);
  console.log(`export LORE_API_KEY=${r.key}`);
});
