// The shipped freshness data the freshness test files load (releases, deprecations, models) and
// the advisories and malicious rows the sync functions must see.
import { env } from "cloudflare:workers";
import { loadDeprecations, loadReleases } from "../../src/freshness/freshness.seed";
import { loadModels } from "../../src/models/models.seed";
import { loadMalicious } from "../../src/packages/packages.seed";
import { osvStatements } from "../../src/freshness/advisories";
import type { OsvRecord } from "../../src/sources/osv";
import releases from "../../data/freshness/releases.json?raw";
import deprecations from "../../data/freshness/deprecations.json?raw";
import models from "../../data/freshness/models.json?raw";
import osvExpress from "../fixtures/osv/express.query.json?raw";
import osvExpress2 from "../fixtures/osv/express.query.page2.json?raw";
import osvPypi from "../fixtures/osv/pypi-range.json?raw";
import osvGo from "../fixtures/osv/go-range.json?raw";
import osvCargo from "../fixtures/osv/cargo-limit.json?raw";

/** `ingestedAt`: when the advisories count as ingested (a file that moves the clock passes its own). */
export async function loadFreshnessData(ingestedAt = Date.parse("2026-11-01T00:00:00Z")): Promise<void> {
  await loadReleases(env, releases);
  await loadDeprecations(env, deprecations);
  await loadModels(env, models);
  // Two malicious rows the sync functions must see (debug 4.4.2 is in the shipped snapshot).
  await loadMalicious(
    env,
    "ecosystem\tname\tversions\tid\tmodified\tsummary_kind\torigin\nnpm\tdebug\t4.4.2\t\t\t\themachandsai@2025-12-24\n",
  );
  const records = [
    ...JSON.parse(osvExpress).vulns,
    ...JSON.parse(osvExpress2).vulns,
    JSON.parse(osvPypi),
    JSON.parse(osvGo),
    JSON.parse(osvCargo),
  ] as OsvRecord[];
  await env.DB.batch(await osvStatements(env.DB, records, ingestedAt));
}
