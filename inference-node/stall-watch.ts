import type { Logger } from "./logger.ts";
import type { TaskReport } from "./node-heartbeat.ts";
import { TaskFailureError } from "./task-failure.ts";

/**
 * The task showed no sign of life for the node's stall limit, so the node stopped it. The heartbeat
 * extends a lease for as long as its node lives, so without this bound a decode, an ffmpeg or an
 * espeak-ng child that hangs would keep its task `processing` and its slot taken forever.
 */
export class TaskStalledError extends TaskFailureError {
  override name = "TaskStalledError";
  constructor(message: string) {
    super("task_stalled", message);
  }
}

/** What a stalled task's failure says: how long it was silent, and where it stood. */
function stalledMessage(stallMs: number, report: TaskReport): string {
  const where = [`at ${Math.round(report.progress)} %`, report.step].filter(Boolean).join(", ");
  return `the task made no progress for ${stallMs / 1000} s (${where}); its node stopped it`;
}

interface StallWatch {
  /** A sign of life: a progress report, a partial result, bytes of media arriving. */
  alive: () => void;
  stop: () => void;
}

/**
 * Calls `onStall` once when `alive` has not been called for `stallMs`. `alive` only stamps the time
 * (a download calls it per chunk); one timer checks the stamp when the bound can first have passed.
 *
 * @example const watch = watchForStall(900_000, () => abort.abort(new TaskStalledError("...")));
 */
function watchForStall(stallMs: number, onStall: () => void): StallWatch {
  let lastAlive = performance.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const check = () => {
    const silentMs = performance.now() - lastAlive;
    timer = silentMs >= stallMs ? null : setTimeout(check, stallMs - silentMs);
    if (!timer) onStall();
  };
  timer = setTimeout(check, stallMs);
  return {
    alive: () => {
      lastAlive = performance.now();
    },
    stop: () => {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/** What a stalled task that ignores its stop is given before its failure is reported without it. */
const STALL_GRACE_MS = 30_000;

export interface StallGuard {
  alive: () => void;
  /** Rejects with the stall's error when the task's work did not stop within the grace. */
  givenUp: Promise<never>;
  /** Whether the task was given up on: its work may still hold its thread. */
  givenUpOn: () => boolean;
  stop: () => void;
}

/**
 * Guards one leased task: silent for `stallMs`, it is aborted with `task_stalled`; work still running
 * `graceMs` later (a native call that ignores its signal) is given up on, so its failure can be
 * reported without waiting for it.
 *
 * @example const stall = guardAgainstStall({ stallMs, report, abort, log }); await Promise.race([work, stall.givenUp]);
 */
export function guardAgainstStall(options: {
  stallMs: number;
  graceMs?: number;
  report: TaskReport;
  abort: AbortController;
  log: Logger;
}): StallGuard {
  const { stallMs, graceMs = STALL_GRACE_MS, report, abort, log } = options;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  let givenUpOn = false;
  let giveUp: (error: TaskStalledError) => void = () => {};
  const givenUp = new Promise<never>((_resolve, reject) => {
    giveUp = reject;
  });
  // read only through the caller's race, which may be over before the grace runs out
  givenUp.catch(() => undefined);
  const watch = watchForStall(stallMs, () => {
    const message = stalledMessage(stallMs, report);
    log.error(
      { stall_ms: stallMs, progress: report.progress, step: report.step },
      "task stalled; stopping it",
    );
    abort.abort(new TaskStalledError(message));
    graceTimer = setTimeout(() => {
      givenUpOn = true;
      log.error(
        { grace_ms: graceMs },
        "stalled task did not stop; its failure is reported and its slot retired until it returns",
      );
      giveUp(
        new TaskStalledError(
          `${message}; it did not stop within ${graceMs / 1000} s, and the node's slot stays retired until it does`,
        ),
      );
    }, graceMs);
  });
  return {
    alive: watch.alive,
    givenUp,
    givenUpOn: () => givenUpOn,
    stop: () => {
      watch.stop();
      clearTimeout(graceTimer);
    },
  };
}
