import { Hono } from "hono";
import type { AppEnv } from "../core/context";
import { ApiError } from "../core/errors";
import { readBodyLimited } from "../core/body";
import { timingSafeEqualHex, sha256Hex } from "../core/crypto";
import { now } from "../core/clock";
import { SEEDS } from "../seeds";
import { INGEST_SOURCES, type IngestSource } from "../freshness";
import { ingestAndPush } from "../sync";
import { sourceCtx } from "../sources/http";
import { trackTopic } from "../freshness";
import { warmRegistryCache } from "../packages";
import { runMcpIngest } from "../mcp-servers";
import { insertColumns } from "../core/columns";
import { seedState } from "../db/admin";

/**
 * Operator routes under /internal: loading the data the project ships (data/) into D1 and R2,
 * chunk by chunk, from `scripts/seed.mjs` (npm start, and the deploy). They exist only where the
 * ADMIN_TOKEN secret is set (npm start sets a fresh one per run); elsewhere they are a plain 404.
 * Not contract operations: no MCP tool, no OpenAPI entry.
 */
export const adminRoute = new Hono<AppEnv>();

const MAX_CHUNK = 8 * 1024 * 1024;

adminRoute.use("*", async (c, next) => {
  const token = c.env.ADMIN_TOKEN;
  if (!token) throw new ApiError("NOT_FOUND", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
  const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  // Compared as digests so the comparison time says nothing about the token.
  if (!m?.[1] || !timingSafeEqualHex(await sha256Hex(m[1]), await sha256Hex(token))) {
    throw new ApiError("UNAUTHENTICATED", "The admin token is missing or wrong");
  }
  await next();
});

/** Every dataset with the digest of the file last loaded completely (null: never). */
adminRoute.get("/seeds", async (c) => {
  const rows = await c.env.DB.prepare("SELECT dataset, digest, rows, loaded_at FROM seed_state").all<{
    dataset: string;
    digest: string;
    rows: number;
    loaded_at: number;
  }>();
  const loaded = new Map(rows.results.map((r) => [r.dataset, r]));
  const seedOrigin = new URL(c.req.url).origin;
  const stale = new Set(
    (await Promise.all(SEEDS.map(async (s) => (s.current && !(await s.current(c.env, seedOrigin)) ? s.name : null)))).filter(Boolean),
  );
  return c.json({
    items: SEEDS.map((s) => ({
      name: s.name,
      file: s.file,
      chunkLines: s.chunkLines ?? null,
      loadedDigest: stale.has(s.name) ? null : (loaded.get(s.name)?.digest ?? null),
      rows: loaded.get(s.name)?.rows ?? null,
    })),
  });
});

/** Loads one chunk of a dataset (the whole file, or `chunkLines` whole lines of it). Idempotent upserts. */
adminRoute.post("/seeds/:name", async (c) => {
  const seed = SEEDS.find((s) => s.name === c.req.param("name"));
  if (!seed) throw new ApiError("NOT_FOUND", `Unknown dataset ${c.req.param("name")}`);
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
    await readBodyLimited(c.req.raw, MAX_CHUNK, "Seed chunk"),
  );
  const result = await seed.load(c.env, text, new URL(c.req.url).origin);
  return c.json({ name: seed.name, ...result });
});

/** Marks a dataset loaded from the file with this digest, so the next start skips it. */
adminRoute.post("/seeds/:name/done", async (c) => {
  const seed = SEEDS.find((s) => s.name === c.req.param("name"));
  if (!seed) throw new ApiError("NOT_FOUND", `Unknown dataset ${c.req.param("name")}`);
  const body = (await c.req.json().catch(() => null)) as { digest?: unknown; rows?: unknown } | null;
  if (typeof body?.digest !== "string" || typeof body.rows !== "number") {
    throw new ApiError("VALIDATION_FAILED", "Body must be {digest, rows}");
  }
  await c.env.DB.prepare(
    `INSERT INTO ${insertColumns(seedState, ["dataset", "digest", "rows", "loadedAt"])} VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (dataset) DO UPDATE SET digest = ?2, rows = ?3, loaded_at = ?4`,
  )
    .bind(seed.name, body.digest, body.rows, now())
    .run();
  return c.json({ name: seed.name, digest: body.digest, rows: body.rows });
});

/** Runs the freshness ingest now (what the cron runs), optionally only some sources: {sources?, maxTopics?, timeoutMs?}. */
adminRoute.post("/ingest", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as { sources?: unknown; maxTopics?: unknown; timeoutMs?: unknown };
  const sources = Array.isArray(body.sources)
    ? body.sources.filter((s): s is IngestSource => (INGEST_SOURCES as readonly unknown[]).includes(s))
    : undefined;
  const maxTopics = typeof body.maxTopics === "number" && body.maxTopics > 0 ? Math.min(body.maxTopics, 200) : undefined;
  // npm start's pass asks each source with a short timeout, so an unreachable one fails fast.
  const timeoutMs = typeof body.timeoutMs === "number" && body.timeoutMs >= 500 ? Math.min(body.timeoutMs, 15_000) : undefined;
  return c.json(await ingestAndPush(c.env, now(), { sources, maxTopics, ctx: timeoutMs ? sourceCtx(c.env, timeoutMs) : undefined }));
});

/** Runs one registry-cache warm-up now (what WARM_CRON runs): {budget?}. */
adminRoute.post("/registry-warm", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as { budget?: unknown };
  const budget = typeof body.budget === "number" && body.budget > 0 ? Math.min(Math.floor(body.budget), 1000) : undefined;
  return c.json(await warmRegistryCache(c.env, now(), { budget }));
});

/** Runs the MCP servers directory's refresh now (what the daily cron runs): {maxPages?, maxToolFetches?}. */
adminRoute.post("/mcp-ingest", async (c) => {
  const body = (await c.req.json().catch(() => ({}))) as { maxPages?: unknown; maxToolFetches?: unknown };
  const num = (v: unknown, max: number) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? Math.min(v, max) : undefined);
  return c.json(await runMcpIngest(c.env, now(), { maxPages: num(body.maxPages, 100), maxToolFetches: num(body.maxToolFetches, 100) }));
});

/** Tracks a topic, or approves a requested one: {topic, ecosystem, packages, aliases?, repo?, changelog?}. */
adminRoute.post("/topics", async (c) => {
  const b = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
  const strings = (v: unknown) => (Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : null);
  if (!b || typeof b.topic !== "string" || typeof b.ecosystem !== "string" || !strings(b.packages)) {
    throw new ApiError("VALIDATION_FAILED", "Body must be {topic, ecosystem, packages: string[], aliases?, repo?, changelog?}");
  }
  const topic = await trackTopic(c.env.DB, {
    topic: b.topic,
    ecosystem: b.ecosystem,
    packages: strings(b.packages)!,
    aliases: strings(b.aliases) ?? [],
    repo: typeof b.repo === "string" ? b.repo : null,
    changelog: typeof b.changelog === "string" ? b.changelog : null,
  });
  return c.json({ topic });
});
