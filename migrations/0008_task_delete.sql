ALTER TABLE `jobs` ADD `deleted_at` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `media_deleted_at` integer;--> statement-breakpoint
CREATE INDEX `jobs_deleted_idx` ON `jobs` (`deleted_at`);