/**
 * Exponential backoff, the one computation every retry loop of the platform uses (inference node,
 * remote tier executor, task webhooks, the local supervisor): a ceiling that doubles per failure from
 * `baseMs` up to `maxMs`, and a wait drawn under it. Pure: the caller counts failures and supplies the
 * random draw (tests pass their own).
 */

/**
 * How a wait is drawn under its ceiling: `none` waits the ceiling itself; `equal` draws from its upper
 * half (spread out, never a tight loop); `full` draws anywhere below it (spread out the most, for
 * many independent senders such as webhook deliveries).
 */
export type Jitter = "none" | "equal" | "full";

export interface BackoffPolicy {
  /** The first failure's ceiling. */
  baseMs: number;
  /** No ceiling exceeds this. */
  maxMs: number;
  jitter: Jitter;
  /** No wait is shorter than this (a zero draw of full jitter must not retry at once). */
  floorMs?: number;
}

/** Doublings past this change nothing a real cap allows and would overflow to Infinity. */
const MAX_DOUBLINGS = 30;

/**
 * The ceiling after `failures` failures (the first is 1): min(maxMs, baseMs × 2^(failures−1)).
 *
 * @example backoffCeilingMs(3, { baseMs: 1000, maxMs: 15_000, jitter: "none" }) // 4000
 */
export function backoffCeilingMs(failures: number, policy: BackoffPolicy): number {
  const doublings = Math.min(Math.max(0, failures - 1), MAX_DOUBLINGS);
  return Math.min(policy.maxMs, policy.baseMs * 2 ** doublings);
}

/**
 * The wait after `failures` failures, in whole milliseconds: the ceiling drawn per `jitter` with
 * `random` (a number in [0, 1); values outside are clamped), at least `floorMs`.
 *
 * @example backoffDelayMs(2, { baseMs: 500, maxMs: 15_000, jitter: "equal" }, () => 0) // 500
 */
export function backoffDelayMs(
  failures: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = backoffCeilingMs(failures, policy);
  const draw = Math.min(Math.max(random(), 0), 1);
  const wait =
    policy.jitter === "none"
      ? ceiling
      : policy.jitter === "equal"
        ? Math.round(ceiling / 2 + (ceiling / 2) * draw)
        : Math.floor(ceiling * draw);
  return Math.max(policy.floorMs ?? 0, wait);
}
