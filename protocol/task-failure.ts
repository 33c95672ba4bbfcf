import { z } from "zod";

/**
 * Why a task failed, as a closed set of codes. Nodes send a code with every failure, the stores keep
 * it beside the human message, and each public API maps it in one table (worker/tasks/failure-views.ts):
 * no one parses error text.
 *
 * `retryable` says whether another attempt (on this node or another) can succeed: a retryable failure
 * goes back to the queue while attempts remain; the rest fail the task at once.
 */
export const TASK_FAILURES = {
  media_unreachable: {
    retryable: false,
    meaning:
      "the media URL could not be fetched (refused address, HTTP error, unreachable host), or the media did not finish downloading within the node's time limit, or arrived slower than its minimum rate",
  },
  media_unreadable: { retryable: false, meaning: "the file is not audio or video that ffmpeg can decode" },
  media_empty: { retryable: false, meaning: "the file is empty or contains no audio" },
  media_too_large: { retryable: false, meaning: "the media is larger than the 2 GB limit" },
  unsupported_media: {
    retryable: false,
    meaning:
      "the file is a playlist, manifest, concat list, URL reference or a container outside the allowed audio/video set",
  },
  audio_too_long: {
    retryable: false,
    meaning: "the audio is longer than the deployment's MAX_AUDIO_DURATION_SEC (default 4 h)",
  },
  speaker_reference_invalid: {
    retryable: false,
    meaning:
      "a known speaker's reference clip cannot be decoded, is not 2-10 s long (an enrolled speaker's 2-30 s), holds no voice, or was deleted (known_speaker_references[], known_speakers)",
  },
  unsupported_language: { retryable: false, meaning: "the requested language is not one the model knows" },
  language_required: {
    retryable: false,
    meaning: "the model cannot detect the language and none was given",
  },
  invalid_params: {
    retryable: false,
    meaning: "the stored task parameters do not match the task's contract (a server fault)",
  },
  unsupported_kind: { retryable: true, meaning: "the node that leased the task does not run its kind" },
  decoder_error: { retryable: true, meaning: "the recognition engine failed while decoding" },
  cancelled: {
    retryable: false,
    meaning:
      "the synchronous caller went away, or the task's owner deleted it (DELETE), and it was cancelled",
  },
  node_lost: {
    retryable: false,
    meaning: "every attempt's inference node stopped responding (its lease expired)",
  },
  node_shutdown: { retryable: true, meaning: "the inference node shut down and handed the task back" },
  // no longer written (a refused task is withdrawn and its creator gets 503); kept for older rows
  queue_unavailable: { retryable: false, meaning: "the job queue refused the task when it was created" },
  queue_undeliverable: {
    retryable: false,
    meaning: "the job queue could not deliver the task to the scheduler",
  },
  internal_error: { retryable: true, meaning: "an unexpected error on the inference node" },
  task_stalled: {
    retryable: true,
    meaning:
      "the task showed no progress on its node for the node's stall limit (VOXEDGE_TASK_STALL_SEC, default 900 s): a decode, an ffmpeg or another step hung, and the node stopped it",
  },
  remote_unavailable: {
    retryable: true,
    meaning:
      "the remote recognition tier did not answer in time, could not be reached, was overloaded (HTTP 408, 429, 5xx) or answered something unusable",
  },
  remote_refused: {
    retryable: false,
    meaning:
      "the remote recognition tier refused the deployment's own request (its key, model name or endpoint: HTTP 401, 403, 404 and other 4xx), or its key secret is unset",
  },
  note_too_short: {
    retryable: false,
    meaning: "the note has too little text for what was asked (e.g. fewer key sentences than questions)",
  },
  tts_unavailable: {
    retryable: true,
    meaning: "no speech engine on the node (espeak-ng missing, or the TTS server unreachable)",
  },
  tts_failed: { retryable: true, meaning: "the speech engine failed or returned unusable audio" },
  llm_failed: {
    retryable: true,
    meaning: "the configured language model failed or answered something unusable",
  },
  translation_unavailable: {
    retryable: true,
    meaning: "the output language differs from the note's and no translator for the pair is configured",
  },
  translation_failed: { retryable: true, meaning: "the translator failed" },
  renderer_unavailable: { retryable: true, meaning: "ffmpeg is missing on the node" },
  render_failed: { retryable: true, meaning: "ffmpeg failed while rendering the video or audio" },
  slides_failed: { retryable: true, meaning: "building the PPTX or PDF failed" },
} as const satisfies Record<string, { retryable: boolean; meaning: string }>;

export type TaskFailureCode = keyof typeof TASK_FAILURES;
export const TASK_FAILURE_CODES = Object.keys(TASK_FAILURES) as [TaskFailureCode, ...TaskFailureCode[]];
export const TaskFailureCode = z.enum(TASK_FAILURE_CODES).meta({ id: "TaskFailureCode" });

/** Whether a failure with this code may be attempted again. */
export function isRetryable(code: TaskFailureCode): boolean {
  return TASK_FAILURES[code].retryable;
}

/** The failure a task cancelled on its caller's disconnect (or deleted while it ran) ends with. */
export const CANCELLED_FAILURE = {
  code: "cancelled",
  message: "cancelled by the client",
} as const satisfies { code: TaskFailureCode; message: string };
