import { dispatcher } from "../../platform/stubs.ts";
import { changeTaskStatus, createTask, type NewTask } from "../../platform/task-store.ts";
import type { TaskMessage, TaskRecord } from "../../protocol/task.ts";
import { ApiError } from "../errors.ts";

/**
 * Creates a task and hands it over twice: to the Queue (the durable path, retried until the
 * Dispatcher has it) and straight to the Dispatcher (the fast path, so a waiting node gets it in
 * milliseconds instead of after the Queue's batch window). The Dispatcher ignores the duplicate.
 * If the Queue refuses, the task is marked failed (never left queued with nobody to run it) and the
 * caller gets 503.
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
      failure: { code: "queue_unavailable", message: `job broker unavailable: ${reason}` },
    });
    throw new ApiError("service_unavailable", "the job queue is unavailable; retry shortly", {
      "Retry-After": "5",
    });
  }
  try {
    await dispatcher(env).enqueue({
      task_id: record.task_id,
      owner: record.owner_key_id ?? "",
      lane: record.lane,
      kind: record.kind,
    });
  } catch (cause) {
    // The Queue delivery will hand it over; only the fast path was lost.
    console.warn(
      JSON.stringify({ task_id: record.task_id, warning: "direct hand-off failed", error: String(cause) }),
    );
  }
  return record;
}
