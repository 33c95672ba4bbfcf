CREATE TABLE `webhook_hosts` (
	`host` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`open_until` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `claimed_at` integer;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `unrecorded_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `swept_at` integer;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_owner_status_idx` ON `webhook_deliveries` (`owner_key_id`,`status`);