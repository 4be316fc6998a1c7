// The package verdict's table of checks (src/packages/verdict.ts): each check on its own, on built
// inputs (the whole check, with storage and recorded registries, is test/packages/packages.test.ts), and the
// table's order against the order docs/behaviour-freshness.md documents.
import { describe, expect, it } from "vitest";
import doc from "../../docs/behaviour-freshness.md?raw";
import { parseVersionSpec, versionKey } from "../../src/ecosystems/versions";
import type { MaliciousRow } from "../../src/freshness";
import { type Entry, type Facts, type Known, nearKey } from "../../src/packages/facts";
import type { Judgement } from "../../src/packages/judge";
import { CHECKS, type Check, verdictFor, type VerdictInput } from "../../src/packages/verdict";

const AT = Date.parse("2031-03-10T09:00:00Z");
const DAY = 86_400_000;

function entry(name = "left-pad", version: string | undefined = "1.3.0"): Entry {
  const spec = version ? parseVersionSpec("npm", version) : null;
  return {
    i: 0,
    name,
    eco: "npm",
    key: name.toLowerCase(),
    rkey: name,
    version,
    spec,
    vkey: spec?.kind === "exact" ? versionKey("npm", spec.version) : null,
    want: 0,
    validName: true,
  };
}

const facts = (over: Partial<Facts> = {}): Facts => ({
  malicious: new Map(),
  hallucinated: new Map(),
  popular: new Map(),
  near: new Map(),
  cached: new Map(),
  advisories: new Map(),
  sources: [],
  ...over,
});

/** The neighbours offlineFacts finds for this entry's keys. */
const nearOf = (e: Entry, rows: { ecosystem: string; name: string; name_key: string; rank: number }[]): Facts["near"] =>
  new Map([[nearKey(e), rows]]);

type Found = Extract<Known, { status: "found" }>;
const found = (sum: Partial<Found["summary"]> = {}): Found => ({
  status: "found",
  summary: {
    name: "left-pad",
    latestVersion: "1.3.0",
    latestKey: "1.3.0",
    firstPublished: "2014-03-20T00:00:00.000Z",
    datesTrusted: true,
    packageDeprecated: null,
    securityHolder: false,
    quarantined: false,
    source: "https://registry.npmjs.org/left-pad",
    retracted: [],
    distTags: null,
    distTagsComplete: true,
    ...sum,
  },
  fetchedAt: AT,
  versionFound: true,
  flags: null,
  versions: null,
  allFlags: null,
});
const judged = (over: Partial<Judgement> = {}): Judgement => ({
  versionFound: true,
  judged: "1.3.0",
  resolved: null,
  flags: null,
  ...over,
});

/** A package every check passes: found, the version exists, OSV answered with nothing. */
const clean = (): VerdictInput => ({
  e: entry(),
  facts: facts(),
  known: found(),
  j: judged(),
  at: AT,
  osv: { status: "answered", ids: [] },
});

const check = (name: string): Check => {
  const c = CHECKS.find((x) => x.name === name);
  if (!c) throw new Error(`no check ${name}`);
  return c;
};
const codes = (input: VerdictInput, only?: string) => verdictFor(input, only ? [check(only)] : CHECKS).reasons.map((r) => r.code);

const mal = (over: Partial<MaliciousRow>): MaliciousRow => ({
  ecosystem: "npm",
  name_key: "left-pad",
  name: "left-pad",
  versions: "*",
  mal_id: "MAL-2031-1",
  modified: null,
  summary_kind: null,
  origin: "osv",
  ingested_at: AT,
  ...over,
});

describe("the verdict's checks", () => {
  it("a clean package: no check concludes anything, the verdict is ok, the advisory check is current", () => {
    const r = verdictFor(clean());
    expect(r).toMatchObject({ verdict: "ok", reasons: [], exists: true, latestVersion: "1.3.0" });
    expect(r.advisoryCheck).toMatchObject({ status: "current", version: "1.3.0" });
    expect(r.advisories).toBeUndefined();
  });

  /** Each check: an input it applies to, what it concludes there (alone), and that it says nothing of the clean package. */
  const cases: { name: string; input: () => VerdictInput; expect: string[]; result?: Record<string, unknown> }[] = [
    {
      name: "invalid-name",
      input: () => ({ ...clean(), e: { ...entry(), validName: false } }),
      expect: ["INVALID_NAME"],
      result: { exists: false },
    },
    {
      name: "hallucinated",
      input: () => ({
        ...clean(),
        facts: facts({
          hallucinated: new Map([
            ["npm\u0000left-pad", { ecosystem: "npm", name_key: "left-pad", suggestion: "leftpad2", note: "Invented.", source: "study" }],
          ]),
        }),
      }),
      expect: ["HALLUCINATED"],
      result: { suggestion: "leftpad2" },
    },
    {
      name: "malicious-reports",
      input: () => ({ ...clean(), facts: facts({ malicious: new Map([["npm\u0000left-pad", [mal({})]]]) }) }),
      expect: ["MALICIOUS"],
    },
    {
      name: "invalid-version",
      input: () => ({ ...clean(), e: entry("left-pad", "not a version!"), j: judged({ versionFound: false, judged: null }) }),
      expect: ["VERSION_NOT_FOUND"],
    },
    {
      name: "registry-missing",
      input: () => ({
        ...clean(),
        known: { status: "missing", source: "https://registry.npmjs.org", detail: "404", fetchedAt: AT },
        j: null,
      }),
      expect: ["NOT_FOUND"],
      result: { exists: false, source: "https://registry.npmjs.org" },
    },
    {
      name: "registry-unreachable",
      input: () => ({ ...clean(), known: { status: "error", reason: "unreachable" }, j: null }),
      expect: ["REGISTRY_UNREACHABLE"],
    },
    {
      name: "registry-found",
      input: clean,
      expect: [],
      result: { exists: true, source: "https://registry.npmjs.org/left-pad", latestVersion: "1.3.0" },
    },
    { name: "security-holder", input: () => ({ ...clean(), known: found({ securityHolder: true }) }), expect: ["SECURITY_HOLDER"] },
    { name: "quarantined", input: () => ({ ...clean(), known: found({ quarantined: true }) }), expect: ["QUARANTINED"] },
    { name: "version-asked", input: () => ({ ...clean(), j: judged({ versionFound: false }) }), expect: ["VERSION_NOT_FOUND"] },
    {
      name: "resolved-version",
      input: () => ({ ...clean(), j: judged({ resolved: "1.3.1" }) }),
      expect: [],
      result: { resolvedVersion: "1.3.1" },
    },
    { name: "deprecated", input: () => ({ ...clean(), j: judged({ flags: { d: "use something else" } }) }), expect: ["DEPRECATED"] },
    { name: "yanked", input: () => ({ ...clean(), j: judged({ flags: { y: "broken" } }) }), expect: ["YANKED"] },
    { name: "install-scripts", input: () => ({ ...clean(), j: judged({ flags: { i: 1 } }) }), expect: ["INSTALL_SCRIPTS"] },
    {
      name: "new-package",
      input: () => ({ ...clean(), known: found({ firstPublished: new Date(AT - 5 * DAY).toISOString() }) }),
      expect: ["NEW_PACKAGE"],
    },
    {
      name: "unverified-dates",
      input: () => ({ ...clean(), known: found({ datesTrusted: false }) }),
      expect: ["UNVERIFIED_DATES"],
      result: { unverified: ["firstPublished", "deprecated"] },
    },
    {
      name: "osv-malicious",
      input: () => ({ ...clean(), osv: { status: "answered", ids: ["MAL-2031-9"] } }),
      expect: ["MALICIOUS"],
      result: { advisories: ["MAL-2031-9"] },
    },
    {
      name: "vulnerable",
      input: () => ({ ...clean(), osv: { status: "answered", ids: ["GHSA-aaaa-bbbb-cccc"] } }),
      expect: ["VULNERABLE"],
      result: { advisories: ["GHSA-aaaa-bbbb-cccc"] },
    },
    {
      name: "advisory-check",
      input: () => ({ ...clean(), osv: { status: "failed", reason: "OSV unreachable" } }),
      expect: ["ADVISORIES_UNCHECKED"],
      result: {
        advisoryCheck: {
          status: "unavailable",
          version: "1.3.0",
          sources: [],
          note: "OSV unreachable; what Lore holds: no advisory data for npm",
        },
      },
    },
    {
      name: "typosquat",
      input: () => ({
        ...clean(),
        e: entry("leftpad"),
        facts: facts({ near: nearOf(entry("leftpad"), [{ ecosystem: "npm", name: "left-pad", name_key: "left-pad", rank: 7 }]) }),
      }),
      expect: ["TYPOSQUAT"],
      result: { imitates: "left-pad", suggestion: "left-pad" },
    },
  ];

  it("every check of the table has its case here", () => {
    expect(cases.map((c) => c.name).sort()).toEqual(CHECKS.map((c) => c.name).sort());
  });

  for (const c of cases) {
    it(`${c.name}: applies, concludes ${c.expect.join(", ") || "no reason"}, and nothing for a clean package`, () => {
      const input = c.input();
      const alone = verdictFor(input, [check(c.name)]);
      expect(alone.reasons.map((r) => r.code)).toEqual(c.expect);
      for (const r of alone.reasons) {
        const concluded = check(c.name).concludes.find((x) => x.code === r.code);
        expect(concluded, `${c.name} may conclude ${r.code}`).toBeDefined();
      }
      expect(alone.verdict).toBe(
        alone.reasons.some((r) => check(c.name).concludes.find((x) => x.code === r.code)?.verdict === "block")
          ? "block"
          : alone.reasons.length
            ? "warn"
            : "ok",
      );
      if (c.result) expect(alone).toMatchObject(c.result);
      // With the whole table the check's reasons are there too.
      for (const code of c.expect) expect(codes(input)).toContain(code);
      expect(codes(clean(), c.name)).toEqual([]);
    });
  }

  it("registry-unreachable says NOT_CHECKED when the lookup was left out for the budget", () => {
    expect(codes({ ...clean(), known: { status: "error", reason: "budget", notChecked: true }, j: null }, "registry-unreachable")).toEqual([
      "NOT_CHECKED",
    ]);
  });

  it("malicious-reports: a popular name whose reported versions may not be the one installed is a warning", () => {
    const input: VerdictInput = {
      ...clean(),
      e: entry("left-pad", undefined),
      j: null,
      known: null,
      osv: undefined,
      facts: facts({
        popular: new Map([["npm\u0000left-pad", [{ ecosystem: "npm", name: "left-pad", name_key: "left-pad", rank: 3 }]]]),
        malicious: new Map([["npm\u0000left-pad", [mal({ versions: "?" })]]]),
      }),
    };
    expect(codes(input, "malicious-reports")).toEqual(["MALICIOUS_VERSIONS"]);
  });

  it("a holder's or a quarantined project's missing version is not reported again", () => {
    expect(codes({ ...clean(), known: found({ securityHolder: true }), j: judged({ versionFound: false }) })).toEqual(["SECURITY_HOLDER"]);
  });
});

describe("the table's precedence", () => {
  it("runs in the order docs/behaviour-freshness.md documents", () => {
    const documented = [...doc.matchAll(/^\| (\d+) \| `([a-z-]+)` \|/gm)].map((m) => [Number(m[1]), m[2]] as const);
    expect(documented.map(([n]) => n)).toEqual(documented.map((_, i) => i + 1));
    expect(CHECKS.map((c) => c.name)).toEqual(documented.map(([, name]) => name));
  });

  it("documents what each check may conclude, with the verdict the codes table gives it", () => {
    const verdictOf = new Map([...doc.matchAll(/^\| `([A-Z_]+)` \| (block|warn) \|/gm)].map((m) => [m[1], m[2]]));
    for (const c of CHECKS) for (const x of c.concludes) expect(verdictOf.get(x.code), `${c.name}: ${x.code}`).toBe(x.verdict);
  });

  it("blocks come first, then warnings, each in the table's order; any block makes the verdict block", () => {
    const input: VerdictInput = {
      ...clean(),
      e: entry("leftpad"),
      known: found({ datesTrusted: false }),
      j: judged({ flags: { d: "old", i: 1 }, versionFound: false }),
      facts: facts({ near: nearOf(entry("leftpad"), [{ ecosystem: "npm", name: "left-pad", name_key: "left-pad", rank: 7 }]) }),
      osv: { status: "answered", ids: ["MAL-2031-9"] },
    };
    const r = verdictFor(input);
    expect(r.verdict).toBe("block");
    expect(r.reasons.map((x) => x.code)).toEqual(["VERSION_NOT_FOUND", "MALICIOUS", "DEPRECATED", "UNVERIFIED_DATES", "TYPOSQUAT"]);
    // The same table run backwards changes the order of the reasons, not which come first.
    const reversed = verdictFor(input, [...CHECKS].reverse());
    expect(reversed.reasons.map((x) => x.code)).toEqual(["MALICIOUS", "VERSION_NOT_FOUND", "TYPOSQUAT", "UNVERIFIED_DATES", "DEPRECATED"]);
  });
});
