/**
 * A problem with the task's media itself (unreachable URL, not audio, no audio, too large): retrying
 * on another node cannot help, so the task fails with this message.
 */
export class MediaError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "MediaError";
  }
}
