CREATE TABLE `speakers` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_key_id` text NOT NULL,
	`name` text NOT NULL,
	`object_key` text NOT NULL,
	`content_type` text NOT NULL,
	`bytes` integer NOT NULL,
	`duration_sec` real,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`owner_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `speakers_owner_name_idx` ON `speakers` (`owner_key_id`,`name`);--> statement-breakpoint
CREATE INDEX `speakers_owner_created_idx` ON `speakers` (`owner_key_id`,`created_at`);