import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client.ts";
import type { TaskStatusResponse } from "../api/types.ts";
import { processingRatioOf } from "./estimate.ts";

/** The spec's polling interval for GET /transcribe/{task_id}. */
export const POLL_MS = 1_200;

export interface TaskWatch {
  status: TaskStatusResponse | null;
  /** The last failed poll (the watch keeps trying unless the task is unknown). */
  error: unknown;
  /** performance.now() when the job was first seen processing; null before. */
  processingSince: number | null;
}

/**
 * Polls a task every 1.2 s until it is done or failed (or the task is unknown: 404), and stops when the
 * component goes away. A failed poll is kept as `error` and retried at the same pace.
 *
 * @example const { status, error } = useTask(taskId);
 */
export function useTask(taskId: string): TaskWatch {
  const [watch, setWatch] = useState<TaskWatch>({ status: null, error: null, processingSince: null });
  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let processingSince: number | null = null;
    setWatch({ status: null, error: null, processingSince: null });
    const poll = async () => {
      try {
        const status = await api.task(taskId, abort.signal);
        if (status.status === "processing" && processingSince === null) processingSince = performance.now();
        setWatch({ status, error: null, processingSince });
        if (status.status === "done" || status.status === "failed") return;
      } catch (error) {
        if (abort.signal.aborted) return;
        setWatch((previous) => ({ ...previous, error }));
        if ((error as { status?: number }).status === 404) return;
      }
      timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [taskId]);
  return watch;
}

let ratio: Promise<number | null> | null = null;

/** This key's recent processing ratio (see estimate.ts), read from history once per page load. */
export function recentProcessingRatio(): Promise<number | null> {
  ratio ??= api
    .history({ limit: 20, skip: 0, status: "done" })
    .then((page) => processingRatioOf(page.jobs.flatMap((job) => (job.result ? [job.result] : []))))
    .catch(() => null);
  return ratio;
}
