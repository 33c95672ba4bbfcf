import type { TaskFailure } from "../../platform/task-store.ts";
import type { TaskFailureCode } from "../../protocol/task-failure.ts";

/**
 * A remote recognition tier's failure, already in the closed failure-code set (protocol/task-failure.ts):
 * the executor stores it like a node's `fail`, so no remote answer ever becomes a 500. What the tier itself
 * said (its host, status, the start of its answer, which may echo a key fragment) is `detail`, for the
 * deployment's log only: callers, history and webhooks read `failure.message`, a fixed text per code.
 */
export class RemoteTierError extends Error {
  override name = "RemoteTierError";
  constructor(
    readonly failure: TaskFailure,
    /** Worth calling again (429, 5xx, a timeout, a dropped connection) after a backoff. */
    readonly transient: boolean,
    /** What the tier said, for the log; never shown to a caller. */
    readonly detail = "",
  ) {
    super(failure.message);
  }
}

/** What a caller reads for each code a remote tier's own answer can give: fixed, naming no host. */
const CALLER_MESSAGES = {
  remote_unavailable: "remote recognition is unavailable now (the deployment's log has the details)",
  remote_refused:
    "the deployment's remote recognition tier refused the call (the deployment's log has the details)",
  media_unreadable: "the remote recognition tier could not read the audio",
  media_too_large: "the remote recognition tier refused the audio as too large",
  decoder_error:
    "the remote recognition tier failed while transcribing (the deployment's log has the details)",
} as const satisfies Partial<Record<TaskFailureCode, string>>;

/**
 * A failure the tier's answer (or its silence) caused: the caller's message is fixed for `code`, what
 * the tier said goes to `detail`.
 *
 * @example tierFailure("remote_refused", false, "api.example.com answered HTTP 401: …").failure.message
 */
export function tierFailure(
  code: keyof typeof CALLER_MESSAGES,
  transient: boolean,
  detail: string,
): RemoteTierError {
  return new RemoteTierError({ code, message: CALLER_MESSAGES[code] }, transient, detail);
}

/**
 * The failure an HTTP status of the remote tier means. 429 and 5xx (and 408) are transient: the call is
 * tried again with backoff and then the task's attempt is handed back (`remote_unavailable`, retryable). A
 * 413 is the media's size (`media_too_large`); any other 4xx is permanent: 400/415/422 say the endpoint
 * could not use the audio (`media_unreadable`), 401/403/404 and the rest are the deployment's own
 * configuration (`remote_refused`). Neither remote code reads as a 500: the sync API shows a 503.
 *
 * @example remoteStatusFailure(503, "whisper-server", "busy").transient // true
 */
export function remoteStatusFailure(status: number, tier: string, detail: string): RemoteTierError {
  const said = `${tier} answered HTTP ${status}${detail ? `: ${detail.slice(0, 300)}` : ""}`;
  if (status === 408 || status === 429 || status >= 500) return tierFailure("remote_unavailable", true, said);
  return tierFailure(permanentCode(status), false, said);
}

function permanentCode(status: number): "media_too_large" | "media_unreadable" | "remote_refused" {
  if (status === 413) return "media_too_large";
  if (status === 400 || status === 415 || status === 422) return "media_unreadable";
  return "remote_refused";
}

/** A call that got no answer: timed out, or the connection failed. Transient. */
export function remoteUnreachable(tier: string, cause: unknown, timeoutSec: number): RemoteTierError {
  const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
  const detail = timedOut
    ? `${tier} did not answer within ${timeoutSec} s`
    : `could not connect to ${tier}: ${String(cause).slice(0, 300)}`;
  return tierFailure("remote_unavailable", true, detail);
}

/** An answer the tier gave with success status but a body we cannot read: transient (a proxy's page, a cut body). */
export function remoteGarbled(tier: string, what: string): RemoteTierError {
  return tierFailure("remote_unavailable", true, `${tier} ${what}`);
}
