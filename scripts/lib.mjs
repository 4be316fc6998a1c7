// Shared by start, bench, seed, agent-key and the e2e tests: run wrangler from this project's own install.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const WRANGLER = path.join(ROOT, "node_modules", ".bin", "wrangler");

const WRANGLER_ENV = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };

/** Applies every migration in migrations/ to the local D1 (idempotent). */
export function migrateLocal(persistTo, { quiet = false } = {}) {
  const args = ["d1", "migrations", "apply", "DB", "--local", ...(persistTo ? ["--persist-to", persistTo] : [])];
  const r = spawnSync(WRANGLER, args, { cwd: ROOT, stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit", env: WRANGLER_ENV });
  if (r.status !== 0) {
    if (quiet) process.stderr.write(String(r.stderr ?? ""));
    throw new Error(`wrangler ${args.join(" ")} failed`);
  }
}

/** A TCP port nobody listens on right now (for parallel servers: tests, bench, helpers). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** A fresh operator token for one local run (never written to disk). */
export const newAdminToken = () => `lore_admin_${randomBytes(24).toString("hex")}`;

/**
 * Starts `wrangler dev` with local D1, R2 and Durable Objects. `vars` become Worker variables
 * (`--var K:V`); `inspectorPort` keeps parallel servers off each other's devtools port.
 */
export function startDev({ port, persistTo, quiet = false, vars = {}, inspectorPort } = {}) {
  const args = ["dev", "--local", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false"];
  if (persistTo) args.push("--persist-to", persistTo);
  if (inspectorPort) args.push("--inspector-port", String(inspectorPort));
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const child = spawn(WRANGLER, args, {
    cwd: ROOT,
    stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    env: WRANGLER_ENV,
  });
  // Quiet still drains: an unread pipe fills (64 KiB of request log lines) and stalls wrangler.
  if (quiet) {
    child.stdout.resume();
    child.stderr.resume();
  }
  return child;
}

export async function waitForServer(origin, timeoutMs = 60_000) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    try {
      const r = await fetch(`${origin}/v1/plans`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server at ${origin} did not start within ${timeoutMs} ms`);
}

/** Signs up an owner and creates an agent; returns the key (shown once). */
export async function createAgent(origin, { email, handle, password = "local-dev-password" }) {
  const post = async (p, body, token) => {
    const r = await fetch(origin + p, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  let s = await post("/v1/auth/signup", { email, password });
  if (s.status === 409) s = await post("/v1/auth/login", { email, password });
  if (s.status >= 300) throw new Error(`signup/login failed: ${JSON.stringify(s.body)}`);
  const a = await post("/v1/agents", { handle }, s.body.token);
  if (a.status >= 300) throw new Error(`agent creation failed: ${JSON.stringify(a.body)}`);
  return { token: s.body.token, ownerId: s.body.owner.id, agentId: a.body.agent.id, key: a.body.apiKey };
}
