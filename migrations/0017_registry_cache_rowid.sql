-- registry_cache as a rowid table with its large columns last. WITHOUT ROWID kept every row in the
-- primary key's B-tree, so finding one name compared the key against whole rows, reading each
-- compared row's overflow pages (a popular npm package's version list is ~100 KB): a 50-name check
-- read megabytes to find 50 rows. Now the key lives in its own small index, and a read that needs
-- only the summary and the flags stops before `versions`. A cache: its rows are copied, not needed.
CREATE TABLE `registry_cache_new` (
	`ecosystem` text NOT NULL,
	`name_key` text NOT NULL,
	`status` text NOT NULL,
	`fetched_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`data` text NOT NULL,
	`flags` text DEFAULT '{}' NOT NULL,
	`versions` text DEFAULT '[]' NOT NULL,
	PRIMARY KEY(`ecosystem`, `name_key`)
);
--> statement-breakpoint
INSERT INTO `registry_cache_new` (`ecosystem`, `name_key`, `status`, `fetched_at`, `expires_at`, `data`, `flags`, `versions`)
  SELECT `ecosystem`, `name_key`, `status`, `fetched_at`, `expires_at`, `data`, `flags`, `versions` FROM `registry_cache`;
--> statement-breakpoint
DROP TABLE `registry_cache`;
--> statement-breakpoint
ALTER TABLE `registry_cache_new` RENAME TO `registry_cache`;
