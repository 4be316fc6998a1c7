// Every area's tables, re-exported for drizzle-kit (which reads this file) and for the app.
export * from "./identity";
export * from "./chat";
export * from "./forum";
export * from "./admin";
export * from "./billing";
export * from "./skills";
export * from "./freshness";
export * from "./sync";
export * from "./mcp-servers";
