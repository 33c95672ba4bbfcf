import type { WebhookState } from "../../platform/webhook-store.ts";
import type { QueueStats, TaskRecordOf } from "../../protocol/task.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import type { MediaUrlMinter } from "../media/media-url.ts";
import type { HistoryEntry } from "../schemas/history.ts";
import type { TaskStatusResponse } from "../schemas/tasks.ts";

type TranscriptionRecord = TaskRecordOf<"transcribe">;

const toSeconds = (ms: number) => ms / 1000;

/** The public poll view of a transcription; `queue` only while it is still waiting or running. */
export async function toTaskStatus(
  record: TranscriptionRecord,
  queue: QueueStats | null,
  mintAudioUrl: MediaUrlMinter,
  webhook: WebhookState | null = null,
): Promise<TaskStatusResponse> {
  const active = record.status === "queued" || record.status === "processing";
  return {
    task_id: record.task_id,
    status: record.status,
    result: await viewResult(record, mintAudioUrl),
    error: record.error,
    error_code: record.error_code,
    queue: active ? queue : null,
    progress: record.progress,
    ...webhook,
  };
}

/** The history view of a transcription. */
export async function toHistoryEntry(
  record: TranscriptionRecord,
  mintAudioUrl: MediaUrlMinter,
): Promise<HistoryEntry> {
  return {
    task_id: record.task_id,
    status: record.status,
    created_at: toSeconds(record.created_at),
    updated_at: toSeconds(record.updated_at),
    params: record.params,
    result: await viewResult(record, mintAudioUrl),
    error: record.error,
    error_code: record.error_code,
  };
}

/** A stored result as clients see it: media we keep gets an audio_url minted afresh on every read. */
async function viewResult(
  record: TranscriptionRecord,
  mintAudioUrl: MediaUrlMinter,
): Promise<TranscriptionResult | null> {
  const result = record.result;
  if (!result || record.source.type !== "object") return result;
  return { ...result, audio_url: await mintAudioUrl(record.source.object_key) };
}
