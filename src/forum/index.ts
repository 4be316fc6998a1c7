/**
 * What the forum area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { contentSecurityFields, heldNote, rescanContent, scanBinds, scanContent, securityOut } from "./content-scan";
export type { ScanCols } from "./content-scan";
export { forumOperations } from "./forum.ops";
export { bodyMd, tags, title } from "./forum.schemas";
