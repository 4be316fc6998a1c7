// Unit tests of the freshness building blocks: version order and OSV ranges per ecosystem, the
// changelog parsers, typosquat classification, the SSRF guard, and every source client against
// recorded responses (404, 410, timeouts, malformed bodies, security holders).
import { afterEach, describe, expect, it } from "vitest";
import {
  cargoRange,
  cleanVersion,
  compareVersions,
  goVersionFitsPath,
  inOsvRange,
  inSnapshotVersions,
  isBreakingBump,
  isGoPseudoVersion,
  osvAffects,
  parseVersionSpec,
  pinnedVersion,
  resolveRange,
  versionKey,
  type OsvRange,
} from "../../src/ecosystems/versions";
import semverCompare from "semver/functions/compare";
import { packageKey, registryKey } from "../../src/ecosystems/topics";
import { registryProbe } from "../../src/packages/packages.service";
import tagsDoc from "../fixtures/npm/tags.json?raw";
import { parseChangelog, parseDate, parseReleaseNotes, versionFromTag } from "../../src/freshness/changelog";
import { classify, neighbourKeys, skeleton } from "../../src/packages/typo";
import { checkRepoUrl, RedirectRefused, safeFetch } from "../../src/sources/safe-url";
import { npmLookup, npmPath } from "../../src/sources/npm";
import { pypiLookup } from "../../src/sources/pypi";
import { goEscape, goLookup, isRetracted, parseGoMod } from "../../src/sources/goproxy";
import { cratesLookup } from "../../src/sources/crates";
import { osvModifiedSince, osvQueryPackage, osvVuln } from "../../src/sources/osv";
import { githubReleases } from "../../src/sources/github";
import { modelsDevCatalog } from "../../src/sources/modelsdev";
import { SourceError, sourceCtx } from "../../src/sources/http";
import { hang, json, mockFetch, text } from "../fixtures/mock";
import crossenv from "../fixtures/npm/crossenv.json?raw";
import crossenvMirror from "../fixtures/npm/crossenv.mirror.json?raw";
import reactMirror from "../fixtures/npm/react.mirror.json?raw";
import request from "../fixtures/npm/request.json?raw";
import newPackage from "../fixtures/npm/new-package.json?raw";
import unpublished from "../fixtures/npm/unpublished.json?raw";
import npmNotFound from "../fixtures/npm/not-found.json?raw";
import malformed from "../fixtures/npm/malformed.html?raw";
import requestsJson from "../fixtures/pypi/requests.json?raw";
import requestsSimple from "../fixtures/pypi/requests.simple.json?raw";
import quarantined from "../fixtures/pypi/quarantined.simple.json?raw";
import archivedSimple from "../fixtures/pypi/archived.simple.json?raw";
import archivedJson from "../fixtures/pypi/archived.json?raw";
import pypiNotFound from "../fixtures/pypi/not-found.json?raw";
import ginList from "../fixtures/goproxy/gin.list?raw";
import ginLatest from "../fixtures/goproxy/gin.latest.json?raw";
import ginInfo from "../fixtures/goproxy/gin.v1.7.7.info.json?raw";
import ginMod from "../fixtures/goproxy/gin.mod?raw";
import deprecatedMod from "../fixtures/goproxy/deprecated.mod?raw";
import goNotFound from "../fixtures/goproxy/not-found.txt?raw";
import goGone from "../fixtures/goproxy/gone.txt?raw";
import serde from "../fixtures/crates/serde.json?raw";
import cratesNotFound from "../fixtures/crates/not-found.json?raw";
import cratesForbidden from "../fixtures/crates/forbidden.json?raw";
import osvExpress from "../fixtures/osv/express.query.json?raw";
import osvExpress2 from "../fixtures/osv/express.query.page2.json?raw";
import osvMal from "../fixtures/osv/MAL-2026-99999.json?raw";
import osvCsv from "../fixtures/osv/npm.modified_id.csv?raw";
import honoReleases from "../fixtures/github/hono.releases.json?raw";
import modelsDev from "../fixtures/modelsdev/api.json?raw";
import kac from "../fixtures/changelog/keepachangelog.md?raw";
import changesets from "../fixtures/changelog/changesets.md?raw";
import expressHistory from "../fixtures/changelog/express-history.md?raw";
import tokio from "../fixtures/changelog/tokio.md?raw";
import fastapi from "../fixtures/changelog/fastapi.md?raw";
import pydantic from "../fixtures/changelog/pydantic.md?raw";
import reactChangelog from "../fixtures/changelog/react.md?raw";
import gin from "../fixtures/changelog/gin.md?raw";
import django from "../fixtures/changelog/django-5.0.txt?raw";

const ctx = { ...sourceCtx({ SOURCE_CONTACT: "ops@example.com" }), timeoutMs: 50 };
let mock: ReturnType<typeof mockFetch> | null = null;
afterEach(() => {
  mock?.restore();
  mock = null;
});

describe("version order per ecosystem", () => {
  it("npm and cargo: semver with prereleases, v/= prefixes, 0.x bumps are breaking", () => {
    expect(cleanVersion("npm", "v1.2.3")).toBe("1.2.3");
    expect(cleanVersion("npm", "1.2")).toBeNull();
    expect(compareVersions("npm", "1.0.0-beta.2", "1.0.0-beta.10")).toBe(-1);
    expect(compareVersions("npm", "1.0.0-rc.1", "1.0.0")).toBe(-1);
    // Parsed once and held (the memo): the same order as semver's own, asked again and reversed.
    const vs = ["1.0.0", "v1.0.0", "=1.0.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta.10", "1.0.0+build.5", "0.9.9", "10.0.0", "1.10.0"];
    for (let round = 0; round < 2; round++)
      for (const a of vs)
        for (const b of vs) {
          const want = semverCompare(a.replace(/^[=v]+/, ""), b.replace(/^[=v]+/, ""));
          expect(compareVersions("npm", a, b), `${a} vs ${b}`).toBe(want);
          expect(compareVersions("cargo", b, a)).toBe(want === 0 ? 0 : -want);
        }
    // Not a version: semver's own error, as before the memo.
    expect(() => compareVersions("npm", "not-a-version", "1.0.0")).toThrow(TypeError);
    expect(isBreakingBump("npm", "0.2.3", "0.3.0")).toBe(true);
    expect(isBreakingBump("cargo", "0.2.3", "0.2.9")).toBe(false);
    expect(isBreakingBump("cargo", "0.0.3", "0.0.4")).toBe(true);
    expect(isBreakingBump("npm", "1.9.0", "1.10.0")).toBe(false);
    expect(isBreakingBump("npm", "1.9.0", "2.0.0")).toBe(true);
    expect(pinnedVersion("npm", "^18.2.0")).toBe("18.2.0");
    expect(pinnedVersion("npm", "~1.4")).toBe("1.4.0");
    expect(pinnedVersion("cargo", "1.0")).toBe("1.0.0");
    expect(pinnedVersion("npm", "latest")).toBeNull();
  });

  it("pypi: PEP 440 (2.0 == 2.0.0, pre < final < post, epochs), ranges pin their lower bound", () => {
    expect(compareVersions("pypi", "2.0", "2.0.0")).toBe(0);
    expect(compareVersions("pypi", "2.0rc1", "2.0")).toBe(-1);
    expect(compareVersions("pypi", "2.0.post1", "2.0")).toBe(1);
    expect(compareVersions("pypi", "1!1.0", "2.0")).toBe(1);
    expect(compareVersions("pypi", "2.10", "2.9")).toBe(1);
    expect(isBreakingBump("pypi", "4.2", "5.0")).toBe(true);
    expect(isBreakingBump("pypi", "0.136.1", "0.137.0")).toBe(true);
    expect(isBreakingBump("pypi", "5.0", "5.2")).toBe(false);
    expect(pinnedVersion("pypi", "==2.32.3")).toBe("2.32.3");
    expect(pinnedVersion("pypi", "~=2.0")).toBe("2.0");
    expect(cleanVersion("pypi", "not.a.version!")).toBeNull();
  });

  it("go: v prefix, +incompatible, pseudo-versions are prereleases, majors live at /vN paths", () => {
    expect(cleanVersion("go", "1.9.0")).toBe("v1.9.0");
    expect(compareVersions("go", "v1.10.0", "v1.9.0")).toBe(1);
    expect(compareVersions("go", "v2.0.0+incompatible", "v1.9.9")).toBe(1);
    expect(compareVersions("go", "v0.0.0-20191109021931-daa7c04131f5", "v0.0.1")).toBe(-1);
    expect(goVersionFitsPath("github.com/foo/bar/v2", "v2.1.0")).toBe(true);
    expect(goVersionFitsPath("github.com/foo/bar", "v2.1.0")).toBe(false);
    expect(goVersionFitsPath("github.com/foo/bar", "v2.1.0+incompatible")).toBe(true);
    expect(goVersionFitsPath("github.com/foo/bar/v3", "v2.1.0")).toBe(false);
  });
});

describe("version requirements per ecosystem", () => {
  it("Cargo: comma-separated comparators, caret by default, ~, =, *; npm-only syntax refused", () => {
    expect(cargoRange(">=1.0, <2")).toBe(">=1.0 <2");
    expect(cargoRange("1.2")).toBe("^1.2");
    expect(cargoRange("1.2.3, <1.5")).toBe("^1.2.3 <1.5");
    expect(cargoRange(">= 1.2 , < 1.5")).toBe(">=1.2 <1.5");
    expect(cargoRange("~1.2.3")).toBe("~1.2.3");
    expect(cargoRange("=1.2.3")).toBe("=1.2.3");
    expect(cargoRange("*")).toBe("*");
    expect(cargoRange("1.*")).toBe("1.*");
    for (const bad of [">=1 <2", "1.0 || 2.0", "1 - 2", "", ">=1.0,", ">=1.*", "latest"]) expect(cargoRange(bad), bad).toBeNull();
    const vs = ["0.2.3", "0.2.9", "0.3.0", "1.0.0", "1.4.0", "1.9.9", "2.0.0"];
    expect(resolveRange("cargo", ">=1.0, <2", vs)).toBe("1.9.9");
    expect(resolveRange("cargo", "0.2.3", vs)).toBe("0.2.9");
    expect(resolveRange("cargo", "0.2", vs)).toBe("0.2.9");
    expect(resolveRange("cargo", "~1", vs)).toBe("1.9.9");
    expect(resolveRange("cargo", ">=3", vs)).toBeNull();
    expect(resolveRange("cargo", ">=1 <2", vs)).toBeUndefined();
    expect(pinnedVersion("cargo", ">=1.4, <2")).toBe("1.4.0");
    expect(parseVersionSpec("cargo", "1.0.228")).toEqual({ kind: "exact", version: "1.0.228" });
    expect(parseVersionSpec("cargo", ">=1.0 <2")).toMatchObject({ kind: "invalid" });
  });

  it("npm: versions, ranges and dist-tags; a range picks the latest tag when it fits, then non-deprecated versions", () => {
    expect(parseVersionSpec("npm", "=18.2.0")).toEqual({ kind: "exact", version: "18.2.0" });
    expect(parseVersionSpec("npm", "18.x")).toEqual({ kind: "range", spec: "18.x" });
    expect(parseVersionSpec("npm", "next")).toEqual({ kind: "tag", tag: "next" });
    expect(parseVersionSpec("npm", "a b")).toMatchObject({ kind: "invalid" });
    const vs = ["1.0.0", "1.1.0", "2.0.0", "2.1.0", "2.2.0", "3.0.0-rc.1"];
    expect(resolveRange("npm", "^2.0.0", vs, { latest: "2.1.0" })).toBe("2.1.0");
    expect(resolveRange("npm", "^2.0.0", vs)).toBe("2.2.0");
    expect(resolveRange("npm", "^1.0.0", vs, { deprecated: (v) => v === "1.1.0" })).toBe("1.0.0");
    expect(resolveRange("npm", "^1.0.0", vs, { deprecated: () => true })).toBe("1.1.0");
    expect(resolveRange("npm", "*", vs, { latest: "2.1.0" })).toBe("2.1.0");
  });

  it("PyPI: PEP 440 specifiers (~=, ==N.*, !=, comma lists) and their lower bounds", () => {
    expect(parseVersionSpec("pypi", "==2.0")).toEqual({ kind: "exact", version: "2.0" });
    expect(parseVersionSpec("pypi", "===2.0")).toEqual({ kind: "exact", version: "2.0" });
    expect(parseVersionSpec("pypi", "==2.*")).toEqual({ kind: "range", spec: "==2.*" });
    expect(parseVersionSpec("pypi", "~=1")).toMatchObject({ kind: "invalid" });
    const vs = ["1.0", "1.5", "2.0", "2.0.1", "2.1rc1", "2.2", "3.0a1"];
    expect(resolveRange("pypi", "~=2.0", vs)).toBe("2.2");
    expect(resolveRange("pypi", "==1.*", vs)).toBe("1.5");
    expect(resolveRange("pypi", "!=2.2,>=2", vs)).toBe("2.0.1");
    expect(resolveRange("pypi", ">=2.1rc1", vs)).toBe("3.0a1");
    expect(resolveRange("pypi", ">=2.5", vs)).toBe("3.0a1");
    expect(resolveRange("pypi", ">=3", vs)).toBeNull();
    expect(pinnedVersion("pypi", "==1.*")).toBe("1");
    expect(pinnedVersion("pypi", "!=2.0.1, >=2.0")).toBe("2.0");
    expect(pinnedVersion("pypi", "<3")).toBeNull();
  });

  it("npm/Cargo: a plain MAJOR.MINOR.PATCH is its own clean, pinned and canonical form; anything else is read by semver", () => {
    for (const eco of ["npm", "cargo"] as const) {
      for (const v of ["1.2.3", "0.0.0", "10.20.30", "999999999999999.0.1"]) {
        expect([cleanVersion(eco, v), pinnedVersion(eco, v), versionKey(eco, v)]).toEqual([v, v, v]);
      }
      // Not plain: a prefix, a prerelease, a build, spaces, a leading zero, a number past 2^53.
      expect(cleanVersion(eco, "v1.2.3")).toBe("1.2.3");
      expect(versionKey(eco, "=1.2.3")).toBe("1.2.3");
      expect(cleanVersion(eco, " 1.2.3 ")).toBe("1.2.3");
      expect(cleanVersion(eco, "1.2.3-beta.1")).toBe("1.2.3-beta.1");
      expect(cleanVersion(eco, "1.2.3+build.5")).toBe("1.2.3");
      expect(cleanVersion(eco, "01.2.3")).toBeNull();
      expect(cleanVersion(eco, "9007199254740993.0.0")).toBeNull();
    }
    // Other ecosystems never take the shortcut.
    expect(cleanVersion("go", "1.2.3")).toBe("v1.2.3");
    expect(versionKey("pypi", "1.2.0")).toBe("1.2");
  });

  it("Go: pseudo-versions, +incompatible keyed as its tag, queries by Go's rules", () => {
    expect(isGoPseudoVersion("v0.0.0-20191109021931-daa7c04131f5")).toBe(true);
    expect(isGoPseudoVersion("v1.2.4-0.20240101000000-abcdefabcdef")).toBe(true);
    expect(isGoPseudoVersion("v1.2.4-pre.0.20240101000000-abcdefabcdef")).toBe(true);
    expect(isGoPseudoVersion("v2.1.1-0.20240101000000-abcdefabcdef+incompatible")).toBe(true);
    expect(isGoPseudoVersion("v1.2.3-rc.1")).toBe(false);
    expect(versionKey("go", "v2.0.0+incompatible")).toBe("v2.0.0");
    expect(versionKey("go", "2.0.0")).toBe("v2.0.0");
    expect(parseVersionSpec("go", "v0.0.0-20191109021931-daa7c04131f5")).toMatchObject({ kind: "exact" });
    expect(parseVersionSpec("go", "master")).toEqual({ kind: "probe", query: "master" });
    expect(parseVersionSpec("go", "v1.2")).toEqual({ kind: "range", spec: "v1.2" });
    const vs = ["v1.0.0", "v1.1.0", "v1.1.1", "v1.2.0-rc.1", "v1.2.0", "v1.3.0"];
    expect(resolveRange("go", "v1.1", vs)).toBe("v1.1.1");
    expect(resolveRange("go", ">=v1.1.0", vs)).toBe("v1.1.0");
    expect(resolveRange("go", ">v1.1.1", vs)).toBe("v1.2.0");
    expect(resolveRange("go", "<=v1.2.0", vs)).toBe("v1.2.0");
    expect(resolveRange("go", "latest", vs, { latest: "v1.3.0" })).toBe("v1.3.0");
    expect(pinnedVersion("go", ">=v1.2.0")).toBe("v1.2.0");
  });

  it("registry identity: npm and Go exact, PyPI and crates folded as their registries fold", () => {
    expect(registryKey("npm", " JSONStream ")).toBe("JSONStream");
    expect(packageKey("npm", "JSONStream")).toBe("jsonstream");
    expect(registryKey("go", "github.com/Sirupsen/logrus/")).toBe("github.com/Sirupsen/logrus");
    expect(registryKey("pypi", "Typing_Extensions")).toBe("typing-extensions");
    expect(registryKey("cargo", "Serde_Json")).toBe("serde-json");
  });
});

describe("OSV range evaluation", () => {
  const r = (type: string, ...events: Record<string, string>[]): OsvRange => ({ type, events });
  it("introduced 0, fixed, last_affected and limit, per ecosystem", () => {
    expect(inOsvRange("npm", "4.19.1", r("SEMVER", { introduced: "0" }, { fixed: "4.19.2" }))).toBe(true);
    expect(inOsvRange("npm", "4.19.2", r("SEMVER", { introduced: "0" }, { fixed: "4.19.2" }))).toBe(false);
    expect(inOsvRange("npm", "3.21.2", r("ECOSYSTEM", { introduced: "3.0.0" }, { last_affected: "3.21.2" }))).toBe(true);
    expect(inOsvRange("npm", "3.21.3", r("ECOSYSTEM", { introduced: "3.0.0" }, { last_affected: "3.21.2" }))).toBe(false);
    expect(inOsvRange("npm", "2.9.0", r("ECOSYSTEM", { introduced: "3.0.0" }, { last_affected: "3.21.2" }))).toBe(false);
    expect(inOsvRange("cargo", "0.2.25", r("SEMVER", { introduced: "0.2.0" }, { limit: "0.3.0" }))).toBe(true);
    expect(inOsvRange("cargo", "0.3.0", r("SEMVER", { introduced: "0.2.0" }, { limit: "0.3.0" }))).toBe(false);
    expect(inOsvRange("cargo", "1.5.0", r("SEMVER", { introduced: "0.2.0" }, { limit: "*" }))).toBe(true);
    // Several introduced/fixed pairs in one range.
    const multi = r("ECOSYSTEM", { introduced: "1.0.0" }, { fixed: "1.2.0" }, { introduced: "2.0.0" }, { fixed: "2.0.5" });
    expect(["0.9.0", "1.1.0", "1.5.0", "2.0.1", "2.0.5"].map((v) => inOsvRange("npm", v, multi))).toEqual([
      false,
      true,
      false,
      true,
      false,
    ]);
    // PEP 440: 3.1.4 < 3.1.5 and 2.10 > 2.9 (string order would say otherwise).
    expect(inOsvRange("pypi", "3.1.4", r("ECOSYSTEM", { introduced: "0" }, { fixed: "3.1.5" }))).toBe(true);
    expect(inOsvRange("pypi", "2.10", r("ECOSYSTEM", { introduced: "0" }, { fixed: "2.9" }))).toBe(false);
    expect(inOsvRange("pypi", "3.1.5rc1", r("ECOSYSTEM", { introduced: "0" }, { fixed: "3.1.5" }))).toBe(true);
    // Go: OSV SEMVER ranges carry no "v"; versions do.
    expect(inOsvRange("go", "v1.9.0", r("SEMVER", { introduced: "0" }, { fixed: "1.9.1" }))).toBe(true);
    expect(inOsvRange("go", "v1.10.0", r("SEMVER", { introduced: "0" }, { fixed: "1.9.1" }))).toBe(false);
    // GIT ranges are commits, never versions.
    expect(inOsvRange("npm", "1.0.0", r("GIT", { introduced: "0" }))).toBe(false);
    expect(osvAffects("pypi", "2.10", { ranges: [], versions: ["2.10", "2.11.3"] })).toBe(true);
    expect(osvAffects("pypi", "2.10.0", { ranges: [], versions: ["2.10"] })).toBe(true);
  });

  it("reads the snapshot's version column (*, ?, lists, ranges)", () => {
    expect(inSnapshotVersions("npm", "9.9.9", "*")).toBe(true);
    expect(inSnapshotVersions("npm", "4.4.2", "?")).toBeNull();
    expect(inSnapshotVersions("npm", "4.4.2", "4.4.2")).toBe(true);
    expect(inSnapshotVersions("npm", "4.4.1", "4.4.2")).toBe(false);
    expect(inSnapshotVersions("npm", "1.5.0", ">=1.0.0 <2.0.0")).toBe(true);
    expect(inSnapshotVersions("npm", "2.0.0", ">=1.0.0 <2.0.0")).toBe(false);
    expect(inSnapshotVersions("pypi", "0.0.1", "0.0.1,0.0.2")).toBe(true);
  });
});

describe("changelog parsing", () => {
  it("dates in every written form", () => {
    expect(parseDate("October 14th, 2025")).toBe("2025-10-14");
    expect(parseDate("(December 5, 2024)")).toBe("2024-12-05");
    expect(parseDate("5 December 2024")).toBe("2024-12-05");
    expect(parseDate("2024-02-30")).toBeNull();
  });

  it("Keep a Changelog: versions, dates, Removed and flagged Changed entries are breaking, Unreleased skipped", () => {
    const r = parseChangelog(kac);
    expect(r.map((x) => [x.version, x.date, x.breaking])).toEqual([
      ["2.0.0", "2024-01-15", 2],
      ["1.4.1", "2023-11-02", 0],
    ]);
    expect(r[0]!.changes.filter((c) => c.breaking).map((c) => c.text)).toEqual([
      "**Breaking:** `open()` now returns a promise",
      "The `legacy` option",
    ]);
  });

  it("Changesets: every Major Changes bullet breaks; no dates", () => {
    const r = parseChangelog(changesets);
    expect(r.map((x) => [x.version, x.date, x.breaking])).toEqual([
      ["3.0.0", null, 2],
      ["2.5.1", null, 0],
    ]);
  });

  it("project formats: Express History.md, tokio, FastAPI, pydantic, React, gin, Django", () => {
    expect(parseChangelog(expressHistory).map((x) => [x.version, x.date, x.breaking])).toEqual([
      ["5.0.0", "2024-09-10", 2],
      ["4.21.1", "2024-10-08", 0],
    ]);
    expect(parseChangelog(tokio).map((x) => [x.version, x.date, x.breaking])).toEqual([
      ["1.48.0", "2025-10-14", 0],
      ["0.3.0", "2020-10-15", 1],
    ]);
    expect(parseChangelog(fastapi).map((x) => [x.version, x.date, x.breaking])).toEqual([
      ["0.137.0", "2026-06-14", 1],
      ["0.136.1", "2026-06-01", 0],
    ]);
    expect(parseChangelog(pydantic).map((x) => [x.version, x.date, x.breaking])).toEqual([
      ["2.12.0", "2025-10-07", 0],
      ["2.0", "2023-06-30", 1],
    ]);
    expect(parseChangelog(reactChangelog).map((x) => [x.version, x.date, x.breaking])).toEqual([
      ["19.0.0", "2024-12-05", 1],
      ["18.3.1", "2024-04-26", 0],
    ]);
    expect(parseChangelog(gin).map((x) => [x.version, x.date])).toEqual([
      ["1.10.0", null],
      ["1.9.1", null],
    ]);
    const dj = parseChangelog(django);
    expect(dj[0]).toMatchObject({ version: "5.0", date: "2023-12-04", dateBasis: "release notes date line", breaking: 3 });
  });

  it("release notes: sections and Conventional Commit markers; tags to versions", () => {
    const n = parseReleaseNotes("## Breaking Changes\n- a\n## Features\n- feat(api)!: b\n- fix: c\n\nBREAKING CHANGE: d");
    expect(n.breaking).toBe(3);
    expect(parseReleaseNotes("no list here").breaking).toBeNull();
    expect(versionFromTag("v4.0.0")).toBe("4.0.0");
    expect(versionFromTag("react@19.0.0")).toBe("19.0.0");
    expect(versionFromTag("tokio-1.48.0")).toBe("1.48.0");
    expect(versionFromTag("nightly")).toBeNull();
  });
});

describe("typosquat classification", () => {
  it("typos, separators, homoglyphs, swapped words, noise, scopes, Go owners", () => {
    expect(classify("pypi", "reequests", "requests")).toBe("typo");
    expect(classify("pypi", "sphnx", "sphinx")).toBe("typo");
    expect(classify("pypi", "jinj2a", "jinja2")).toBe("typo");
    expect(classify("pypi", "pythondateutil", "python-dateutil")).toBe("separator");
    expect(classify("npm", "crossenv", "cross-env")).toBe("separator");
    expect(classify("pypi", "dateutil-python", "python-dateutil")).toBe("swapped-words");
    expect(classify("npm", "rеact", "react")).toBe("homoglyph");
    expect(classify("npm", "l0dash", "lodash")).toBe("homoglyph");
    expect(classify("npm", "lodash-js", "lodash")).toBe("noise");
    expect(classify("pypi", "python-requests", "requests")).toBe("noise");
    expect(classify("npm", "@typess/node", "@types/node")).toBe("scope");
    expect(classify("go", "github.com/boltdb-go/bolt", "github.com/boltdb/bolt")).toBe("owner");
    expect(classify("npm", "react", "react")).toBeNull();
    expect(classify("npm", "vue", "vuex")).toBeNull(); // too short for one-edit matches
    expect(classify("npm", "express", "expressive")).toBeNull();
    expect(skeleton("раураl")).toBe("paypal");
  });

  it("a candidate and its target always share a neighbour key", () => {
    const pairs: [string, string][] = [
      ["reequests", "requests"],
      ["jinj2a", "jinja2"],
      ["sphinx-theme-rtd", "sphinx-rtd-theme"],
      ["crossenv", "cross-env"],
      ["rеact", "react"],
      ["requestz", "requests"],
      ["lodash-js", "lodash"],
    ];
    for (const [c, t] of pairs) {
      const mine = new Set(neighbourKeys("npm", c, true));
      expect(
        neighbourKeys("npm", t).some((k) => mine.has(k)),
        `${c} ~ ${t}`,
      ).toBe(true);
    }
  });
});

describe("SSRF guard for repoUrl", () => {
  it("accepts public repository URLs on the three code hosts, canonicalised", () => {
    expect(checkRepoUrl("https://github.com/honojs/hono")).toMatchObject({ ok: true, url: "https://github.com/honojs/hono" });
    expect(checkRepoUrl("https://GitHub.com/honojs/hono.git/")).toMatchObject({ ok: true, url: "https://github.com/honojs/hono" });
    expect(checkRepoUrl("https://gitlab.com/group/sub/project")).toMatchObject({ ok: true });
    expect(checkRepoUrl("https://codeberg.org/forgejo/forgejo")).toMatchObject({ ok: true });
  });

  it.each([
    ["http://github.com/a/b", "https"],
    ["https://127.0.0.1/a/b", "IP address"],
    ["https://2130706433/a/b", "IP address"],
    ["https://0x7f000001/a/b", "IP address"],
    ["https://0177.0.0.1/a/b", "IP address"],
    ["https://[::1]/a/b", "IP address"],
    ["https://[::ffff:169.254.169.254]/a/b", "IP address"],
    ["https://169.254.169.254/latest/meta-data", "IP address"],
    ["https://localhost/a/b", "private name"],
    ["https://metadata.google.internal/a/b", "private name"],
    ["https://user:pass@github.com/a/b", "credentials"],
    ["https://github.com@evil.example/a/b", "credentials"],
    ["https://github.com:8443/a/b", "port"],
    ["https://github.com.evil.example/a/b", "host must be"],
    ["https://github.com./a/b", "host must be"],
    ["https://evil.example/a/b", "host must be"],
    ["https://github.com/a", "repository URL"],
    ["https://github.com/a/b?x=1", "query"],
    ["https://github.com/../../etc/passwd", "repository URL"],
    ["file:///etc/passwd", "https"],
    ["javascript:alert(1)", "https"],
  ])("refuses %s", (url, why) => {
    const r = checkRepoUrl(url);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.reason).toContain(why);
  });

  it("never follows a redirect off the allowed hosts", async () => {
    mock = mockFetch({
      "https://api.github.com/repos/a/b/releases": () =>
        new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } }),
      "https://api.github.com/repos/c/d/releases": () =>
        new Response(null, { status: 301, headers: { location: "https://evil.example/x" } }),
      "https://api.github.com/repos/e/f/releases": () =>
        new Response(null, { status: 307, headers: { location: "https://api.github.com/repos/e/g/releases" } }),
      "https://api.github.com/repos/e/g/releases": json([]),
    });
    await expect(githubReleases("a/b", ctx)).rejects.toThrow();
    await expect(githubReleases("c/d", ctx)).rejects.toThrow();
    expect(mock.calls.some((u) => u.includes("169.254") || u.includes("evil.example"))).toBe(false);
    await expect(githubReleases("e/f", ctx)).resolves.toEqual([]);
    await expect(safeFetch("https://github.com/x/y", {}, { allowHosts: ["api.github.com"] })).rejects.toBeInstanceOf(RedirectRefused);
  });
});

describe("source clients against recorded responses", () => {
  it("npm: found, security holder, deprecated, install scripts, mirror dates, 404, 410, unpublished, malformed, timeout, scoped paths", async () => {
    expect(npmPath("@types/react")).toBe("@types%2Freact");
    mock = mockFetch({
      "https://registry.npmjs.org/crossenv": json(crossenv),
      "https://registry.npmjs.org/crossenv-mirror": json(crossenvMirror),
      "https://registry.npmjs.org/react": json(reactMirror),
      "https://registry.npmjs.org/request": json(request),
      "https://registry.npmjs.org/lore-fixture-brand-new": json(newPackage),
      "https://registry.npmjs.org/lore-fixture-gone": json(unpublished),
      "https://registry.npmjs.org/lore-fixture-tags": json(tagsDoc),
      "https://registry.npmjs.org/lore-fixture-corgi": json({
        name: "lore-fixture-corgi",
        modified: "2026-11-01T00:00:00.000Z",
        "dist-tags": { latest: "1.0.0", next: "2.0.0-rc.1" },
        versions: { "1.0.0": {}, "2.0.0-rc.1": {} },
      }),
      "https://registry.npmjs.org/nope-404": json(npmNotFound, 404),
      "https://registry.npmjs.org/nope-410": json(npmNotFound, 410),
      "https://registry.npmjs.org/broken": text(malformed, 200),
      "https://registry.npmjs.org/bad-gateway": text(malformed, 502),
      "https://registry.npmjs.org/slow": hang,
    });
    const holder = await npmLookup("crossenv", ctx);
    expect(holder).toMatchObject({
      status: "found",
      facts: { securityHolder: true, latestVersion: "0.0.1-security", datesTrusted: true, firstPublished: "2017-08-01T16:48:38.000Z" },
    });
    const mirror = await npmLookup("crossenv-mirror", ctx);
    expect(mirror).toMatchObject({ status: "found", facts: { securityHolder: true, datesTrusted: false, firstPublished: null } });
    const react = await npmLookup("react", ctx, { full: false });
    expect(react).toMatchObject({ status: "found", facts: { datesTrusted: false, securityHolder: false } });
    expect(react.status === "found" && react.facts.versions).toContain("18.2.0");
    const req = await npmLookup("request", ctx);
    expect(req.status === "found" && req.facts.deprecated["2.88.2"]).toMatch(/deprecated/);
    expect(req.status === "found" && req.facts.packageDeprecated).toMatch(/deprecated/);
    const reactTags = react.status === "found" ? react.facts : null;
    // The mirror keeps only `latest`: its tags are marked incomplete.
    expect(reactTags).toMatchObject({ distTags: { latest: "19.3.1" }, distTagsComplete: false });
    expect(await npmLookup("lore-fixture-tags", ctx)).toMatchObject({
      status: "found",
      facts: {
        distTags: { latest: "2.1.0", next: "3.0.0-rc.2", canary: "3.0.0-canary.7", beta: "3.0.0-beta.1", "v2-next": "2.2.0" },
        distTagsComplete: true,
      },
    });
    // The registry's abbreviated document has no `time` but a top-level `modified`: its tags are whole.
    expect(await npmLookup("lore-fixture-corgi", ctx, { full: false })).toMatchObject({
      status: "found",
      facts: { datesTrusted: false, distTags: { next: "2.0.0-rc.1" }, distTagsComplete: true },
    });
    const fresh = await npmLookup("lore-fixture-brand-new", ctx);
    expect(fresh).toMatchObject({ status: "found", facts: { installScripts: ["1.0.1"], firstPublished: "2026-11-15T10:00:00.000Z" } });
    expect((await npmLookup("lore-fixture-gone", ctx)).status).toBe("missing");
    expect((await npmLookup("nope-404", ctx)).status).toBe("missing");
    expect((await npmLookup("nope-410", ctx)).status).toBe("missing");
    await expect(npmLookup("broken", ctx)).rejects.toMatchObject({ kind: "malformed" });
    await expect(npmLookup("bad-gateway", ctx)).rejects.toMatchObject({ kind: "status", status: 502 });
    await expect(npmLookup("slow", ctx)).rejects.toMatchObject({ kind: "timeout" });
    await expect(npmLookup("unrouted", ctx)).rejects.toMatchObject({ kind: "network" });
    expect(mock.spy.mock.calls.every(([, init]) => new Headers(init?.headers).get("user-agent")?.includes("ops@example.com"))).toBe(true);
  });

  it("PyPI: releases, yanked, archived, quarantined, 404, malformed, timeout", async () => {
    mock = mockFetch({
      "https://pypi.org/pypi/requests/json": json(requestsJson),
      "https://pypi.org/simple/requests/": json(requestsSimple),
      "https://pypi.org/pypi/lore-fixture-quarantined/json": json(pypiNotFound, 404),
      "https://pypi.org/simple/lore-fixture-quarantined/": json(quarantined),
      "https://pypi.org/pypi/lore-fixture-archived/json": json(archivedJson),
      "https://pypi.org/simple/lore-fixture-archived/": json(archivedSimple),
      "https://pypi.org/pypi/nope/json": json(pypiNotFound, 404),
      "https://pypi.org/simple/nope/": json(pypiNotFound, 404),
      "https://pypi.org/pypi/broken/json": text("<html>oops</html>"),
      "https://pypi.org/simple/broken/": json(requestsSimple),
      "https://pypi.org/pypi/slow/json": hang,
      "https://pypi.org/simple/slow/": hang,
    });
    const r = await pypiLookup("Requests", ctx);
    expect(r).toMatchObject({
      status: "found",
      facts: {
        latestVersion: "2.32.3",
        firstPublished: "2011-02-14T01:27:10.000Z",
        yanked: { "2.32.0": expect.stringContaining("CVE-2024-35195") },
      },
    });
    expect(await pypiLookup("lore_fixture.Quarantined", ctx)).toMatchObject({ status: "found", facts: { quarantined: true } });
    expect(await pypiLookup("lore-fixture-archived", ctx)).toMatchObject({
      status: "found",
      facts: { packageDeprecated: "project status: archived" },
    });
    expect((await pypiLookup("nope", ctx)).status).toBe("missing");
    await expect(pypiLookup("broken", ctx)).rejects.toMatchObject({ kind: "malformed" });
    await expect(pypiLookup("slow", ctx)).rejects.toBeInstanceOf(SourceError);
  });

  it("Go proxy: case encoding, list/latest/mod/info, deprecation and retractions, 404 and 410", async () => {
    expect(goEscape("github.com/Azure/azure-sdk-for-go")).toBe("github.com/!azure/azure-sdk-for-go");
    mock = mockFetch({
      "https://proxy.golang.org/github.com/gin-gonic/gin/@v/list": text(ginList),
      "https://proxy.golang.org/github.com/gin-gonic/gin/@latest": json(ginLatest),
      "https://proxy.golang.org/github.com/gin-gonic/gin/@v/v1.11.0.mod": text(ginMod),
      "https://proxy.golang.org/github.com/gin-gonic/gin/@v/v1.7.7.info": json(ginInfo),
      "https://proxy.golang.org/github.com/!lore-fixture/nothing/@v/list": text(goNotFound, 404),
      "https://proxy.golang.org/github.com/lore-fixture/removed/@v/list": text(goGone, 410),
    });
    const g = await goLookup("github.com/gin-gonic/gin", ctx);
    expect(g).toMatchObject({
      status: "found",
      facts: { latestVersion: "v1.11.0", firstPublished: "2021-11-24T13:55:49.000Z", packageDeprecated: null },
    });
    expect((await goLookup("github.com/Lore-fixture/nothing", ctx)).status).toBe("missing");
    expect((await goLookup("github.com/lore-fixture/removed", ctx)).status).toBe("missing");
    // Version queries go to `.info` with the same case encoding (a branch name may have capitals).
    mock.restore();
    mock = mockFetch({
      "https://proxy.golang.org/github.com/!lore-fixture/mod/@v/v0.0.0-20191109021931-daa7c04131f5.info": json({
        Version: "v0.0.0-20191109021931-daa7c04131f5",
        Time: "2019-11-09T02:19:31Z",
      }),
      "https://proxy.golang.org/github.com/!lore-fixture/mod/@v/!release-1.info": json({
        Version: "v1.2.4-0.20240101000000-abcdefabcdef",
        Time: "2024-01-01T00:00:00Z",
      }),
      "https://proxy.golang.org/github.com/!lore-fixture/mod/@v/nope.info": text("not found: unknown revision nope", 404),
    });
    expect(await registryProbe("github.com/Lore-fixture/mod", "v0.0.0-20191109021931-daa7c04131f5", ctx)).toEqual({
      version: "v0.0.0-20191109021931-daa7c04131f5",
    });
    expect(await registryProbe("github.com/Lore-fixture/mod", "Release-1", ctx)).toEqual({
      version: "v1.2.4-0.20240101000000-abcdefabcdef",
    });
    expect(await registryProbe("github.com/Lore-fixture/mod", "nope", ctx)).toBeNull();
    const mod = parseGoMod(deprecatedMod);
    expect(mod.deprecated).toBe("use github.com/lore-fixture/newthing instead.");
    expect(mod.retracted).toEqual(["v1.0.1", "[v1.1.0, v1.1.5]", "v0.9.0"]);
    expect(isRetracted("v1.1.3", "[v1.1.0, v1.1.5]")).toBe(true);
    expect(isRetracted("v1.1.6", "[v1.1.0, v1.1.5]")).toBe(false);
  });

  it("crates.io: found with yanked versions, 404, 403 crawler refusal, malformed", async () => {
    mock = mockFetch({
      "https://crates.io/api/v1/crates/serde": json(serde),
      "https://crates.io/api/v1/crates/rustdecimal": json(cratesNotFound, 404),
      "https://crates.io/api/v1/crates/refused": json(cratesForbidden, 403),
      "https://crates.io/api/v1/crates/odd": json({ hello: "world" }),
    });
    expect(await cratesLookup("serde", ctx)).toMatchObject({
      status: "found",
      facts: { latestVersion: "1.0.228", yanked: { "0.9.0": "broken build" }, firstPublished: "2014-12-05T20:20:39.487Z" },
    });
    expect((await cratesLookup("rustdecimal", ctx)).status).toBe("missing");
    await expect(cratesLookup("refused", ctx)).rejects.toMatchObject({ kind: "status", status: 403 });
    await expect(cratesLookup("odd", ctx)).rejects.toMatchObject({ kind: "malformed" });
  });

  it("OSV: paged queries, one record, 404, the modified-id export", async () => {
    mock = mockFetch({
      "https://api.osv.dev/v1/query": async (req) => {
        const body = (await req.json()) as { page_token?: string };
        return json(body.page_token === "page2" ? osvExpress2 : osvExpress)();
      },
      "https://api.osv.dev/v1/vulns/MAL-2026-99999": json(osvMal),
      "https://api.osv.dev/v1/vulns/NOPE": json({ code: 5, message: "Bug not found." }, 404),
      "https://osv-vulnerabilities.storage.googleapis.com/npm/modified_id.csv": text(osvCsv),
    });
    const all = await osvQueryPackage("npm", "express", ctx);
    expect(all.map((v) => v.id)).toEqual([
      "GHSA-rv95-896h-c2vc",
      "GHSA-fixture-last-affected",
      "GHSA-fixture-withdrawn",
      "GHSA-qw6h-vgh9-j6wx",
    ]);
    expect((await osvVuln("MAL-2026-99999", ctx))?.id).toBe("MAL-2026-99999");
    expect(await osvVuln("NOPE", ctx)).toBeNull();
    expect(await osvModifiedSince("npm", "2026-11-01T00:00:00Z", ctx)).toEqual([
      { id: "MAL-2026-99999", modified: "2026-11-20T10:00:00Z" },
    ]);
  });

  it("every client turns a hung connection into a timeout and a non-JSON body into 'malformed'", async () => {
    const cases: [string, () => Promise<unknown>][] = [
      ["https://proxy.golang.org/github.com/gin-gonic/gin/@latest", () => goLookup("github.com/gin-gonic/gin", ctx)],
      ["https://crates.io/api/v1/crates/serde", () => cratesLookup("serde", ctx)],
      ["https://api.osv.dev/v1/vulns/GHSA-x", () => osvVuln("GHSA-x", ctx)],
      ["https://api.osv.dev/v1/query", () => osvQueryPackage("npm", "express", ctx)],
      ["https://api.github.com/repos/honojs/hono/releases", () => githubReleases("honojs/hono", ctx)],
      ["https://models.dev/api.json", () => modelsDevCatalog(ctx)],
    ];
    for (const [url, run] of cases) {
      mock = mockFetch({ [url]: hang, "https://proxy.golang.org/github.com/gin-gonic/gin/@v/list": text(ginList) });
      await expect(run(), url).rejects.toMatchObject({ kind: "timeout" });
      mock.restore();
      mock = mockFetch({
        [url]: text("<html>rate limited</html>"),
        "https://proxy.golang.org/github.com/gin-gonic/gin/@v/list": text(ginList),
      });
      await expect(run(), url).rejects.toMatchObject({ kind: "malformed" });
      mock.restore();
      mock = null;
    }
  });

  it("GitHub releases and models.dev", async () => {
    mock = mockFetch({
      "https://api.github.com/repos/honojs/hono/releases": json(honoReleases),
      "https://models.dev/api.json": json(modelsDev),
    });
    const rel = await githubReleases("honojs/hono", ctx);
    expect(rel.map((r) => r.tag_name)).toContain("v4.0.0");
    expect(Object.keys(await modelsDevCatalog(ctx))).toEqual(["anthropic", "openai"]);
    mock.restore();
    mock = mockFetch({ "https://models.dev/api.json": json("[1,2]") });
    await expect(modelsDevCatalog(ctx)).rejects.toMatchObject({ kind: "malformed" });
  });
});
