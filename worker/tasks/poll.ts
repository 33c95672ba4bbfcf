import { jobState } from "../../platform/stubs.ts";
import { readPermanentTask } from "../../platform/task-store.ts";
import { readWebhookState } from "../../platform/webhook-store.ts";
import type { TaskRecord, TaskRecordOf } from "../../protocol/task.ts";
import { ApiError } from "../errors.ts";
import type { MediaUrlMinter } from "../media/media-url.ts";
import type { TaskStatusResponse } from "../schemas/tasks.ts";
import { toTaskStatus } from "./task-view.ts";

/**
 * A transcription as its owner sees it; another key's task (or another kind's) is as unknown as a
 * missing one. A live task is answered by its JobState alone (record, place in line and webhook state
 * in one call, no D1 query); only an expired one reads D1.
 */
export async function pollTask(
  env: Env,
  taskId: string,
  ownerKeyId: string,
  mintAudioUrl: MediaUrlMinter,
): Promise<TaskStatusResponse> {
  const polled = await jobState(env, taskId).poll();
  const record = ownedTranscription(polled ?? (await readPermanentTask(env, taskId)), ownerKeyId);
  const webhook =
    polled && polled.webhook !== undefined ? polled.webhook : await readWebhookState(env, taskId);
  return toTaskStatus(record, polled?.queue ?? null, mintAudioUrl, webhook);
}

/**
 * The record of the caller's transcription (JobState, then D1), without its place in line; another
 * key's task (or another kind's) is as unknown as a missing one.
 */
export async function readOwnedTranscription(
  env: Env,
  taskId: string,
  ownerKeyId: string,
): Promise<TaskRecordOf<"transcribe">> {
  const record = (await jobState(env, taskId).read()) ?? (await readPermanentTask(env, taskId));
  return ownedTranscription(record, ownerKeyId);
}

function ownedTranscription(record: TaskRecord | null, ownerKeyId: string): TaskRecordOf<"transcribe"> {
  if (!record || record.owner_key_id !== ownerKeyId || record.kind !== "transcribe") {
    throw new ApiError("not_found", "task not found");
  }
  return record;
}
