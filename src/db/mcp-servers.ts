import { sqliteTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";

/**
 * Reviewed MCP servers (migration 0012). One row per registry name, holding its latest version in
 * the registry's server.json vocabulary, the tools Lore read (from a reviewed source or the
 * server's own `tools/list`), the scan of those tools and Lore's review note. `changeFindings` are
 * the rug-pull findings of the last change to the tool list, kept while the tools stay as they
 * are. Search runs on `mcp_servers_fts` (FTS5), kept in sync by triggers.
 */
export const mcpServers = sqliteTable(
  "mcp_servers",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    /** Reverse-DNS registry name, `io.github.owner/server`. */
    name: text("name").notNull(),
    title: text("title"),
    description: text("description").notNull(),
    version: text("version").notNull(),
    websiteUrl: text("website_url"),
    /** JSON `{url, source, id?, subfolder?}` or null. */
    repository: text("repository"),
    /** JSON arrays in the registry's form. */
    remotes: text("remotes").notNull().default("[]"),
    packages: text("packages").notNull().default("[]"),
    hasStdio: integer("has_stdio", { mode: "boolean" }).notNull().default(false),
    hasHttp: integer("has_http", { mode: "boolean" }).notNull().default(false),
    hasSse: integer("has_sse", { mode: "boolean" }).notNull().default(false),
    /** active | deprecated | deleted (the registry's moderation; deleted rows are hidden). */
    registryStatus: text("registry_status").notNull().default("active"),
    registryStatusMessage: text("registry_status_message"),
    publishedAt: text("published_at"),
    registryUpdatedAt: text("registry_updated_at"),
    /** seed | registry: where the latest record came from. */
    source: text("source").notNull(),
    license: text("license"),
    /** The `initialize` instructions, when read. */
    instructions: text("instructions"),
    /** JSON array of tools `{name, title?, description?, inputSchema?, annotations?}`. */
    tools: text("tools").notNull().default("[]"),
    /** Tool names, space-separated, for search. */
    toolNames: text("tool_names").notNull().default(""),
    toolCount: integer("tool_count").notNull().default(0),
    /** Whether any tool list has been read at all. */
    toolsKnown: integer("tools_known", { mode: "boolean" }).notNull().default(false),
    /** True: the whole list; false: a subset; null: unknown. */
    toolsComplete: integer("tools_complete", { mode: "boolean" }),
    toolsSource: text("tools_source"),
    /** review (read from the source by Lore), live (the server's own tools/list), publisher (listed in the registry record). */
    toolsOrigin: text("tools_origin"),
    toolsNote: text("tools_note"),
    /** `sha256:<hex>` of the instructions and tools (scanner/hash.ts). */
    toolsHash: text("tools_hash"),
    /** The version the tools were read at. */
    toolsVersion: text("tools_version"),
    toolsFetchedAt: integer("tools_fetched_at"),
    securityStatus: text("security_status").notNull(),
    securityFindings: text("security_findings").notNull().default("[]"),
    changeFindings: text("change_findings").notNull().default("[]"),
    rulesetVersion: text("ruleset_version").notNull(),
    /** JSON array of the layers that ran on the current tools (src/scan/judge.ts `ScanLayer`). */
    scanLayers: text("scan_layers").notNull().default("[]"),
    scannedAt: integer("scanned_at").notNull(),
    statusChangedAt: integer("status_changed_at").notNull(),
    reviewNote: text("review_note"),
    reviewedAt: text("reviewed_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("mcp_servers_slug_uq").on(t.slug),
    uniqueIndex("mcp_servers_name_uq").on(t.name),
    index("mcp_servers_listed_idx").on(t.registryStatus, t.securityStatus, t.name),
    index("mcp_servers_ruleset_idx").on(t.rulesetVersion),
    index("mcp_servers_tools_fetched_idx").on(t.toolsFetchedAt),
  ],
);

/** Every version seen (seed or registry), with the server.json as published and the registry's metadata. */
export const mcpServerVersions = sqliteTable(
  "mcp_server_versions",
  {
    serverId: text("server_id")
      .notNull()
      .references(() => mcpServers.id),
    version: text("version").notNull(),
    serverJson: text("server_json").notNull(),
    status: text("status").notNull().default("active"),
    statusMessage: text("status_message"),
    publishedAt: text("published_at"),
    updatedAt: text("updated_at"),
    isLatest: integer("is_latest", { mode: "boolean" }).notNull().default(false),
    source: text("source").notNull(),
    fetchedAt: integer("fetched_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.version] })],
);

/** One row per scan of a server's tools: the hash of what was scanned, the status, what changed. */
export const mcpScans = sqliteTable(
  "mcp_scans",
  {
    serverId: text("server_id")
      .notNull()
      .references(() => mcpServers.id),
    seq: integer("seq").notNull(),
    scannedAt: integer("scanned_at").notNull(),
    version: text("version").notNull(),
    toolsHash: text("tools_hash"),
    rulesetVersion: text("ruleset_version").notNull(),
    status: text("status").notNull(),
    findingsCount: integer("findings_count").notNull(),
    /** JSON: the rug-pull findings of this scan. */
    changes: text("changes").notNull().default("[]"),
    /** seed | registry | tools | rescan */
    reason: text("reason").notNull(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.seq] })],
);

/** The official registry ingest's position: the cursor of an unfinished crawl, and `updated_since` for increments. */
export const mcpRegistryState = sqliteTable("mcp_registry_state", {
  id: text("id").primaryKey(),
  cursor: text("cursor"),
  updatedSince: text("updated_since"),
  runStartedAt: text("run_started_at"),
  lastSuccessAt: text("last_success_at"),
  lastError: text("last_error"),
  serversSeen: integer("servers_seen").notNull().default(0),
  updatedAt: integer("updated_at").notNull(),
});
