/** How a retry loop waits: the first wait's ceiling, and the longest any wait may be. */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/** The lease poll after a failed call to the Worker: 0.5 s doubling to 15 s. */
export const LEASE_POLL_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 15_000 };
/** The live hub socket after it dropped: 0.5 s doubling to 10 s. */
export const HUB_LINK_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 10_000 };

/**
 * Exponential backoff with jitter, for every retry loop of the node. The ceiling doubles per failure
 * from `initialMs` to `maxMs`; each wait is drawn from the upper half of it ("equal jitter"), so nodes
 * that lost the Worker or the hub at the same moment come back spread out instead of together, and
 * no wait is ever shorter than half its ceiling (no tight loop against a service that is down).
 *
 * @example
 * const backoff = new Backoff(LEASE_POLL_BACKOFF);
 * backoff.next(); // 250..500
 * backoff.next(); // 500..1000
 * backoff.reset(); // after a success
 */
export class Backoff {
  #failures = 0;

  /** `random` returns a number in [0, 1) (Math.random); tests pass their own. */
  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** The wait before the next try, in whole milliseconds, counting one more failure. */
  next(): number {
    const ceiling = Math.min(this.policy.maxMs, this.policy.initialMs * 2 ** Math.min(this.#failures, 30));
    this.#failures++;
    const half = ceiling / 2;
    return Math.round(half + half * Math.min(Math.max(this.random(), 0), 1));
  }

  /** Starts over from `initialMs`: the call succeeded. */
  reset(): void {
    this.#failures = 0;
  }
}
