import { setTimeout as sleep } from "node:timers/promises";
import type { CompleteRequest, Lease, NodeHealth, PartialTranscript } from "../protocol/node.ts";
import type { TaskKind } from "../protocol/task.ts";
import { Backoff, LEASE_POLL_BACKOFF } from "./backoff.ts";
import type { Logger } from "./logger.ts";
import type { NodeHeartbeat, TaskReport } from "./node-heartbeat.ts";
import { guardAgainstStall, TaskStalledError } from "./stall-watch.ts";
import { toFailure } from "./task-failure.ts";
import { LeaseGoneError, type WorkerClient } from "./worker-client.ts";

/** What a task run returns: the completion to report. Throwing fails the task (toFailure gives the code). */
export type TaskRunner = (lease: Lease, context: TaskContext) => Promise<CompleteRequest>;

export interface TaskContext {
  /** Aborted when the lease is lost or the node stops. */
  signal: AbortSignal;
  /**
   * Reports progress 0..100 (never lowered), and optionally what the task is doing and the seconds it
   * expects to need; sent with the next heartbeat.
   */
  progress: (percent: number, detail?: { step?: string; etaSec?: number }) => void;
  /**
   * Sends what was decoded so far (a streaming task's windows, in order); never throws, never waits:
   * a report that fails is logged and the stream misses a delta, the result is unaffected.
   */
  partial: (segments: PartialTranscript["segments"]) => void;
  /**
   * A sign of life without a new percentage (bytes of media arriving). Like `progress` and `partial`,
   * it holds off the node's stall limit; a task silent for that long is stopped as `task_stalled`.
   */
  alive: () => void;
}

export interface LeaseLoopOptions {
  client: WorkerClient;
  health: () => NodeHealth;
  run: TaskRunner;
  /** The task kinds `run` serves; the Dispatcher offers only those. */
  kinds: TaskKind[];
  /** Tasks run at once on this node. */
  concurrency: number;
  /** The node's one heartbeat, shared by its lease loops. */
  heartbeat: NodeHeartbeat;
  logger: Logger;
  /** Long-poll wait per lease call. */
  pollWaitMs?: number;
  /** A task silent this long (no progress, partial or sign of life) is stopped (VOXEDGE_TASK_STALL_SEC). */
  stallMs: number;
  /**
   * How long a stopped stalled task gets to return. Work that ignores its signal (a native call stuck
   * in a loop) is failed then, and its slot stays retired until the work does return.
   */
  stallGraceMs?: number;
  /**
   * Called once when every slot is retired by work that ignored its stop: the loop can take no task
   * until that work returns, which may be never, so the node restarts (main.ts).
   */
  onSlotsExhausted?: () => void;
}

/**
 * The Worker cancelled the task (its synchronous caller went away, or its owner deleted it): stop and
 * report nothing.
 */
export class TaskCancelledError extends Error {
  constructor(taskId: string) {
    super(`task ${taskId} was cancelled by its caller`);
    this.name = "TaskCancelledError";
  }
}

interface Running {
  abort: AbortController;
  /** Settles once the task no longer holds a slot: its work is over and only its report may be left. */
  freed: Promise<void>;
  released: boolean;
  /** Stalled and did not stop: its outcome is reported, its slot is freed only when its work returns. */
  retired: boolean;
  /** Settles once the task's outcome is reported (or needs no report). */
  done: Promise<void>;
}

/**
 * Pulls leases while it has capacity, runs each task with the node's heartbeat extending its lease, and
 * reports the outcome. `drain` stops taking work, lets running tasks finish for a grace period, then
 * hands the rest back so another node picks them up at once.
 */
export class LeaseLoop {
  private readonly running = new Map<string, Running>();
  private readonly stopPolling = new AbortController();
  /** Settles when a drain begins: a slot retired for good must not keep the loop waiting. */
  private readonly drainStarted = new Promise<void>((resolve) =>
    this.stopPolling.signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  /** Ends outcome reports' retries: aborted once a drain's grace is over (transient-retry.ts). */
  private readonly stopReporting = new AbortController();
  private stopping = false;
  private exhaustionReported = false;
  private loop: Promise<void> | null = null;

  constructor(private readonly options: LeaseLoopOptions) {}

  start(): void {
    this.loop ??= this.pollForever();
  }

  /** Tasks not ended yet: running, or reporting their outcome. */
  get activeTasks(): number {
    return this.running.size;
  }

  /** Tasks holding a slot; a task reporting its outcome has given its slot back. */
  private slotHolders(): Running[] {
    return [...this.running.values()].filter((task) => !task.released);
  }

  private async pollForever(): Promise<void> {
    const { client, logger } = this.options;
    const backoff = new Backoff(LEASE_POLL_BACKOFF);
    while (!this.stopping) {
      const holders = this.slotHolders();
      const capacity = this.options.concurrency - holders.length;
      if (capacity <= 0) {
        await Promise.race([...holders.map((r) => r.freed), this.drainStarted]);
        continue;
      }
      try {
        const leases = await client.lease(
          this.options.health(),
          capacity,
          this.options.kinds,
          this.options.pollWaitMs ?? 20_000,
          this.stopPolling.signal,
        );
        backoff.reset();
        for (const lease of leases) this.startTask(lease);
      } catch (error) {
        if (this.stopping) break;
        const retryMs = backoff.next();
        logger.warn({ err: String(error), retry_ms: retryMs }, "lease poll failed");
        // A drain cuts the wait short: a node whose Worker is down still stops at once.
        await sleep(retryMs, undefined, { signal: this.stopPolling.signal }).catch(() => undefined);
      }
    }
  }

  private startTask(lease: Lease): void {
    const abort = new AbortController();
    let free = () => {};
    const freed = new Promise<void>((resolve) => {
      free = resolve;
    });
    const task: Running = { abort, freed, released: false, retired: false, done: Promise.resolve() };
    const releaseSlot = () => {
      task.released = true;
      free();
    };
    task.done = this.runTask(lease, task, releaseSlot).finally(() => {
      if (!task.retired) releaseSlot();
    });
    void Promise.all([task.done, freed]).then(() => this.running.delete(lease.lease_id));
    this.running.set(lease.lease_id, task);
  }

  /**
   * `releaseSlot`: called once the task's work is done, before its outcome is reported, so the next
   * lease is asked for while the completion travels (the Worker's writes overlap the next task's
   * hand-off). The report uses no decode resources; the lease stays tracked until it is sent.
   */
  private async runTask(lease: Lease, task: Running, releaseSlot: () => void): Promise<void> {
    const { client, logger } = this.options;
    const { abort } = task;
    const log = logger.child({ task_id: lease.task_id, lease_id: lease.lease_id, attempt: lease.attempt });
    const report: TaskReport = { progress: 0 };
    const untrack = this.options.heartbeat.track(lease.lease_id, {
      report: () => report,
      // The task already ended as failed on the Worker; aborting stops the decode.
      onCancel: () => {
        if (abort.signal.aborted) return;
        log.info("task cancelled (caller gone or task deleted); stopping it");
        abort.abort(new TaskCancelledError(lease.task_id));
      },
      onGone: () => {
        if (abort.signal.aborted) return;
        log.warn("lease lost; stopping the task");
        abort.abort(new LeaseGoneError(lease.lease_id));
      },
    });
    const started = Date.now();
    log.info({ kind: lease.kind }, "task started");
    // partial reports go out one after another, in window order
    let partials: Promise<void> = Promise.resolve();
    let seq = 0;
    const stall = guardAgainstStall({
      stallMs: this.options.stallMs,
      graceMs: this.options.stallGraceMs,
      report,
      abort,
      log,
    });
    let outcome: Promise<CompleteRequest> | undefined;
    try {
      outcome = this.options.run(lease, {
        signal: abort.signal,
        progress: (percent, detail) => {
          stall.alive();
          report.progress = Math.max(report.progress, Math.min(100, percent));
          if (detail?.step) report.step = detail.step;
          if (detail?.etaSec !== undefined)
            report.estimated_time_sec = Math.max(0, Math.round(detail.etaSec));
        },
        partial: (segments) => {
          stall.alive();
          const body = { seq: seq++, segments };
          partials = partials
            .then(() => client.partial(lease.lease_id, body))
            .catch((error: unknown) => log.warn({ err: String(error) }, "partial report failed"));
        },
        alive: stall.alive,
      });
      const result = await Promise.race([outcome, stall.givenUp]);
      stall.stop();
      releaseSlot();
      if (abort.signal.reason instanceof TaskCancelledError) {
        log.info("task was cancelled as it finished; result dropped");
        return;
      }
      // stopped for its stall but returned before its grace ran out: the work was cut short
      if (abort.signal.reason instanceof TaskStalledError) throw abort.signal.reason;
      await client.complete(lease.lease_id, result, {
        // a lease lost or cancelled while its report is retried refuses the report anyway
        signal: AbortSignal.any([abort.signal, this.stopReporting.signal]),
        onRetry: (reason, waitMs) =>
          log.warn({ err: reason, retry_ms: waitMs }, "completion not taken; sending it again"),
      });
      log.info({ ms: Date.now() - started }, "task done");
    } catch (error) {
      // work given up on still holds its thread: its slot is freed only when that work returns
      task.retired = stall.givenUpOn();
      if (task.retired) {
        void outcome?.then(releaseSlot, releaseSlot);
        this.reportIfExhausted();
      }
      await this.reportFailure(lease, abort, error, log);
    } finally {
      stall.stop();
      untrack();
    }
  }

  private reportIfExhausted(): void {
    const retired = this.slotHolders().filter((task) => task.retired).length;
    if (retired < this.options.concurrency || this.exhaustionReported) return;
    this.exhaustionReported = true;
    this.options.logger.error({ retired }, "every slot is held by work that did not stop");
    this.options.onSlotsExhausted?.();
  }

  private async reportFailure(
    lease: Lease,
    abort: AbortController,
    error: unknown,
    log: Logger,
  ): Promise<void> {
    if (abort.signal.reason instanceof LeaseGoneError || error instanceof LeaseGoneError) return;
    if (abort.signal.reason instanceof TaskCancelledError) {
      log.info("cancelled task stopped");
      return;
    }
    const stalled = abort.signal.reason instanceof TaskStalledError ? abort.signal.reason : null;
    const handedBack = this.stopping && abort.signal.aborted && !stalled;
    // given up on, the error is the stall's own (it says the work did not stop)
    const failure = stalled
      ? toFailure(error instanceof TaskStalledError ? error : stalled)
      : handedBack
        ? { code: "node_shutdown" as const, message: "inference node shut down; task handed back" }
        : toFailure(error);
    log.warn({ err: failure.message, code: failure.code }, "task failed");
    try {
      await this.options.client.fail(lease.lease_id, failure, {
        // the task's own signal is often aborted by now (a stall, a shutdown): only a drain ends these retries
        signal: this.stopReporting.signal,
        onRetry: (reason, waitMs) =>
          log.warn({ err: reason, retry_ms: waitMs }, "failure not taken; sending it again"),
      });
    } catch (reportError) {
      // The lease will expire and the task will be retried: nothing is lost.
      log.error({ err: String(reportError) }, "could not report the failure");
    }
  }

  /** Stops taking work; waits up to `graceMs` for running tasks, then hands the rest back. */
  async drain(graceMs: number): Promise<void> {
    this.stopping = true;
    this.stopPolling.abort();
    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    const timer = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([all(), timer]);
    for (const task of this.running.values()) task.abort.abort(new Error("shutting down"));
    // a report still being retried gets one more try, no more waits: the node is going
    this.stopReporting.abort();
    await all();
    await this.loop;
  }
}
