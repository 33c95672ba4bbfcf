CREATE TABLE `idempotency_keys` (
	`owner_key_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`task_id` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`owner_key_id`, `key`),
	FOREIGN KEY (`owner_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `idempotency_created_idx` ON `idempotency_keys` (`created_at`);