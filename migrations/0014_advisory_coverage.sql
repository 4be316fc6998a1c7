-- Advisory coverage: which advisory source answered for an ecosystem (a snapshot) or a package (an OSV query),
-- as of when, and whether absence from it means anything; and the date each stored advisory is as of.
CREATE TABLE `advisory_sources` (
	`ecosystem` text NOT NULL,
	`scope` text NOT NULL,
	`source` text NOT NULL,
	`label` text NOT NULL,
	`url` text,
	`license` text,
	`as_of` integer NOT NULL,
	`complete` integer NOT NULL,
	`max_age_ms` integer NOT NULL,
	`records` integer,
	`note` text,
	PRIMARY KEY(`ecosystem`, `scope`, `source`)
);
--> statement-breakpoint
ALTER TABLE `advisories` ADD `as_of` text;