import { backoffDelayMs } from "../../protocol/backoff.ts";

/**
 * The decisions of a webhook delivery, as plain functions: what one attempt's outcome means, and when
 * the next attempt runs (exponential backoff with full jitter, within 24 h of the task's end).
 */

/**
 * How one attempt went: an HTTP answer (its status), no answer (timeout, refused connection, DNS),
 * not sent because the SSRF guard refuses the URL now, or not sent because the target host's circuit
 * breaker is open until `until` (worker/webhooks/breaker.ts).
 */
export type AttemptOutcome =
  | { kind: "answered"; status: number }
  | { kind: "no_answer"; error: string }
  | { kind: "blocked"; reason: string }
  | { kind: "deferred"; until: number; reason: string };

/** What an outcome means: delivered, worth retrying, or a refusal a retry would not change. */
export type AttemptVerdict = "delivered" | "retry" | "refused";

/**
 * 2xx delivers; no answer, 5xx and 429 are retried; every other status (3xx included: redirects are
 * not followed) is a refusal.
 *
 * @example classifyAttempt({ kind: "answered", status: 503 }) // "retry"
 */
export function classifyAttempt(outcome: AttemptOutcome): AttemptVerdict {
  if (outcome.kind === "no_answer" || outcome.kind === "deferred") return "retry";
  if (outcome.kind === "blocked") return "refused";
  const { status } = outcome;
  if (status >= 200 && status < 300) return "delivered";
  if (status >= 500 || status === 429) return "retry";
  return "refused";
}

/** Retries stop this long after the task ended. */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** No wait between attempts exceeds this (the Queue's own cap on a message delay is 12 h). */
export const WEBHOOK_MAX_DELAY_MS = 60 * 60 * 1000;

/**
 * The wait before attempt `attempt + 1`, after `attempt` attempts failed: a uniform draw ("full
 * jitter") below min(1 h, base × 2^(attempt-1)), at least a second (so a zero draw does not retry at
 * once).
 *
 * @example retryDelayMs(3, 10_000, () => 0.5) // 20_000 (half of 40 s)
 */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  return backoffDelayMs(
    attempt,
    { baseMs, maxMs: WEBHOOK_MAX_DELAY_MS, jitter: "full", floorMs: 1000 },
    random,
  );
}

/** A delivery's next state after an attempt. */
export type NextStep =
  | { status: "delivered" }
  | { status: "failed"; reason: string }
  | { status: "pending"; delayMs: number };

/**
 * Where a delivery goes after its `attempt`-th attempt: delivered, failed (refused, or the next try
 * would fall past 24 h after the task ended), or pending again after a backoff delay.
 *
 * @example nextStep({ kind: "answered", status: 400 }, { attempt: 1, endedAt: 0, now: 0, baseMs: 1000 }) // failed
 */
export function nextStep(
  outcome: AttemptOutcome,
  context: { attempt: number; endedAt: number; now: number; baseMs: number; random?: () => number },
): NextStep {
  const verdict = classifyAttempt(outcome);
  if (verdict === "delivered") return { status: "delivered" };
  const what = describeOutcome(outcome);
  if (verdict === "refused") return { status: "failed", reason: `refused with ${what} (not retried)` };
  const backoffMs = retryDelayMs(context.attempt, context.baseMs, context.random);
  // A deferred attempt counts as a failed one (its delivery keeps its own backoff), and waits at least
  // until the breaker lets its host be tried again.
  const delayMs = outcome.kind === "deferred" ? Math.max(backoffMs, outcome.until - context.now) : backoffMs;
  if (context.now + delayMs > context.endedAt + WEBHOOK_RETRY_WINDOW_MS) {
    return { status: "failed", reason: `gave up after ${context.attempt} attempts over 24 h: ${what}` };
  }
  return { status: "pending", delayMs };
}

/** An outcome in words, for `last_error` and the logs. */
export function describeOutcome(outcome: AttemptOutcome): string {
  switch (outcome.kind) {
    case "answered":
      return `HTTP ${outcome.status}`;
    case "no_answer":
      return outcome.error;
    case "blocked":
    case "deferred":
      return outcome.reason;
  }
}
