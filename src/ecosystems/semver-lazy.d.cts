import type Semver from "semver";

/** The `semver` package, loaded on the first call. */
export declare function semver(): typeof Semver;
