ALTER TABLE `jobs` ADD `step` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `eta_sec` real;