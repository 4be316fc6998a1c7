import * as z from "zod/v4";
import { visibleString } from "../core/text";
import { installedSkillsInput, stackInput } from "../ecosystems/stack";
import { HARNESS_IDS } from "../harnesses/setup.data";

export const setupOut = z.object({
  harness: z.enum(HARNESS_IDS),
  name: z.string(),
  /** When the facts below were last checked against the harness's own documentation and source. */
  asOfDate: z.string(),
  /** Files the harness reads project instructions from, the preferred one first. */
  instructionFiles: z.array(z.string()),
  /** Where it loads Agent Skills from (`~/…`: the user's home); null when it has no skills support. */
  skillsDir: z.string().nullable(),
  mcp: z.object({
    /** The configuration file to add the server to (`~/…`: the user's home, else the project root); null without MCP support. */
    file: z.string().nullable(),
    /** json, toml, yaml or json5; null without MCP support. */
    format: z.string().nullable(),
    /** The configuration for this server, ready to paste or merge; the key stays an environment variable unless `literalKey`. */
    snippet: z.string().nullable(),
    /** The harness's own command that adds the server, or null when it has none. */
    cli: z.string().nullable(),
    /** This server's MCP endpoint; null without MCP support. */
    url: z.string().nullable(),
    /** Whether `file` is the project's or the user's. */
    scope: z.enum(["project", "user"]).nullable(),
    /** True when the harness expands no variable in headers: `<your-api-key>` must be replaced by the key (never in a committed file). */
    literalKey: z.boolean(),
  }),
  /** How to install a skill in this harness; null when it has no skills support. */
  skillInstall: z.string().nullable(),
  notes: z.array(z.string()),
});

const MAX_FILE_BYTES = 256 * 1024;

export const adviseBody = z.object({
  harness: z.enum(HARNESS_IDS),
  stack: stackInput.optional(),
  installedSkills: installedSkillsInput.optional(),
  /** The project's instruction files as they are now (path relative to the project root, or `~/…`), so the answer can return their new content. */
  existingInstructionFiles: z
    .array(
      z.object({
        path: visibleString()
          .trim()
          .min(1)
          .max(300)
          .refine((p) => !p.split(/[\\/]/).includes(".."), "must not contain .. segments"),
        content: z.string().max(MAX_FILE_BYTES, "at most 256 KiB per file"),
      }),
    )
    .max(10, "at most 10 files")
    .optional(),
});
export type AdviseInput = z.infer<typeof adviseBody>;

export const proposalOut = z.object({
  /** Stable per target: `mcp`, `skill:<name>`, `instructions:<path>`, `config:<path>`. */
  id: z.string(),
  kind: z.enum(["mcp_server", "skill", "instructions", "config"]),
  title: z.string(),
  reason: z.string(),
  /**
   * create: write `content` as a new file; merge: add the entry (`merge` for JSON, else `snippet`) to the file, or create it
   * with `content`; append / update: write `content` (the whole new file); run: run `command`; manual: needs a person
   * (see notes; `command` when there is one); none: already done, nothing to write.
   */
  action: z.enum(["create", "merge", "append", "update", "run", "manual", "none"]),
  file: z.string().nullable(),
  scope: z.enum(["project", "user"]).nullable(),
  format: z.string().nullable(),
  /** The whole file to write (a new file, or the given file with only Lore's block changed). */
  content: z.string().nullable(),
  /** What Lore adds: the MCP configuration snippet, or the instruction section's text. */
  snippet: z.string().nullable(),
  command: z.string().nullable(),
  /** For JSON configuration: set `value` at this key path (e.g. ["mcpServers", "lore"]) and keep everything else. */
  merge: z.object({ path: z.array(z.string()), value: z.unknown() }).nullable(),
  /** The configuration needs the key itself (the harness expands no variable): never written for you. */
  literalKey: z.boolean(),
  /** Skill proposals only: published by Lore itself (the skill list's and detail's `official`), so a look-alike name is told apart. */
  official: z.boolean().optional(),
  notes: z.array(z.string()),
});
export type ProposalOut = z.infer<typeof proposalOut>;

const stackEntryView = z.object({ name: z.string(), ecosystem: z.string(), version: z.string() });

export const adviseOut = z.object({
  harness: z.enum(HARNESS_IDS),
  name: z.string(),
  asOfDate: z.string(),
  mcpUrl: z.string().nullable(),
  proposals: z.array(proposalOut),
  notes: z.array(z.string()),
  /**
   * How the `stack` that was sent was read (null when none was sent): `ranges` are versions that
   * are ranges (`^4.19.1`, `>=2.31`), each read as its lowest match `pinned`, the version a fresh
   * install could still resolve to; `unpinned` are versions Lore could not read as a version or a
   * range (a dist-tag, a typo): they get no release or advisory matching.
   */
  stack: z
    .object({
      entries: z.number().int(),
      ranges: z.array(stackEntryView.extend({ pinned: z.string() })),
      unpinned: z.array(stackEntryView),
    })
    .nullable(),
});
export type AdviseOut = z.infer<typeof adviseOut>;
