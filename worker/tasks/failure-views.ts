import type { TaskFailureCode } from "../../protocol/task-failure.ts";
import type { ErrorCode } from "../errors.ts";

/** How one failure code reads on the synchronous OpenAI-compatible endpoints. */
export interface SyncFailureView {
  /** The API error it becomes (its HTTP status comes with it). */
  error: ErrorCode;
  /** OpenAI's machine `code` in the envelope. */
  openaiCode: string | null;
  /** The request field at fault, if one. */
  param: string | null;
}

/** How a failure code reads on each public API. */
export interface FailureView {
  sync: SyncFailureView;
  /** The content API's short `error` (its `error_key` is the code itself, `message` the stored text). */
  content: string;
}

const inputFile = { error: "bad_request", openaiCode: "invalid_file", param: "file" } as const;
const serverFault = { error: "internal_error", openaiCode: null, param: null } as const;
const noCapacity = { error: "service_unavailable", openaiCode: "service_unavailable", param: null } as const;

/**
 * The one table from a task's failure code to what each public API shows. The asynchronous
 * speech-to-text API shows the code itself (`error_code` beside `error`, status 200 `failed`); the
 * content API shows it as `error_key` with the short `error` below.
 */
export const FAILURE_VIEWS: Record<TaskFailureCode, FailureView> = {
  media_unreachable: { sync: inputFile, content: "media unreachable" },
  media_unreadable: { sync: inputFile, content: "unreadable media" },
  media_empty: { sync: inputFile, content: "no audio in the media" },
  media_too_large: {
    sync: { error: "payload_too_large", openaiCode: null, param: "file" },
    content: "media too large",
  },
  unsupported_media: { sync: inputFile, content: "unsupported media container" },
  audio_too_long: {
    sync: { error: "payload_too_large", openaiCode: "audio_too_long", param: "file" },
    content: "audio too long",
  },
  speaker_reference_invalid: {
    sync: { error: "bad_request", openaiCode: "invalid_value", param: "known_speaker_references" },
    content: "invalid known speaker reference",
  },
  unsupported_language: {
    sync: { error: "bad_request", openaiCode: "unsupported_value", param: "language" },
    content: "unsupported language",
  },
  language_required: {
    sync: { error: "bad_request", openaiCode: null, param: "language" },
    content: "language required",
  },
  invalid_params: { sync: serverFault, content: "invalid task parameters" },
  unsupported_kind: { sync: noCapacity, content: "no node for this task" },
  decoder_error: { sync: serverFault, content: "recognition failed" },
  cancelled: { sync: { error: "client_closed", openaiCode: "cancelled", param: null }, content: "cancelled" },
  node_lost: { sync: noCapacity, content: "inference node lost" },
  node_shutdown: { sync: noCapacity, content: "inference node shut down" },
  queue_unavailable: { sync: noCapacity, content: "job queue unavailable" },
  queue_undeliverable: { sync: noCapacity, content: "job queue undeliverable" },
  internal_error: { sync: serverFault, content: "internal error" },
  task_stalled: { sync: serverFault, content: "the task stalled" },
  // The remote tier's trouble is the deployment's, not the request's, and no crash: 503 like a lost node.
  remote_unavailable: { sync: noCapacity, content: "remote recognition unavailable" },
  remote_refused: { sync: noCapacity, content: "remote recognition refused" },
  note_too_short: { sync: serverFault, content: "note too short" },
  tts_unavailable: { sync: serverFault, content: "speech engine unavailable" },
  tts_failed: { sync: serverFault, content: "speech synthesis failed" },
  llm_failed: { sync: serverFault, content: "text generation failed" },
  // a translation's target_language the node's backend cannot reach from the speech's language
  translation_unavailable: {
    sync: { error: "bad_request", openaiCode: "unsupported_value", param: "target_language" },
    content: "no translator for the language",
  },
  translation_failed: { sync: serverFault, content: "translation failed" },
  renderer_unavailable: { sync: serverFault, content: "renderer unavailable" },
  render_failed: { sync: serverFault, content: "rendering failed" },
  slides_failed: { sync: serverFault, content: "slide building failed" },
};
