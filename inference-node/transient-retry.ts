import { setTimeout as sleep } from "node:timers/promises";
import { Backoff, TRANSIENT_RETRY_BACKOFF } from "./backoff.ts";

/**
 * A call to the Worker that may safely be sent twice (a task's outcome, a heartbeat), sent again while
 * the answer says "not now" rather than "no". A Worker redeployed mid-call, a Durable Object reset, a
 * dropped connection and wrangler dev's ProxyWorker (which answers 503 "Your worker restarted
 * mid-request" for a POST whose connection to the Worker it lost: measured under `npm start`, 6 of 21
 * node heartbeats that crossed a completion, none of 19 sent straight to the Worker's own port) all
 * pass within a second or two.
 */

/**
 * Rate limited, and a gateway, proxy or Worker that could not serve (the Worker answers 503 for a
 * Durable Object's retryable or overloaded error, worker/error-envelope.ts). A 500 is an unexpected
 * error in the Worker's own code, and is not sent again.
 */
function isTransientStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

export interface RetryOptions {
  /** How long the call is tried, from its first try. */
  budgetMs: number;
  /** Ends the retries (never the first try, nor a try in flight): the lease is gone, or the node is stopping. */
  signal?: AbortSignal;
  /** Told of each transient failure and the wait before the next try (the caller logs it). */
  onRetry?: (reason: string, waitMs: number) => void;
  /** A number in [0, 1) for the backoff's draw (Math.random); tests pass their own. */
  random?: () => number;
}

/**
 * Sends with `send` until the Worker answers something other than a transient failure, the budget
 * runs out or `signal` ends the retries. Resolves with the Worker's last answer (the caller reads its
 * status); rejects with the last network error when no answer came.
 *
 * @example
 * const response = await sendWhileTransient(() => fetch(url, { method: "POST", body }), { budgetMs: 60_000 });
 */
export async function sendWhileTransient(
  send: () => Promise<Response>,
  options: RetryOptions,
): Promise<Response> {
  const started = performance.now();
  // equal jitter: a node never hammers a Worker that is down
  const backoff = new Backoff(TRANSIENT_RETRY_BACKOFF, options.random);
  for (;;) {
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
    const waitMs = backoff.next();
    if (options.signal?.aborted || performance.now() - started + waitMs > options.budgetMs) return giveUp();
    options.onRetry?.("status" in last ? `HTTP ${last.status} ${last.text}` : String(last.error), waitMs);
    const waited = await sleep(waitMs, true, { signal: options.signal }).catch(() => false);
    if (!waited) return giveUp();
  }
}
