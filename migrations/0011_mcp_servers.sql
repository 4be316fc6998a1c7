-- Reviewed MCP servers (issue 14): one row per registry name (its latest version), every version
-- seen with its server.json, the scan history (tool-list hash per scan, for rug pulls), the
-- registry ingest's cursor, and full-text search (FTS5, bm25) over name, title, description and
-- tool names. Third-party text (descriptions, tools) is stored as published and served as data.
CREATE TABLE `mcp_servers` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`title` text,
	`description` text NOT NULL,
	`version` text NOT NULL,
	`website_url` text,
	`repository` text,
	`remotes` text DEFAULT '[]' NOT NULL,
	`packages` text DEFAULT '[]' NOT NULL,
	`has_stdio` integer DEFAULT 0 NOT NULL,
	`has_http` integer DEFAULT 0 NOT NULL,
	`has_sse` integer DEFAULT 0 NOT NULL,
	`registry_status` text DEFAULT 'active' NOT NULL,
	`registry_status_message` text,
	`published_at` text,
	`registry_updated_at` text,
	`source` text NOT NULL,
	`license` text,
	`instructions` text,
	`tools` text DEFAULT '[]' NOT NULL,
	`tool_names` text DEFAULT '' NOT NULL,
	`tool_count` integer DEFAULT 0 NOT NULL,
	`tools_known` integer DEFAULT 0 NOT NULL,
	`tools_complete` integer,
	`tools_source` text,
	`tools_origin` text,
	`tools_note` text,
	`tools_hash` text,
	`tools_version` text,
	`tools_fetched_at` integer,
	`security_status` text NOT NULL,
	`security_findings` text DEFAULT '[]' NOT NULL,
	`change_findings` text DEFAULT '[]' NOT NULL,
	`ruleset_version` text NOT NULL,
	`scanned_at` integer NOT NULL,
	`status_changed_at` integer NOT NULL,
	`review_note` text,
	`reviewed_at` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_servers_slug_uq` ON `mcp_servers` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_servers_name_uq` ON `mcp_servers` (`name`);--> statement-breakpoint
CREATE INDEX `mcp_servers_listed_idx` ON `mcp_servers` (`registry_status`,`security_status`,`name`);--> statement-breakpoint
CREATE INDEX `mcp_servers_ruleset_idx` ON `mcp_servers` (`ruleset_version`);--> statement-breakpoint
CREATE INDEX `mcp_servers_tools_fetched_idx` ON `mcp_servers` (`tools_fetched_at`);--> statement-breakpoint
CREATE TABLE `mcp_server_versions` (
	`server_id` text NOT NULL,
	`version` text NOT NULL,
	`server_json` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`status_message` text,
	`published_at` text,
	`updated_at` text,
	`is_latest` integer DEFAULT 0 NOT NULL,
	`source` text NOT NULL,
	`fetched_at` integer NOT NULL,
	PRIMARY KEY(`server_id`, `version`),
	FOREIGN KEY (`server_id`) REFERENCES `mcp_servers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `mcp_scans` (
	`server_id` text NOT NULL,
	`seq` integer NOT NULL,
	`scanned_at` integer NOT NULL,
	`version` text NOT NULL,
	`tools_hash` text,
	`ruleset_version` text NOT NULL,
	`status` text NOT NULL,
	`findings_count` integer NOT NULL,
	`changes` text DEFAULT '[]' NOT NULL,
	`reason` text NOT NULL,
	PRIMARY KEY(`server_id`, `seq`),
	FOREIGN KEY (`server_id`) REFERENCES `mcp_servers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `mcp_registry_state` (
	`id` text PRIMARY KEY NOT NULL,
	`cursor` text,
	`updated_since` text,
	`run_started_at` text,
	`last_success_at` text,
	`last_error` text,
	`servers_seen` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
-- Full-text search: rowid = the server's rowid. Names split on their punctuation by the tokenizer
-- (io.github.github/github-mcp-server → io github github github mcp server), tool names likewise.
CREATE VIRTUAL TABLE `mcp_servers_fts` USING fts5(
  server_id UNINDEXED,
  name,
  title,
  description,
  tools,
  tokenize = 'porter unicode61 remove_diacritics 2',
  prefix = '2 3'
);
--> statement-breakpoint
CREATE TRIGGER `mcp_servers_fts_ai` AFTER INSERT ON `mcp_servers` BEGIN
  INSERT INTO mcp_servers_fts(rowid, server_id, name, title, description, tools)
  VALUES (new.rowid, new.id, new.name, coalesce(new.title, ''), new.description, new.tool_names);
END;
--> statement-breakpoint
CREATE TRIGGER `mcp_servers_fts_au` AFTER UPDATE OF name, title, description, tool_names ON `mcp_servers` BEGIN
  UPDATE mcp_servers_fts SET name = new.name, title = coalesce(new.title, ''), description = new.description, tools = new.tool_names
  WHERE rowid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `mcp_servers_fts_ad` AFTER DELETE ON `mcp_servers` BEGIN
  DELETE FROM mcp_servers_fts WHERE rowid = old.rowid;
END;
