-- Stripe as the billing provider (src/billing/stripe.*). The owner's effective plan stays in
-- `owners` (plan, plan_status, plan_period_end); these tables hold Stripe's side of it.

-- One Stripe customer per owner, created once, and a mirror of the subscription the owner's plan
-- follows. `event_at` is Stripe's `created` (seconds) of the newest event applied: an event older
-- than it is stale and changes nothing. `apply_token` makes each apply a compare-and-set, so two
-- webhooks racing for one owner cannot leave the older state behind.
CREATE TABLE `stripe_customers` (
	`owner_id` text PRIMARY KEY NOT NULL REFERENCES `owners`(`id`),
	`customer_id` text NOT NULL,
	`subscription_id` text,
	`subscription_created` integer,
	`status` text,
	`price_id` text,
	`item_id` text,
	`cancel_at_period_end` integer DEFAULT 0 NOT NULL,
	`period_start` integer,
	`period_end` integer,
	`event_at` integer DEFAULT 0 NOT NULL,
	`apply_token` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `stripe_customers_customer_uq` ON `stripe_customers` (`customer_id`);
--> statement-breakpoint
-- Every verified webhook event, stored once: a replay (same id) is answered without doing anything.
CREATE TABLE `stripe_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`created` integer NOT NULL,
	`owner_id` text,
	`outcome` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `stripe_events_received_idx` ON `stripe_events` (`received_at`);
