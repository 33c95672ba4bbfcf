import type { ContentErrorCode } from "../../protocol/content.ts";
import { TaskFailureError } from "../task-failure.ts";

/**
 * A content task's failure with a stable code (the task's `error_key`) and a message for people.
 * An abort is not a ContentError: it rejects with the signal's reason.
 *
 * @example
 * throw new ContentError("tts_unavailable", "espeak-ng is not installed on this node");
 */
export class ContentError extends TaskFailureError {
  override readonly name = "ContentError";
  declare readonly code: ContentErrorCode;

  // biome-ignore lint/complexity/noUselessConstructor: it narrows the accepted codes to content failures
  constructor(code: ContentErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}
