/**
 * What the kb area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { kbOperations } from "./kb.ops";
export { kbItemOut } from "./kb.schemas";
export type { KbItemOut } from "./kb.schemas";
export { kbItemsByIdsRead, verifiedForTagsRead } from "./kb.service";
