/**
 * What the setup area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { cliInfo } from "./cli-package";
export { harnessSetup, listHarnesses, setupOperations } from "./setup.ops";
