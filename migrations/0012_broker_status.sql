CREATE TABLE `broker_status` (
	`broker` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`error` text DEFAULT '' NOT NULL,
	`changed_at` integer NOT NULL
);
