import { dispatcher } from "../../platform/stubs.ts";
import { readTask } from "../../platform/task-store.ts";
import { ApiError } from "../errors.ts";
import type { MediaUrlMinter } from "../media/media-url.ts";
import type { TaskStatusResponse } from "../schemas/tasks.ts";
import { toTaskStatus } from "./task-view.ts";

/**
 * A transcription as its owner sees it; another key's task (or another kind's) is as unknown as a
 * missing one.
 */
export async function pollTask(
  env: Env,
  taskId: string,
  ownerKeyId: string,
  mintAudioUrl: MediaUrlMinter,
): Promise<TaskStatusResponse> {
  const record = await readTask(env, taskId);
  if (!record || record.owner_key_id !== ownerKeyId || record.kind !== "transcribe") {
    throw new ApiError("not_found", "task not found");
  }
  const active = record.status === "queued" || record.status === "processing";
  const queue = active ? await dispatcher(env).stats(taskId) : null;
  return toTaskStatus(record, queue, mintAudioUrl);
}
