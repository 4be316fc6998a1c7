// Freshness, models and package-check scenarios for scripts/bench.mjs, on the shipped data the
// runner loads (data/). The package check must measure Lore, not the registry: the setup warms
// the registry cache for the 50 names (in requests small enough for the per-request lookup budget)
// and then checks that a 50-name request is answered wholly from the cache.

const NAMES = [
  "semver",
  "debug",
  "ms",
  "chalk",
  "lodash",
  "commander",
  "glob",
  "minimatch",
  "uuid",
  "yargs",
  "express",
  "react",
  "react-dom",
  "typescript",
  "tslib",
  "axios",
  "dotenv",
  "zod",
  "hono",
  "next",
  "vite",
  "esbuild",
  "rollup",
  "prettier",
  "eslint",
  "jest",
  "vitest",
  "mocha",
  "chai",
  "sinon",
  "rimraf",
  "mkdirp",
  "fs-extra",
  "cross-env",
  "ws",
  "qs",
  "body-parser",
  "cookie",
  "cors",
  "morgan",
  "moment",
  "dayjs",
  "date-fns",
  "classnames",
  "clsx",
  "immer",
  "redux",
  "rxjs",
  "graphql",
  "postcss",
];

export async function scenarios(ctx) {
  const auth = (i) => ({ authorization: `Bearer ${ctx.key(i)}` });
  const check = async (names) => {
    const r = await fetch(`${ctx.origin}/v1/packages/check`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth(0) },
      body: JSON.stringify({ packages: names.map((name) => ({ name })) }),
    });
    if (!r.ok) throw new Error(`package check warm-up: ${r.status} ${await r.text()}`);
    return (await r.json()).results;
  };
  for (let i = 0; i < NAMES.length; i += 10) await check(NAMES.slice(i, i + 10));
  const warm = await check(NAMES);
  const uncached = warm.filter((r) => r.reasons.some((x) => x.code === "NOT_CHECKED" || x.code === "REGISTRY_UNREACHABLE"));
  if (uncached.length)
    throw new Error(`package check not warm for: ${uncached.map((r) => r.name).join(", ")} (is the npm registry reachable?)`);
  const body = { packages: NAMES.map((name) => ({ name })) };
  return [
    {
      name: "package check POST /v1/packages/check (50 npm names, warm cache)",
      method: "POST",
      path: "/v1/packages/check",
      headers: auth,
      body,
    },
    {
      name: "freshness read GET /v1/freshness?topic=react&version=18.2.0",
      method: "GET",
      path: "/v1/freshness?topic=react&version=18.2.0",
      headers: auth,
    },
    { name: "models search GET /v1/models?q=claude", method: "GET", path: "/v1/models?q=claude", headers: auth },
    {
      name: "MCP tools/call service_check_packages (50 names, warm)",
      method: "POST",
      path: "/v1/mcp",
      headers: ctx.mcpHeaders,
      body: ctx.mcpCall("service_check_packages", body),
    },
  ];
}
