ALTER TABLE `notes` ADD `language` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `duration_sec` real;