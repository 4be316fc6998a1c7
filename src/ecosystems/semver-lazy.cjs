"use strict";
// `semver` is loaded on first use, not at module load: its debug helper reads `process.env` while
// semver loads, and the first touch of `process` makes the Workers runtime build its Node.js
// process module (some 30 ms of start-up CPU that no request needing no version comparison should
// pay). A CommonJS `require` inside a function is what the bundler keeps lazy; an ESM import is not.
let loaded;
exports.semver = () => {
  loaded ??= require("semver");
  return loaded;
};
