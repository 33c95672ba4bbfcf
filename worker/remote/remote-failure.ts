import type { TaskFailure } from "../../platform/task-store.ts";
import type { TaskFailureCode } from "../../protocol/task-failure.ts";

/**
 * A remote recognition tier's failure, already in the closed failure-code set (protocol/task-failure.ts):
 * the executor stores it like a node's `fail`, so no remote answer ever becomes a 500.
 */
export class RemoteTierError extends Error {
  override name = "RemoteTierError";
  constructor(
    readonly failure: TaskFailure,
    /** Worth calling again (429, 5xx, a timeout, a dropped connection) after a backoff. */
    readonly transient: boolean,
  ) {
    super(failure.message);
  }
}

/**
 * What the task's caller is told (its error, `/v1/audio/*`'s answer, its webhook) when a remote tier's
 * answer ends the call: fixed text per code. The endpoint's host, status and body go to the log only
 * (an upstream 401 quotes part of the deployment's key).
 */
export const REMOTE_FAILURE_MESSAGES = {
  remote_unavailable:
    "the remote recognition tier did not answer in time, could not be reached, was overloaded or answered something unusable",
  remote_refused:
    "the remote recognition tier refused the deployment's request (its key, model name or endpoint); the deployment's log has the detail",
  media_unreadable: "the remote recognition tier could not read the audio",
  media_too_large: "the remote recognition tier refused the audio as too large",
  decoder_error: "the remote recognition tier failed while recognising",
} as const satisfies Partial<Record<TaskFailureCode, string>>;

type RemoteAnswerCode = keyof typeof REMOTE_FAILURE_MESSAGES;

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
  const logged = { status, detail: detail.slice(0, 300) };
  if (status === 408 || status === 429 || status >= 500)
    return remoteAnswerFailure("remote_unavailable", true, tier, logged);
  return remoteAnswerFailure(permanentCode(status), false, tier, logged);
}

function permanentCode(status: number): RemoteAnswerCode {
  if (status === 413) return "media_too_large";
  if (status === 400 || status === 415 || status === 422) return "media_unreadable";
  return "remote_refused";
}

/** A call that got no answer: timed out, or the connection failed. Transient. */
export function remoteUnreachable(tier: string, cause: unknown, timeoutSec: number): RemoteTierError {
  const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
  const detail = timedOut ? `no answer within ${timeoutSec} s` : `could not connect: ${String(cause)}`;
  return remoteAnswerFailure("remote_unavailable", true, tier, { detail });
}

/** An answer the tier gave with success status but a body we cannot read: transient (a proxy's page, a cut body). */
export function remoteGarbled(tier: string, what: string): RemoteTierError {
  return remoteAnswerFailure("remote_unavailable", true, tier, { detail: what });
}

/**
 * The failure of a remote answer: the caller gets its code's fixed message, the log gets `logged`.
 *
 * @example remoteAnswerFailure("media_unreadable", false, "Workers AI", { detail: "AiError: 5006 …" })
 */
export function remoteAnswerFailure(
  code: RemoteAnswerCode,
  transient: boolean,
  tier: string,
  logged: { status?: number; detail: string },
): RemoteTierError {
  console.error(JSON.stringify({ remote_tier: tier, error_code: code, ...logged }));
  return new RemoteTierError({ code, message: REMOTE_FAILURE_MESSAGES[code] }, transient);
}
