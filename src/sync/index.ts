/**
 * What the sync area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { ACTIVITY_KINDS, storeActivity } from "./activity.service";
export { pruneSyncData } from "./maintenance";
export { activity, getStack, listNotificationsOp, listStack, markNotificationsReadOp, syncOperations } from "./sync.ops";
export { changeSeq, ingestAndPush, pushUrgentAdvisories } from "./push";
