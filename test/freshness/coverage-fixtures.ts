// What the advisory coverage tests share: the shipped releases and advisory snapshots loaded as
// npm start loads them, then a recorded OSV ingest in which express alone has advisories; and a
// registry stand-in answering for any npm or PyPI name.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { json, mockFetch } from "../fixtures/mock";
import { DAY_MS, setClock } from "../../src/core/clock";
import { loadReleases } from "../../src/freshness/freshness.seed";
import { runIngest } from "../../src/freshness/ingest";
import { loadAdvisorySnapshots } from "../data-helpers";
import releases from "../../data/freshness/releases.json?raw";
import osvExpress from "../fixtures/osv/express.query.json?raw";
import osvExpress2 from "../fixtures/osv/express.query.page2.json?raw";

/** A week after the newest snapshot (Go and RustSec, 2026-08-21) was taken: every snapshot is stale. */
export const T0 = Date.parse("2026-11-20T09:00:00Z");
export const HOUR = 3_600_000;

export async function loadCoverageData(): Promise<void> {
  setClock(() => T0 - 2 * DAY_MS);
  await loadReleases(env, releases);
  await loadAdvisorySnapshots(env);
  // The OSV ingest an hour ago: express has advisories, every other tracked package none.
  const mock = mockFetch({
    "https://api.osv.dev/v1/query": async (req) => {
      const body = (await req.json()) as { package: { name: string } };
      return json(body.package.name === "express" ? { vulns: [...JSON.parse(osvExpress).vulns, ...JSON.parse(osvExpress2).vulns] } : {})();
    },
  });
  try {
    const report = await runIngest(env, T0 - HOUR, { sources: ["osv"], maxTopics: 50 });
    expect(report.sources[0]).toMatchObject({ source: "osv", failed: 0 });
  } finally {
    mock.restore();
    setClock();
  }
}

/** A registry answer for any name: an npm packument or a PyPI project with the versions asked for. */
export const npmDoc = (name: string, versions = ["1.0.0", "1.1.0"]) => ({
  name,
  "dist-tags": { latest: versions.at(-1) },
  versions: Object.fromEntries(versions.map((v) => [v, { name, version: v }])),
  time: {
    created: "2016-01-01T00:00:00.000Z",
    modified: "2024-01-01T00:00:00.000Z",
    ...Object.fromEntries(versions.map((v) => [v, "2016-01-01T00:00:00.000Z"])),
  },
});
export const pypiDoc = (name: string, versions = ["1.0.0", "1.1.0"]) => ({
  info: { name, version: versions.at(-1) },
  releases: Object.fromEntries(versions.map((v) => [v, [{ upload_time_iso_8601: "2016-01-01T00:00:00.000Z", yanked: false }]])),
});
export const registries = (versions: Record<string, string[]> = {}) => ({
  "https://registry.npmjs.org/": (req: Request) => {
    const name = decodeURIComponent(new URL(req.url).pathname.slice(1));
    return json(npmDoc(name, versions[name]))();
  },
  "https://pypi.org/pypi/": (req: Request) =>
    json(pypiDoc(new URL(req.url).pathname.split("/")[2]!, versions[new URL(req.url).pathname.split("/")[2]!]))(),
  "https://pypi.org/simple/": (req: Request) => json({ name: new URL(req.url).pathname.split("/")[2], versions: [] })(),
});
