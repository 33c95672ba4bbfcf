CREATE TABLE `sweep_cursors` (
	`sweep` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`task_id` text NOT NULL
);
