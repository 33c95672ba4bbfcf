CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`task_id` text PRIMARY KEY NOT NULL,
	`owner_key_id` text,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`lane` text DEFAULT 'batch' NOT NULL,
	`source` text NOT NULL,
	`params` text DEFAULT '{}' NOT NULL,
	`result` text,
	`error` text,
	`progress` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `jobs_owner_created_idx` ON `jobs` (`owner_key_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_status_created_idx` ON `jobs` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `notes` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_key_id` text NOT NULL,
	`title` text NOT NULL,
	`content` text NOT NULL,
	`source_task_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `notes_owner_created_idx` ON `notes` (`owner_key_id`,`created_at`);