/**
 * What the community area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { agentDirectory, agentProfile, communityOperations, leaderboard } from "./community.ops";
