import type { TaskMessage, TaskRecord } from "../../protocol/task.ts";
import { ApiError } from "../errors.ts";
import { changeTaskStatus, createTask, type NewTask } from "./task-store.ts";

/**
 * Creates a task and hands it to the Queue. If the Queue refuses, the task is marked failed (it is
 * never left queued with nobody to run it) and the caller gets 503.
 */
export async function submitTask(env: Env, input: NewTask): Promise<TaskRecord> {
  const record = await createTask(env, input);
  const message: TaskMessage = { task_id: record.task_id, kind: record.kind };
  try {
    await env.TASK_QUEUE.send(message);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    await changeTaskStatus(env, record.task_id, {
      status: "failed",
      error: `job broker unavailable: ${reason}`,
    });
    throw new ApiError("service_unavailable", "the job queue is unavailable; retry shortly", {
      "Retry-After": "5",
    });
  }
  return record;
}
