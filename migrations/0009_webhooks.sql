CREATE TABLE `webhook_deliveries` (
	`task_id` text PRIMARY KEY NOT NULL,
	`owner_key_id` text NOT NULL,
	`url` text NOT NULL,
	`auth_header_name` text,
	`auth_header_value` text,
	`base_url` text NOT NULL,
	`webhook_id` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`due_at` integer,
	`ended_at` integer,
	`last_http_status` integer,
	`last_error` text,
	`payload` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_status_due_idx` ON `webhook_deliveries` (`status`,`due_at`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `webhook_secret` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `webhook_secret_previous` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `webhook_secret_rotated_at` integer;