import { DurableObject } from "cloudflare:workers";
import { workerConfig } from "../platform/config.ts";
import { dispatcherOfTask } from "../platform/stubs.ts";
import type { ProgressReport } from "../platform/task-store.ts";
import type { WebhookState } from "../platform/webhook-store.ts";
import type { PartialTranscript } from "../protocol/node.ts";
import type { QueueStats, TaskRecord } from "../protocol/task.ts";
import type { TranscriptionDetail } from "../protocol/transcription-detail.ts";
import { PartialLog, type PartialUpdate } from "./partial-log.ts";

const RECORD_KEY = "record";
const DETAIL_KEY = "detail";
/** The task's webhook as views show it; null: created without one; absent: not known here. */
const WEBHOOK_KEY = "webhook";
/** Set when the task was deleted: the entry then refuses every write until its alarm clears it. */
const ERASED_KEY = "erased";
/** How long a live task's place in line is reused before the Dispatcher is asked again. */
const QUEUE_SNAPSHOT_MS = 1000;

/**
 * A record as a poll reads it, with the task's place in line while it waits or runs and its webhook's
 * state (undefined when this entry does not know it: the reader asks D1).
 */
export type PolledTask = TaskRecord & { queue: QueueStats | null; webhook: WebhookState | null | undefined };

const ended = (record: TaskRecord) => record.status === "done" || record.status === "failed";

/**
 * The fast job store: one object per task holding its current record. Every write pushes the expiry
 * out to JOB_TTL_SEC from now; when the alarm fires the entry is gone and reads fall back to D1.
 * Synchronous callers wait here for the task to end (`waitForEnd`): the write that stores the final
 * status wakes them, so no one polls.
 */
export class JobState extends DurableObject<Env> {
  /** Callers waiting for the task to end; in memory only (a restarted object drops them, they re-ask). */
  private readonly waiters = new Set<(record: TaskRecord | null) => void>();
  /** The task's place in line as last read from the Dispatcher (memory only; dropped on a status change). */
  private queue: { stats: QueueStats; at: number } | null = null;
  /** What a streaming task decoded so far, and the streams waiting for more (memory only: see `appendPartial`). */
  private readonly partials = new PartialLog();

  /** The stored record, or null when none was written or it expired. */
  async read(): Promise<TaskRecord | null> {
    return (await this.ctx.storage.get<TaskRecord>(RECORD_KEY)) ?? null;
  }

  /** Stores a new task's record and its webhook's first state (null: it has none). */
  async create(record: TaskRecord, webhook: WebhookState | null): Promise<void> {
    if (await this.isErased()) return;
    await this.ctx.storage.put(WEBHOOK_KEY, webhook);
    await this.write(record);
  }

  /**
   * Replaces the record and restarts its time to live; a final status wakes every waiter. A record
   * that has ended is kept: two status writes that passed D1 in one order may arrive here in the
   * other, and the task's end must win (D1 never lets an ended task move again). Answers whether the
   * task has a webhook (null when this entry no longer knows: it expired meanwhile).
   */
  async write(record: TaskRecord): Promise<{ hasWebhook: boolean | null }> {
    const webhook = await this.ctx.storage.get<WebhookState | null>(WEBHOOK_KEY);
    const hasWebhook = webhook === undefined ? null : webhook !== null;
    if (await this.isErased()) return { hasWebhook };
    const stored = await this.read();
    if (stored && ended(stored)) return { hasWebhook };
    // A status change moves the task in (or out of) the line: the next poll asks afresh.
    this.queue = null;
    await this.ctx.storage.put(RECORD_KEY, record);
    await this.ctx.storage.setAlarm(Date.now() + workerConfig(this.env).jobTtlMs);
    if (ended(record)) {
      for (const wake of this.waiters) wake(record);
      this.waiters.clear();
      this.partials.wakeAll();
    }
    return { hasWebhook };
  }

  /** The record and its webhook's state (undefined: not known here), for views without a place in line. */
  async readWithWebhook(): Promise<PolledTask | null> {
    const record = await this.read();
    if (!record) return null;
    return { ...record, queue: null, webhook: await this.ctx.storage.get<WebhookState | null>(WEBHOOK_KEY) };
  }

  /** Keeps the webhook's latest state for polls, while the entry lives (never recreates one). */
  async setWebhookState(state: WebhookState): Promise<void> {
    if ((await this.ctx.storage.get(WEBHOOK_KEY)) === undefined) return;
    await this.ctx.storage.put(WEBHOOK_KEY, state);
  }

  /**
   * Resolves with the record once the task is done or failed, or with the record as it stands after
   * `timeoutMs` (still queued or processing); null when there is no record (or it is erased meanwhile:
   * the task was deleted). Answers at once when the task has already ended.
   *
   * @example const record = await jobState.waitForEnd(540_000); if (record?.status === "done") ...
   */
  async waitForEnd(timeoutMs: number): Promise<TaskRecord | null> {
    const current = await this.read();
    if (!current || ended(current)) return current;
    return new Promise((resolve) => {
      const wake = (record: TaskRecord | null) => {
        clearTimeout(timer);
        resolve(record);
      };
      const timer = setTimeout(
        () => {
          this.waiters.delete(wake);
          this.read().then(resolve, () => resolve(current));
        },
        Math.max(0, timeoutMs),
      );
      this.waiters.add(wake);
    });
  }

  /**
   * What a poll shows: the record and, while the task waits or runs, its place in line. Many clients
   * polling one task ask the Dispatcher (one object for the deployment) at most once a second between
   * them, and a poll is one call from the Worker.
   *
   * @example const polled = await jobState.poll(); polled?.queue?.position
   */
  async poll(): Promise<PolledTask | null> {
    const record = await this.read();
    if (!record) return null;
    const webhook = await this.ctx.storage.get<WebhookState | null>(WEBHOOK_KEY);
    if (ended(record)) return { ...record, queue: null, webhook };
    const now = Date.now();
    if (!this.queue || now - this.queue.at > QUEUE_SNAPSHOT_MS) {
      this.queue = { stats: await dispatcherOfTask(this.env, record).stats(record.task_id), at: now };
    }
    return { ...record, queue: this.queue.stats, webhook };
  }

  /**
   * Keeps one window of a streaming task's partial text for the caller streaming it. Memory only: the
   * stream is a live view of a task whose result is the authority (a restart of this object costs the
   * stream deltas, never the transcript), and a repeated `seq` (a retried report) is kept once.
   */
  async appendPartial(report: PartialTranscript): Promise<void> {
    const record = await this.read();
    if (!record || ended(record)) return;
    this.partials.append(report);
  }

  /**
   * The partial windows after `afterSeq`, as soon as there are any, or the record once the task ended,
   * or nothing new after `timeoutMs`.
   */
  async waitForPartials(afterSeq: number, timeoutMs: number): Promise<PartialUpdate> {
    const current = await this.read();
    const fresh = this.partials.after(afterSeq);
    if (!current || ended(current) || fresh.length > 0) return { partials: fresh, record: current };
    await this.partials.wait(timeoutMs);
    return { partials: this.partials.after(afterSeq), record: await this.read() };
  }

  /** Keeps the decoder detail of an interactive task beside its record (same lifetime, never in D1). */
  async writeDetail(detail: TranscriptionDetail): Promise<void> {
    if (await this.isErased()) return;
    await this.ctx.storage.put(DETAIL_KEY, detail);
  }

  /**
   * Forgets the task (its owner deleted it): record and detail go, and a marker stays until the alarm
   * (JOB_TTL_SEC), so a write that passed D1 before the delete but arrives after it cannot bring the
   * record back. A synchronous caller still waiting is woken with no record.
   */
  async erase(): Promise<void> {
    await this.ctx.storage.deleteAll();
    await this.ctx.storage.put(ERASED_KEY, true);
    await this.ctx.storage.setAlarm(Date.now() + workerConfig(this.env).jobTtlMs);
    this.queue = null;
    for (const wake of this.waiters) wake(null);
    this.waiters.clear();
    this.partials.wakeAll();
  }

  private async isErased(): Promise<boolean> {
    return (await this.ctx.storage.get<boolean>(ERASED_KEY)) === true;
  }

  async readDetail(): Promise<TranscriptionDetail | null> {
    return (await this.ctx.storage.get<TranscriptionDetail>(DETAIL_KEY)) ?? null;
  }

  /**
   * Updates a running task's progress (never lowered: a retried attempt starts where the last one
   * got to in the client's eyes), step and estimate. Not a status change, so neither updated_at nor
   * the expiry moves.
   */
  async setProgress(report: ProgressReport): Promise<void> {
    const record = await this.read();
    if (record && record.status === "processing") {
      await this.ctx.storage.put(RECORD_KEY, {
        ...record,
        progress: Math.max(record.progress, report.progress),
        step: report.step ?? record.step,
        eta_sec: report.etaSec ?? record.eta_sec,
      });
    }
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
