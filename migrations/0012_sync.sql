-- Sync, the owner's stack, notifications and activity (issue 12).
--
-- `sync_changes` is a change log in commit order: triggers on the tables sync reports from
-- (releases, deprecations, advisories, malicious reports, knowledge entries, skills) add one row
-- per inserted or changed fact. Its AUTOINCREMENT `seq` is assigned inside the writing transaction
-- and D1 runs one writer at a time, so a reader that sees `seq` N has seen every change below N:
-- a sync cursor is "the highest seq I have seen", and nothing is skipped or delivered twice, even
-- when an ingest run writes many batches under one `ingested_at` timestamp.
--   kind         scope                      ref
--   release      topic                      version
--   deprecation  topic                      deprecation id
--   advisory     advisory id                advisory id
--   malicious    ecosystem/name_key         the advisory id sync shows (MAL-… or MAL-UNNUMBERED:eco:name)
--   kb           entry id                   new status
--   skill        skill slug                 new security status

CREATE TABLE `sync_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`scope` text NOT NULL,
	`ref` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sync_changes_scope_idx` ON `sync_changes` (`scope`,`seq`);
--> statement-breakpoint
CREATE INDEX `sync_changes_kind_idx` ON `sync_changes` (`kind`,`seq`);
--> statement-breakpoint
CREATE INDEX `sync_changes_at_idx` ON `sync_changes` (`at`);
--> statement-breakpoint
CREATE TRIGGER `sync_changes_release_ai` AFTER INSERT ON `fresh_releases` BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('release', new.topic, new.version, new.ingested_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_release_au` AFTER UPDATE ON `fresh_releases` BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('release', new.topic, new.version, new.ingested_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_deprecation_ai` AFTER INSERT ON `fresh_deprecations` BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('deprecation', new.topic, new.id, new.ingested_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_deprecation_au` AFTER UPDATE ON `fresh_deprecations` BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('deprecation', new.topic, new.id, new.ingested_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_advisory_ai` AFTER INSERT ON `advisories` BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('advisory', new.id, new.id, new.ingested_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_advisory_au` AFTER UPDATE ON `advisories` BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('advisory', new.id, new.id, new.ingested_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_malicious_ai` AFTER INSERT ON `malicious_packages` BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at)
  VALUES ('malicious', new.ecosystem || '/' || new.name_key, coalesce(new.mal_id, 'MAL-UNNUMBERED:' || new.ecosystem || ':' || new.name), new.ingested_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_malicious_au` AFTER UPDATE ON `malicious_packages` BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at)
  VALUES ('malicious', new.ecosystem || '/' || new.name_key, coalesce(new.mal_id, 'MAL-UNNUMBERED:' || new.ecosystem || ':' || new.name), new.ingested_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_kb_au` AFTER UPDATE OF `status`, `superseded_by` ON `kb_entries`
WHEN old.status IS NOT new.status OR old.superseded_by IS NOT new.superseded_by BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('kb', new.id, new.status, new.updated_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_skill_ai` AFTER INSERT ON `skills` BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('skill', new.slug, new.security_status, new.updated_at);
END;
--> statement-breakpoint
CREATE TRIGGER `sync_changes_skill_au` AFTER UPDATE OF `security_status`, `security_scan_hash` ON `skills`
WHEN old.security_status IS NOT new.security_status OR old.security_scan_hash IS NOT new.security_scan_hash BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('skill', new.slug, new.security_status, new.updated_at);
END;
--> statement-breakpoint
-- Per agent: the sync state. `topics` is every topic this agent ever reported (JSON array, newest
-- first, capped), so a topic never seen before forces a full refresh; `last_full_seq` is the change
-- log position of the last full refresh ("new since the last full refresh").
CREATE TABLE `sync_agents` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`topics` text DEFAULT '[]' NOT NULL,
	`stack_reported_at` integer,
	`skills_reported_at` integer,
	`last_sync_at` integer NOT NULL,
	`last_full_at` integer,
	`last_full_seq` integer,
	`syncs` integer DEFAULT 0 NOT NULL,
	`full_syncs` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sync_agents_owner_idx` ON `sync_agents` (`owner_id`);
--> statement-breakpoint
-- The last reported stack, one row per entry (a lockfile may hold two versions of one package).
-- `key` is the ecosystem's normalised name; `first_seen_at` survives re-reports of the same entry,
-- so "a vulnerable version reported since the last full refresh" is known.
CREATE TABLE `sync_stack_entries` (
	`agent_id` text NOT NULL,
	`ecosystem` text NOT NULL,
	`key` text NOT NULL,
	`version` text NOT NULL,
	`name` text NOT NULL,
	`topic` text NOT NULL,
	`pinned` text,
	`known` integer DEFAULT 0 NOT NULL,
	`position` integer NOT NULL,
	`first_seen_at` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `ecosystem`, `key`, `version`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `sync_stack_entries_pkg_idx` ON `sync_stack_entries` (`ecosystem`,`key`);
--> statement-breakpoint
CREATE TABLE `sync_installed_skills` (
	`agent_id` text NOT NULL,
	`name` text NOT NULL,
	`position` integer NOT NULL,
	`first_seen_at` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `name`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `sync_installed_skills_name_idx` ON `sync_installed_skills` (`name`);
--> statement-breakpoint
-- The owner's notifications: advisories affecting a stack, installed skills flagged, unread
-- mentions. `dedup` makes each fact one notification per owner (INSERT OR IGNORE).
CREATE TABLE `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`dedup` text NOT NULL,
	`kind` text NOT NULL,
	`agent_id` text,
	`subject` text NOT NULL,
	`title` text NOT NULL,
	`severity` text,
	`data` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`read_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_dedup_uq` ON `notifications` (`owner_id`,`dedup`);
--> statement-breakpoint
CREATE INDEX `notifications_owner_idx` ON `notifications` (`owner_id`,`created_at`);
--> statement-breakpoint
CREATE INDEX `notifications_unread_idx` ON `notifications` (`owner_id`,`read_at`);
--> statement-breakpoint
-- How far the owner's notifications have been matched against the change log.
CREATE TABLE `notification_state` (
	`owner_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`checked_at` integer NOT NULL
);
--> statement-breakpoint
-- What the owner's agents did (GET /v1/me/activity), written after each successful action.
CREATE TABLE `agent_activity` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`kind` text NOT NULL,
	`summary` text NOT NULL,
	`target_type` text,
	`target_id` text,
	`url` text,
	`via` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agent_activity_owner_idx` ON `agent_activity` (`owner_id`,`created_at`);
--> statement-breakpoint
CREATE INDEX `agent_activity_agent_idx` ON `agent_activity` (`agent_id`,`created_at`);
--> statement-breakpoint
CREATE INDEX `agent_activity_at_idx` ON `agent_activity` (`created_at`);
