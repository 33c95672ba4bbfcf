/**
 * `stream=true` on POST /v1/audio/transcriptions: the running task as OpenAI's server-sent events, the
 * shape the `openai` package's stream iterator reads. Each window the node decodes comes as
 * `transcript.text.delta` events (one per segment, the node's cleaned text, with its tokens' `logprobs`
 * when `include[]=logprobs` asked), diarized_json adds a
 * `transcript.text.segment` per segment with its speaker once the task is done (speakers are known only
 * then), and `transcript.text.done` carries the result's text, usage and (when detection ran) `languages`: the result is the authority,
 * the deltas a preview of it. A failure after the stream began ends it with an `error` event (the SDK
 * throws it as an APIError). A client that goes away cancels the task.
 */
import type { PartialUpdate } from "../../durable-objects/partial-log.ts";
import { jobState } from "../../platform/stubs.ts";
import type { TaskRecord } from "../../protocol/task.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import { ApiError } from "../errors.ts";
import { OpenAIError, toOpenAIWire } from "./errors.ts";
import { durationUsage, languageCode, toDiarizedJson } from "./formats.ts";

/** Longest single wait on the task's JobState before asking again (a wait is one RPC). */
const WAIT_SLICE_MS = 10_000;

export interface StreamedTask {
  taskId: string;
  /** diarized_json: segment events with speakers before `done`. */
  diarized: boolean;
  /** The language was detected (none asked): `done` names it in `languages`. */
  detected: boolean;
  /** When the stream gives up on a task that has not ended (SYNC_WAIT_MAX_SEC). */
  deadline: number;
  /** The record once the task ended, as the non-streamed reply reads it (its failure, its result). */
  finish: (record: TaskRecord | null) => Promise<{ text: string; result: TranscriptionResult }>;
  /** Called when the client goes away before the end. */
  onCancel: () => void;
}

/**
 * The event stream of a running task.
 *
 * @example return new Response(transcriptStream(env, task), { headers: { "content-type": "text/event-stream" } });
 */
export function transcriptStream(env: Env, task: StreamedTask): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let ended = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (event: unknown) =>
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`));
      try {
        let seq = -1;
        let spoken = false;
        for (;;) {
          const left = task.deadline - Date.now();
          // typed here: `seq` is read by the call and assigned from its answer, which TypeScript cannot infer
          const update: PartialUpdate = await jobState(env, task.taskId).waitForPartials(
            seq,
            Math.min(WAIT_SLICE_MS, Math.max(0, left)),
          );
          for (const window of update.partials) {
            seq = window.seq;
            for (const segment of window.segments) {
              const text = segment.text.trim();
              if (!text) continue;
              send({
                type: "transcript.text.delta",
                delta: spoken ? ` ${text}` : text,
                ...(segment.logprobs && { logprobs: segment.logprobs }),
              });
              spoken = true;
            }
          }
          const record = update.record;
          const over = !record || record.status === "done" || record.status === "failed";
          if (over || Date.now() >= task.deadline) {
            const { text, result } = await task.finish(record);
            if (task.diarized) for (const segment of toDiarizedJson(result).segments) send(segment);
            send({
              type: "transcript.text.done",
              text,
              usage: durationUsage(result),
              ...(task.detected && { languages: [{ code: languageCode(result.language) }] }),
            });
            break;
          }
        }
      } catch (error) {
        send(errorEvent(error));
      }
      ended = true;
      controller.close();
    },
    cancel() {
      if (!ended) task.onCancel();
    },
  });
}

/** An error as the stream's last event: OpenAI's error object, which the SDK throws. */
function errorEvent(error: unknown): unknown {
  const apiError =
    error instanceof ApiError
      ? error
      : new OpenAIError("internal_error", "the stream failed", { retryable: false });
  return { type: "error", ...toOpenAIWire(apiError).body };
}
