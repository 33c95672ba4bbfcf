import { workerConfig } from "../../platform/config.ts";
import type { RoutedTask } from "../../platform/dispatch-routing.ts";
import { jobState } from "../../platform/stubs.ts";
import { readTask } from "../../platform/task-store.ts";
import type { TaskRecord } from "../../protocol/task.ts";
import type { SpeechTask } from "../../protocol/transcribe-params.ts";
import { isMissingFile, receiveStreamedForm } from "../ingest/streamed-form.ts";
import { runRemoteTasks } from "../remote/edge-executor.ts";
import { remoteDefaultEntry } from "../remote/remote-tier.ts";
import { FAILURE_VIEWS } from "../tasks/failure-views.ts";
import { cancelTask } from "../tasks/leasing.ts";
import { submitTask } from "../tasks/submit.ts";
import { missingFileError, OpenAIError } from "./errors.ts";
import { type RenderedBody, renderTranscript } from "./formats.ts";
import {
  enrolledKnownSpeakers,
  knownSpeakerKeys,
  REFERENCE_FIELDS,
  storeKnownSpeakers,
} from "./known-speakers.ts";
import { parseSyncRequest, type SyncRequest } from "./request.ts";
import { transcriptStream } from "./transcript-stream.ts";
import { checkTranslationTarget } from "./translation-target.ts";

/**
 * The synchronous compatible endpoints: stream the form's file into R2, create an ordinary
 * transcription task on the interactive lane (it shows in /history), wait on its JobState until it
 * ends, answer in the requested format. A caller that goes away cancels the task; a task that
 * outlasts SYNC_WAIT_MAX_SEC keeps running and the caller is sent to the asynchronous API. With a
 * remote default model (registry kind `http`) the request also runs the remote tier's executor for its
 * slot (the same leases, limits and stores as the Queue consumer's), so the call does not wait for the
 * Queue; the task is still the Queue's too, should this request's executor die.
 */

/** Header naming the task behind a compatible call (for /transcribe/{task_id} and /history). */
export const TASK_ID_HEADER = "x-voxedge-task-id";

export interface SyncCall {
  ownerKeyId: string;
  task: SpeechTask;
  request: Request;
  /** Keeps work alive past the response (the cancel after a disconnect). */
  waitUntil: (promise: Promise<unknown>) => void;
}

export interface SyncReply extends RenderedBody {
  taskId: string;
}

/** A transcription task that ended with its result. */
type DoneTranscription = Extract<TaskRecord, { kind: "transcribe" }> & {
  result: NonNullable<Extract<TaskRecord, { kind: "transcribe" }>["result"]>;
};

/** A `stream=true` call's answer: its task and the events (transcript-stream.ts). */
export interface StreamedReply {
  taskId: string;
  events: ReadableStream<Uint8Array>;
}

/**
 * Runs one compatible call to its end. Throws OpenAIError/ApiError for every failure (the router
 * renders them in OpenAI's envelope); a streamed call's failures after it began end its stream.
 *
 * @example const reply = await runSyncTranscription(env, { ownerKeyId, task: "transcribe", request, waitUntil });
 */
export async function runSyncTranscription(env: Env, call: SyncCall): Promise<SyncReply | StreamedReply> {
  const { taskId, request } = await startTask(env, call);
  const waitSec = workerConfig(env).syncWaitMaxSec;
  const task = {
    task_id: taskId,
    kind: "transcribe" as const,
    params: request.params,
    owner_key_id: call.ownerKeyId,
  };
  if (request.stream) {
    const cancel = () => call.waitUntil(cancelQuietly(env, task));
    const events = transcriptStream(env, {
      taskId,
      diarized: request.format === "diarized_json",
      detected: request.params.language === null,
      deadline: Date.now() + waitSec * 1000,
      finish: async (record) => {
        const done = endedRecord(record, waitSec);
        return { result: done.result, text: done.result.text };
      },
      onCancel: cancel,
    });
    return { taskId, events };
  }
  const record = await waitWhileConnected(env, task, call, waitSec * 1000);
  return { taskId, ...(await reply(env, record, request, waitSec)) };
}

/** Streams the form's file into R2 and submits its task on the interactive lane. */
async function startTask(env: Env, call: SyncCall): Promise<{ taskId: string; request: SyncRequest }> {
  const largeFields = call.task === "transcribe" ? REFERENCE_FIELDS : undefined;
  const form = await receiveStreamedForm(env, call.request, call.ownerKeyId, largeFields).catch(
    (cause: unknown) => {
      throw isMissingFile(cause) ? missingFileError() : cause;
    },
  );
  let request: SyncRequest;
  let taskId: string;
  try {
    request = parseSyncRequest(env, form.fields, call.task);
    const target = request.params.target_language;
    if (target) await checkTranslationTarget(env, target);
    const enrolled = await enrolledKnownSpeakers(
      env,
      call.ownerKeyId,
      request.enrolledSpeakers,
      request.references,
    );
    const knownSpeakers = [
      ...(await storeKnownSpeakers(env, form.objectKey, request.references)),
      ...enrolled,
    ];
    const record = await submitTask(env, {
      ownerKeyId: call.ownerKeyId,
      kind: "transcribe",
      lane: "interactive",
      params: {
        ...request.params,
        object_key: form.objectKey,
        file_url: null,
        ...(knownSpeakers.length > 0 && { known_speakers: knownSpeakers }),
      },
      source: { type: "object", object_key: form.objectKey },
      upload: { objectKey: form.objectKey, contentType: form.contentType },
    });
    taskId = record.task_id;
  } catch (cause) {
    await env.MEDIA.delete([form.objectKey, ...knownSpeakerKeys(form.objectKey)]);
    throw cause;
  }
  // A remote default model runs here and now, not after the Queue's batch window: the call is waiting.
  if (remoteDefaultEntry(env)) call.waitUntil(runRemoteTasks(env, { lanes: 1 }).catch(logExecutorFailure));
  return { taskId, request };
}

/** Cancels a call's task (its caller went away); a failure is logged, the task then runs to its end. */
function cancelQuietly(env: Env, task: RoutedTask & { task_id: string }): Promise<unknown> {
  return cancelTask(env, task).catch((error: unknown) => {
    console.error(JSON.stringify({ task_id: task.task_id, error: `cancel failed: ${String(error)}` }));
  });
}

/** Waits for the task's end; if the caller disconnects meanwhile, the task is cancelled. */
async function waitWhileConnected(
  env: Env,
  task: RoutedTask & { task_id: string },
  call: SyncCall,
  timeoutMs: number,
): Promise<TaskRecord | null> {
  const signal = call.request.signal;
  const onAbort = () => call.waitUntil(cancelQuietly(env, task));
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await waitForTaskEnd(env, task.task_id, timeoutMs);
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
  const stub = jobState(env, taskId);
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
  const done = endedRecord(record, waitSec);
  if (!done.result || !("segments" in done.result)) {
    throw new OpenAIError(
      "internal_error",
      "the task is not a transcription",
      { retryable: false },
      {
        [TASK_ID_HEADER]: done.task_id,
      },
    );
  }
  const detail = await jobState(env, done.task_id).readDetail();
  return renderTranscript(request.format, done.result, detail, {
    task: request.params.task,
    words: request.granularities.includes("word"),
    logprobs: request.params.logprobs === true,
    detected: request.params.language === null,
  });
}

/**
 * The record of a task that ended done, or the error its caller gets: deleted meanwhile, failed, no
 * result, or still running after `waitSec` (sent to the asynchronous API).
 */
function endedRecord(record: TaskRecord | null, waitSec: number): DoneTranscription {
  // No record: its owner deleted the task while this call waited (DELETE /transcribe/{id}).
  if (!record)
    throw new OpenAIError("not_found", "the task was deleted while this request waited", {
      retryable: false,
    });
  const taskId = record.task_id;
  const headers = { [TASK_ID_HEADER]: taskId };
  if (record.kind !== "transcribe") {
    throw new OpenAIError("internal_error", "the task is not a transcription", { retryable: false }, headers);
  }
  if (record.status === "done" && record.result) return { ...record, result: record.result };
  if (record.status === "failed") throw failure(record, headers);
  if (record.status === "done") {
    throw new OpenAIError("internal_error", "the task ended with no result", { retryable: false }, headers);
  }
  throw new OpenAIError(
    "gateway_timeout",
    `the transcription did not finish within ${waitSec} s; it goes on as task ${taskId}: ` +
      `poll GET /transcribe/${taskId} (the asynchronous API) for its result, and send long files to ` +
      "POST /transcribe/upload or the presigned flow",
    { openaiCode: "sync_timeout", retryable: false },
    headers,
  );
}

/**
 * A failed task in OpenAI's terms, by its failure code (FAILURE_VIEWS). Never retried by the SDK: a
 * retry would upload and run the whole file again.
 */
function failure(record: TaskRecord, headers: Record<string, string>): OpenAIError {
  const view = FAILURE_VIEWS[record.error_code ?? "internal_error"].sync;
  const error = record.error ?? "unknown error";
  const message =
    view.error === "client_closed"
      ? `task ${record.task_id} was ${error}`
      : view.param === "file"
        ? `could not transcribe the file: ${error}`
        : view.param
          ? `could not translate the speech: ${error}`
          : `the transcription failed: ${error} (task ${record.task_id})`;
  const fields = { openaiCode: view.openaiCode, param: view.param, retryable: false };
  return new OpenAIError(view.error, message, fields, headers);
}

function logExecutorFailure(error: unknown): void {
  console.error(JSON.stringify({ remote_tier: "sync executor failed", error: String(error) }));
}
