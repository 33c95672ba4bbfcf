ALTER TABLE `notes` ADD `published_at` integer;--> statement-breakpoint
ALTER TABLE `notes` ADD `publisher_name` text;--> statement-breakpoint
CREATE INDEX `notes_published_idx` ON `notes` (`published_at`);