import type { TaskRecord } from "../../protocol/task.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import { receiveStreamedForm } from "../ingest/streamed-form.ts";
import { recordUpload } from "../ingest/upload-registry.ts";
import { CANCELLED_BY_CLIENT, cancelTask } from "../tasks/leasing.ts";
import { submitTask } from "../tasks/submit.ts";
import { readTask } from "../tasks/task-store.ts";
import { OpenAIError } from "./errors.ts";
import { type RenderedBody, renderTranscript } from "./formats.ts";
import { parseSyncRequest, type SyncRequest, type SyncTask } from "./request.ts";

/**
 * The synchronous compatible endpoints: stream the form's file into R2, create an ordinary
 * transcription task on the interactive lane (it shows in /history), wait on its JobState until it
 * ends, answer in the requested format. A caller that goes away cancels the task; a task that
 * outlasts SYNC_WAIT_MAX_SEC keeps running and the caller is sent to the asynchronous API.
 */

/** Default cap on the wait: under the official SDK's 10-minute timeout, with room for the upload. */
const DEFAULT_SYNC_WAIT_SEC = 540;
/** Header naming the task behind a compatible call (for /transcribe/{task_id} and /history). */
export const TASK_ID_HEADER = "x-voxedge-task-id";

export interface SyncCall {
  ownerKeyId: string;
  task: SyncTask;
  request: Request;
  /** Keeps work alive past the response (the cancel after a disconnect). */
  waitUntil: (promise: Promise<unknown>) => void;
}

export interface SyncReply extends RenderedBody {
  taskId: string;
}

/** SYNC_WAIT_MAX_SEC when set to a positive number (an optional var), else 540 s. */
export function syncWaitMaxSec(env: Env): number {
  const value = Number((env as Env & { SYNC_WAIT_MAX_SEC?: string }).SYNC_WAIT_MAX_SEC);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_SYNC_WAIT_SEC;
}

/**
 * Runs one compatible call to its end. Throws OpenAIError/ApiError for every failure (the app's
 * error handler renders them in OpenAI's envelope).
 *
 * @example const reply = await runSyncTranscription(env, { ownerKeyId, task: "transcribe", request, waitUntil });
 */
export async function runSyncTranscription(env: Env, call: SyncCall): Promise<SyncReply> {
  const form = await receiveStreamedForm(env, call.request, call.ownerKeyId);
  let request: SyncRequest;
  let taskId: string;
  try {
    request = parseSyncRequest(env, form.fields, call.task);
    await recordUpload(env, {
      objectKey: form.objectKey,
      ownerKeyId: call.ownerKeyId,
      contentType: form.contentType,
    });
    const record = await submitTask(env, {
      ownerKeyId: call.ownerKeyId,
      kind: "transcribe",
      lane: "interactive",
      params: { ...request.params, object_key: form.objectKey },
      source: { type: "object", object_key: form.objectKey },
    });
    taskId = record.task_id;
  } catch (cause) {
    await env.MEDIA.delete(form.objectKey);
    throw cause;
  }
  const waitSec = syncWaitMaxSec(env);
  const record = await waitWhileConnected(env, taskId, call, waitSec * 1000);
  return { taskId, ...(await reply(env, record, request, waitSec)) };
}

/** Waits for the task's end; if the caller disconnects meanwhile, the task is cancelled. */
async function waitWhileConnected(
  env: Env,
  taskId: string,
  call: SyncCall,
  timeoutMs: number,
): Promise<TaskRecord | null> {
  const signal = call.request.signal;
  const onAbort = () => {
    call.waitUntil(
      cancelTask(env, taskId).catch((error: unknown) => {
        console.error(JSON.stringify({ task_id: taskId, error: `cancel failed: ${String(error)}` }));
      }),
    );
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await waitForTaskEnd(env, taskId, timeoutMs);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Waits on the task's JobState until it is done or failed, up to `timeoutMs`; returns the record as it
 * then stands. The object resolves the wait from the write of the final status (no polling); if the
 * object restarts mid-wait, the wait is asked again for the time left.
 *
 * @example const record = await waitForTaskEnd(env, taskId, 60_000); // record.status "done" | "failed" | ...
 */
export async function waitForTaskEnd(
  env: Env,
  taskId: string,
  timeoutMs: number,
): Promise<TaskRecord | null> {
  const stub = env.JOB_STATE.get(env.JOB_STATE.idFromName(taskId));
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const record = await stub.waitForEnd(Math.max(0, deadline - Date.now()));
      return record ?? (await readTask(env, taskId));
    } catch (error) {
      if (Date.now() >= deadline || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
  }
}

async function reply(
  env: Env,
  record: TaskRecord | null,
  request: SyncRequest,
  waitSec: number,
): Promise<RenderedBody> {
  if (!record) throw new OpenAIError("internal_error", "the task disappeared", { retryable: false });
  const taskId = record.task_id;
  const headers = { [TASK_ID_HEADER]: taskId };
  if (record.status === "done") {
    if (!record.result) {
      throw new OpenAIError("internal_error", "the task ended with no result", { retryable: false }, headers);
    }
    const detail = await env.JOB_STATE.get(env.JOB_STATE.idFromName(taskId)).readDetail();
    return renderTranscript(request.format, record.result as TranscriptionResult, detail, {
      task: request.params.task,
      words: request.granularities.includes("word"),
    });
  }
  if (record.status === "failed") throw failure(taskId, record.error ?? "unknown error", headers);
  throw new OpenAIError(
    "service_unavailable",
    `the transcription did not finish within ${waitSec} s; it goes on as task ${taskId}: ` +
      `poll GET /transcribe/${taskId} (the asynchronous API) for its result, and send long files to ` +
      "POST /transcribe/upload or the presigned flow",
    { httpStatus: 504, openaiCode: "sync_timeout", retryable: false },
    headers,
  );
}

/** Failures caused by the input itself (OpenAI's 400 "invalid file"); anything else is the server's. */
const INPUT_FAILURE =
  /cannot decode the media|contains no audio|media file is empty|larger than the|unsupported language|needs a language/i;

function failure(taskId: string, error: string, headers: Record<string, string>): OpenAIError {
  if (error === CANCELLED_BY_CLIENT) {
    return new OpenAIError(
      "bad_request",
      `task ${taskId} was ${CANCELLED_BY_CLIENT}`,
      { httpStatus: 499, openaiCode: "cancelled", retryable: false },
      headers,
    );
  }
  if (INPUT_FAILURE.test(error)) {
    return new OpenAIError(
      "bad_request",
      `could not transcribe the file: ${error}`,
      { param: "file", openaiCode: "invalid_file", retryable: false },
      headers,
    );
  }
  return new OpenAIError(
    "internal_error",
    `the transcription failed: ${error} (task ${taskId})`,
    { retryable: false },
    headers,
  );
}
