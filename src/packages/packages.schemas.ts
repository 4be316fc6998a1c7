import * as z from "zod/v4";
import { parseEcosystem, type Ecosystem } from "../ecosystems/versions";

export const ecosystemIn = z
  .string()
  .max(20)
  .optional()
  .transform((s, ctx): Ecosystem => {
    const eco = parseEcosystem(s);
    if (!eco) {
      ctx.addIssue({ code: "custom", message: "ecosystem must be one of npm (default), pypi, go, cargo" });
      return z.NEVER;
    }
    return eco;
  });

export const checkBody = z.object({
  packages: z
    .array(
      z.object({
        name: z.string().trim().min(1, "must not be empty").max(214, "at most 214 characters"),
        ecosystem: ecosystemIn,
        /**
         * One version, or a requirement judged at the version it resolves to: an npm range or dist-tag
         * (`^4.17.0`, `next`), a Cargo requirement (`>=1.0, <2`), PEP 440 specifiers (`~=2.0`,
         * `==1.*`), a Go query, pseudo-version, branch or commit (`latest`, `v1.2`, `v0.0.0-2024…`).
         */
        version: z.string().trim().min(1).max(128).optional(),
      }),
    )
    .min(1, "give at least one package")
    .max(100, "at most 100 packages per request"),
});

export const REASON_CODES = [
  // block
  "INVALID_NAME",
  "NOT_FOUND",
  "VERSION_NOT_FOUND",
  "MALICIOUS",
  "SECURITY_HOLDER",
  "QUARANTINED",
  "HALLUCINATED",
  // warn
  "MALICIOUS_VERSIONS",
  "TYPOSQUAT",
  "DEPRECATED",
  "YANKED",
  "NEW_PACKAGE",
  "INSTALL_SCRIPTS",
  "VULNERABLE",
  "REGISTRY_UNREACHABLE",
  "ADVISORIES_UNCHECKED",
  "UNVERIFIED_DATES",
  "UNVERIFIED_TAG",
  "NOT_CHECKED",
] as const;

export const checkResultOut = z.object({
  name: z.string(),
  ecosystem: z.string(),
  version: z.string().optional(),
  verdict: z.enum(["ok", "warn", "block"]),
  reasons: z.array(z.object({ code: z.enum(REASON_CODES), message: z.string() })),
  /** null when no registry could be asked and no offline fact decides it. */
  exists: z.boolean().nullable(),
  latestVersion: z.string().optional(),
  /** For a range, dist-tag or query in `version` (or a Go `+incompatible` release): the version a fresh install would pick (the one judged). */
  resolvedVersion: z.string().optional(),
  firstPublished: z.string().optional(),
  /** The package to use instead (the real name behind a typosquat or a hallucinated name). */
  suggestion: z.string().optional(),
  /** The popular package this name imitates (typosquats). */
  imitates: z.string().optional(),
  /** MAL-/GHSA-/… ids behind a malicious or vulnerable verdict. */
  advisories: z.array(z.string()).optional(),
  /** The known advisories of the version judged (`resolvedVersion`, the version asked, or the latest): id, severity, fixed versions, source and date. */
  knownAdvisories: z
    .array(
      z.object({
        id: z.string(),
        aliases: z.array(z.string()),
        severity: z.string().nullable(),
        summary: z.string().nullable(),
        fixedVersions: z.array(z.string()),
        url: z.string(),
        source: z.string(),
        asOf: z.string(),
      }),
    )
    .optional()
    .describe(
      "The known advisories of the version judged: id, aliases, severity, summary, fixed versions, source and the date the source said it.",
    ),
  /**
   * What the version's advisories were looked up in: `current` (OSV answered in this request, or a
   * complete source younger than a day), `stale` (only an older complete source: newer advisories
   * not checked) or `unavailable` (no complete source: the advisories listed, if any, are not all
   * there is). Anything but `current` adds the reason ADVISORIES_UNCHECKED. Absent when no version
   * could be judged (the package or version does not exist, or the registry was not reached).
   */
  advisoryCheck: z
    .object({
      status: z.enum(["current", "stale", "unavailable"]),
      version: z.string(),
      sources: z.array(z.object({ source: z.string(), asOf: z.string(), status: z.enum(["current", "stale"]), complete: z.boolean() })),
      /** Why no current source answered (OSV unreachable…) and what Lore holds instead. */
      note: z.string().nullable(),
    })
    .optional()
    .describe(
      "What the version's advisories were looked up in: current (OSV answered in this request, or a complete source younger than a day), stale (only an older complete source) or unavailable (no complete source). Anything but current adds the reason ADVISORIES_UNCHECKED. Absent when no version could be judged.",
    ),
  /** Facts Lore could not verify for this answer (for example publish dates from a mirror). */
  unverified: z.array(z.string()).optional(),
  /** Where the registry facts come from, and when they were fetched. */
  source: z.string().optional(),
  checkedAt: z.string().optional(),
});
export type CheckResult = z.infer<typeof checkResultOut>;
