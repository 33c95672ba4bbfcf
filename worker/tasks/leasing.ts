import type { LeaseRow } from "../../durable-objects/dispatcher/lease-table.ts";
import type { HeartbeatResponse, Lease, NodeHealth } from "../../protocol/node.ts";
import type { TaskKind } from "../../protocol/task.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
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

async function liveLease(env: Env, leaseId: string): Promise<LeaseRow> {
  const lease = await dispatcher(env).lookup(leaseId);
  if (!lease) throw leaseGone();
  return lease;
}

function leaseGone(): ApiError {
  return new ApiError("gone", "lease expired or was released; the task went back to the queue or ended");
}

export async function heartbeatLease(
  env: Env,
  leaseId: string,
  node: NodeHealth,
  progress: number,
): Promise<HeartbeatResponse> {
  const lease = await dispatcher(env).heartbeat(leaseId, node);
  if (!lease) throw leaseGone();
  await reportProgress(env, lease.task_id, progress);
  return { expires_at: lease.expires_at };
}

/** Stores a finished task's result (checked against the result schema of its kind) and ends the lease. */
export async function completeLease(
  env: Env,
  leaseId: string,
  result: Record<string, unknown>,
): Promise<void> {
  const lease = await liveLease(env, leaseId);
  const checked = lease.kind === "transcribe" ? TranscriptionResult.safeParse(result) : null;
  if (checked && !checked.success) {
    throw validationError(toValidationIssues(checked.error, "json", result).map(prefixResult));
  }
  await changeTaskStatus(env, lease.task_id, {
    status: "done",
    result: checked?.data ?? result,
    error: null,
  });
  await dispatcher(env).release(leaseId, "finished");
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
