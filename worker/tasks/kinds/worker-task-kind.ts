import type { ContentOutputFile } from "../../../protocol/content.ts";
import type { CompleteRequest } from "../../../protocol/node.ts";
import type { TaskKind, TaskRecordOf, TaskResult } from "../../../protocol/task.ts";
import type { MediaUrlMinter } from "../../media/media-url.ts";
import type { TaskResultResponse } from "../../schemas/content.ts";
import type { TaskStatusResponse } from "../../schemas/tasks.ts";

/** A node's completion of one kind. */
export type CompletionOf<K extends TaskKind> = Extract<CompleteRequest, { kind: K }>;

/**
 * What the Worker does differently per task kind: each kind's module declares it, and the generic code
 * (leasing, outputs, the result and webhook views) looks it up instead of asking which kind it has.
 */
export interface WorkerTaskKind<K extends TaskKind> {
  /** The files a completion names; each must be stored under the task before the completion is kept. */
  outputFiles(completion: CompletionOf<K>): readonly ContentOutputFile[];
  /** What the stores keep of a completion; parts meant for the fast store only are written there. */
  storedResult(env: Env, taskId: string, completion: CompletionOf<K>): Promise<TaskResult<K>>;
  /** The content API's view of a task of this kind (GET /v1/create/tasks/{id}/result). */
  resultView(record: TaskRecordOf<K>, mint: MediaUrlMinter): Promise<TaskResultResponse>;
  /** The task as its own poll route shows it: what its webhook body carries after `type`, `kind`, `task_id`. */
  webhookView(
    record: TaskRecordOf<K>,
    mint: MediaUrlMinter,
  ): Promise<TaskStatusResponse | TaskResultResponse>;
}
