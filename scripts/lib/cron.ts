/**
 * `wrangler dev` does not fire the Worker's cron triggers by itself (it only prints how to). The local
 * platform fires them the way production does, once a minute, so the recovery sweep (old queued tasks
 * whose Queue message was lost: locally the Queue lives in memory and a restart drops its messages)
 * and the pruning of old Idempotency-Keys run on this machine too.
 */

/**
 * The route wrangler dev answers by running the Worker's `scheduled` handler, when started with
 * `--test-scheduled` (DevOptions.testScheduled). Its own /cdn-cgi/handler/scheduled fails with
 * [assets] configured (DataCloneError: the ScheduledController cannot cross to the Worker).
 */
export const SCHEDULED_PATH = "/__scheduled";

/**
 * Fires the scheduled handler of the wrangler dev at `baseUrl` (started with `testScheduled`) every `periodMs`. A tick while the Worker
 * is down is skipped (the next one catches up: the sweep looks at every old queued task).
 *
 * @example const cron = startCronTicker("http://127.0.0.1:8787"); ... cron.stop();
 */
export function startCronTicker(baseUrl: string, periodMs = 60_000): { stop: () => void } {
  const timer = setInterval(() => {
    fetch(new URL(SCHEDULED_PATH, baseUrl)).then(
      (response) => response.body?.cancel(),
      () => undefined,
    );
  }, periodMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
