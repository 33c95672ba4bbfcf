import { useEffect, useState } from "preact/hooks";
import { contentApi } from "../api/client.ts";
import type { ContentTaskResult } from "../api/types.ts";
import { isTerminal } from "./task-view.ts";

/** The content spec's polling pace: every 3 to 5 seconds. */
export const CONTENT_POLL_MS = 3_000;

export interface ContentTaskWatch {
  result: ContentTaskResult | null;
  /** The last failed poll; polling goes on unless the task is unknown (404). */
  error: unknown;
}

/**
 * Polls GET /v1/create/tasks/{id}/result every 3 s until the task succeeds or fails (or is unknown),
 * and stops when the component goes away. A failed poll is not a failed task: it is kept as `error`
 * and the next poll tries again.
 *
 * @example const { result, error } = useContentTask(taskId);
 */
export function useContentTask(taskId: string): ContentTaskWatch {
  const [watch, setWatch] = useState<ContentTaskWatch>({ result: null, error: null });
  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const result = await contentApi.task(taskId, abort.signal);
        setWatch({ result, error: null });
        if (isTerminal(result)) return;
      } catch (error) {
        if (abort.signal.aborted) return;
        setWatch((previous) => ({ ...previous, error }));
        if ((error as { status?: number }).status === 404) return;
      }
      timer = setTimeout(poll, CONTENT_POLL_MS);
    };
    void poll();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [taskId]);
  return watch;
}
