"use strict";
// `semver` is loaded on first use, not at module load: its debug helper reads `process.env` while
// semver loads, and the first touch of `process` makes the Workers runtime build its Node.js
// process module (some 30 ms of start-up CPU that no request needing no version comparison should
// pay). A CommonJS `require` inside a function is what the bundler keeps lazy; an ESM import is not.
// Only the functions Lore calls are required, each from its own file: the package's index requires
// every function and class it has, and the bundler cannot leave out what a CommonJS module requires.
let loaded;
exports.semver = () => {
  loaded ??= {
    SemVer: require("semver/classes/semver"),
    compare: require("semver/functions/compare"),
    major: require("semver/functions/major"),
    minor: require("semver/functions/minor"),
    patch: require("semver/functions/patch"),
    prerelease: require("semver/functions/prerelease"),
    valid: require("semver/functions/valid"),
    satisfies: require("semver/functions/satisfies"),
    validRange: require("semver/ranges/valid"),
    maxSatisfying: require("semver/ranges/max-satisfying"),
    minVersion: require("semver/ranges/min-version"),
  };
  return loaded;
};
