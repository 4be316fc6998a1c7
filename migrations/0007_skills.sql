-- Skills: the catalog, every published version with its scan, tags and harnesses for filtering,
-- reviews, and full-text search (FTS5, bm25). File bytes live in R2 by SHA-256, never here.

-- The system owner that publishes Lore's own starter skills (data/skills). Its password hash is
-- not a PBKDF2 digest, so no password ever matches it: it cannot log in.
INSERT INTO `owners` (`id`, `email`, `password_hash`, `password_salt`, `password_iterations`, `plan`, `plan_status`, `refresh_schedule`, `created_at`)
VALUES ('own_lore_system', 'system@lore.invalid', '!', '00', 100000, 'FREE', 'NONE', 'DAILY', 0)
ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE TABLE `skills` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`owner_id` text NOT NULL,
	`category` text NOT NULL,
	`description` text NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`harnesses` text DEFAULT '[]' NOT NULL,
	`latest_version_id` text,
	`latest_version` text,
	`security_status` text DEFAULT 'flagged' NOT NULL,
	`security_scan_hash` text,
	`status_changed_at` integer NOT NULL,
	`rendered` integer DEFAULT 0 NOT NULL,
	`search_body` text DEFAULT '' NOT NULL,
	`installs` integer DEFAULT 0 NOT NULL,
	`review_count` integer DEFAULT 0 NOT NULL,
	`rating_sum` integer DEFAULT 0 NOT NULL,
	`success_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `skills_slug_uq` ON `skills` (`slug`);--> statement-breakpoint
CREATE INDEX `skills_owner_idx` ON `skills` (`owner_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `skills_status_installs_idx` ON `skills` (`security_status`,`installs`);--> statement-breakpoint
CREATE INDEX `skills_category_idx` ON `skills` (`category`,`security_status`);--> statement-breakpoint
CREATE INDEX `skills_status_changed_idx` ON `skills` (`status_changed_at`);--> statement-breakpoint
CREATE INDEX `skills_updated_idx` ON `skills` (`updated_at`);--> statement-breakpoint
CREATE TABLE `skill_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`skill_id` text NOT NULL,
	`seq` integer NOT NULL,
	`version` text NOT NULL,
	`status` text NOT NULL,
	`findings` text DEFAULT '[]' NOT NULL,
	`ruleset_version` text NOT NULL,
	`scan_hash` text NOT NULL,
	`artifact_type` text NOT NULL,
	`artifact_key` text NOT NULL,
	`artifact_size` integer NOT NULL,
	`files` text NOT NULL,
	`description` text NOT NULL,
	`front_matter` text DEFAULT '{}' NOT NULL,
	`capabilities` text NOT NULL,
	`capability_changes` text DEFAULT '[]' NOT NULL,
	`skill_md` text NOT NULL,
	`published_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`scanned_at` integer NOT NULL,
	FOREIGN KEY (`skill_id`) REFERENCES `skills`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `skill_versions_seq_uq` ON `skill_versions` (`skill_id`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `skill_versions_version_uq` ON `skill_versions` (`skill_id`,`version`);--> statement-breakpoint
CREATE INDEX `skill_versions_ruleset_idx` ON `skill_versions` (`ruleset_version`);--> statement-breakpoint
CREATE TABLE `skill_tags` (
	`tag` text NOT NULL,
	`skill_id` text NOT NULL,
	PRIMARY KEY(`tag`, `skill_id`)
);
--> statement-breakpoint
CREATE INDEX `skill_tags_skill_idx` ON `skill_tags` (`skill_id`);--> statement-breakpoint
CREATE TABLE `skill_harnesses` (
	`harness` text NOT NULL,
	`skill_id` text NOT NULL,
	PRIMARY KEY(`harness`, `skill_id`)
);
--> statement-breakpoint
CREATE INDEX `skill_harnesses_skill_idx` ON `skill_harnesses` (`skill_id`);--> statement-breakpoint
CREATE TABLE `skill_reviews` (
	`skill_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`rating` integer NOT NULL,
	`succeeded` integer NOT NULL,
	`notes` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`skill_id`, `owner_id`)
);
--> statement-breakpoint
CREATE INDEX `skill_reviews_skill_idx` ON `skill_reviews` (`skill_id`,`updated_at`);--> statement-breakpoint
-- Full-text search over the catalog. Same layout as forum_fts: rowid = the skill's rowid, joined on id.
CREATE VIRTUAL TABLE `skills_fts` USING fts5(
  skill_id UNINDEXED,
  name,
  description,
  tags,
  body,
  tokenize = 'porter unicode61 remove_diacritics 2',
  prefix = '2 3'
);
--> statement-breakpoint
CREATE TRIGGER `skills_fts_ai` AFTER INSERT ON `skills` BEGIN
  INSERT INTO skills_fts(rowid, skill_id, name, description, tags, body)
  VALUES (new.rowid, new.id, replace(new.slug, '-', ' '), new.description,
          (SELECT group_concat(value, ' ') FROM json_each(new.tags)), new.search_body);
END;
--> statement-breakpoint
CREATE TRIGGER `skills_fts_au` AFTER UPDATE OF slug, description, tags, search_body ON `skills` BEGIN
  UPDATE skills_fts SET name = replace(new.slug, '-', ' '), description = new.description,
    tags = (SELECT group_concat(value, ' ') FROM json_each(new.tags)), body = new.search_body
  WHERE rowid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `skills_fts_ad` AFTER DELETE ON `skills` BEGIN
  DELETE FROM skills_fts WHERE rowid = old.rowid;
END;
