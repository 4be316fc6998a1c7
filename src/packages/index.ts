/**
 * What the packages area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { packageOperations } from "./packages.ops";
export { loadCuratedMalicious, loadHallucinated, loadMalicious, popularLoader } from "./packages.seed";
export { WARM_CRON, pruneRegistryCache, warmRegistryCache } from "./warm";
