import { setTimeout as sleep } from "node:timers/promises";
import { type BackoffPolicy, backoffDelayMs } from "../protocol/backoff.ts";

/**
 * A task's outcome (its completion, or its failure) is the one report a node must not lose to a blip:
 * a completion that fails once is otherwise reported as the task's `internal_error`, and a transcription
 * that was already decoded, maybe for half an hour, is decoded again, its attempt spent. A Worker
 * redeployed mid-call, a Durable Object reset, a dropped connection and wrangler dev's ProxyWorker
 * ("Your worker restarted mid-request", a 503 for a POST whose connection to the Worker was lost) all
 * pass within seconds; the report is sent again, on a backoff, for as long as a lease lasts
 * (LEASE_TTL_SEC, 60 s by default): past that an unreported lease has expired, its task is queued
 * again and a late report is refused (410).
 *
 * Sending a report again is safe: the Worker ends the lease with the first one it takes, and answers a
 * repeat 410 (the node then drops it, lease-loop.ts).
 */

/** 0.25 s doubling to 4 s, drawn from the upper half: a node never hammers a Worker that is down. */
export const OUTCOME_RETRY_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 4_000, jitter: "equal" };
/** How long a report is tried: the default lease's lifetime, after which the report is refused anyway. */
export const OUTCOME_RETRY_MS = 60_000;

/**
 * Answers that say "not now" rather than "no": rate limited, and a gateway, proxy or Worker that could
 * not serve (the Worker answers 503 for a Durable Object's retryable or overloaded error). A 500 is an
 * unexpected error in the Worker's own code, and is not sent again.
 */
export function isTransientStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

export interface OutcomeDeliveryOptions {
  /** Ends the retries (not a call in flight, and never the first try): the lease is gone, or the node is stopping. */
  signal?: AbortSignal;
  /** How long the report is tried, from the first try (OUTCOME_RETRY_MS). */
  budgetMs?: number;
  /** Told of each transient failure and the wait before the next try (the node logs it). */
  onRetry?: (reason: string, waitMs: number) => void;
  /** A number in [0, 1) for the backoff's draw (Math.random); tests pass their own. */
  random?: () => number;
}

/**
 * Sends a report with `send` until the Worker answers something other than a transient failure, the
 * budget runs out or `signal` ends the retries. Resolves with the Worker's last answer (the caller
 * reads its status); rejects with the last network error when no answer came.
 *
 * @example
 * const response = await deliverOutcome(() => fetch(url, { method: "POST", body }), { signal });
 */
export async function deliverOutcome(
  send: () => Promise<Response>,
  options: OutcomeDeliveryOptions = {},
): Promise<Response> {
  const started = performance.now();
  const budgetMs = options.budgetMs ?? OUTCOME_RETRY_MS;
  for (let failures = 1; ; failures++) {
    // a transient answer is read whole (a line of text), which frees its connection for the next try
    let last: { status: number; text: string } | { error: unknown };
    try {
      const response = await send();
      if (!isTransientStatus(response.status)) return response;
      last = { status: response.status, text: await response.text().catch(() => "") };
    } catch (error) {
      last = { error };
    }
    const giveUp = () => {
      if ("status" in last) return new Response(last.text, { status: last.status });
      throw last.error;
    };
    const waitMs = backoffDelayMs(failures, OUTCOME_RETRY_BACKOFF, options.random);
    if (options.signal?.aborted || performance.now() - started + waitMs > budgetMs) return giveUp();
    options.onRetry?.("status" in last ? `HTTP ${last.status} ${last.text}` : String(last.error), waitMs);
    const waited = await sleep(waitMs, true, { signal: options.signal }).catch(() => false);
    if (!waited) return giveUp();
  }
}
