import type { QueueStats } from "../../durable-objects/dispatcher/dispatcher.ts";
import type { TaskRecord } from "../../protocol/task.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import type { AudioUrlMinter } from "../media/audio-url.ts";
import type { HistoryEntry } from "../schemas/history.ts";
import type { TaskStatusResponse } from "../schemas/tasks.ts";

const toSeconds = (ms: number) => ms / 1000;

/** The public poll view of a task; `queue` only while it is still waiting or running. */
export async function toTaskStatus(
  record: TaskRecord,
  queue: QueueStats | null,
  mintAudioUrl: AudioUrlMinter,
): Promise<TaskStatusResponse> {
  const active = record.status === "queued" || record.status === "processing";
  return {
    task_id: record.task_id,
    status: record.status,
    result: await viewResult(record, mintAudioUrl),
    error: record.error,
    queue: active ? queue : null,
  };
}

/** The history view of a task. */
export async function toHistoryEntry(
  record: TaskRecord,
  mintAudioUrl: AudioUrlMinter,
): Promise<HistoryEntry> {
  return {
    task_id: record.task_id,
    status: record.status,
    created_at: toSeconds(record.created_at),
    updated_at: toSeconds(record.updated_at),
    params: record.params,
    result: await viewResult(record, mintAudioUrl),
    error: record.error,
  };
}

/** A stored result as clients see it: media we keep gets an audio_url minted afresh on every read. */
async function viewResult(
  record: TaskRecord,
  mintAudioUrl: AudioUrlMinter,
): Promise<TranscriptionResult | null> {
  const result = (record.result as TranscriptionResult | null) ?? null;
  if (!result || record.source.type !== "object") return result;
  return { ...result, audio_url: await mintAudioUrl(record.source.object_key) };
}
