/**
 * Lore's own skill, `lore`: the text of GET /v1/start-here.md (src/harnesses/start-here.ts), which
 * names the service's origin. It is rendered once, with the deployment's public origin, and
 * published at start (the seed) by the system account through the normal publish path: an ordinary
 * row with content-addressed files in R2 and an earned scan, read by every path like any skill.
 *
 * The origin is configuration, never the request's Host header: content that changed with the Host
 * header would not be content-addressable, and a forged Host would rewrite where an agent is told
 * to send its key.
 */
import type { Env } from "../env";
import { ApiError } from "../core/errors";
import { sha256Hex } from "../core/crypto";
import { renderStartHere } from "../harnesses/start-here";

export const LORE_SKILL = "lore";

/** The account that publishes Lore's own skills (migration 0007). It has no password and no agents. */
export const SYSTEM_OWNER_ID = "own_lore_system";

/** What the catalog says about `lore` (its front matter names neither). */
const LORE_PUBLISH = { category: "workflow", tags: ["lore", "mcp", "setup"] };

/**
 * The origin Lore's own skill names: PUBLIC_ORIGIN when the deployment configures it, else the
 * origin the operator's seed request reached (an admin-authenticated request: npm start's
 * http://127.0.0.1:<port>, or the URL `npm run deploy` seeds). Normalised as the URL standard
 * serialises an origin (scheme and host lowercase, the scheme's default port dropped, no trailing
 * slash), so spellings of one origin render one text and publish no new version.
 */
export function skillOrigin(env: Pick<Env, "PUBLIC_ORIGIN">, seedOrigin?: string): string {
  const configured = env.PUBLIC_ORIGIN?.trim();
  const raw = configured || seedOrigin;
  if (!raw) throw new Error("Lore's own skill needs an origin: set PUBLIC_ORIGIN (wrangler.toml [vars]) or seed through /internal/seeds");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError("VALIDATION_FAILED", `PUBLIC_ORIGIN '${raw}' is not a URL (e.g. https://lore.example.com)`);
  }
  const bare = url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password && !/[?#]/.test(raw);
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !bare) {
    throw new ApiError(
      "VALIDATION_FAILED",
      `PUBLIC_ORIGIN '${raw}' must be an origin: scheme and host, no path (e.g. https://lore.example.com)`,
    );
  }
  return url.origin;
}

/** `lore` as a skill folder for the publish path, rendered for this origin. */
export function loreSkillFolder(origin: string) {
  const bytes = new TextEncoder().encode(renderStartHere(origin));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return { ...LORE_PUBLISH, files: [{ path: "SKILL.md", content: btoa(bin), encoding: "base64" as const }] };
}

/** The `path\0digest` manifest a skill folder is compared by (a published version's `files` column has the same). */
export const manifestOf = (files: readonly { path: string; digest: string }[]) =>
  files
    .map((f) => `${f.path}\0${f.digest}`)
    .sort()
    .join("\n");

/** The manifest of `lore` rendered for this origin. */
export async function loreManifest(origin: string): Promise<string> {
  return manifestOf([{ path: "SKILL.md", digest: await sha256Hex(renderStartHere(origin)) }]);
}

/**
 * GET /v1/start-here.md, which the contract defines as the service's own skill as one Markdown
 * file: the published `lore`'s SKILL.md, so it is the very bytes the discovery index lists. Before
 * the first seed has published it, the same text rendered for PUBLIC_ORIGIN (or, unconfigured, the
 * request's origin: nothing else is published then either).
 */
export async function startHereMd(env: Pick<Env, "DB" | "PUBLIC_ORIGIN">, requestOrigin: string): Promise<string> {
  const row = await env.DB.prepare(
    `SELECT v.skill_md FROM skills s JOIN skill_versions v ON v.id = s.latest_version_id WHERE s.slug = ? AND s.owner_id = ?`,
  )
    .bind(LORE_SKILL, SYSTEM_OWNER_ID)
    .first<{ skill_md: string }>();
  return row?.skill_md ?? renderStartHere(skillOrigin(env, requestOrigin));
}
