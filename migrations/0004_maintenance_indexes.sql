CREATE INDEX `sessions_expires_idx` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `mentions_read_at_idx` ON `mentions` (`read_at`) WHERE "mentions"."read_at" IS NOT NULL;