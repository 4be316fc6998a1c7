-- Freshness, models and the package check (issue 11): topics and their aliases, tracking requests,
-- dated releases, deprecations (FTS5), OSV advisories with their affected ranges, models (FTS5),
-- the offline package-check data (malicious snapshot, popular names and their typo-neighbour keys,
-- hallucinated names), the registry lookup cache and the per-source ingest status.
-- Every fact row carries `ingested_at` (ms, set by Lore when the row last changed) so that sync can
-- ask "what changed after T" with an index, whatever dates the upstream source claims.

CREATE TABLE `fresh_topics` (
	`topic` text PRIMARY KEY NOT NULL,
	`ecosystem` text NOT NULL,
	`display_name` text,
	`packages` text DEFAULT '[]' NOT NULL,
	`repo` text,
	`changelog` text,
	`tracked` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
-- `ecosystem` '' holds display-name aliases (folded: lowercase, no `.`, `-`, `_` or spaces).
CREATE TABLE `fresh_aliases` (
	`ecosystem` text NOT NULL,
	`alias` text NOT NULL,
	`topic` text NOT NULL,
	PRIMARY KEY(`ecosystem`, `alias`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `fresh_aliases_topic_idx` ON `fresh_aliases` (`topic`);
--> statement-breakpoint
CREATE TABLE `fresh_tracking_requests` (
	`topic` text NOT NULL,
	`repo_url` text NOT NULL,
	`requests` integer DEFAULT 1 NOT NULL,
	`first_owner_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`topic`, `repo_url`)
) WITHOUT ROWID;
--> statement-breakpoint
-- `date_rank`: how much the date is worth (3 publisher blog/curated, 2 changelog heading,
-- 1 GitHub release, 0 registry publish time); a stored fact is replaced only by a stronger source.
CREATE TABLE `fresh_releases` (
	`topic` text NOT NULL,
	`version` text NOT NULL,
	`ecosystem` text NOT NULL,
	`package` text NOT NULL,
	`date` text,
	`date_basis` text,
	`date_rank` integer DEFAULT 0 NOT NULL,
	`as_of_date` text NOT NULL,
	`title` text NOT NULL,
	`summary_md` text DEFAULT '' NOT NULL,
	`breaking` integer,
	`changes` text DEFAULT '[]' NOT NULL,
	`prerelease` integer DEFAULT 0 NOT NULL,
	`url` text,
	`source` text NOT NULL,
	`verification` text,
	`ingested_at` integer NOT NULL,
	PRIMARY KEY(`topic`, `version`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `fresh_releases_ingested_idx` ON `fresh_releases` (`ingested_at`);
--> statement-breakpoint
CREATE INDEX `fresh_releases_date_idx` ON `fresh_releases` (`date`);
--> statement-breakpoint
CREATE TABLE `fresh_deprecations` (
	`id` text PRIMARY KEY NOT NULL,
	`topic` text NOT NULL,
	`ecosystem` text NOT NULL,
	`package` text,
	`api` text NOT NULL,
	`status` text NOT NULL,
	`since` text,
	`removed_in` text,
	`replacement` text,
	`notes` text,
	`example_before` text,
	`example_after` text,
	`as_of_date` text NOT NULL,
	`source` text NOT NULL,
	`verification` text,
	`ingested_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fresh_deprecations_topic_idx` ON `fresh_deprecations` (`topic`);
--> statement-breakpoint
CREATE INDEX `fresh_deprecations_ingested_idx` ON `fresh_deprecations` (`ingested_at`);
--> statement-breakpoint
CREATE VIRTUAL TABLE `fresh_deprecations_fts` USING fts5(
  dep_id UNINDEXED,
  api,
  replacement,
  notes,
  topic,
  tokenize = 'porter unicode61 remove_diacritics 2',
  prefix = '2 3'
);
--> statement-breakpoint
CREATE TRIGGER `fresh_deprecations_fts_ai` AFTER INSERT ON `fresh_deprecations` BEGIN
  INSERT INTO fresh_deprecations_fts(rowid, dep_id, api, replacement, notes, topic)
  VALUES (new.rowid, new.id, new.api, coalesce(new.replacement, ''), coalesce(new.notes, ''), new.topic);
END;
--> statement-breakpoint
CREATE TRIGGER `fresh_deprecations_fts_au` AFTER UPDATE OF api, replacement, notes, topic ON `fresh_deprecations` BEGIN
  UPDATE fresh_deprecations_fts SET api = new.api, replacement = coalesce(new.replacement, ''),
    notes = coalesce(new.notes, ''), topic = new.topic
  WHERE rowid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `fresh_deprecations_fts_ad` AFTER DELETE ON `fresh_deprecations` BEGIN
  DELETE FROM fresh_deprecations_fts WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TABLE `advisories` (
	`id` text PRIMARY KEY NOT NULL,
	`aliases` text DEFAULT '[]' NOT NULL,
	`summary` text,
	`details` text,
	`severity` text,
	`cvss_vector` text,
	`published` text,
	`modified` text NOT NULL,
	`malicious` integer DEFAULT 0 NOT NULL,
	`url` text,
	`source` text NOT NULL,
	`ingested_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `advisories_published_idx` ON `advisories` (`published`);
--> statement-breakpoint
CREATE INDEX `advisories_ingested_idx` ON `advisories` (`ingested_at`);
--> statement-breakpoint
-- One row per advisory and package: `name` is the ecosystem's normalised key (PEP 503, crate
-- `-`/`_`, lowercase Go paths); `ranges`, `versions`, `fixed` are JSON.
CREATE TABLE `advisory_affected` (
	`advisory_id` text NOT NULL,
	`ecosystem` text NOT NULL,
	`name` text NOT NULL,
	`ranges` text DEFAULT '[]' NOT NULL,
	`versions` text DEFAULT '[]' NOT NULL,
	`fixed` text DEFAULT '[]' NOT NULL,
	PRIMARY KEY(`advisory_id`, `ecosystem`, `name`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `advisory_affected_pkg_idx` ON `advisory_affected` (`ecosystem`, `name`);
--> statement-breakpoint
CREATE TABLE `models` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`api_model_id` text NOT NULL,
	`name` text NOT NULL,
	`aliases` text DEFAULT '[]' NOT NULL,
	`release_date` text,
	`release_date_notes` text,
	`pricing` text,
	`context_window` integer,
	`max_input_tokens` integer,
	`max_output_tokens` integer,
	`lifecycle` text DEFAULT '{}' NOT NULL,
	`lifecycle_status` text,
	`retirement_date` text,
	`benchmarks` text DEFAULT '[]' NOT NULL,
	`sources` text DEFAULT '[]' NOT NULL,
	`source` text NOT NULL,
	`facts_as_of` text DEFAULT '{}' NOT NULL,
	`origin` text NOT NULL,
	`ingested_at` integer NOT NULL
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `models_fts` USING fts5(
  model_id UNINDEXED,
  name,
  ids,
  provider,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '1 2 3'
);
--> statement-breakpoint
CREATE TRIGGER `models_fts_ai` AFTER INSERT ON `models` BEGIN
  INSERT INTO models_fts(rowid, model_id, name, ids, provider)
  VALUES (new.rowid, new.id, new.name,
          new.id || ' ' || new.api_model_id || ' ' || (SELECT coalesce(group_concat(value, ' '), '') FROM json_each(new.aliases)),
          new.provider);
END;
--> statement-breakpoint
CREATE TRIGGER `models_fts_au` AFTER UPDATE OF name, aliases, api_model_id, provider ON `models` BEGIN
  UPDATE models_fts SET name = new.name,
    ids = new.id || ' ' || new.api_model_id || ' ' || (SELECT coalesce(group_concat(value, ' '), '') FROM json_each(new.aliases)),
    provider = new.provider
  WHERE rowid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `models_fts_ad` AFTER DELETE ON `models` BEGIN
  DELETE FROM models_fts WHERE rowid = old.rowid;
END;
--> statement-breakpoint
-- OpenSSF malicious-packages rows (the shipped snapshot and the OSV MAL- feed). `versions`: `*`
-- every version, `?` not known, else a comma list of versions and `>=a <b` / `<=b` ranges.
CREATE TABLE `malicious_packages` (
	`ecosystem` text NOT NULL,
	`name_key` text NOT NULL,
	`record` text NOT NULL,
	`name` text NOT NULL,
	`versions` text NOT NULL,
	`mal_id` text,
	`modified` text,
	`summary_kind` text,
	`origin` text NOT NULL,
	`ingested_at` integer NOT NULL,
	PRIMARY KEY(`ecosystem`, `name_key`, `record`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `malicious_packages_ingested_idx` ON `malicious_packages` (`ingested_at`);
--> statement-breakpoint
CREATE TABLE `popular_names` (
	`ecosystem` text NOT NULL,
	`rank` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	PRIMARY KEY(`ecosystem`, `rank`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `popular_names_key_idx` ON `popular_names` (`ecosystem`, `name_key`);
--> statement-breakpoint
-- Typo-neighbour keys of every popular name (symmetric-delete keys, separator-free and homoglyph
-- skeletons, sorted words, npm bare names): a candidate's own keys find every popular name one
-- edit or one trick away with a single indexed lookup (src/packages/typo.ts). Keys are stored as
-- 32-bit hashes (a third of the size of the text); a collision only adds a candidate that
-- classify() then rejects.
CREATE TABLE `popular_keys` (
	`ecosystem` text NOT NULL,
	`key_hash` integer NOT NULL,
	`rank` integer NOT NULL,
	PRIMARY KEY(`ecosystem`, `key_hash`, `rank`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `hallucinated_names` (
	`ecosystem` text NOT NULL,
	`name_key` text NOT NULL,
	`name` text NOT NULL,
	`suggestion` text NOT NULL,
	`note` text NOT NULL,
	`source` text NOT NULL,
	PRIMARY KEY(`ecosystem`, `name_key`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Registry answers per package (status found | missing) and when they go stale: `data` is a small
-- summary, `versions` every version's canonical key (JSON array) and `flags` the per-version facts
-- (deprecated, yanked, install scripts) of the versions that have any, so a warm check reads
-- only what it needs in SQL instead of parsing thousands of versions per package.
CREATE TABLE `registry_cache` (
	`ecosystem` text NOT NULL,
	`name_key` text NOT NULL,
	`status` text NOT NULL,
	`data` text NOT NULL,
	`versions` text DEFAULT '[]' NOT NULL,
	`flags` text DEFAULT '{}' NOT NULL,
	`fetched_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`ecosystem`, `name_key`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Per source and topic ('' = the source as a whole): the last run, the last success, the last error.
CREATE TABLE `ingest_status` (
	`source` text NOT NULL,
	`topic` text NOT NULL,
	`last_run_at` integer NOT NULL,
	`last_ok_at` integer,
	`last_error` text,
	`items` integer DEFAULT 0 NOT NULL,
	`cursor` text,
	PRIMARY KEY(`source`, `topic`)
) WITHOUT ROWID;
