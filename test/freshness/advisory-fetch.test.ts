// The package check when OSV answers: every version is checked now, and advisory ids it lacks are
// fetched and stored. In its own file because it stores advisories (lodash's among them) that the
// coverage tests, which check what Lore knows without OSV, must not see.
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { mcpClient, newAgent, toolJson } from "../helpers";
import { json, mockFetch } from "../fixtures/mock";
import { setClock } from "../../src/core/clock";
import { loadCoverageData, registries, T0 } from "./coverage-fixtures";

let mock: ReturnType<typeof mockFetch> | null = null;
afterEach(() => {
  mock?.restore();
  mock = null;
  setClock();
});

beforeAll(loadCoverageData, 120_000);

describe("the package check names a version's advisories and what they were looked up in", () => {
  const stack = [
    { name: "lodash", version: "4.17.20" },
    { name: "express", version: "4.17.1" },
    { name: "requests", ecosystem: "pypi", version: "2.19.0" },
  ];
  const versions = { lodash: ["4.17.20", "4.17.21"], express: ["4.17.1", "4.21.2"], requests: ["2.19.0", "2.32.3"] };

  it("OSV answering: every version checked now; its ids join the snapshot's, fetched when Lore lacks them (MCP)", async () => {
    setClock(() => T0);
    const a = await newAgent();
    mock = mockFetch({
      ...registries(versions),
      "https://api.osv.dev/v1/querybatch": async (req) => {
        const { queries } = (await req.json()) as { queries: { package: { name: string } }[] };
        const ids: Record<string, string[]> = {
          lodash: ["GHSA-35jh-r3h4-6jhm"],
          requests: ["PYSEC-2018-28", "PYSEC-2023-74", "GHSA-9wx4-h78v-vm56"],
        };
        return json({
          results: queries.map((q) => ({ vulns: (ids[q.package.name] ?? []).map((id) => ({ id, modified: "2026-01-01T00:00:00Z" })) })),
        })();
      },
      "https://api.osv.dev/v1/vulns/GHSA-35jh-r3h4-6jhm": json({
        id: "GHSA-35jh-r3h4-6jhm",
        modified: "2026-01-01T00:00:00Z",
        summary: "Command Injection in lodash",
        aliases: ["CVE-2021-23337"],
        database_specific: { severity: "HIGH" },
        affected: [
          {
            package: { ecosystem: "npm", name: "lodash" },
            ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "4.17.21" }] }],
          },
        ],
      }),
      "https://api.osv.dev/v1/vulns/GHSA-9wx4-h78v-vm56": json({
        id: "GHSA-9wx4-h78v-vm56",
        modified: "2026-01-01T00:00:00Z",
        summary: "Requests Session object does not verify requests after making first request with verify=False",
        database_specific: { severity: "MODERATE" },
        affected: [
          {
            package: { ecosystem: "PyPI", name: "requests" },
            ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "2.32.0" }] }],
          },
        ],
      }),
    });
    const client = await mcpClient(a.key);
    const b = toolJson(await client.callTool({ name: "service_check_packages", arguments: { packages: stack, detail: "full" } }));
    await client.close();
    const [lodash, , requests] = b.results;
    expect(lodash).toMatchObject({
      verdict: "warn",
      advisoryCheck: { status: "current", note: null },
      knownAdvisories: [{ id: "GHSA-35jh-r3h4-6jhm", severity: "HIGH", fixedVersions: ["4.17.21"] }],
    });
    expect(lodash.reasons).toEqual([
      {
        code: "VULNERABLE",
        message: expect.stringMatching(/^4\.17\.20 is affected by GHSA-35jh-r3h4-6jhm \(HIGH; fixed in 4\.17\.21\): Command Injection/),
      },
    ]);
    expect(requests.knownAdvisories.map((k: any) => k.id).sort()).toEqual(["GHSA-9wx4-h78v-vm56", "PYSEC-2018-28", "PYSEC-2023-74"]);
    expect(requests.reasons.map((x: any) => x.code)).not.toContain("ADVISORIES_UNCHECKED");
    // The fetched record is stored: the next check (and sync) has it without asking.
    expect(await env.DB.prepare("SELECT id FROM advisories WHERE id = 'GHSA-35jh-r3h4-6jhm'").first()).toEqual({
      id: "GHSA-35jh-r3h4-6jhm",
    });
  });
});
