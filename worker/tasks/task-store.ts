import { eq } from "drizzle-orm";
import type { Lane, TaskKind, TaskRecord, TaskSource, TaskStatus } from "../../protocol/task.ts";
import { db } from "../db/client.ts";
import { jobs } from "../db/schema.ts";

/**
 * A task lives in two stores: the JobState object (fast, expires) and the D1 `jobs` row (permanent).
 * Writes go to D1 first so the permanent record never lags; reads try JobState first.
 */

export interface NewTask {
  ownerKeyId: string;
  kind: TaskKind;
  lane: Lane;
  params: Record<string, unknown>;
  source: TaskSource;
}

function jobState(env: Env, taskId: string) {
  return env.JOB_STATE.get(env.JOB_STATE.idFromName(taskId));
}

/** Writes a new queued task to both stores and returns it. */
export async function createTask(env: Env, input: NewTask): Promise<TaskRecord> {
  const now = Date.now();
  const record: TaskRecord = {
    task_id: crypto.randomUUID(),
    owner_key_id: input.ownerKeyId,
    kind: input.kind,
    lane: input.lane,
    status: "queued",
    params: input.params,
    source: input.source,
    result: null,
    error: null,
    progress: 0,
    created_at: now,
    updated_at: now,
  };
  await db(env).insert(jobs).values(toRow(record));
  await jobState(env, record.task_id).write(record);
  return record;
}

/** Reads a task: the fast store first, then the permanent one (so expired entries still resolve). */
export async function readTask(env: Env, taskId: string): Promise<TaskRecord | null> {
  const fast = await jobState(env, taskId).read();
  if (fast) return fast;
  const row = await db(env).select().from(jobs).where(eq(jobs.taskId, taskId)).get();
  return row ? fromRow(row) : null;
}

export interface StatusChange {
  status: TaskStatus;
  result?: Record<string, unknown> | null;
  error?: string | null;
  progress?: number;
}

/** Moves a task to a new status in both stores; returns the new record, or null for an unknown task. */
export async function changeTaskStatus(
  env: Env,
  taskId: string,
  change: StatusChange,
): Promise<TaskRecord | null> {
  const current = await readTask(env, taskId);
  if (!current) return null;
  const next: TaskRecord = {
    ...current,
    status: change.status,
    result: change.result === undefined ? current.result : change.result,
    error: change.error === undefined ? current.error : change.error,
    progress: change.progress ?? (change.status === "done" ? 100 : current.progress),
    updated_at: Date.now(),
  };
  await db(env)
    .update(jobs)
    .set({
      status: next.status,
      result: next.result,
      error: next.error,
      progress: next.progress,
      updatedAt: next.updated_at,
    })
    .where(eq(jobs.taskId, taskId));
  await jobState(env, taskId).write(next);
  return next;
}

/** Records progress in the fast store only; the permanent row keeps status changes. */
export async function reportProgress(env: Env, taskId: string, progress: number): Promise<void> {
  await jobState(env, taskId).setProgress(progress);
}

type JobRow = typeof jobs.$inferSelect;

function toRow(record: TaskRecord): typeof jobs.$inferInsert {
  return {
    taskId: record.task_id,
    ownerKeyId: record.owner_key_id,
    kind: record.kind,
    status: record.status,
    lane: record.lane,
    source: record.source,
    params: record.params,
    result: record.result,
    error: record.error,
    progress: record.progress,
    createdAt: record.created_at,
    updatedAt: record.updated_at,
  };
}

export function fromRow(row: JobRow): TaskRecord {
  return {
    task_id: row.taskId,
    owner_key_id: row.ownerKeyId,
    kind: row.kind,
    lane: row.lane,
    status: row.status,
    params: row.params,
    source: row.source,
    result: row.result ?? null,
    error: row.error,
    progress: row.progress,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
