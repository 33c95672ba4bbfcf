import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import {
  LANES,
  TASK_KINDS,
  TASK_STATUSES,
  type TaskParams,
  type TaskResult,
  type TaskSource,
} from "../protocol/task.ts";
import { TASK_FAILURE_CODES } from "../protocol/task-failure.ts";

/** API keys: only the SHA-256 of a key is stored; `prefix` lets a person recognise a key in listings. */
export const KEY_KINDS = ["api", "service", "user"] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  prefix: text("prefix").notNull(),
  createdAt: integer("created_at").notNull(),
  revokedAt: integer("revoked_at"),
  /**
   * Every owner of rows has a row here. `api`: a client's key, the owner of what it makes. `service`: a
   * trusted backend's key (`vxs_…`), which may also act for one of its users on the content and notes
   * routes (X-Voxedge-User). `user`: a user (a JWT's subject, or the user a service key acted for),
   * id `user:<user id>`, with no secret at all: its key_hash is its id, which no SHA-256 hex digest of
   * a credential can equal, so nothing authenticates as it.
   */
  kind: text("kind", { enum: KEY_KINDS }).notNull().default("api"),
  /**
   * The key's webhook signing secret (`whsec_<base64>`, Standard Webhooks): made on first use or by
   * `npm run keys -- webhook-secret ID`; the platform must hold it to sign (HMAC is symmetric).
   */
  webhookSecret: text("webhook_secret"),
  /** The secret before the last rotation; deliveries are signed with both for a day after it. */
  webhookSecretPrevious: text("webhook_secret_previous"),
  webhookSecretRotatedAt: integer("webhook_secret_rotated_at"),
});

/**
 * Inference node identities: each node presents its own token (`vxn_…`), of which only the SHA-256 is
 * stored; revoking the row shuts that one node out. `prefix` lets a person recognise a token in listings.
 */
export const nodeIdentities = sqliteTable("nodes", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  prefix: text("prefix").notNull(),
  createdAt: integer("created_at").notNull(),
  revokedAt: integer("revoked_at"),
});

/**
 * The permanent record of every task (the "history store"); timestamps are Unix milliseconds. Its keys
 * are the wire names of protocol/task.ts TaskRecord, so a row is a record without any mapping.
 */
export const jobs = sqliteTable(
  "jobs",
  {
    task_id: text("task_id").primaryKey(),
    owner_key_id: text("owner_key_id").references(() => apiKeys.id),
    kind: text("kind", { enum: TASK_KINDS }).notNull(),
    status: text("status", { enum: TASK_STATUSES }).notNull(),
    lane: text("lane", { enum: LANES }).notNull().default("batch"),
    source: text("source", { mode: "json" }).$type<TaskSource>().notNull(),
    params: text("params", { mode: "json" }).$type<TaskParams>().notNull().default(sql`'{}'`),
    /** A result stored before results moved to R2; new rows keep it null and point at `result_key`. */
    result: text("result", { mode: "json" }).$type<TaskResult>(),
    /** The R2 object holding the result (platform/result-store.ts); written before this points at it. */
    result_key: text("result_key"),
    result_bytes: integer("result_bytes"),
    /** The first characters of a transcript's text, for people reading the table. */
    text_preview: text("text_preview"),
    error: text("error"),
    error_code: text("error_code", { enum: TASK_FAILURE_CODES }),
    progress: integer("progress").notNull().default(0),
    /** What a running task is doing now (content renders report it), and its estimate of the rest. */
    step: text("step"),
    eta_sec: real("eta_sec"),
    created_at: integer("created_at").notNull(),
    updated_at: integer("updated_at").notNull(),
    /**
     * When its owner deleted the task (DELETE): from then on it is unknown to every reader and never
     * changes status; the row itself goes once its media and outputs are gone (worker/tasks/delete.ts).
     */
    deleted_at: integer("deleted_at"),
    /** When the retention sweep deleted the task's media and outputs (RETENTION_DAYS); the row stays. */
    media_deleted_at: integer("media_deleted_at"),
  },
  (table) => [
    index("jobs_deleted_idx").on(table.deleted_at),
    // The history list: one key's rows newest first, ties by id (the cursor's order; read backwards).
    index("jobs_owner_created_id_idx").on(table.owner_key_id, table.created_at, table.task_id),
    index("jobs_status_created_idx").on(table.status, table.created_at),
  ],
);

/**
 * How many live (not deleted) tasks each key has per kind and status: history's `total` without
 * COUNT(*) over the key's rows. Changed in the same D1 batch as the row it counts (created, moved to
 * another status, withdrawn, deleted).
 */
export const taskCounts = sqliteTable(
  "task_counts",
  {
    owner_key_id: text("owner_key_id").notNull(),
    kind: text("kind", { enum: TASK_KINDS }).notNull(),
    status: text("status", { enum: TASK_STATUSES }).notNull(),
    n: integer("n").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.owner_key_id, table.kind, table.status] })],
);

/**
 * Notes feed content generation (short videos, quizzes, slides): typed or pasted text, or a finished
 * transcription made into a note. Keys are the wire names; timestamps are Unix milliseconds.
 */
export const notes = sqliteTable(
  "notes",
  {
    id: text("id").primaryKey(),
    owner_key_id: text("owner_key_id")
      .notNull()
      .references(() => apiKeys.id),
    title: text("title").notNull(),
    content: text("content").notNull(),
    /** Short code (`vi`, `en`, ...), given or detected; null when the text says too little. */
    language: text("language"),
    /** Seconds of audio behind a note made from a transcription. */
    duration_sec: real("duration_sec"),
    source_task_id: text("source_task_id"),
    created_at: integer("created_at").notNull(),
    updated_at: integer("updated_at").notNull(),
    /**
     * When its owner published it as a community note (any caller may then make content from it with
     * `community=true`); null while private. Unix ms.
     */
    published_at: integer("published_at"),
    /** The name the publisher chose to show beside it (never their key or user id). */
    publisher_name: text("publisher_name"),
  },
  (table) => [
    index("notes_owner_created_idx").on(table.owner_key_id, table.created_at),
    index("notes_published_idx").on(table.published_at),
  ],
);

/**
 * Who may enqueue an uploaded object: written when an upload is presigned (or streamed through
 * /transcribe/upload), read by POST /transcribe/object and by the signed PUT route, which stores an
 * object once. Timestamps are Unix milliseconds. An upload no task was made from goes after
 * UPLOAD_UNUSED_TTL_SEC (worker/ingest/unused-uploads.ts); one a task uses goes with that task's media.
 */
export const uploads = sqliteTable(
  "uploads",
  {
    objectKey: text("object_key").primaryKey(),
    ownerKeyId: text("owner_key_id")
      .notNull()
      .references(() => apiKeys.id),
    contentType: text("content_type").notNull(),
    createdAt: integer("created_at").notNull(),
    /** When the Worker's signed PUT route took the bytes (null until then): its upload_url works once. */
    putAt: integer("put_at"),
    /**
     * When the unused-upload sweep found a task made from it: the sweep never looks at it again (so
     * uploads in use cannot fill its every batch).
     */
    inUseAt: integer("in_use_at"),
  },
  (table) => [index("uploads_unchecked_created_idx").on(table.inUseAt, table.createdAt)],
);

/**
 * Idempotency-Key claims of task-creating requests: the first request with a key creates the task,
 * a retry with the same key and request gets that task back. Kept 24 hours (the cron sweep prunes).
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    owner_key_id: text("owner_key_id")
      .notNull()
      .references(() => apiKeys.id),
    key: text("key").notNull(),
    /** SHA-256 of what the request asked for; a different request under the same key is refused. */
    fingerprint: text("fingerprint").notNull(),
    /** Null while the first request is still creating its task. */
    task_id: text("task_id"),
    created_at: integer("created_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.owner_key_id, table.key] }),
    index("idempotency_created_idx").on(table.created_at),
  ],
);

export const WEBHOOK_STATUSES = ["pending", "delivered", "failed"] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/**
 * One webhook per task that asked for one (worker/webhooks/): written with the task, made due when the
 * task ends, then attempted through the Queue until delivered or given up. Everything an attempt needs
 * is here, so a restart between attempts loses nothing (the cron sweep re-sends overdue ones).
 * Timestamps are Unix milliseconds.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    task_id: text("task_id").primaryKey(),
    owner_key_id: text("owner_key_id").notNull(),
    url: text("url").notNull(),
    /** Sent as given with every attempt; a credential, never shown in views or logs. */
    auth_header_name: text("auth_header_name"),
    auth_header_value: text("auth_header_value"),
    /** Origin of the creating request, for the links a payload carries when PUBLIC_BASE_URL is unset. */
    base_url: text("base_url").notNull(),
    /** The `webhook-id` header: the same on every attempt, so a receiver dedupes. */
    webhook_id: text("webhook_id").notNull(),
    status: text("status", { enum: WEBHOOK_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** When the next attempt may start; null until the task ends. */
    due_at: integer("due_at"),
    /** When the task ended: retries stop 24 h after it. */
    ended_at: integer("ended_at"),
    last_http_status: integer("last_http_status"),
    last_error: text("last_error"),
    /** The exact JSON body, fixed at the first attempt so every retry sends the same bytes. */
    payload: text("payload"),
    /** When the attempt in flight was claimed; cleared when its outcome is written. */
    claimed_at: integer("claimed_at"),
    /**
     * Claims whose outcome was never written (a failed write after the POST, a crash mid-attempt):
     * found set by the next claim. At WEBHOOK_MAX_UNRECORDED the delivery is failed, so a payload a
     * receiver already took (2xx) is not POSTed again without end.
     */
    unrecorded_attempts: integer("unrecorded_attempts").notNull().default(0),
    /**
     * When the cron sweep last sent this delivery a message (its own was lost or late); it sends no
     * other for WEBHOOK_RESEND_AFTER_MS. Cleared by every recorded attempt, which sends its own.
     */
    swept_at: integer("swept_at"),
    created_at: integer("created_at").notNull(),
  },
  (table) => [
    index("webhook_deliveries_status_due_idx").on(table.status, table.due_at),
    // The per-key cap on pending deliveries counts by owner.
    index("webhook_deliveries_owner_status_idx").on(table.owner_key_id, table.status),
  ],
);

/**
 * The circuit breaker of webhook target hosts (worker/webhooks/breaker.ts): a row per `host:port`
 * whose last attempts failed (none for a healthy host; a success deletes it). In D1 so every consumer
 * invocation, isolate and colo agrees, and it survives deploys.
 */
export const webhookHosts = sqliteTable("webhook_hosts", {
  host: text("host").primaryKey(),
  /** Failures in a row (no answer, 5xx, 429). */
  failures: integer("failures").notNull(),
  /** While in the future, attempts to the host are deferred without connecting; null while closed. */
  open_until: integer("open_until"),
  updated_at: integer("updated_at").notNull(),
});

export const BROKER_STATES = ["ready", "reconnecting"] as const;
export type BrokerState = (typeof BROKER_STATES)[number];

/**
 * The job broker's last publish outcome as /health reports it (`job_queue`, `job_queue_error`), one
 * row per broker (`task_queue`: the TASK_QUEUE Queue): written when a send fails, and back to ready by
 * the next send that succeeds. In D1 so every isolate sees what another one met. `error` is already
 * cleaned for a public endpoint (worker/tasks/broker-error-text.ts). Unix milliseconds.
 */
export const brokerStatus = sqliteTable("broker_status", {
  broker: text("broker").primaryKey(),
  state: text("state", { enum: BROKER_STATES }).notNull(),
  error: text("error").notNull().default(""),
  changed_at: integer("changed_at").notNull(),
});

/**
 * Where a cron sweep that pages through a table stopped (`orphans`: the old queued tasks the Dispatcher
 * is asked about), so each run goes on from there and every row is reached however long the backlog.
 * `created_at` and `task_id` are the last row seen; no row: start from the oldest.
 */
export const sweepCursors = sqliteTable("sweep_cursors", {
  sweep: text("sweep").primaryKey(),
  created_at: integer("created_at").notNull(),
  task_id: text("task_id").notNull(),
});

/**
 * Enrolled speakers (`/v1/speakers`): a named voice of one owner (an API key, or a user), whose
 * reference clip is the R2 object `object_key` (`speakers/<owner>/<id>`). Async transcriptions name
 * diarized speakers after them (`known_speakers`); the voice profile is computed from the clip when a
 * job uses it, so the row and the clip are all there is: deleting both leaves nothing. Names are unique
 * per owner. Timestamps are Unix milliseconds.
 */
export const speakers = sqliteTable(
  "speakers",
  {
    id: text("id").primaryKey(),
    owner_key_id: text("owner_key_id")
      .notNull()
      .references(() => apiKeys.id),
    name: text("name").notNull(),
    object_key: text("object_key").notNull(),
    content_type: text("content_type").notNull(),
    bytes: integer("bytes").notNull(),
    /** Seconds of audio when the Worker could read them (a PCM or float WAV); null for other containers. */
    duration_sec: real("duration_sec"),
    created_at: integer("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("speakers_owner_name_idx").on(table.owner_key_id, table.name),
    index("speakers_owner_created_idx").on(table.owner_key_id, table.created_at),
  ],
);
