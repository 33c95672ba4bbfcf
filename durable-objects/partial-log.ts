/**
 * A streaming task's partial text as its JobState holds it: the windows a node reported, in `seq`
 * order, bounded, and the callers waiting for the next one.
 */
import type { PartialTranscript } from "../protocol/node.ts";
import type { TaskRecord } from "../protocol/task.ts";

/** Windows kept per task: a 4-hour file in 30 s windows is 480; a stream reads them as they come. */
const MAX_WINDOWS = 1_000;

/** What a streaming caller gets: new windows, and the record (ended: the stream's last answer). */
export type PartialUpdate = {
  partials: PartialTranscript[];
  record: TaskRecord | null;
};

export class PartialLog {
  readonly #windows: PartialTranscript[] = [];
  readonly #waiters = new Set<() => void>();

  append(report: PartialTranscript): void {
    if (this.#windows.length >= MAX_WINDOWS) return;
    if (this.#windows.some((window) => window.seq === report.seq)) return;
    this.#windows.push(report);
    this.#windows.sort((a, b) => a.seq - b.seq);
    this.wakeAll();
  }

  /** The windows after `seq`, in order. */
  after(seq: number): PartialTranscript[] {
    return this.#windows.filter((window) => window.seq > seq);
  }

  /** Resolves at the next append or end, or after `timeoutMs`. */
  wait(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, timeoutMs));
      this.#waiters.add(wake);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
