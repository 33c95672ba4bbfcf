import type { ContentErrorCode } from "../../protocol/content.ts";

/**
 * A content task's failure with a stable code (the task's `error_key`) and a message for people.
 * An abort is not a ContentError: it rejects with the signal's reason.
 *
 * @example
 * throw new ContentError("tts_unavailable", "espeak-ng is not installed on this node");
 */
export class ContentError extends Error {
  override readonly name = "ContentError";
  readonly code: ContentErrorCode;

  constructor(code: ContentErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
