import { type BackoffPolicy, backoffDelayMs } from "../protocol/backoff.ts";

/** The lease poll after a failed call to the Worker: 0.5 s doubling to 15 s. */
export const LEASE_POLL_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 15_000, jitter: "equal" };
/** The live hub socket after it dropped: 0.5 s doubling to 10 s. */
export const HUB_LINK_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 10_000, jitter: "equal" };
/** A call the Worker did not take ("not now", transient-retry.ts): 0.25 s doubling to 4 s. */
export const TRANSIENT_RETRY_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 4_000, jitter: "equal" };

/**
 * The failure count of one retry loop of the node, over protocol/backoff.ts. The node's policies use
 * equal jitter: nodes that lost the Worker or the hub at the same moment come back spread out instead
 * of together, and no wait is ever shorter than half its ceiling (no tight loop against a service
 * that is down).
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
    this.#failures++;
    return backoffDelayMs(this.#failures, this.policy, this.random);
  }

  /** Starts over from the policy's base: the call succeeded. */
  reset(): void {
    this.#failures = 0;
  }
}
