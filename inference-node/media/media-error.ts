import type { TaskFailureCode } from "../../protocol/task-failure.ts";
import { TaskFailureError } from "../task-failure.ts";

/** The media failures a task can end with. */
export type MediaFailureCode = Extract<
  TaskFailureCode,
  `media_${string}` | "unsupported_media" | "audio_too_long"
>;

/**
 * A problem with the task's media itself (unreachable URL, not audio, no audio, too large or
 * too long, a refused container): retrying
 * on another node cannot help, so the task fails with this code and message.
 *
 * @example throw new MediaError("media_empty", "the media file is empty");
 */
export class MediaError extends TaskFailureError {
  override name = "MediaError";
  // biome-ignore lint/complexity/noUselessConstructor: it narrows the accepted codes to media failures
  constructor(code: MediaFailureCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}
