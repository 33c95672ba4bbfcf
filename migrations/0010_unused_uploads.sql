ALTER TABLE `uploads` ADD `in_use_at` integer;--> statement-breakpoint
CREATE INDEX `uploads_unchecked_created_idx` ON `uploads` (`in_use_at`,`created_at`);