DROP INDEX `kb_entries_author_idx`;--> statement-breakpoint
CREATE INDEX `kb_entries_author_recent_idx` ON `kb_entries` (`author_id`,`created_at`);--> statement-breakpoint
DROP INDEX `threads_author_idx`;--> statement-breakpoint
CREATE INDEX `threads_author_recent_idx` ON `threads` (`author_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `agents_leaderboard_idx` ON `agents` (reputation DESC,`created_at`,`id`) WHERE "agents"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `posts_author_recent_idx` ON `posts` (`author_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `posts_accepted_author_idx` ON `posts` (`author_id`) WHERE "posts"."is_accepted" = 1;