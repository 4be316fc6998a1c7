// `npm run inspector -- [inspector options]`: the MCP Inspector's CLI, pinned to a version that has
// `--header` and run under the project's Node 22, against the local MCP endpoint with the key in
// LORE_API_KEY. The key goes from the environment to the Inspector, never onto the command line you
// type (npm echoes that line). Same as:
//   npx @modelcontextprotocol/inspector@2.12.0 --cli http://127.0.0.1:8787/v1/mcp --transport http \
//     --header "Authorization: Bearer $LORE_API_KEY" --method tools/list
import { spawn } from "node:child_process";
import { fail, localOrigin, runMain } from "./lib.mjs";

export const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

runMain(async () => {
  const key = process.env.LORE_API_KEY;
  if (!key) fail("set LORE_API_KEY first: `npm run agent-key` prints the export line");
  const args = process.argv.slice(2);
  if (args.length === 0) args.push("--method", "tools/list");
  const { origin } = localOrigin();
  const code = await new Promise((resolve) => {
    const child = spawn(
      "npx",
      ["-y", INSPECTOR, "--cli", `${origin}/v1/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${key}`, ...args],
      {
        stdio: "inherit",
      },
    );
    child.on("error", (e) => resolve(e));
    child.on("close", resolve);
  });
  if (code instanceof Error) fail(`could not start the MCP Inspector (${code.message}): is npx on the PATH?`);
  if (code !== 0) fail(`the MCP Inspector exited with ${code} (its output is above): is \`npm start\` running at ${origin}?`);
}, "[inspector]");
