import { z } from "zod";
import { parseEcosystem, type Ecosystem } from "../freshness/versions";

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
  /** Facts Lore could not verify for this answer (for example publish dates from a mirror). */
  unverified: z.array(z.string()).optional(),
  /** Where the registry facts come from, and when they were fetched. */
  source: z.string().optional(),
  checkedAt: z.string().optional(),
});
export type CheckResult = z.infer<typeof checkResultOut>;
