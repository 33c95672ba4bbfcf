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
  if (status === 408 || status === 429 || status >= 500) {
    return new RemoteTierError(
      { code: "remote_unavailable", message: `remote recognition unavailable: ${said}` },
      true,
    );
  }
  return new RemoteTierError(
    { code: permanentCode(status), message: `remote recognition refused the audio: ${said}` },
    false,
  );
}

function permanentCode(status: number): TaskFailureCode {
  if (status === 413) return "media_too_large";
  if (status === 400 || status === 415 || status === 422) return "media_unreadable";
  return "remote_refused";
}

/** A call that got no answer: timed out, or the connection failed. Transient. */
export function remoteUnreachable(tier: string, cause: unknown, timeoutSec: number): RemoteTierError {
  const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
  const message = timedOut
    ? `remote recognition timed out: ${tier} did not answer within ${timeoutSec} s`
    : `remote recognition unreachable: could not connect to ${tier}`;
  return new RemoteTierError({ code: "remote_unavailable", message }, true);
}

/** An answer the tier gave with success status but a body we cannot read: transient (a proxy's page, a cut body). */
export function remoteGarbled(tier: string, what: string): RemoteTierError {
  return new RemoteTierError(
    {
      code: "remote_unavailable",
      message: `remote recognition answered something unusable: ${tier} ${what}`,
    },
    true,
  );
}
