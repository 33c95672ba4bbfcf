CREATE TABLE `uploads` (
	`object_key` text PRIMARY KEY NOT NULL,
	`owner_key_id` text NOT NULL,
	`content_type` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`owner_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
