import { dispatcherOfTask } from "../../platform/stubs.ts";
import { createTask, type NewTask, withdrawTask } from "../../platform/task-store.ts";
import type { TaskMessage, TaskRecord } from "../../protocol/task.ts";
import { ApiError } from "../errors.ts";
import { recordPublishFailure, recordPublishSuccess } from "./job-broker.ts";

/**
 * Creates a task and hands it over twice: to the Queue (the durable path, retried until the
 * Dispatcher has it) and straight to the Dispatcher (the fast path, so a waiting node gets it in
 * milliseconds instead of after the Queue's batch window). The Dispatcher ignores the duplicate.
 * If the Queue refuses, the task is withdrawn (never left queued with nobody to run it, and no
 * failed task the caller never got an id for in its history), the failure is recorded for /health,
 * and the caller gets 503 to retry; its media (an upload, a URL) is untouched, so a retry loses nothing.
 */
export async function submitTask(env: Env, input: NewTask): Promise<TaskRecord> {
  const record = await createTask(env, input);
  const message: TaskMessage = { task_id: record.task_id, kind: record.kind };
  try {
    await env.TASK_QUEUE.send(message);
  } catch (cause) {
    console.error(
      JSON.stringify({ task_id: record.task_id, error: "queue send failed", cause: String(cause) }),
    );
    await Promise.all([withdrawTask(env, record.task_id), recordPublishFailure(env, cause)]);
    throw new ApiError("service_unavailable", "the job queue is unavailable; retry shortly", {
      "Retry-After": "5",
    });
  }
  await Promise.all([recordPublishSuccess(env), handOver(env, record)]);
  return record;
}

/** The fast path: straight to the Dispatcher; a failure only costs the Queue's batch window. */
async function handOver(env: Env, record: TaskRecord): Promise<void> {
  try {
    await dispatcherOfTask(env, record).enqueue({
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
}
