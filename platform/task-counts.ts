import { and, eq, isNotNull, isNull, ne, notInArray, type SQL, sql } from "drizzle-orm";
import type { TaskStatus } from "../protocol/task.ts";
import type { db } from "./db.ts";
import { jobs, taskCounts } from "./schema.ts";

/**
 * The per-key task counters (schema.ts `task_counts`): statements for the D1 batch that changes the
 * row they count, so a counter and its rows never disagree. Each one reads the task's row as the
 * batch finds it (its owner, kind and status there), not as the caller last saw it.
 */

type Store = ReturnType<typeof db>;

/** Adds one to the counter of each row `where` selects, under `status` (the row's own by default). */
function countUp(store: Store, where: SQL | undefined, status?: TaskStatus) {
  return store
    .insert(taskCounts)
    .select(
      store
        .select({
          owner_key_id: sql<string>`${jobs.owner_key_id}`.as("owner_key_id"),
          kind: jobs.kind,
          status: status ? sql<TaskStatus>`${status}`.as("status") : jobs.status,
          n: sql<number>`1`.as("n"),
        })
        .from(jobs)
        .where(and(where, isNotNull(jobs.owner_key_id))),
    )
    .onConflictDoUpdate({
      target: [taskCounts.owner_key_id, taskCounts.kind, taskCounts.status],
      set: { n: sql`${taskCounts.n} + 1` },
    });
}

/** Takes one from the counter of the row `where` selects (under the status it has now). */
function countDown(store: Store, where: SQL | undefined) {
  return store
    .update(taskCounts)
    .set({ n: sql`${taskCounts.n} - 1` })
    .where(
      sql`(${taskCounts.owner_key_id}, ${taskCounts.kind}, ${taskCounts.status}) = (SELECT ${jobs.owner_key_id}, ${jobs.kind}, ${jobs.status} FROM ${jobs} WHERE ${where})`,
    );
}

/** Counts a task row just inserted (run after the insert, in its batch). */
export function countInserted(store: Store, taskId: string) {
  return countUp(store, eq(jobs.task_id, taskId));
}

/** Stops counting a live task row (run before its delete or its delete mark, in their batch). */
export function countRemoved(store: Store, taskId: string) {
  return countDown(store, and(eq(jobs.task_id, taskId), isNull(jobs.deleted_at)));
}

/**
 * Moves a task from the status its row has to `status`, when its row may still move (run before the
 * row's conditional update, in its batch, with the same conditions).
 */
export function countMoved(store: Store, taskId: string, status: TaskStatus) {
  const movable = and(
    eq(jobs.task_id, taskId),
    notInArray(jobs.status, ["done", "failed"]),
    isNull(jobs.deleted_at),
    ne(jobs.status, status),
  );
  return [countDown(store, movable), countUp(store, movable, status)] as const;
}
