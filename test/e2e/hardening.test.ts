import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { ROOT, createAgent, freePort } from "../../scripts/lib.mjs";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { lintOpenApi } from "../../scripts/lint-openapi.mjs";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { fuzzMcp, fuzzLine } from "../../scripts/fuzz-mcp.mjs";
// @ts-expect-error plain JS helpers shared with the npm scripts
import { deployedUrl, resourceNames, withDatabaseId, withHostnames } from "../../scripts/deploy.mjs";

let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startServer();
  port = Number(new URL(server.origin).port);
});
afterAll(async () => {
  await server?.stop();
});

/** Runs a shell snippet in the project folder; the scripts get Node 22 from node_modules/.bin. */
function sh(script: string, env: Record<string, string> = {}, timeoutMs = 120_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("bash", ["-c", script], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${path.join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const noStack = (text: string) => expect(text, text).not.toMatch(/^\s+at .+\(.*:\d+:\d+\)/m);
/** A script's stderr apart from npm's own notices. */
const scriptErrors = (text: string) => text.split("\n").filter((l) => l.trim() && !l.startsWith("npm warn") && !l.startsWith("npm notice"));

describe("the README quick start, as written", () => {
  const section = () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const body = readme.slice(
      readme.indexOf("### Getting an agent key locally"),
      readme.indexOf("\n## ", readme.indexOf("### Getting an agent key locally")),
    );
    return [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.replaceAll("127.0.0.1:8787", `127.0.0.1:${port}`));
  };

  it("gets a key with npm run agent-key and another with curl in the same database; both work for REST and the MCP Inspector", async () => {
    const [byScript, byCurl, use] = section();
    expect(byScript).toContain("npm run agent-key");
    expect(byCurl).toContain("/v1/auth/signup");
    expect(use).toContain("npm run inspector");
    const env = { PORT: String(port) };

    const a = await sh(byScript!, env);
    expect(a.code, a.stderr).toBe(0);
    const scriptKey = /export LORE_API_KEY=(lore_[0-9A-Za-z_]+)/.exec(a.stdout)?.[1];
    expect(scriptKey).toBeTruthy();
    // The session token manages the whole account: never printed.
    expect(a.stdout).not.toMatch(/lore_s_/);

    const b = await sh(byCurl!, env);
    expect(b.code, b.stderr).toBe(0);
    const curlKey = JSON.parse(b.stdout).apiKey as string;
    expect(curlKey).toMatch(/^lore_/);

    // Running the script again for the same email logs in; the taken handle is one actionable line.
    const again = await sh(byScript!, env);
    expect(again.code).toBe(1);
    expect(scriptErrors(again.stderr)).toEqual(["[lore] the handle @my-agent is taken: pick another with --handle"]);
    const more = await sh(`${byScript!.split("#")[0]!.trim()} --handle my-agent-2`, env);
    expect(more.code, more.stderr).toBe(0);
    expect(more.stdout).toContain("(logged in)");

    for (const key of [scriptKey!, curlKey]) {
      const lines = use!
        .split("\n")
        .filter((l) => !l.startsWith("export LORE_API_KEY="))
        .join("\n");
      const r = await sh(`set -e\n${lines}`, { ...env, LORE_API_KEY: key }, 300_000);
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      // curl's one line of JSON, then npm's banner and the Inspector's JSON.
      expect(JSON.parse(r.stdout.slice(0, r.stdout.indexOf("\n"))).plan).toBe("FREE");
      const tools = JSON.parse(r.stdout.slice(r.stdout.search(/\{\s*\n\s*"tools"/))).tools.map((t: { name: string }) => t.name);
      expect(tools).toContain("service_usage");
      // The Inspector's schema portability check finds nothing to warn about.
      expect(r.stderr).not.toMatch(/[1-9]\d* warnings/);
      expect(r.stdout).not.toContain(key);
    }
  }, 600_000);

  it("every script prints one line that says what to do when it fails, never a stack trace", async () => {
    const dead = await freePort();
    await createAgent(server.origin, { email: "pw-owner@example.com", handle: "pw-owner", password: "the right password" });
    const cases: [string, Record<string, string>, RegExp][] = [
      [
        "npm run -s agent-key -- dev@example.com",
        { PORT: String(dead), LORE_URL: "" },
        new RegExp(`is \`npm start\` running on port ${dead}\\?`),
      ],
      ["npm run -s agent-key -- not-an-email h-one", { PORT: String(port) }, /refused not-an-email: email: must be an email address/],
      [
        "npm run -s agent-key -- pw-owner@example.com --handle fresh-one --password wrong-password",
        { PORT: String(port) },
        /exists with another password/,
      ],
      ["npm run -s agent-key -- x@example.com --handle 'Bad Handle!'", { PORT: String(port) }, /refused .*: pick another with --handle/],
      [`LORE_ADMIN_TOKEN=lore_admin_wrong node scripts/seed.mjs ${server.origin}`, {}, /refused the admin token/],
      ["node scripts/seed.mjs", { LORE_ADMIN_TOKEN: "" }, /^\[seed\] usage: /],
      [`PORT=${port} npm run -s start`, {}, new RegExp(`port ${port} is taken`)],
      ["npm run -s deploy -- --bogus", {}, /Unknown option '--bogus'; usage: npm run deploy/],
      ["npm run -s inspector", { LORE_API_KEY: "" }, /set LORE_API_KEY first/],
      [`LORE_URL=http://127.0.0.1:${dead} npm run -s lint:openapi`, {}, /could not reach/],
    ];
    for (const [cmd, env, expected] of cases) {
      const r = await sh(cmd, env);
      expect(r.code, cmd).not.toBe(0);
      const lines = scriptErrors(r.stderr);
      expect(lines, `${cmd}\n${r.stderr}`).toHaveLength(1);
      expect(lines[0], cmd).toMatch(expected);
      noStack(r.stderr);
      expect(r.stdout + r.stderr, cmd).not.toMatch(/lore_s_|lore_admin_[0-9a-f]{8}/);
    }
  }, 300_000);
});

describe("the served OpenAPI document", () => {
  it("has 0 errors and 0 warnings under Redocly's recommended rules and Spectral's spectral:oas", async () => {
    const doc = await (await fetch(`${server.origin}/v1/openapi.json`)).json();
    const r = lintOpenApi(doc);
    console.log(
      `OpenAPI lint: Redocly ${r.redocly.errors} errors / ${r.redocly.warnings} warnings; Spectral ${r.spectral.errors} errors / ${r.spectral.warnings} warnings`,
    );
    expect(r.redocly.problems).toEqual([]);
    expect(r.spectral.problems).toEqual([]);
    expect([r.redocly.errors, r.redocly.warnings, r.spectral.errors, r.spectral.warnings]).toEqual([0, 0, 0, 0]);
  });
});

/**
 * The conformance suite's client sends no credentials (it is written for servers without auth),
 * so it talks to this proxy, which adds an agent key and passes everything else (Host and Origin
 * included) through unchanged.
 */
async function withKeyProxy<T>(key: string, run: (url: string) => Promise<T>): Promise<T> {
  const target = new URL(server.origin);
  const proxy = http.createServer((req, res) => {
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  const proxyPort = await freePort();
  await new Promise<void>((resolve) => proxy.listen(proxyPort, "127.0.0.1", resolve));
  try {
    return await run(`http://127.0.0.1:${proxyPort}/v1/mcp`);
  } finally {
    await new Promise((resolve) => proxy.close(resolve));
  }
}

describe("the MCP project's conformance suite", () => {
  it("passes server-initialize, ping, tools-list, logging-set-level, server-sse-polling, server-sse-multiple-streams and dns-rebinding-protection with no warnings", async () => {
    const agent = await createAgent(server.origin, {
      email: "conformance@example.com",
      handle: "conformance-bot",
      password: "conformance pw",
    });
    const results = await withKeyProxy(agent.key, async (url) => {
      const out: Record<string, { status: string; id: string; errorMessage?: string }[]> = {};
      for (const scenario of [
        "server-initialize",
        "ping",
        "tools-list",
        "logging-set-level",
        "server-sse-polling",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
      ]) {
        const r = await sh(`conformance server --url ${url} --scenario ${scenario} --verbose`, {}, 120_000);
        const start = r.stdout.indexOf("\n[");
        expect(start, `${scenario}: ${r.stdout}${r.stderr}`).toBeGreaterThan(-1);
        // The JSON array of checks, then a text summary.
        let depth = 0;
        let end = start + 1;
        for (; end < r.stdout.length; end++) {
          if (r.stdout[end] === "[") depth++;
          if (r.stdout[end] === "]" && --depth === 0) break;
        }
        out[scenario] = JSON.parse(r.stdout.slice(start + 1, end + 1));
      }
      return out;
    });
    const failures = Object.entries(results).flatMap(([s, checks]) =>
      checks.filter((c) => c.status === "FAILURE").map((c) => `${s}/${c.id}: ${c.errorMessage}`),
    );
    expect(failures).toEqual([]);
    // Sessions (Mcp-Session-Id) are given since the McpSessions object: no warning is left.
    const warnings = Object.entries(results).flatMap(([s, checks]) =>
      checks.filter((c) => c.status === "WARNING").map((c) => `${s}/${c.id}`),
    );
    expect(warnings).toEqual([]);
    console.log(
      `conformance: ${Object.entries(results)
        .map(([s, checks]) => `${s} ${checks.filter((c) => c.status === "SUCCESS").length} ok`)
        .join("; ")}`,
    );
    for (const s of ["server-initialize", "ping", "tools-list", "logging-set-level", "server-sse-multiple-streams"])
      expect(
        results[s]!.some((c) => c.status === "SUCCESS"),
        s,
      ).toBe(true);
    expect(results["dns-rebinding-protection"]!.map((c) => c.status)).toEqual(["SUCCESS", "SUCCESS"]);
    // Answered as JSON, so the SSE priming-event and retry-field checks do not apply.
    expect(results["server-sse-polling"]!.map((c) => c.id)).toContain("server-sse-content-type");
  }, 300_000);
});

describe("bad params against the MCP endpoint", () => {
  it("never answer 5xx, -32603 or an INTERNAL tool error", async () => {
    const stats = await fuzzMcp(server.origin, { accounts: 4 });
    console.log(fuzzLine(stats));
    expect(stats.problems).toEqual([]);
    expect(stats.http5xx + stats.internal + stats.toolInternal).toBe(0);
    expect(stats.requests).toBeGreaterThan(1000);
  }, 300_000);
});

describe("npm run deploy", () => {
  const logged = (file: string) =>
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { args: string[]; stdin: string })
      .map((c) => ({
        args: c.args.filter((a, i, all) => a !== "--config" && all[i - 1] !== "--config"),
        stdin: c.stdin,
        config: c.args[c.args.indexOf("--config") + 1],
      }));

  it("--dry-run prints every step and command in order and changes nothing", async () => {
    const before = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
    const r = await sh("npm run -s deploy -- --dry-run --hostname api.example.com", { LORE_WRANGLER: "/nonexistent/wrangler" });
    expect(r.code, r.stderr).toBe(0);
    const order = [
      "1/11 Cloudflare login",
      "wrangler whoami",
      "wrangler d1 list --json",
      "wrangler d1 create lore",
      'database_id = "<id of lore>"; PUBLIC_HOSTNAMES += api.example.com',
      "wrangler r2 bucket create lore-skills",
      "wrangler d1 migrations apply DB --remote",
      'deploy the scanner Worker "lore-scanner"',
      "wrangler deploy --name lore-scanner --config src/scan-worker/wrangler.toml",
      'deploy the MCP SDK Worker "lore-mcp-sdk"',
      "wrangler deploy --name lore-mcp-sdk --config src/mcp-worker/wrangler.toml",
      "8/11 deploy the Worker",
      "wrangler deploy --dry-run --outdir .wrangler/deploy/wrangler",
      "esbuild's module wrappers written as function expressions → .wrangler/deploy/upload/index.js",
      "wrangler deploy --no-bundle --minify=false .wrangler/deploy/upload/index.js\n",
      "wrangler secret list --format json",
      "wrangler secret put ADMIN_TOKEN",
      "wrangler secret put KEY_SECRET",
      "wrangler secret put CURSOR_SECRET",
      "billing: not configured, so paid plans are refused",
      "LORE_ADMIN_TOKEN=… node scripts/seed.mjs https://lore.<your-subdomain>.workers.dev",
      "curl -s https://lore.<your-subdomain>.workers.dev/v1/plans",
    ];
    let at = 0;
    for (const part of order) {
      const i = r.stdout.indexOf(part, at);
      expect(i, `${part} after position ${at} in\n${r.stdout}`).toBeGreaterThan(-1);
      at = i;
    }
    expect(readFileSync(path.join(ROOT, "wrangler.toml"), "utf8")).toBe(before);
  });

  it("runs the whole deploy against a recorded wrangler: creates, configures, migrates remotely, deploys, sets the secret, seeds and verifies", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lore-deploy-"));
    try {
      const config = path.join(dir, "wrangler.toml");
      copyFileSync(path.join(ROOT, "wrangler.toml"), config);
      const env = {
        LORE_WRANGLER: path.join(ROOT, "test/e2e/fixtures/fake-wrangler.mjs"),
        FAKE_WRANGLER_LOG: path.join(dir, "calls.jsonl"),
        FAKE_WRANGLER_STATE: path.join(dir, "state.json"),
        LORE_ADMIN_TOKEN: server.adminToken,
      };
      const cmd = `npm run -s deploy -- --config ${config} --hostname api.example.com --url ${server.origin}`;
      const r = await sh(cmd, env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain(`Lore is live at ${server.origin}`);
      expect(r.stdout + r.stderr).not.toContain(server.adminToken);
      const calls = logged(env.FAKE_WRANGLER_LOG);
      expect(calls.map((c) => c.args.join(" "))).toEqual([
        "whoami",
        "d1 list --json",
        "d1 create lore",
        "d1 list --json",
        "r2 bucket create lore-skills",
        "d1 migrations apply DB --remote",
        "deploy --name lore-scanner",
        "deploy --name lore-mcp-sdk",
        "deploy --dry-run --outdir .wrangler/deploy/wrangler",
        "deploy --no-bundle --minify=false .wrangler/deploy/upload/index.js",
        "secret list --format json",
        "secret put ADMIN_TOKEN",
        "secret put KEY_SECRET",
        "secret put CURSOR_SECRET",
      ]);
      // What was uploaded is wrangler's build with esbuild's module wrapper as a `function` expression.
      expect(readFileSync(path.join(ROOT, ".wrangler/deploy/upload/index.js"), "utf8")).toContain('s=w(function(){a="ok"})');
      // The scanner and MCP SDK Workers first, each from its own configuration; everything else on the given one.
      expect(calls[6]!.config).toBe(path.join(ROOT, "src/scan-worker/wrangler.toml"));
      expect(calls[7]!.config).toBe(path.join(ROOT, "src/mcp-worker/wrangler.toml"));
      for (const c of calls.filter((_, i) => i !== 6 && i !== 7)) expect(c.config).toBe(config);
      const put = (name: string) => calls.find((c) => c.args.join(" ") === `secret put ${name}`)!.stdin;
      expect(put("ADMIN_TOKEN")).toBe(server.adminToken);
      // The signing secrets are made here, never shown.
      for (const name of ["KEY_SECRET", "CURSOR_SECRET"]) {
        expect(put(name)).toMatch(/^[0-9a-f]{64}$/);
        expect(r.stdout + r.stderr).not.toContain(put(name));
      }
      // Without Stripe, the deploy says paid plans are refused and what to set.
      expect(r.stdout).toMatch(/billing: not configured, so paid plans are refused.*STRIPE_SECRET_KEY.*BILLING_PROVIDER/);
      const toml = readFileSync(config, "utf8");
      expect(resourceNames(toml).databaseId).toBe("4f1c2b7e-8d3a-4c55-9e1f-0a2b3c4d5e6f");
      expect(toml).toMatch(/^PUBLIC_HOSTNAMES = "api\.example\.com"$/m);
      // The data went in through the operator routes of the (stand-in) deployed Worker.
      const seeds = await (
        await fetch(`${server.origin}/internal/seeds`, { headers: { authorization: `Bearer ${server.adminToken}` } })
      ).json();
      const items = (seeds as { items: { name: string; loadedDigest: string | null }[] }).items;
      expect(items.map((d) => d.name)).toEqual(expect.arrayContaining(["starter-skills", "models", "packages-malicious", "mcp-servers"]));
      for (const d of items) expect(d.loadedDigest, d.name).toMatch(/^[0-9a-f]{64}$/);

      // A second run finds what exists: no new database, the bucket error "already exists" is fine.
      const again = await sh(cmd, env);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      const second = logged(env.FAKE_WRANGLER_LOG)
        .slice(calls.length)
        .map((c) => c.args.join(" "));
      expect(second).not.toContain("d1 create lore");
      expect(again.stdout).toContain("already up to date");
      // The operator token is new each time; the signing secrets are kept (replacing them would break every key).
      expect(second.filter((c) => c.startsWith("secret put"))).toEqual(["secret put ADMIN_TOKEN"]);
      expect(again.stdout).toContain("KEY_SECRET kept");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("a second configuration deploys its own scanner and MCP SDK Workers, and one bound to another deployment's is refused", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lore-deploy-"));
    try {
      const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8").replace(/^name = "lore"$/m, 'name = "lore-staging"');
      const borrowed = path.join(dir, "borrowed.toml");
      writeFileSync(borrowed, toml);
      const refused = await sh(`npm run -s deploy -- --dry-run --config ${borrowed}`, { LORE_WRANGLER: "/nonexistent/wrangler" });
      expect(refused.code).toBe(1);
      expect(scriptErrors(refused.stderr)).toEqual([
        `[deploy] ${borrowed} names the Worker "lore-staging" but binds SCANNER to "lore-scanner": bind service = "lore-staging-scanner", so each deployment has its own scanner Worker (deploy creates it)`,
      ]);
      const ownScanner = toml.replace('service = "lore-scanner"', 'service = "lore-staging-scanner"');
      const half = path.join(dir, "half.toml");
      writeFileSync(half, ownScanner);
      const refusedSdk = await sh(`npm run -s deploy -- --dry-run --config ${half}`, { LORE_WRANGLER: "/nonexistent/wrangler" });
      expect(refusedSdk.code).toBe(1);
      expect(scriptErrors(refusedSdk.stderr)).toEqual([
        `[deploy] ${half} names the Worker "lore-staging" but binds MCP_SDK to "lore-mcp-sdk": bind service = "lore-staging-mcp-sdk", so each deployment has its own MCP SDK Worker (deploy creates it)`,
      ]);
      const own = path.join(dir, "staging.toml");
      writeFileSync(own, ownScanner.replace('service = "lore-mcp-sdk"', 'service = "lore-staging-mcp-sdk"'));
      const r = await sh(`npm run -s deploy -- --dry-run --config ${own}`, { LORE_WRANGLER: "/nonexistent/wrangler" });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('deploy the scanner Worker "lore-staging-scanner"');
      expect(r.stdout).toContain("wrangler deploy --name lore-staging-scanner --config src/scan-worker/wrangler.toml");
      expect(r.stdout).toContain('deploy the MCP SDK Worker "lore-staging-mcp-sdk"');
      expect(r.stdout).toContain("wrangler deploy --name lore-staging-mcp-sdk --config src/mcp-worker/wrangler.toml");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stops with one line when not logged in to Cloudflare", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lore-deploy-"));
    try {
      const config = path.join(dir, "wrangler.toml");
      copyFileSync(path.join(ROOT, "wrangler.toml"), config);
      const r = await sh(`npm run -s deploy -- --config ${config}`, {
        LORE_WRANGLER: path.join(ROOT, "test/e2e/fixtures/fake-wrangler.mjs"),
        FAKE_WRANGLER_LOG: path.join(dir, "calls.jsonl"),
        FAKE_WRANGLER_LOGGED_OUT: "1",
      });
      expect(r.code).toBe(1);
      expect(scriptErrors(r.stderr)).toEqual([
        "[deploy] not logged in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then npm run deploy again",
      ]);
      expect(existsSync(path.join(dir, "state.json"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads wrangler's real output and edits wrangler.toml without touching anything else", () => {
    const real =
      "Total Upload: 1699.86 KiB / gzip: 324.32 KiB\nUploaded lore (3.41 sec)\nDeployed lore triggers (0.82 sec)\n  https://lore.acme-team.workers.dev\n  schedule: 17 3 * * *\n";
    expect(deployedUrl(real)).toBe("https://lore.acme-team.workers.dev");
    expect(deployedUrl("Deployed lore triggers\n  api.example.com (custom domain)")).toBeNull();
    const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
    const edited = withHostnames(withDatabaseId(toml, "abc-123"), ["A.example.com", "b.example.com"]);
    expect(resourceNames(edited)).toEqual({ database: "lore", databaseId: "abc-123", bucket: "lore-skills" });
    expect(edited).toMatch(/^PUBLIC_HOSTNAMES = "a\.example\.com,b\.example\.com"$/m);
    const changed = edited.split("\n").filter((l: string, i: number) => l !== toml.split("\n")[i]);
    expect(changed).toEqual(['database_id = "abc-123"', 'PUBLIC_HOSTNAMES = "a.example.com,b.example.com"']);
  });
});

describe("the Workers that would go to the edge", () => {
  it("build with wrangler deploy --dry-run: Lore under the 400 KiB gzip budget with no scanner rule in it, the scanner Worker under 3 MiB", () => {
    const r = spawnSync("node", ["scripts/bundle-size.mjs"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, PATH: `${path.join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` },
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const m = /lore: .*gzip ([\d.]+) KiB \(budget 400\.0 KiB\)/.exec(r.stdout);
    expect(m, r.stdout).toBeTruthy();
    const s = /lore-scanner: .*gzip ([\d.]+) KiB \(budget 3072\.0 KiB\)/.exec(r.stdout);
    expect(s, r.stdout).toBeTruthy();
    console.log(r.stdout.trim());
    expect(Number(m![1])).toBeLessThan(400);
    expect(Number(s![1])).toBeLessThan(3072);
  });
});
