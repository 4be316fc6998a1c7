import type Semver from "semver";

/** The parts of the `semver` package Lore calls, loaded on the first call. */
export declare function semver(): Pick<
  typeof Semver,
  "SemVer" | "compare" | "major" | "minor" | "patch" | "prerelease" | "valid" | "satisfies" | "validRange" | "maxSatisfying" | "minVersion"
>;
