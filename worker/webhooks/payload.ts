import type { TaskRecord } from "../../protocol/task.ts";
import type { MediaUrlMinter } from "../media/media-url.ts";
import { workerTaskKind } from "../tasks/kinds/index.ts";

/**
 * The body of an ended task's webhook: `type` (`task.done` or `task.failed`), `kind`, `task_id`, then
 * the task exactly as its poll route shows it (its kind's `webhookView`): a transcription's TaskStatusResponse (`status` done or
 * failed, `result` or `error` + `error_code`), a content task's result view (`status` SUCCESS with
 * `data`, or FAILURE with `error`, `error_key`, `message`). Links in it are minted once, when the
 * first attempt is made, and expire after PRESIGN_TTL_SEC like any other.
 */
export async function webhookPayload(record: TaskRecord, mint: MediaUrlMinter): Promise<string> {
  const type = record.status === "done" ? "task.done" : "task.failed";
  const view = await workerTaskKind(record.kind).webhookView(record, mint);
  return JSON.stringify({ type, kind: record.kind, task_id: record.task_id, ...view });
}
