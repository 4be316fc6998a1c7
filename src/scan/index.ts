/**
 * Lore's scanner primitives, shared by every content scanner (skills now, MCP tool descriptions
 * next). See docs/scanner.md. Domain rules live in their area; this folder stays domain-neutral.
 */
export * from "./types";
export * from "./text";
export * from "./unicode";
export * from "./decode";
export * from "./egress";
export * from "./files";
export * from "./prose";
export * from "./engine";
export * from "./patterns";
export * from "./vocab";
export * from "./triggers";
export * from "./context";
export * from "./intent";
export * from "./formats";
export * from "./runs";
export * from "./limits";
export * from "./joined";
