/**
 * The discovery URLs at the root (not contract operations under /v1, so a small Hono router):
 *   GET /.well-known/agent-skills/index.json        v0.2.0 index
 *   GET /.well-known/agent-skills/<name>.tar.gz     a multi-file skill's archive
 *   GET /.well-known/agent-skills/<name>/<path>     a file
 *   GET /.well-known/skills/index.json              v0.1.0 index
 *   GET /.well-known/skills/<name>/<path>           a file
 * Public, cacheable (`Cache-Control`, `ETag` = the digest, `If-None-Match` → 304), CORS-open for
 * GET. Every byte served is read from R2 and hashed first: a mismatch is a logged 500, never served.
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../core/context";
import { ApiError } from "../core/errors";
import { corsPreflightHeaders, corsResponseHeaders } from "../core/cors";
import { contentTypeFor } from "./bundle";
import { discoveryIndex, listedSkill, type WaitUntil } from "./discovery";
import { IntegrityError, getVerified, integrityFailure } from "./storage";

export const discoveryRoute = new Hono<AppEnv>();

const CACHE = "public, max-age=60";
const CORS = corsResponseHeaders("files");
// Skill files are third-party content served from Lore's own origin: never let a browser run them.
const SANDBOX = { "content-security-policy": "default-src 'none'; sandbox", "x-content-type-options": "nosniff" };

const ALLOW = "GET, HEAD, OPTIONS";

/** RFC 9110 §13.1.2: `*`, or any listed tag equal under weak comparison. */
function notModified(c: Context<AppEnv>, etag: string): boolean {
  const header = c.req.header("if-none-match");
  if (!header) return false;
  if (header.trim() === "*") return true;
  const strip = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => strip(t) === strip(etag));
}

function respond(c: Context<AppEnv>, body: Uint8Array | string, etag: string, contentType: string, extra: Record<string, string> = {}) {
  const headers = { ...CORS, ...extra, etag, "cache-control": CACHE, vary: "Accept-Encoding" };
  if (notModified(c, etag)) return new Response(null, { status: 304, headers });
  return new Response(c.req.method === "HEAD" ? null : body, { status: 200, headers: { ...headers, "content-type": contentType } });
}

/** The request's `waitUntil`, for the index's background rebuild (src/skills/discovery.ts, refresh-ahead). */
const waitUntilOf =
  (c: Context<AppEnv>): WaitUntil =>
  (p) =>
    c.executionCtx.waitUntil(p);

const notFound = (c: Context<AppEnv>) =>
  new ApiError("NOT_FOUND", `No listed skill at ${new URL(c.req.url).pathname} (only scan-passed skills are published here)`);

discoveryRoute.options(
  "*",
  () =>
    new Response(null, {
      status: 204,
      headers: { ...corsPreflightHeaders("files", ["GET", "HEAD"]), allow: ALLOW },
    }),
);

discoveryRoute.on(["GET", "HEAD"], "/:prefix{agent-skills|skills}/*", async (c) => {
  const prefix = c.req.param("prefix");
  const url = new URL(c.req.url);
  let rest: string;
  try {
    rest = decodeURIComponent(url.pathname.slice(`/.well-known/${prefix}/`.length));
  } catch {
    throw notFound(c);
  }
  if (rest === "index.json") {
    const index = await discoveryIndex(c.env.DB, url.origin, prefix === "agent-skills" ? "0.2.0" : "0.1.0", waitUntilOf(c));
    return respond(c, index.body, index.etag, "application/json; charset=utf-8");
  }
  const archive = /^([a-z0-9-]{1,64})\.tar\.gz$/.exec(rest);
  const file = /^([a-z0-9-]{1,64})\/(.+)$/.exec(rest);
  const name = archive?.[1] ?? file?.[1];
  if (!name || (archive && prefix !== "agent-skills")) throw notFound(c);
  const skill = await listedSkill(c.env.DB, url.origin, name, waitUntilOf(c));
  if (!skill) throw notFound(c);

  let digest: string;
  let contentType: string;
  let path: string;
  if (archive) {
    if (skill.type !== "archive") throw notFound(c);
    digest = skill.artifactHex;
    contentType = "application/gzip";
    path = `${name}.tar.gz`;
  } else {
    const f = skill.files.find((x) => x.path === file![2]);
    if (!f) throw notFound(c);
    digest = f.digest;
    path = f.path;
    contentType = contentTypeFor(f.path, f.text !== false);
  }
  const etag = `"sha256:${digest}"`;
  // A cached copy that is still right costs no R2 read.
  if (notModified(c, etag)) return respond(c, "", etag, contentType, SANDBOX);
  let bytes: Uint8Array;
  try {
    bytes = await getVerified(c.env.SKILLS, digest);
  } catch (e) {
    if (e instanceof IntegrityError) throw integrityFailure(e, c.get("requestId"), `${prefix}/${name}/${path}`);
    throw e;
  }
  return respond(c, bytes, etag, contentType, SANDBOX);
});

discoveryRoute.all("/:prefix{agent-skills|skills}/*", (c) => {
  throw new ApiError(
    "METHOD_NOT_ALLOWED",
    `${new URL(c.req.url).pathname} does not accept ${c.req.method}; use ${ALLOW}`,
    { allow: ALLOW.split(", ") },
    { allow: ALLOW },
  );
});
