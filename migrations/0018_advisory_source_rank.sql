-- One advisory from two sources (an offline snapshot line and the live OSV record, same id and
-- `modified`) replaced each other on every load: the live record now outranks the snapshot line
-- on a tie, and a tie of the same rank is decided by what is served (content_key), not by the
-- affected rows' spelling. Rows stored before carry no key: their next same-`modified` load of
-- the same rank rewrites them once. Snapshot lines are the rows whose source is not an OSV page.
ALTER TABLE `advisories` ADD `source_rank` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `advisories` ADD `content_key` text;--> statement-breakpoint
UPDATE `advisories` SET `source_rank` = 0 WHERE `source` NOT LIKE 'https://osv.dev/%';
