import type { LeaseRow } from "../../durable-objects/dispatcher/lease-table.ts";
import type { HeartbeatResponse, Lease, NodeHealth } from "../../protocol/node.ts";
import type { TaskKind } from "../../protocol/task.ts";
import { DetailedTranscriptionResult } from "../../protocol/transcription-detail.ts";
import { ApiError, validationError } from "../errors.ts";
import { toValidationIssues } from "../validation.ts";
import { dispatcher } from "./dispatcher.ts";
import { changeTaskStatus, readTask, reportProgress } from "./task-store.ts";

/**
 * The Worker's half of the node protocol. Stores are always written before the Dispatcher lets go
 * of a lease, so a crash in between leaves a lease that expires and is retried, never a lost task.
 */

export interface LeaseAsk {
  node: NodeHealth;
  capacity: number;
  wait_ms: number;
  kinds: TaskKind[];
}

/** Long-polls the Dispatcher and turns granted leases into work orders, marking the tasks processing. */
export async function leaseTasks(env: Env, ask: LeaseAsk): Promise<Lease[]> {
  const waitMs = Math.min(ask.wait_ms, Number(env.LEASE_WAIT_MAX_MS));
  const rows = await dispatcher(env).lease({ ...ask, wait_ms: waitMs });
  const leases: Lease[] = [];
  for (const row of rows) {
    const lease = await startTask(env, row);
    if (lease) leases.push(lease);
  }
  return leases;
}

/** A duplicate hand-off of a task that already ended is dropped here, at the last moment. */
async function startTask(env: Env, row: LeaseRow): Promise<Lease | null> {
  const record = await readTask(env, row.task_id);
  if (!record || record.status === "done" || record.status === "failed") {
    await dispatcher(env).release(row.lease_id, "finished");
    return null;
  }
  await changeTaskStatus(env, row.task_id, { status: "processing", progress: 0 });
  return {
    lease_id: row.lease_id,
    task_id: row.task_id,
    kind: record.kind,
    lane: record.lane,
    attempt: row.attempts,
    params: record.params,
    source: record.source,
    source_path: record.source.type === "object" ? `/internal/v1/leases/${row.lease_id}/source` : null,
    expires_at: row.expires_at,
  };
}

/** A lease the node may still act on. A cancelled one is ended here (task failed, lease released): 410. */
async function liveLease(env: Env, leaseId: string): Promise<LeaseRow> {
  const lease = await dispatcher(env).lookup(leaseId);
  if (!lease) throw leaseGone();
  if (lease.cancelled) {
    await endCancelledLease(env, lease);
    throw new ApiError("gone", `the task was ${CANCELLED_BY_CLIENT}; stop working on it`);
  }
  return lease;
}

function leaseGone(): ApiError {
  return new ApiError("gone", "lease expired or was released; the task went back to the queue or ended");
}

/** The error a task cancelled on its caller's disconnect ends with. */
export const CANCELLED_BY_CLIENT = "cancelled by the client";

/** Stores a cancelled task as failed, unless it already ended (a stored result wins). */
export async function failCancelledTask(env: Env, taskId: string): Promise<boolean> {
  const record = await readTask(env, taskId);
  if (!record || record.status === "done" || record.status === "failed") return false;
  await changeTaskStatus(env, taskId, { status: "failed", error: CANCELLED_BY_CLIENT });
  return true;
}

/**
 * Cancels a task whose synchronous caller went away: it is stored as failed "cancelled by the client"
 * first (stores lead), then the Dispatcher drops it from the line or marks its lease, so the node
 * stops on its next heartbeat. False when the task had already ended.
 *
 * @example request.signal.addEventListener("abort", () => ctx.waitUntil(cancelTask(env, taskId)));
 */
export async function cancelTask(env: Env, taskId: string): Promise<boolean> {
  if (!(await failCancelledTask(env, taskId))) return false;
  await dispatcher(env).cancel(taskId);
  return true;
}

/** Ends a cancelled lease: the task failed (again, if a late write moved it), the lease let go. */
async function endCancelledLease(env: Env, lease: LeaseRow): Promise<void> {
  await failCancelledTask(env, lease.task_id);
  await dispatcher(env).release(lease.lease_id, "finished");
}

export async function heartbeatLease(
  env: Env,
  leaseId: string,
  node: NodeHealth,
  progress: number,
): Promise<HeartbeatResponse> {
  const lease = await dispatcher(env).heartbeat(leaseId, node);
  if (!lease) throw leaseGone();
  if (lease.cancelled) {
    await endCancelledLease(env, lease);
    return { expires_at: lease.expires_at, cancel: true };
  }
  await reportProgress(env, lease.task_id, progress);
  return { expires_at: lease.expires_at, cancel: false };
}

/**
 * Stores a finished task's result (checked against the result schema of its kind) and ends the lease.
 * A transcription's decoder `detail` (interactive tasks) goes to the fast store only, before the final
 * status that wakes a waiting synchronous caller; the stored result never carries it.
 */
export async function completeLease(
  env: Env,
  leaseId: string,
  result: Record<string, unknown>,
): Promise<void> {
  const lease = await liveLease(env, leaseId);
  let stored = result;
  if (lease.kind === "transcribe") {
    const checked = DetailedTranscriptionResult.safeParse(result);
    if (!checked.success) {
      throw validationError(toValidationIssues(checked.error, "json", result).map(prefixResult));
    }
    const { detail, ...rest } = checked.data;
    if (detail) await jobState(env, lease.task_id).writeDetail(detail);
    stored = rest;
  }
  await changeTaskStatus(env, lease.task_id, { status: "done", result: stored, error: null });
  await dispatcher(env).release(leaseId, "finished");
}

function jobState(env: Env, taskId: string) {
  return env.JOB_STATE.get(env.JOB_STATE.idFromName(taskId));
}

function prefixResult<T extends { loc: (string | number)[] }>(issue: T): T {
  const [root, ...rest] = issue.loc;
  return { ...issue, loc: [root ?? "body", "result", ...rest] };
}

/** A failed attempt: back to the queue while retryable and attempts remain, else the task fails. */
export async function failLease(
  env: Env,
  leaseId: string,
  failure: { error: string; retryable: boolean },
): Promise<{ requeued: boolean }> {
  const lease = await liveLease(env, leaseId);
  const requeue = failure.retryable && lease.attempts < Number(env.MAX_TASK_ATTEMPTS);
  if (requeue) {
    await changeTaskStatus(env, lease.task_id, { status: "queued", progress: 0 });
  } else {
    await changeTaskStatus(env, lease.task_id, { status: "failed", error: failure.error });
  }
  await dispatcher(env).release(leaseId, requeue ? "requeue" : "finished");
  return { requeued: requeue };
}

/** The task behind a live lease, for streaming its stored media. */
export async function leasedTaskSource(env: Env, leaseId: string) {
  const lease = await liveLease(env, leaseId);
  const record = await readTask(env, lease.task_id);
  if (!record) throw new ApiError("not_found", "task not found");
  return record.source;
}
