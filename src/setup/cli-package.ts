/**
 * lore-setup (bin/lore-setup.mjs) as the npm package this Worker serves, so the README's
 * `npx --yes <lore>/v1/setup/lore-setup.tgz` works on any machine with Node and no published
 * registry name to squat. The bytes are built by `npm run build:setup` (scripts/setup-package.mjs)
 * into cli-package.generated.ts: the same source always gives the same tarball and integrity.
 */
import { CLI_PACKAGE } from "./cli-package.generated";

export const CLI_PATH = "/setup/lore-setup.tgz";

let bytes: Uint8Array | null = null;

/** The tarball, decoded once per isolate. */
export function cliTarball(): Uint8Array {
  if (!bytes) {
    const bin = atob(CLI_PACKAGE.base64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    bytes = out;
  }
  return bytes;
}

/**
 * Where and what the package is, for GET /v1/setup and the Connect page. `command` names the
 * version in the URL (npx keeps the first download of a URL and runs it again: a new version needs
 * a new URL); `url` is the stable address the README uses.
 */
export function cliInfo(origin: string) {
  const url = `${origin}/v1${CLI_PATH}`;
  const versioned = `${url}?v=${CLI_PACKAGE.version}`;
  return {
    name: CLI_PACKAGE.name,
    version: CLI_PACKAGE.version,
    url,
    versionedUrl: versioned,
    integrity: CLI_PACKAGE.integrity,
    size: CLI_PACKAGE.size,
    command: `npx --yes "${versioned}" --dry-run`,
  };
}
