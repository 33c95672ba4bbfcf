import { and, eq, isNull, notInArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import {
  type Lane,
  type TaskKind,
  type TaskParams,
  TaskRecord,
  type TaskResult,
  type TaskSource,
  type TaskStatus,
} from "../protocol/task.ts";
import type { TaskFailureCode } from "../protocol/task-failure.ts";
import { db } from "./db.ts";
import { invalidateHistory } from "./history-invalidation.ts";
import { loadResult, storeResult } from "./result-store.ts";
import { jobs, uploads, webhookDeliveries } from "./schema.ts";
import { jobState } from "./stubs.ts";
import { countInserted, countMoved, countRemoved } from "./task-counts.ts";
import {
  markWebhookDue,
  newDeliveryRow,
  readWebhookState,
  type WebhookState,
  type WebhookTarget,
} from "./webhook-store.ts";

/**
 * A task lives in two stores: the JobState object (fast, expires) and the D1 `jobs` row (permanent).
 * Writes go to D1 first so the permanent record never lags; reads try JobState first. The row's
 * columns are the record's fields, except the result: D1 points at its R2 object (result-store.ts),
 * written before the row names it; rows stored before that keep theirs inline and read as before.
 */

/** A task to create; its params must be its kind's (checked when the record is built). */
export interface NewTask {
  ownerKeyId: string;
  kind: TaskKind;
  lane: Lane;
  params: TaskParams;
  source: TaskSource;
  /** Where to POST the task's end, and the origin its payload's links use (null: no webhook). */
  webhook?: { target: WebhookTarget; baseUrl: string } | null;
  /**
   * The upload the request itself carried, recorded as the owner's (D1 `uploads`) in the task's own
   * batch: one round trip to D1's primary before the task is handed over, not two in a row.
   */
  upload?: { objectKey: string; contentType: string };
}

/** Writes a new queued task to both stores and returns it. */
export async function createTask(env: Env, input: NewTask): Promise<TaskRecord> {
  const now = Date.now();
  // parse() pairs the input's kind with its params' type, checking them once more.
  const record = TaskRecord.parse({
    task_id: crypto.randomUUID(),
    owner_key_id: input.ownerKeyId,
    kind: input.kind,
    lane: input.lane,
    status: "queued",
    params: input.params,
    source: input.source,
    result: null,
    error: null,
    error_code: null,
    progress: 0,
    step: null,
    eta_sec: null,
    created_at: now,
    updated_at: now,
  });
  const store = db(env);
  const { upload, webhook: hook } = input;
  const statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] = [
    store.insert(jobs).values(record),
    countInserted(store, record.task_id),
  ];
  // One batch: a task never exists without the upload and the webhook it was created with.
  if (upload)
    statements.push(
      store.insert(uploads).values({ ...upload, ownerKeyId: input.ownerKeyId, createdAt: now }),
    );
  if (hook)
    statements.push(
      store
        .insert(webhookDeliveries)
        .values(newDeliveryRow(record.task_id, input.ownerKeyId, hook.target, hook.baseUrl, now)),
    );
  await store.batch(statements);
  const webhook = hook ? ({ webhook_status: "pending", webhook_last_http_status: null } as const) : null;
  await Promise.all([jobState(env, record.task_id).create(record, webhook), invalidateHistory(env, record)]);
  return record;
}

/**
 * Takes back a task nobody was told of (its Queue send failed, so its creator got 503 and no id):
 * the D1 row and its webhook row go in one batch (from then on no reader, history or sweep sees it),
 * then the JobState entry. A crash between the two leaves only a fast entry that nobody can name and
 * that its alarm deletes. Its media stays, for the creator's retry.
 */
export async function withdrawTask(env: Env, taskId: string): Promise<void> {
  const store = db(env);
  const [, , removed] = await store.batch([
    store.delete(webhookDeliveries).where(eq(webhookDeliveries.task_id, taskId)),
    countRemoved(store, taskId),
    store
      .delete(jobs)
      .where(eq(jobs.task_id, taskId))
      .returning({ owner_key_id: jobs.owner_key_id, kind: jobs.kind }),
  ]);
  await Promise.all([jobState(env, taskId).erase(), ...removed.map((task) => invalidateHistory(env, task))]);
}

/**
 * A D1 row as a typed record (the kind decides the params and result types); its result is read
 * from R2 when the row points at one (null while a delete is removing it).
 */
export async function recordFromRow(env: Env, row: typeof jobs.$inferSelect): Promise<TaskRecord> {
  const result = row.result ?? (row.result_key ? await loadResult(env, row.result_key) : null);
  return TaskRecord.parse({ ...row, result });
}

/**
 * Reads a task: the fast store first, then the permanent one (so expired entries still resolve). A
 * deleted task is unknown: its JobState entry is erased and its row marked before anything else.
 */
export async function readTask(env: Env, taskId: string): Promise<TaskRecord | null> {
  return (await jobState(env, taskId).read()) ?? (await readPermanentTask(env, taskId));
}

/**
 * A task and its webhook's state (null: none), as task views show them: a live task from its JobState
 * alone (no D1 query), an expired one from D1.
 */
export async function readTaskWithWebhook(
  env: Env,
  taskId: string,
): Promise<{ record: TaskRecord; webhook: WebhookState | null } | null> {
  const live = await jobState(env, taskId).readWithWebhook();
  if (live) {
    const { queue: _, webhook, ...record } = live;
    return { record, webhook: webhook !== undefined ? webhook : await readWebhookState(env, taskId) };
  }
  const record = await readPermanentTask(env, taskId);
  return record && { record, webhook: await readWebhookState(env, taskId) };
}

/** The task's permanent row as a record; null when there is none or its owner deleted it. */
export async function readPermanentTask(env: Env, taskId: string): Promise<TaskRecord | null> {
  const row = await db(env)
    .select()
    .from(jobs)
    .where(and(eq(jobs.task_id, taskId), isNull(jobs.deleted_at)))
    .get();
  return row ? await recordFromRow(env, row) : null;
}

/** How a task ended badly: a code every API maps, and the human message stored beside it. */
export interface TaskFailure {
  code: TaskFailureCode;
  message: string;
}

/**
 * A move to another status. Progress is kept across a retry (queued again, processing again): a client
 * never sees it go back.
 */
export type StatusChange =
  | { status: "queued" | "processing" }
  | { status: "done"; result: TaskResult }
  | { status: "failed"; failure: TaskFailure };

/** The statuses a task never leaves. */
const ENDED_STATUSES: TaskStatus[] = ["done", "failed"];

/** Whether a task reached its end (done or failed); it never changes status again. */
function hasEnded(record: Pick<TaskRecord, "status">): boolean {
  return ENDED_STATUSES.includes(record.status);
}

/**
 * Moves a task to a new status in both stores; returns the new record, or null when the task is
 * unknown or has already ended. An ended task never moves again: the D1 update is conditional, so a
 * late writer (an expired lease taken back after its node's `complete` was stored, a retry racing a
 * cancel) cannot bring a done or failed task back to life or overwrite its result; nor can any write
 * touch a deleted task.
 */
export async function changeTaskStatus(
  env: Env,
  taskId: string,
  change: StatusChange,
): Promise<TaskRecord | null> {
  const current = await readTask(env, taskId);
  if (!current || hasEnded(current)) return null;
  const next = applyChange(current, change, Date.now());
  // The result object first: the row never points at nothing.
  const stored = next.result ? await storeResult(env, taskId, next.result) : null;
  const store = db(env);
  const update = store
    .update(jobs)
    .set({
      status: next.status,
      ...stored,
      error: next.error,
      error_code: next.error_code,
      progress: next.progress,
      step: next.step,
      eta_sec: next.eta_sec,
      updated_at: next.updated_at,
    })
    .where(and(eq(jobs.task_id, taskId), notInArray(jobs.status, ENDED_STATUSES), isNull(jobs.deleted_at)))
    .returning({ task_id: jobs.task_id });
  // The counters move in the same batch, under the same conditions as the row.
  const [, , written] = await store.batch([...countMoved(store, taskId, next.status), update]);
  if (written.length === 0) return null;
  const [{ hasWebhook }] = await Promise.all([
    jobState(env, taskId).write(next),
    invalidateHistory(env, next),
  ]);
  // A task created without a webhook has no delivery row to make due (JobState knows; null: it forgot).
  if (hasEnded(next) && hasWebhook !== false) await markWebhookDue(env, taskId);
  return next;
}

function applyChange(current: TaskRecord, change: StatusChange, now: number): TaskRecord {
  const base = {
    ...current,
    status: change.status as TaskStatus,
    updated_at: now,
    step: null,
    eta_sec: null,
  };
  switch (change.status) {
    case "done":
      return TaskRecord.parse({
        ...base,
        result: change.result,
        error: null,
        error_code: null,
        progress: 100,
      });
    case "failed":
      return { ...base, error: change.failure.message, error_code: change.failure.code };
    default:
      return base;
  }
}

/** A running task's latest report: progress (only ever raised), its step, the time it expects to need. */
export interface ProgressReport {
  progress: number;
  step?: string;
  etaSec?: number;
}

/** Records progress in the fast store only; the permanent row keeps status changes. */
export async function reportProgress(env: Env, taskId: string, report: ProgressReport): Promise<void> {
  await jobState(env, taskId).setProgress(report);
}

/**
 * Fails a task unless it already ended (a stored result wins over a late failure); true when it
 * was failed now. Used where a failure races a completion: cancellation, lease expiry.
 */
export async function failUnlessEnded(env: Env, taskId: string, failure: TaskFailure): Promise<boolean> {
  return (await changeTaskStatus(env, taskId, { status: "failed", failure })) !== null;
}
