import { WhisperError } from "../native/index.ts";
import type { FailRequest } from "../protocol/node.ts";
import type { TaskFailureCode } from "../protocol/task-failure.ts";

/**
 * A task failure with its code (protocol/task-failure.ts): thrown by the pipeline where the cause is
 * known, so the Worker learns why from the code and never from the message.
 *
 * @example throw new TaskFailureError("unsupported_language", `unsupported language: ${input}`);
 */
export class TaskFailureError extends Error {
  override name = "TaskFailureError";
  constructor(
    readonly code: TaskFailureCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The addon's refusals that say something about the input rather than the engine. */
const WHISPER_CODES: Partial<Record<string, TaskFailureCode>> = {
  ERR_INVALID_AUDIO: "media_unreadable",
  ERR_EMPTY_AUDIO: "media_empty",
  ERR_UNKNOWN_LANGUAGE: "unsupported_language",
  ERR_INVALID_OPTION: "invalid_params",
};

/**
 * What the node reports for anything a task threw: its own code when it has one, the addon's error
 * codes mapped, and anything unexpected as a retryable `internal_error`.
 *
 * @example toFailure(new WhisperError("ERR_UNKNOWN_LANGUAGE", "...")).code // "unsupported_language"
 */
export function toFailure(error: unknown): FailRequest {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 4000) || "unknown error";
  if (error instanceof TaskFailureError) return { code: error.code, message };
  if (error instanceof WhisperError) return { code: WHISPER_CODES[error.code] ?? "decoder_error", message };
  return { code: "internal_error", message };
}
