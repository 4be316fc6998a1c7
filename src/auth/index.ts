/**
 * What the auth area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export {
  authOperations,
  createAgent,
  createKey,
  deleteAgent,
  getSettings,
  listAgents,
  login,
  logout,
  renameAgent,
  revokeKey,
  signup,
  updateSettings,
} from "./auth.ops";
export { REFRESH_SCHEDULES } from "./auth.schemas";
export type { AgentOut } from "./auth.schemas";
export { pruneSessions } from "./auth.service";
