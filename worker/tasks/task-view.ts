import type { QueueStats } from "../../durable-objects/dispatcher/dispatcher.ts";
import type { TaskRecord } from "../../protocol/task.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import type { HistoryEntry } from "../schemas/history.ts";
import type { TaskStatusResponse } from "../schemas/tasks.ts";

const toSeconds = (ms: number) => ms / 1000;

/** The public poll view of a task; `queue` only while it is still waiting or running. */
export function toTaskStatus(record: TaskRecord, queue: QueueStats | null): TaskStatusResponse {
  const active = record.status === "queued" || record.status === "processing";
  return {
    task_id: record.task_id,
    status: record.status,
    result: (record.result as TranscriptionResult | null) ?? null,
    error: record.error,
    queue: active ? queue : null,
  };
}

/** The history view of a task. */
export function toHistoryEntry(record: TaskRecord): HistoryEntry {
  return {
    task_id: record.task_id,
    status: record.status,
    created_at: toSeconds(record.created_at),
    updated_at: toSeconds(record.updated_at),
    params: record.params,
    result: (record.result as TranscriptionResult | null) ?? null,
    error: record.error,
  };
}
