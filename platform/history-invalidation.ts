import type { TaskKind } from "../protocol/task.ts";
import { historyCache } from "./stubs.ts";

/** The kinds a history page lists (GET /history is the transcriptions' list). */
const HISTORY_KINDS: readonly TaskKind[] = ["transcribe"];

/**
 * Drops the task's owner's cached newest history page (durable-objects/history/history-cache.ts).
 * Called after every D1 write that changes what a history page shows (a task created or withdrawn, a
 * status change, a delete's mark), before that write's caller gets its answer.
 */
export async function invalidateHistory(
  env: Env,
  task: { owner_key_id: string | null; kind: TaskKind },
): Promise<void> {
  if (task.owner_key_id === null || !HISTORY_KINDS.includes(task.kind)) return;
  await historyCache(env, task.owner_key_id).invalidate();
}
