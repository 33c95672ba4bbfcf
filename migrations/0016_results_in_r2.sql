CREATE TABLE `task_counts` (
	`owner_key_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`owner_key_id`, `kind`, `status`)
);
--> statement-breakpoint
DROP INDEX `jobs_owner_created_idx`;--> statement-breakpoint
ALTER TABLE `jobs` ADD `result_key` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `result_bytes` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `text_preview` text;--> statement-breakpoint
CREATE INDEX `jobs_owner_created_id_idx` ON `jobs` (`owner_key_id`,`created_at`,`task_id`);--> statement-breakpoint
-- The counters start from the rows already there (hand-written: drizzle-kit makes no data steps).
INSERT INTO `task_counts` (`owner_key_id`, `kind`, `status`, `n`) SELECT `owner_key_id`, `kind`, `status`, count(*) FROM `jobs` WHERE `owner_key_id` IS NOT NULL AND `deleted_at` IS NULL GROUP BY `owner_key_id`, `kind`, `status`;
