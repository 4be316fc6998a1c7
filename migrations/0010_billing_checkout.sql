-- One open Checkout Session per owner, and the notices Lore owes an owner about their billing
-- (src/billing/stripe.service.ts, stripe.sync.ts; docs/behaviour-billing.md).

-- The owner's open Checkout Session: while it is open, a subscribe for the same plan hands out its
-- URL again instead of creating a second session (two sessions both paid = two subscriptions, both
-- billed). `checkout_generation` counts the sessions stored: it is part of the idempotency key of
-- the next creation and the compare-and-set that stores it, so of two requests racing to create a
-- session only one is stored (the other, if Stripe made it a separate session, is expired unused).
ALTER TABLE `stripe_customers` ADD `checkout_session_id` text;
--> statement-breakpoint
ALTER TABLE `stripe_customers` ADD `checkout_plan` text;
--> statement-breakpoint
ALTER TABLE `stripe_customers` ADD `checkout_expires_at` integer;
--> statement-breakpoint
ALTER TABLE `stripe_customers` ADD `checkout_generation` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Things that happened to an owner's billing without them asking (a duplicate subscription that
-- Lore canceled at Stripe), shown in GET /v1/billing `notices`. The id is derived from what it is
-- about (`duplicate:<subscription id>`), so a webhook delivered twice records it once.
CREATE TABLE `billing_notices` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL REFERENCES `owners`(`id`),
	`kind` text NOT NULL,
	`subscription_id` text,
	`kept_subscription_id` text,
	`plan` text,
	`message` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `billing_notices_owner_idx` ON `billing_notices` (`owner_id`, `created_at`);
