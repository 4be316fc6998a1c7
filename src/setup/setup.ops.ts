import * as z from "zod/v4";
import { defineOperation } from "../core/operation";
import { list, text } from "../core/compact";
import { notFound } from "../core/errors";
import { now } from "../core/clock";
import { ref } from "../core/text";
import { HARNESSES, HARNESS_IDS, setupFor } from "../harnesses/setup.data";
import { startHereMd } from "../skills";
import { adviseBody, adviseOut, setupOut } from "./setup.schemas";
import { advise as runAdvise } from "./advise";
import { CLI_PATH, CLI_PINNED_PATH, cliInfo, cliTarball, isPinnedFile } from "./cli-package";

const TAG = "setup";

const cliOut = z.object({
  name: z.string(),
  /** Changes with every change of the CLI's source: `<base>-h<first 12 hex of the source's SHA-256>`. */
  version: z.string(),
  /** The package at an address naming its content (`…/lore-setup/<sha512 hex>.tgz`): npx runs what it first downloaded from a URL again, so a new package needs a new one. */
  url: z.string(),
  /** Whatever package this build serves (`…/lore-setup.tgz`): for downloading; npx reruns its first download of it. */
  stableUrl: z.string(),
  /** SHA-512 of the tarball's bytes, as npm writes it (`sha512-<base64>`). */
  integrity: z.string(),
  /** The same SHA-512 in hex, as `sha512sum` prints it and `url` names it. */
  sha512: z.string(),
  /** SHA-256 (hex) of bin/lore-setup.mjs: a running copy compares its own file with it. */
  sourceSha256: z.string(),
  size: z.number().int(),
  /** The command to copy: npx of `url` from a fresh folder, on the project given with --dir. */
  command: z.string(),
});

export const listHarnesses = defineOperation({
  id: "setup.list",
  summary: "Supported agent harnesses, and the setup CLI's package",
  description:
    "The agent harnesses Lore has setup advice for, each with the URL of its setup data; and `cli`, the setup CLI (lore-setup) as an npm " +
    "package this server serves: its content-addressed URL, version, the SHA-512 of its tarball, the SHA-256 of its source and the npx " +
    "command that runs it.",
  tag: TAG,
  method: "GET",
  path: "/setup",
  access: "public",
  metric: null,
  output: z.object({
    items: z.array(z.object({ harness: z.string(), name: z.string(), url: z.string(), mcp: z.boolean(), skills: z.boolean() })),
    total: z.number().int(),
    cli: cliOut,
  }),
  handler: async (ctx) => {
    const items = HARNESSES.map((h) => ({
      harness: h.id,
      name: h.name,
      url: `${ctx.origin}/v1/setup/${h.id}`,
      mcp: h.mcp.snippet !== null,
      skills: h.skillsDir !== null,
    }));
    return { items, total: items.length, cli: cliInfo(ctx.origin) };
  },
});

/** Before `/setup/:harness`, which would otherwise take the file name for a harness. */
export const cliPackage = defineOperation({
  id: "setup.cliPackage",
  summary: "The setup CLI (lore-setup) as an npm package tarball",
  description:
    "lore-setup as an npm package tarball (package.json, bin/lore-setup.mjs and its one bundled dependency, smol-toml), whatever " +
    "package this build serves. npx keeps its first download of a URL and reruns it: to run it with npx, use the content-addressed " +
    "`GET /v1/setup/lore-setup/{sha512}.tgz` that `GET /v1/setup` (`cli.url`, `cli.command`) names. The bytes are the same for the " +
    "same CLI source. A `?v=` query is ignored.",
  tag: TAG,
  method: "GET",
  path: CLI_PATH,
  access: "public",
  metric: null,
  contentType: "application/gzip",
  output: z.string().meta({ format: "binary" }),
  headers: () => ({ "cache-control": "no-cache", "content-disposition": 'attachment; filename="lore-setup.tgz"' }),
  // The adapter sends a non-JSON result as the body as it is: here the tarball's bytes.
  handler: async (ctx) => (await cliTarball(ctx.env)) as unknown as string,
});

/** The same bytes at an address naming them: anything but this build's SHA-512 is a 404, so the address never serves other bytes. */
export const cliPackagePinned = defineOperation({
  id: "setup.cliPackagePinned",
  summary: "The setup CLI's tarball at its content address",
  description:
    "lore-setup's npm package tarball at `/v1/setup/lore-setup/<sha512 hex>.tgz`, where the hex is the SHA-512 of the bytes served " +
    "(`cli.sha512` in `GET /v1/setup`); any other name is a 404. npx caches by address, so this address runs these bytes or nothing.",
  errors: { NOT_FOUND: "the name is not `<sha512 hex of the served tarball>.tgz`" },
  tag: TAG,
  method: "GET",
  path: CLI_PINNED_PATH,
  access: "public",
  metric: null,
  params: z.object({ file: z.string().max(200) }),
  contentType: "application/gzip",
  output: z.string().meta({ format: "binary" }),
  headers: () => ({
    "cache-control": "public, max-age=31536000, immutable",
    "content-disposition": 'attachment; filename="lore-setup.tgz"',
  }),
  handler: async (ctx, p) => {
    if (!isPinnedFile(p.file)) throw notFound("No lore-setup package by that SHA-512 here (GET /v1/setup names the one served)");
    return (await cliTarball(ctx.env)) as unknown as string;
  },
});

export const harnessSetup = defineOperation({
  id: "setup.get",
  summary: "How to connect one harness: instruction files, skills folder, MCP config",
  description:
    "How to connect one harness: the instruction files it reads, its skills folder, its MCP configuration file with a ready snippet " +
    "for this server (the key stays an environment variable, except where the harness expands none: `literalKey`) and its CLI command, " +
    "and how it installs skills. A harness without MCP or skills support (aider) has those fields null.",
  errors: { NOT_FOUND: "the harness is not one of the supported ones" },
  tag: TAG,
  method: "GET",
  path: "/setup/:harness",
  access: "public",
  metric: null,
  params: z.object({ harness: ref(64) }),
  output: setupOut,
  handler: async (ctx, p) => {
    const h = HARNESSES.find((x) => x.id === p.harness);
    if (!h) throw notFound(`Harness '${p.harness}' (supported: ${HARNESS_IDS.join(", ")})`);
    return setupFor(h, ctx.origin);
  },
});

export const startHere = defineOperation({
  id: "setup.startHere",
  summary: "The service's own skill as one Markdown file",
  description:
    "The service's own skill (`lore` in the discovery index, the same bytes) as one Markdown file with YAML front matter: " +
    "authentication, sync first, the package check before installs, third-party content as data, quotas and 429s, and every MCP tool by name.",
  tag: TAG,
  method: "GET",
  path: "/start-here.md",
  access: "public",
  metric: null,
  contentType: "text/markdown; charset=utf-8",
  output: z.string(),
  handler: (ctx) => startHereMd(ctx.env, ctx.origin),
});

export const advise = defineOperation({
  id: "setup.advise",
  summary: "Setup advice: exactly what to write to connect a harness to Lore",
  description:
    "For `harness` (and optionally `stack`, `installedSkills` and the project's `existingInstructionFiles` as `[{path, content}]`; an " +
    "omitted stack or skill list reuses what this agent last reported in a sync), a list of proposals, each with a kind, a reason and " +
    "exactly what to write: the MCP server entry (the harness's file, format and snippet, the JSON key path to merge, or its CLI " +
    "command); install commands for Lore's own skill and the scan-passed skills that fit the stack; and the instruction section " +
    "between `<!-- service:begin v1 updated=YYYY-MM-DD -->` and `<!-- service:end -->` in the harness's instruction file. For a file " +
    "that was sent, `content` is its whole new text: only the block changes, every byte outside it stays identical (line endings " +
    "included), a file without the block gets it appended, and a file whose block already says this is unchanged (`action: none`). " +
    "A file with two blocks or a broken block is a 400 naming the file. Nothing is written by the service.",
  tag: TAG,
  method: "POST",
  path: "/agents/me/advise",
  access: "agent",
  metric: "FRESHNESS_CALLS",
  maxBodyBytes: 3 * 1024 * 1024,
  body: adviseBody,
  output: adviseOut,
  // Skill descriptions and the caller's own files come back in the answer.
  untrusted: true,
  handler: (ctx, b) => runAdvise(ctx.env.DB, ctx.origin, ctx.caller, b, now()),
  activity: (b, r) => ({
    kind: "ADVISE",
    summary: `Asked for setup advice for ${r.name} (${r.proposals.filter((p) => p.action !== "none").length} proposals)`,
  }),
  mcp: {
    tool: "service_advise",
    title: "Setup advice",
    description: "How to connect a harness to Lore (MCP config, skills, instructions); apply what the user accepts.",
    compact: {
      view: {
        harness: true,
        mcpUrl: true,
        proposals: list(
          {
            id: true,
            kind: true,
            title: true,
            reason: text(160),
            action: true,
            file: true,
            scope: true,
            command: true,
            official: true,
            snippet: text(600),
            content: text(600),
          },
          8,
        ),
        notes: list(text(200), 5),
      },
    },
    readOnly: true,
    idempotent: true,
  },
});

export const setupOperations = [listHarnesses, cliPackage, cliPackagePinned, harnessSetup, startHere, advise];
