/**
 * lore-setup (bin/lore-setup.mjs) as the npm package this Worker serves, so the README's command
 * works on any machine with Node and no published registry name to squat. The bytes are built by
 * `npm run build:setup` (scripts/setup-package.mjs) into data/assets/setup/lore-setup.tgz (read through the
 * static-assets binding, so ~50 KiB of gzip stay out of the script every isolate loads) and its
 * name, version and SHA-512 into cli-package.generated.ts: the same source always gives the same
 * tarball, SHA-512 and version.
 *
 * Two addresses: the stable one (`/v1/setup/lore-setup.tgz`, whatever this build serves) and the
 * content-addressed one (`/v1/setup/lore-setup/<sha512 hex>.tgz`, which answers only for these
 * bytes). npx keeps the first download of a URL and runs it again, so only an address that names
 * its content keeps npx from running an older (or a bad) download after the package changed.
 */
import type { Env } from "../env";
import { ApiError } from "../core/errors";
import { CLI_PACKAGE } from "./cli-package.generated";

export const CLI_PATH = "/setup/lore-setup.tgz";
/** The content-addressed package: `/setup/lore-setup/<sha512 hex>.tgz`. */
export const CLI_PINNED_PATH = "/setup/lore-setup/:file";

const ASSET_URL = "https://assets.lore.internal/setup/lore-setup.tgz";
let bytes: Promise<Uint8Array> | null = null;

/**
 * The tarball, read once per isolate from the static assets and checked against the SHA-512 this
 * build names: a deploy whose assets and script disagree serves nothing rather than other bytes
 * under a content address.
 */
export function cliTarball(env: Env): Promise<Uint8Array> {
  bytes ??= (async () => {
    const res = await env.ASSETS.fetch(ASSET_URL);
    const body = res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
    const hex = body
      ? [...new Uint8Array(await crypto.subtle.digest("SHA-512", body))].map((b) => b.toString(16).padStart(2, "0")).join("")
      : "";
    if (!body || hex !== CLI_PACKAGE.sha512)
      throw new ApiError("INTERNAL", "The setup package is not deployed with this build (its assets and script disagree).");
    return body;
  })().catch((e) => {
    bytes = null;
    throw e;
  });
  return bytes;
}

/** Whether `file` (the last part of a pinned address) names this build's tarball. */
export const isPinnedFile = (file: string) => file === `${CLI_PACKAGE.sha512}.tgz`;

/**
 * The command to copy: npx of the content-addressed package, started from a fresh folder under
 * ~/.cache (never inside the project, whose .npmrc and node_modules/.bin npm would use; never under
 * /tmp, where anyone can plant a node_modules/.bin) on the project named by --dir. The CLI builds
 * the same command (npxCommand in bin/lore-setup.mjs) when it finds it is not the version served.
 */
export const npxCommand = (url: string, args = "--dry-run") =>
  `(mkdir -p ~/.cache && cd "$(mktemp -d ~/.cache/lore-setup.XXXXXX)" && npx --yes "${url}" --dir "$OLDPWD" ${args})`;

/** Where and what the package is, for GET /v1/setup and the Connect page. */
export function cliInfo(origin: string) {
  const url = `${origin}/v1/setup/lore-setup/${CLI_PACKAGE.sha512}.tgz`;
  return {
    name: CLI_PACKAGE.name,
    version: CLI_PACKAGE.version,
    url,
    stableUrl: `${origin}/v1${CLI_PATH}`,
    integrity: CLI_PACKAGE.integrity,
    sha512: CLI_PACKAGE.sha512,
    sourceSha256: CLI_PACKAGE.sourceSha256,
    size: CLI_PACKAGE.size,
    command: npxCommand(url),
  };
}
