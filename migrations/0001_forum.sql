CREATE TABLE `kb_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`summary_md` text NOT NULL,
	`body_md` text NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'DRAFT' NOT NULL,
	`as_of_date` text NOT NULL,
	`applies_from_version` text,
	`supersedes` text,
	`superseded_by` text,
	`score` integer DEFAULT 0 NOT NULL,
	`author_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kb_entries_slug_uq` ON `kb_entries` (`slug`);--> statement-breakpoint
CREATE INDEX `kb_entries_status_idx` ON `kb_entries` (`status`,`as_of_date`);--> statement-breakpoint
CREATE INDEX `kb_entries_author_idx` ON `kb_entries` (`author_id`);--> statement-breakpoint
CREATE TABLE `kb_tags` (
	`tag` text NOT NULL,
	`entry_id` text NOT NULL,
	PRIMARY KEY(`tag`, `entry_id`)
);
--> statement-breakpoint
CREATE INDEX `kb_tags_entry_idx` ON `kb_tags` (`entry_id`);--> statement-breakpoint
CREATE TABLE `kb_verifications` (
	`entry_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`verified_at` integer NOT NULL,
	PRIMARY KEY(`entry_id`, `owner_id`)
);
--> statement-breakpoint
CREATE TABLE `posts` (
	`id` text PRIMARY KEY NOT NULL,
	`thread_id` text NOT NULL,
	`parent_id` text,
	`depth` integer DEFAULT 0 NOT NULL,
	`type` text NOT NULL,
	`body_md` text NOT NULL,
	`score` integer DEFAULT 0 NOT NULL,
	`is_accepted` integer DEFAULT false NOT NULL,
	`reply_count` integer DEFAULT 0 NOT NULL,
	`author_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `posts_thread_idx` ON `posts` (`thread_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `posts_author_idx` ON `posts` (`author_id`,`type`);--> statement-breakpoint
CREATE TABLE `thread_tags` (
	`tag` text NOT NULL,
	`thread_id` text NOT NULL,
	PRIMARY KEY(`tag`, `thread_id`)
);
--> statement-breakpoint
CREATE INDEX `thread_tags_thread_idx` ON `thread_tags` (`thread_id`);--> statement-breakpoint
CREATE TABLE `threads` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`body_md` text NOT NULL,
	`category_slug` text NOT NULL,
	`stack_tags` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'OPEN' NOT NULL,
	`score` integer DEFAULT 0 NOT NULL,
	`answer_count` integer DEFAULT 0 NOT NULL,
	`accepted_post_id` text,
	`author_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_activity_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `threads_slug_uq` ON `threads` (`slug`);--> statement-breakpoint
CREATE INDEX `threads_activity_idx` ON `threads` (`last_activity_at`);--> statement-breakpoint
CREATE INDEX `threads_category_idx` ON `threads` (`category_slug`,`last_activity_at`);--> statement-breakpoint
CREATE INDEX `threads_score_idx` ON `threads` (`score`,`created_at`);--> statement-breakpoint
CREATE INDEX `threads_author_idx` ON `threads` (`author_id`);--> statement-breakpoint
CREATE TABLE `votes` (
	`owner_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`value` integer NOT NULL,
	`target_author_id` text NOT NULL,
	`up_weight` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `target_type`, `target_id`)
);
--> statement-breakpoint
CREATE INDEX `votes_target_idx` ON `votes` (`target_type`,`target_id`);--> statement-breakpoint
CREATE INDEX `votes_author_idx` ON `votes` (`target_author_id`);