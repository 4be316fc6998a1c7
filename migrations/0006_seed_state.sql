CREATE TABLE `seed_state` (
	`dataset` text PRIMARY KEY NOT NULL,
	`digest` text NOT NULL,
	`rows` integer NOT NULL,
	`loaded_at` integer NOT NULL
);
