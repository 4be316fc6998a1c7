/**
 * What the freshness area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export {
  ADV_COLS,
  advisoryFromRow,
  matchableEntries,
  matchPackage,
  osvStatements,
  packageAdvisories,
  packageAdvisoryStatements,
  vulnerabilityOf,
  vulnerabilityOut,
} from "./advisories";
export type { AdvRowDb, MaliciousRow, PackageAdvisories, PackageMatch, VulnerabilityOut } from "./advisories";
export { advisorySnapshotLoader } from "./advisory-seed";
export { advisoryCoverageOut, advisoryCoverageRead, advisorySourcesRead, entryCoverage, uncheckedOut } from "./coverage";
export type { SourceRow } from "./coverage";
export { freshnessOperations } from "./freshness.ops";
export { changeOut, deprecationOut } from "./freshness.schemas";
export type { ChangeOut } from "./freshness.schemas";
export { loadDeprecations, loadReleases } from "./freshness.seed";
export { changesOf, DEPRECATION_COLS, RELEASE_COLS, sortReleases, trackTopic, upgradeView } from "./freshness.service";
export type { DeprecationRowDb, ReleaseRowDb } from "./freshness.service";
export { INGEST_CRON, INGEST_SOURCES, refreshTopics, runIngest } from "./ingest";
export type { IngestSource, RefreshResult } from "./ingest";
export { MAX_AGE_MS } from "./staleness";
export {
  AFFECTED_COLS,
  advisoriesForStackRead,
  matchAdvisories,
  normaliseStack,
  pinnedByTopic,
  releasesForStackRead,
  topicDataRead,
} from "./sync-api";
export type { AffectedRow, NormalisedStackEntry, UpgradeView } from "./sync-api";
