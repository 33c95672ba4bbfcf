import { workerConfig } from "../../platform/config.ts";
import { changeTaskStatus, failUnlessEnded } from "../../platform/task-store.ts";
import { CANCELLED_FAILURE } from "../../protocol/task-failure.ts";
import type { FairQueue } from "./fair-queue.ts";
import type { LeaseRow, LeaseTable } from "./lease-table.ts";

/** A Dispatcher's line and leases, which a task's return moves it between. */
export interface DispatchTables {
  queue: FairQueue;
  leases: LeaseTable;
}

/** How a node ends its lease (see the Dispatcher's `release`). */
export type LeaseOutcome = "finished" | "requeue" | "unused";

/**
 * Ends a lease as its node says. `finished`: the task reached done or failed (its stores are already
 * written). `requeue`: the task goes back to its old place in line for another attempt. `unused`: the
 * grant never reached a node (it had its fill from another scheduler): back in place, the attempt not counted.
 */
export function endLease({ queue, leases }: DispatchTables, lease: LeaseRow, outcome: LeaseOutcome): void {
  leases.delete(lease);
  queue.runningChanged(lease.owner);
  if (outcome === "finished") leases.markFinished(lease.task_id, Date.now());
  else if (outcome === "unused") queue.push({ ...lease, attempts: lease.attempts - 1 }, lease.seq);
  else queue.push(lease, lease.seq);
}

/**
 * Cancels a task (its synchronous caller went away; a client deleted it): the whole cancel happens
 * in its Dispatcher, so the order of its steps is one object's. True when the task was failed
 * `cancelled` now, false when it had already ended.
 *
 * A leased task's lease is flagged **before** the stores are written: every reader of a flagged lease
 * fails the task itself (the node's next heartbeat or call, the lease's expiry), so a crash after the
 * flag still ends the task, and whoever sees the task failed finds its node already being told. A
 * waiting task leaves the line **after** the stores: a crash in between leaves a failed task in line,
 * which the lease that takes it drops. The task may be handed over or leased while the stores are
 * written; both are looked at again afterwards. It then counts as finished, so a late hand-off is ignored.
 */
export async function cancelTask(
  env: Env,
  { queue, leases }: DispatchTables,
  taskId: string,
): Promise<boolean> {
  flagLease(leases, taskId);
  const failedNow = await failUnlessEnded(env, taskId, CANCELLED_FAILURE);
  queue.remove(taskId);
  if (!flagLease(leases, taskId)) leases.markFinished(taskId, Date.now());
  return failedNow;
}

/** Marks the lease holding a task cancelled; false when no lease holds it. */
function flagLease(leases: LeaseTable, taskId: string): boolean {
  const lease = leases.byTask(taskId);
  if (lease) leases.cancel(lease.lease_id);
  return lease !== null;
}

/**
 * Takes back an expired lease: another attempt, or failure once the attempts are spent. A lease can
 * outlive its task (the node's result was stored, then the release was lost to a crash): such a task
 * has ended and is only forgotten here, never run again.
 */
export async function takeBack(
  env: Env,
  { queue, leases }: DispatchTables,
  lease: LeaseRow,
  now: number,
): Promise<void> {
  const { maxTaskAttempts } = workerConfig(env);
  if (lease.cancelled || lease.attempts >= maxTaskAttempts) {
    // Cancelled: its node died before hearing of the cancel, the task stays failed. Out of attempts:
    // node_lost. Either way only unless the task already ended (its result wins).
    await failUnlessEnded(
      env,
      lease.task_id,
      lease.cancelled
        ? CANCELLED_FAILURE
        : {
            code: "node_lost",
            message: `task failed after ${lease.attempts} attempts: the inference node stopped responding (lease expired)`,
          },
    );
    leases.delete(lease);
    queue.runningChanged(lease.owner);
    leases.markFinished(lease.task_id, now);
    return;
  }
  // Back in line first, so a call on the expired lease meanwhile gets 410; then the stores, whose
  // write is refused when the task has already ended.
  leases.delete(lease);
  queue.push(lease, lease.seq);
  queue.runningChanged(lease.owner);
  if (!(await changeTaskStatus(env, lease.task_id, { status: "queued" }))) {
    queue.remove(lease.task_id);
    leases.markFinished(lease.task_id, now);
  }
}
